"""Read mined clusters and tasks back, with reviewed tasks winning over mined ones.

This is what the CLI prints and what the trainer is fed: a reviewed task (imported by a
person) replaces the mined task of the same id, and reviewed tasks of new ids are added.
"""

from __future__ import annotations

import json
from typing import Any

import sqlite_utils

from skillopt_sleep.mining.store import last_run, loads
from trainer.tasks import Task


def _mined(db: sqlite_utils.Database) -> dict[str, Task]:
    out: dict[str, Task] = {}
    for r in db.query("select * from tasks order by cluster_id, split, id"):
        out[r["id"]] = Task.from_dict(
            {
                "id": r["id"],
                "prompt": r["prompt"],
                "split": r["split"],
                "judges": loads(r["judges"], []),
                "group": r["group_id"] or "",
                "meta": loads(r["meta"], {}),
                "workspace": loads(r.get("workspace"), None),
            }
        )
    return out


def all_tasks(db: sqlite_utils.Database) -> dict[str, tuple[Task, bool]]:
    """Task id -> (task, reviewed)."""
    out: dict[str, tuple[Task, bool]] = {k: (t, False) for k, t in _mined(db).items()}
    for r in db.query("select id, data from reviewed_tasks order by id"):
        out[r["id"]] = (Task.from_dict(json.loads(r["data"])), True)
    return out


def load_tasks(
    db: sqlite_utils.Database, split: str | None = None, cluster_id: str | None = None
) -> list[Task]:
    """Tasks for the trainer, reviewed versions first-class; optional filters."""
    out = []
    for task, _ in all_tasks(db).values():
        if split is not None and task.split != split:
            continue
        if cluster_id is not None and task.meta.get("cluster_id") != cluster_id:
            continue
        out.append(task)
    return sorted(out, key=lambda t: (str(t.meta.get("cluster_id", "")), t.split, t.id))


def _task_dict(task: Task, reviewed: bool) -> dict[str, Any]:
    return {
        "id": task.id,
        "split": task.split,
        "intent": task.meta.get("intent") or task.prompt[:300],
        "group": task.group,
        "reviewed": reviewed,
        "judges": [j.to_dict() for j in task.judges],
        # judges the user's own sessions contradicted, each with the reason: never used
        "dropped_judges": list(task.meta.get("dropped_judges", [])),
    }


def cluster_dicts(
    db: sqlite_utils.Database, include_inactive: bool = False
) -> list[dict[str, Any]]:
    """Clusters ranked (recurring first, then score), each with members and tasks."""
    where = "" if include_inactive else "where active = 1"
    clusters = list(db.query(f"select * from clusters {where} order by recurring desc,"
                             " score desc, n_turns desc, id"))  # fmt: skip
    members: dict[str, list[dict[str, str]]] = {}
    for r in db.query("select turn_id, session_id, cluster_id from cluster_members"
                      " order by started_at, turn_id"):  # fmt: skip
        members.setdefault(r["cluster_id"], []).append(
            {"turn_id": r["turn_id"], "session_id": r["session_id"]}
        )
    tasks: dict[str, list[dict[str, Any]]] = {}
    for task, reviewed in all_tasks(db).values():
        cid = str(task.meta.get("cluster_id", ""))
        tasks.setdefault(cid, []).append(_task_dict(task, reviewed))
    run = last_run(db)
    too_small = set(loads(run["report"], {}).get("too_small_to_split", [])) if run else set()
    out = []
    for rank, c in enumerate(clusters, 1):
        out.append(
            {
                "id": c["id"],
                "rank": rank,
                "skill": c["skill"],
                "managed_skill": bool(c["managed"]),
                "description": c["description"],
                "recurring": bool(c["recurring"]),
                "n_turns": c["n_turns"],
                "n_sessions": c["n_sessions"],
                "n_days": c["n_days"],
                "failure_rate": c["failure_rate"],
                "score": c["score"],
                "first_seen": c["first_seen"],
                "last_seen": c["last_seen"],
                "sample_intents": loads(c["sample_intents"], []),
                "too_small_to_split": c["id"] in too_small,
                "members": members.get(c["id"], []),
                "tasks": sorted(tasks.get(c["id"], []), key=lambda t: (t["split"], t["id"])),
            }
        )
    return out
