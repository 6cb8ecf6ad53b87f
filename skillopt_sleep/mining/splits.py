"""Train/val/test assignment that never leaks a near-duplicate and never moves.

* A *key* is a normalized intent; keys of one cluster that are near-duplicates
  (character n-gram cosine ≥ ``dup_threshold``) share a *group*; the group's split is the
  split of all its keys. So "fix the test in foo.py" and "fix the test in bar.py" (same
  key) and "fix teh test in foo.py" (near-duplicate key) can never sit in train and val.
* The split of a key is stored the first time it is seen and read back afterwards, so
  new sessions never move an old task between splits.
* New groups of a cluster that has no val (then no test) group yet go there first,
  newest first, so the gate measures what the user asks today; other new groups are
  placed by a hash of the group id (stable, not a shuffle).
* A new key that is a near-duplicate of groups already in *different* splits cannot be
  placed without leaking; it is marked ``excluded`` and reported.
* A cluster with fewer than ``min_groups`` groups is too small to split: all train,
  reported.
* Val and test hold at most ``caps`` tasks of new groups each (the gate's and the test's
  cost); groups the hash would put in a full split go to train, which costs nothing per
  task. Placements already stored are never moved to honour a cap.
* A key is a request's normalized words, plus a digest of the whole request when
  something was pasted with it (``request_key``): the same words with different diffs
  are different keys, never near-duplicates, so each is placed on its own.
"""

from __future__ import annotations

import hashlib
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

import numpy as np
import sqlite_utils
from sklearn.feature_extraction.text import TfidfVectorizer

EXCLUDED = "excluded"


@dataclass(frozen=True)
class SplitParams:
    fractions: Mapping[str, float] = field(
        default_factory=lambda: {"train": 0.6, "val": 0.2, "test": 0.2}
    )
    dup_threshold: float = 0.8
    min_groups: int = 3
    # Most tasks a cluster's new groups are placed in val and test; beyond, they go to
    # train. Val's size is the gate's cost per sweep, test's the end-of-night test's; train
    # costs nothing per task (a step samples a minibatch). None: no cap.
    caps: Mapping[str, int | None] = field(default_factory=lambda: {"val": None, "test": None})


PASTE = " zpaste"  # a key's pasted-content tag: a request's words + what was pasted with them


def request_key(norm: str, text: str) -> str:
    """A request's split key: its normalized words, and when something was pasted with them
    (a diff, a log: the words show a ``zblob``), a digest of the whole request. Requests
    with the same words and different pastes are different tasks; the same words with
    nothing pasted ("fix the test in foo.py", "… in bar.py") share a key."""
    if "zblob" not in norm.split():
        return norm
    digest = hashlib.sha1(" ".join(text.split()).encode()).hexdigest()[:12]
    return f"{norm}{PASTE}{digest}"


def _words_and_paste(key: str) -> tuple[str, str]:
    words, _, paste = key.partition(PASTE)
    return words, paste


def stable_unit(text: str) -> float:
    """A number in [0, 1) fixed by ``text``: the same on every machine and every night."""
    return int(hashlib.sha256(text.encode()).hexdigest()[:12], 16) / 16**12


def hash_split(group_id: str, fractions: Mapping[str, float]) -> str:
    u = stable_unit(group_id)
    total = sum(fractions.values()) or 1.0
    acc = 0.0
    for name in ("train", "val", "test"):
        acc += fractions.get(name, 0.0) / total
        if u < acc:
            return name
    return "train"


def _balanced_hash(gid: str, count: Counter[str], fractions: Mapping[str, float]) -> str:
    """The hash's split, unless that split already holds more than one group beyond its
    share: small clusters would otherwise often get no train task at all."""
    choice = hash_split(gid, fractions)
    total = sum(fractions.values()) or 1.0
    n = sum(count.values()) + 1
    deficit = {s: fractions.get(s, 0.0) / total * n - count[s] for s in ("train", "val", "test")}
    if deficit[choice] < 0.0:
        choice = max(("train", "val", "test"), key=lambda s: deficit[s])
    return choice


def group_id_for(key: str) -> str:
    return "g-" + hashlib.sha1(key.encode()).hexdigest()[:12]


# Key pairs compared at once: a kind's keys are alike, so a block's similarities are
# nearly dense (2000 keys at once against the largest kind's held 1.3 GB at 100k sessions).
NEAR_DUP_PAIRS = 2_000_000


