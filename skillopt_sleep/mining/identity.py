"""Stable cluster ids and skill names across nights.

Tonight's clusters are matched onto stored ones by shared members (turns already seen
keep their cluster), greedily from the largest overlap, so a cluster that grew keeps its
id and a cluster that split keeps it on its larger part. A cluster whose members are all
new (older transcripts were deleted) is matched by the similarity of its intents to a
stored cluster's remembered intents. Only then is a new id minted, from the cluster's
earliest turn, so a fresh store mines the same ids from the same logs.
"""

from __future__ import annotations

import hashlib
import re
from collections import Counter
from collections.abc import Sequence
from statistics import median

import numpy as np
import sqlite_utils

from skillopt_sleep.mining.vectors import build
from skillopt_sleep.mining.words import STOP_WORDS


def mint_id(first_turn_id: str, taken: set[str]) -> str:
    base = "c-" + hashlib.sha1(first_turn_id.encode()).hexdigest()[:10]
    cid, n = base, 2
    while cid in taken:
        cid, n = f"{base}-{n}", n + 1
    return cid


def match(
    db: sqlite_utils.Database,
    members: Sequence[Sequence[str]],  # per new cluster: its turn ids, oldest first
    norms: Sequence[Sequence[str]],  # per new cluster: its normalized intents
    sim_threshold: float,
) -> list[str]:
    """An id per new cluster: a stored id where it is the same task, else a new one."""
    old_of: dict[str, str] = {
        r["turn_id"]: r["cluster_id"]
        for r in db.query("select turn_id, cluster_id from cluster_members")
    }
    pairs: list[tuple[int, int, str]] = []
    for i, turns in enumerate(members):
        for old, n in Counter(old_of[t] for t in turns if t in old_of).items():
            pairs.append((-n, i, old))
    pairs.sort()
    ids: list[str | None] = [None] * len(members)
    used: set[str] = set()
    for _, i, old in pairs:
        if ids[i] is None and old not in used:
            ids[i] = old
            used.add(old)
    _match_by_text(db, ids, norms, used, sim_threshold)
    taken = {r["id"] for r in db.query("select id from clusters")} | used
    for i, cid in enumerate(ids):
        if cid is None:
            cid = mint_id(members[i][0], taken)
            ids[i] = cid
            taken.add(cid)
    return [str(c) for c in ids]


def _match_by_text(
    db: sqlite_utils.Database,
    ids: list[str | None],
    norms: Sequence[Sequence[str]],
    used: set[str],
    sim_threshold: float,
) -> None:
    todo = [i for i, c in enumerate(ids) if c is None and len(norms[i]) >= 2]
    if not todo:
        return
    old_norms: dict[str, list[str]] = {}
    for r in db.query("select cluster_id, norm from cluster_members"):
        if r["cluster_id"] not in used:
            old_norms.setdefault(r["cluster_id"], []).append(r["norm"] or "")
    old_ids = [c for c, v in old_norms.items() if len(v) >= 2]
    if not old_ids:
        return
    texts: list[str] = []
    spans: list[tuple[int, int]] = []
    for group in [list(norms[i])[:200] for i in todo] + [old_norms[c][:200] for c in old_ids]:
        spans.append((len(texts), len(texts) + len(group)))
        texts.extend(group)
    x = build(texts).matrix
    means = np.vstack([np.asarray(x[a:b].mean(axis=0)).ravel() for a, b in spans])
    new_m, old_m = means[: len(todo)], means[len(todo) :]
    sims = new_m @ old_m.T
    order = np.dstack(np.unravel_index(np.argsort(-sims, axis=None), sims.shape))[0]
    for a, b in order:
        if sims[a, b] < sim_threshold:
            break
        i, old = todo[a], old_ids[b]
        if ids[i] is None and old not in used:
            ids[i] = old
            used.add(old)


_PLACEHOLDER = re.compile(r"^z(path|num|hash|ident|code|url|blob|empty)$")
# What a redaction placeholder ``[REDACTED:<kind>]`` becomes in a normalized intent.
_REDACTED = re.compile(r"\bredacted(?: \S+)?")
# A slug word is a word: letters, a digit only in a short name (k8s, ec2, utf8). Key
# material, a password or a hash that redaction missed is longer or holds a digit.
_WORD = re.compile(r"[a-z]{3,20}|(?=[a-z0-9]*[a-z])[a-z0-9]{3,5}")


def _slug_words(norm: str) -> list[str]:
    """The words of a normalized intent a skill may be named after: never a redaction
    placeholder (``redacted`` and its kind), a slot token, or anything secret-shaped (the
    name becomes a directory name and appears in reports and prompts)."""
    return [
        w
        for w in _REDACTED.sub(" ", norm).split()
        if _WORD.fullmatch(w) and w not in STOP_WORDS and not _PLACEHOLDER.match(w)
    ]


def slug(norms: Sequence[str], taken: set[str], words: int = 3) -> str:
    """A readable skill name from the words most requests of the kind use."""
    df: Counter[str] = Counter()
    for n in norms:
        df.update(set(_slug_words(n)))
    top = [w for w, _ in sorted(df.items(), key=lambda kv: (-kv[1], kv[0]))[:words]]
    # In the order people say them ("commit message", not "message commit").
    where: dict[str, list[float]] = {w: [] for w in top}
    for n in norms:
        toks = n.split()
        for w in top:
            if w in toks:
                where[w].append(toks.index(w) / max(1, len(toks)))
    top.sort(key=lambda w: (float(median(where[w])) if where[w] else 1.0, w))
    base = "-".join(re.sub(r"[^a-z0-9]+", "", w.lower()) for w in top).strip("-") or "task"
    base = base[:40].strip("-") or "task"
    name, suffix = base, 2
    while name in taken:
        name, suffix = f"{base}-{suffix}", suffix + 1
    return name
