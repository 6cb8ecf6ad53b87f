"""The session corpora of the mining benchmark: generated logs, real ingest, real ``mine``.

``prepare`` writes one generator's logs (``benchmarks/sessions/``) and ingests them into a
fresh store; ``mine_and_score`` (in another process, so its peak RSS is mining's alone) runs
``mine`` on a copy of that store and scores what it wrote (``clusters``, ``cluster_members``)
against the generator's ground truth:

* pairwise precision / recall / F1 over the generator's requests (one-offs count as
  singletons; a request mining did not take as a request is a singleton too);
* kinds found as one recurring cluster (exactly one recurring cluster whose majority is the
  kind), kinds split over several recurring clusters;
* false recurring clusters (majority one-offs: a night spent training on noise);
* recurring clusters per user skill (the goal is one: two clusters training one skill is
  one kind of work split in two);
* mining seconds (``mine`` as a whole), wall and CPU (the machine is shared: CPU is the
  steadier figure; the load average at the end is kept), and the mining process's peak RSS.
"""

from __future__ import annotations

import importlib
import json
import os
import resource
import shutil
import time
from collections import Counter, defaultdict
from pathlib import Path
from typing import Any

from sklearn.metrics.cluster import pair_confusion_matrix

DB = "skillopt-sleep.db"


def generator(name: str) -> Any:
    """``benchmarks.sessions.<name>``: a module with ``write(root, seed, n_sessions)``."""
    return importlib.import_module(f"benchmarks.sessions.{name}")


def _config(home: Path) -> dict[str, Any]:
    from skillopt_sleep.settings import config as config_mod

    values = {  # a generator lays the tools' homes out as dot folders or plain ones
        "sources.claude.roots": [str(home / ".claude"), str(home / "claude")],
        "sources.codex.roots": [str(home / ".codex"), str(home / "codex")],
        "state_dir": str(home / "state"),
    }
    return config_mod.load(None, overrides=values, environ={})


def prepare(name: str, seed: int, n_sessions: int, where: Path) -> dict[str, Any]:
    """Logs and an ingested store under ``where`` (replaced), and the truth beside them."""
    from skillopt_sleep.settings.logs import ingest_logs
    from skillopt_sleep.store import open_store

    shutil.rmtree(where, ignore_errors=True)
    home = where / "home"
    home.mkdir(parents=True)
    t0 = time.perf_counter()
    truth = generator(name).write(home, seed=seed, n_sessions=n_sessions)
    t1 = time.perf_counter()
    db = open_store(home / "state")
    try:
        report = ingest_logs(db, _config(home))
    finally:
        db.close()
    t2 = time.perf_counter()
    (where / "truth.json").write_text(json.dumps(truth))
    for logs in (".claude", "claude", ".codex", "codex"):  # the store holds what mining reads
        shutil.rmtree(home / logs, ignore_errors=True)
    info = {"generate_seconds": round(t1 - t0, 1), "ingest_seconds": round(t2 - t1, 1),
            "turns": report.turns, "tool_calls": report.tool_calls}  # fmt: skip
    (where / "prepared.json").write_text(json.dumps(info))
    return info


def mine_and_score(where: Path) -> dict[str, Any]:
    """Mine a copy of the prepared store and score it; this process's peak RSS is mining's."""
    from skillopt_sleep.mining import mine
    from skillopt_sleep.store import open_store

    state = where / "mined"
    shutil.rmtree(state, ignore_errors=True)
    state.mkdir(mode=0o700)
    shutil.copy2(where / "home" / "state" / DB, state / DB)
    truth = json.loads((where / "truth.json").read_text())
    db = open_store(state)
    before = resource.getrusage(resource.RUSAGE_SELF)
    t0 = time.perf_counter()
    result = mine(db, _config(where / "home"))
    seconds = time.perf_counter() - t0
    after = resource.getrusage(resource.RUSAGE_SELF)
    cpu = after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime
    load = os.getloadavg()  # the machine is shared: wall seconds depend on it, CPU less
    row = score(db, truth)
    db.close()
    shutil.rmtree(state, ignore_errors=True)
    return {**row, "mined_requests": result.n_requests, "mining_seconds": round(seconds, 2),
            "mining_cpu_seconds": round(cpu, 2), "load_avg_at_end": [round(x, 2) for x in load],
            "peak_rss_mb": round(after.ru_maxrss / 1024),
            "rss_before_mining_mb": round(before.ru_maxrss / 1024)}  # fmt: skip


def _turn_of(db: Any, truth: dict[str, Any]) -> list[str | None]:
    """Per truth request, the turn holding it: the next turn of its session (in order) whose
    request text (a typed request or a ``/skill args`` command) is the request's text."""
    turns: dict[str, list[tuple[str, str]]] = defaultdict(list)
    for r in db.query(
        "select id, session_id, coalesce(nullif(user_text, ''), command, '') as text"
        " from turns order by session_id, idx"
    ):
        turns[r["session_id"]].append((r["id"], (r["text"] or "").strip()))
    pos: Counter[str] = Counter()
    out: list[str | None] = []
    for req in truth["requests"]:
        sid, text = req["session_id"], req["text"].strip()
        found = None
        seq = turns.get(sid, [])
        for i in range(pos[sid], len(seq)):
            if seq[i][1] == text:
                found, pos[sid] = seq[i][0], i + 1
                break
        out.append(found)
    return out