def _near_dups(keys: Sequence[str], threshold: float) -> list[set[int]]:
    """For each key, the indices of the other keys it near-duplicates: words alike and
    the same paste (or none)."""
    if len(keys) < 2:
        return [set() for _ in keys]
    parts = [_words_and_paste(k) for k in keys]
    vec = TfidfVectorizer(analyzer="char_wb", ngram_range=(3, 4), sublinear_tf=True)
    x = vec.fit_transform([words or "zempty" for words, _paste in parts])
    out: list[set[int]] = [set() for _ in keys]
    xt = x.T.tocsc()
    rows_at_once = max(1, NEAR_DUP_PAIRS // x.shape[0])
    for start in range(0, x.shape[0], rows_at_once):
        sims = (x[start : start + rows_at_once] @ xt).tocoo()
        rows = sims.row + start
        mask = (sims.data >= threshold) & (rows != sims.col)
        for a, b in zip(rows[mask], sims.col[mask], strict=True):
            if parts[int(a)][1] == parts[int(b)][1]:
                out[int(a)].add(int(b))
    return out


@dataclass
class SplitResult:
    key_split: dict[str, str]  # key -> split
    key_group: dict[str, str]  # key -> group id
    too_small: bool
    excluded: list[str]


def assign_cluster(
    db: sqlite_utils.Database,
    cluster_id: str,
    keys_newest_first: Sequence[str],
    params: SplitParams,
    now: str | None = None,
    tasks_per_key: Mapping[str, int] | None = None,
) -> SplitResult:
    """Place every key of one cluster; store the placements of new keys.
    ``tasks_per_key``: the distinct requests each key stands for (1 when not given), which
    the val and test caps count."""
    now = now or datetime.now(UTC).isoformat()
    keys = list(dict.fromkeys(keys_newest_first))
    stored: dict[str, dict[str, Any]] = {}
    for chunk in range(0, len(keys), 500):
        part = keys[chunk : chunk + 500]
        marks = ",".join("?" * len(part))
        for row in db.query(f"select * from split_keys where key in ({marks})", part):
            stored[row["key"]] = row
    dups = _near_dups(keys, params.dup_threshold)
    group: dict[str, str] = {k: stored[k]["group_id"] for k in stored}
    split: dict[str, str] = {k: stored[k]["split"] for k in stored}
    # New keys are placed oldest first, so a near-duplicate joins the earlier group.
    new_idx = [i for i in range(len(keys) - 1, -1, -1) if keys[i] not in stored]
    members: dict[str, list[str]] = {}  # new, not yet placed group -> its keys
    for i in new_idx:
        key = keys[i]
        near = [keys[j] for j in dups[i] if keys[j] in group]
        placed_near = [k for k in near if split[k] not in ("", EXCLUDED)]
        if len({split[k] for k in placed_near}) > 1:
            group[key], split[key] = group_id_for(key), EXCLUDED
            continue
        if placed_near:
            target, target_split = group[placed_near[0]], split[placed_near[0]]
        elif near:
            target, target_split = group[near[0]], split[near[0]]
        else:
            target, target_split = group_id_for(key), ""
        # Unplaced groups this key touches become one group with it.
        for k in near:
            gid = group[k]
            if split[k] == "" and gid != target:
                for moved in members.pop(gid, []):
                    group[moved], split[moved] = target, target_split
                    if not target_split:
                        members.setdefault(target, []).append(moved)
        group[key], split[key] = target, target_split
        if not target_split:
            members.setdefault(target, []).append(key)
    # Groups still unplaced get their split now.
    groups_newest_first = list(dict.fromkeys(group[k] for k in keys))
    n_groups = len(groups_newest_first)
    too_small = n_groups < params.min_groups
    placed = {group[k]: split[k] for k in keys if split[k] and split[k] != EXCLUDED}
    count = Counter(placed.values())
    size: Counter[str] = Counter()  # tasks per group
    for k in keys:
        size[group[k]] += (tasks_per_key or {}).get(k, 1)
    held = Counter({sp: 0 for sp in ("train", "val", "test")})  # tasks per split
    for gid, sp in placed.items():
        held[sp] += size[gid]
    for gid in groups_newest_first:
        if gid in placed:
            continue
        if too_small:
            choice = "train"
        elif not count["val"] and params.fractions.get("val", 0) > 0:
            choice = "val"
        elif not count["test"] and params.fractions.get("test", 0) > 0:
            choice = "test"
        else:
            choice = _balanced_hash(gid, count, params.fractions)
            cap = params.caps.get(choice)
            if cap is not None and held[choice] + size[gid] > cap:
                choice = "train"  # val / test are full: the rest feeds reflection
        placed[gid] = choice
        count[choice] += 1
        held[choice] += size[gid]
    for k in keys:
        if split[k] != EXCLUDED:
            split[k] = placed[group[k]]
    rows = [
        {
            "key": k,
            "group_id": group[k],
            "cluster_id": cluster_id,
            "split": split[k],
            "assigned_at": now,
        }
        for k in keys
        if k not in stored
    ]
    if rows:
        db.table("split_keys").insert_all(rows, pk="key", replace=True)
    excluded = [k for k in keys if split[k] == EXCLUDED]
    return SplitResult(split, group, too_small, excluded)


def newest_first(keys: Sequence[str], times: Sequence[str]) -> list[str]:
    order = np.argsort(np.asarray(times, dtype=object), kind="stable")[::-1]
    return [keys[i] for i in order]