FOLLOW_UP, OTHER = "(follow-up)", "(no request)"
ONE_OFF_TEMPLATE = "(one-off template)"


def _task_of(req: dict[str, Any], i: int) -> str:
    """The truth's task of the ``i``-th request: its kind, its one-off template, or itself."""
    if req["kind"]:
        return req["kind"]
    if req.get("one_off") is not None:
        return f"{ONE_OFF_TEMPLATE} {req['one_off']}"
    return f"one-off-{i}"


def score(db: Any, truth: dict[str, Any]) -> dict[str, Any]:
    """Pairwise quality, kinds found, false recurring clusters and clusters per skill.

    Pairwise figures are over the generator's requests. A one-off is a task of its own,
    unless the generator says which template it came from (``one_off``): one-offs of one
    template are the same request asked again, one task. A recurring cluster is judged by
    the majority of all its members: a kind, a one-off template asked again (counted apart,
    ``recurring_one_offs``: recurring, but not planted), a one-off, a follow-up the generator
    wrote (a correction or thanks mined as a request) or a turn the generator did not list;
    a cluster whose majority is none of the first two is a false recurring cluster, and the
    two kinds of non-request are counted apart (``false_of_follow_ups``): follow-ups are
    never requests, which is evidence loading's part, not clustering's."""
    items = truth["requests"]
    turn_ids = _turn_of(db, truth)
    cluster_of = {r["turn_id"]: r["cluster_id"] for r in db.query(
        "select turn_id, cluster_id from cluster_members")}  # fmt: skip
    clusters = {r["id"]: r for r in db.query("select * from clusters where active = 1")}
    labels, kinds = [], []
    by_cluster: dict[str, Counter] = defaultdict(Counter)
    unmined = follow_ups_mined = 0
    listed = set()
    without_turn = sum(1 for r, t in zip(items, turn_ids, strict=True) if t is None)
    for i, (req, tid) in enumerate(zip(items, turn_ids, strict=True)):
        cid = cluster_of.get(tid) if tid else None
        listed.add(tid)
        if req.get("follow_up"):
            if cid is not None:
                follow_ups_mined += 1
                by_cluster[cid][FOLLOW_UP] += 1
            continue
        if cid is None:
            unmined += 1
            cid = f"unmined-{i}"
        labels.append(cid)
        kinds.append(_task_of(req, i))
        by_cluster[cid][kinds[-1]] += 1
    for tid, cid in cluster_of.items():
        if tid not in listed:
            by_cluster[cid][OTHER] += 1
    reqs = [r for r in items if not r.get("follow_up")]
    (_, fp), (fn, tp) = pair_confusion_matrix(kinds, labels) // 2
    precision = tp / (tp + fp) if tp + fp else 1.0
    recall = tp / (tp + fn) if tp + fn else 1.0
    f1 = 2 * precision * recall / (precision + recall) if precision + recall else 0.0
    recurring = [c for c, row in clusters.items() if row["recurring"]]
    majority = {c: by_cluster[c].most_common(1)[0][0] if by_cluster[c] else None
                for c in recurring}  # fmt: skip
    planted = sorted({r["kind"] for r in reqs if r["kind"]})
    per_kind = Counter(k for k in majority.values() if k in planted)
    asked_again = [c for c in recurring if str(majority[c]).startswith(ONE_OFF_TEMPLATE)]
    false = [c for c in recurring if majority[c] not in planted and c not in asked_again]
    skills = {k: v["skill"] for k, v in truth["kinds"].items() if v["skill"]}
    per_skill = Counter(
        clusters[c]["skill"] for c in recurring if not clusters[c]["managed"]
    )  # fmt: skip
    return {
        "requests": len(reqs),
        "sessions": len({r["session_id"] for r in reqs}),
        "planted_kinds": len(planted),
        "one_offs": sum(r["kind"] is None for r in reqs),
        "unmined_requests": unmined,  # not taken as requests (or not found in the store)
        "requests_without_turn": without_turn,
        "follow_ups_mined": follow_ups_mined,
        "recurring_clusters": len(recurring),
        "precision": round(float(precision), 4),
        "recall": round(float(recall), 4),
        "f1": round(float(f1), 4),
        "kinds_found": sum(per_kind[k] == 1 for k in planted),
        "kinds_split": sum(per_kind[k] > 1 for k in planted),
        "kinds_missed": [k for k in planted if per_kind[k] == 0],
        "recurring_one_offs": len(asked_again),
        "false_recurring": len(false),
        "false_of_follow_ups": sum(majority[c] in (FOLLOW_UP, OTHER) for c in false),
        "skills": len(skills),
        "recurring_per_skill": {s: per_skill.get(s, 0) for s in sorted(set(skills.values()))},
        "extra_skill_clusters": sum(max(0, n - 1) for n in per_skill.values()),
    }
