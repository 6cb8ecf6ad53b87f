"""Read mined clusters and tasks back, with reviewed tasks winning over mined ones.

This is what the CLI prints and what the trainer is fed: a reviewed task (imported by a
person) replaces the mined task of the same id, and reviewed tasks of new ids are added.
A cluster is read as a typed ``Cluster`` (what the night's plan and replay start from);
``to_json`` is the dict ``tasks list --json`` prints for it.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import asdict, dataclass
from typing import Any

import sqlite_utils

from skillopt_sleep.mining.store import last_run, loads
from skillopt_sleep.mining.verify import Dropped
from trainer.tasks import Judge, Task


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


JsonDict = dict[str, Any]


@dataclass(frozen=True, slots=True)
class ClusterMember:
    """A user's turn that mining put in the cluster."""

    turn_id: str
    session_id: str

    def to_json(self) -> JsonDict:
        return asdict(self)


@dataclass(frozen=True, slots=True)
class ClusterTask:
    """One of a cluster's tasks as a listing shows it (the task itself is a ``Task``)."""

    id: str
    split: str
    intent: str
    group: str
    reviewed: bool
    judges: tuple[Judge, ...]
    # judges the user's own sessions contradicted, each with the reason: never used
    dropped_judges: tuple[Dropped, ...]

    @classmethod
    def of(cls, task: Task, reviewed: bool) -> ClusterTask:
        dropped = tuple(Dropped.from_dict(d) for d in task.meta.get("dropped_judges", []))
        return cls(task.id, task.split, task.meta.get("intent") or task.prompt[:300],
                   task.group, reviewed, task.judges, dropped)  # fmt: skip

    def to_json(self) -> JsonDict:
        return {"id": self.id, "split": self.split, "intent": self.intent, "group": self.group,
                "reviewed": self.reviewed, "judges": [j.to_dict() for j in self.judges],
                "dropped_judges": [d.to_dict() for d in self.dropped_judges]}  # fmt: skip

    @classmethod
    def from_json(cls, d: Mapping[str, Any]) -> ClusterTask:
        return cls(d["id"], d["split"], d["intent"], d["group"], d["reviewed"],
                   tuple(Judge.from_dict(j) for j in d["judges"]),
                   tuple(Dropped.from_dict(x) for x in d["dropped_judges"]))  # fmt: skip


@dataclass(frozen=True, slots=True)
class Cluster:
    """A mined cluster of the user's requests, ranked among the others: the skill it
    maps to, its counts, its members and its tasks."""

    id: str
    rank: int
    skill: str
    managed_skill: bool  # mining's label; the store's managed_skills decides writing
    description: str
    recurring: bool
    n_turns: int
    n_sessions: int
    n_days: int
    failure_rate: float
    score: float
    first_seen: str
    last_seen: str
    sample_intents: tuple[str, ...]
    too_small_to_split: bool
    members: tuple[ClusterMember, ...]
    tasks: tuple[ClusterTask, ...]  # by split, then id

    def to_json(self) -> JsonDict:
        """What ``tasks list --json`` prints for the cluster (``tasks show`` adds the
        shape's version)."""
        return {"id": self.id, "rank": self.rank, "skill": self.skill,
                "managed_skill": self.managed_skill, "description": self.description,
                "recurring": self.recurring, "n_turns": self.n_turns,
                "n_sessions": self.n_sessions, "n_days": self.n_days,
                "failure_rate": self.failure_rate, "score": self.score,
                "first_seen": self.first_seen, "last_seen": self.last_seen,
                "sample_intents": list(self.sample_intents),
                "too_small_to_split": self.too_small_to_split,
                "members": [m.to_json() for m in self.members],
                "tasks": [t.to_json() for t in self.tasks]}  # fmt: skip

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> Cluster:
        d = data
        return cls(d["id"], d["rank"], d["skill"], d["managed_skill"], d["description"],
                   d["recurring"], d["n_turns"], d["n_sessions"], d["n_days"],
                   d["failure_rate"], d["score"], d["first_seen"], d["last_seen"],
                   tuple(d["sample_intents"]), d["too_small_to_split"],
                   tuple(ClusterMember(m["turn_id"], m["session_id"]) for m in d["members"]),
                   tuple(ClusterTask.from_json(t) for t in d["tasks"]))  # fmt: skip


def load_clusters(db: sqlite_utils.Database, include_inactive: bool = False) -> list[Cluster]:
    """Clusters ranked (recurring first, then score), each with members and tasks."""
    where = "" if include_inactive else "where active = 1"
    rows = list(db.query(f"select * from clusters {where} order by recurring desc,"
                         " score desc, n_turns desc, id"))  # fmt: skip
    members: dict[str, list[ClusterMember]] = {}
    for r in db.query("select turn_id, session_id, cluster_id from cluster_members"
                      " order by started_at, turn_id"):  # fmt: skip
        members.setdefault(r["cluster_id"], []).append(ClusterMember(r["turn_id"], r["session_id"]))
    tasks: dict[str, list[ClusterTask]] = {}
    for task, reviewed in all_tasks(db).values():
        cid = str(task.meta.get("cluster_id", ""))
        tasks.setdefault(cid, []).append(ClusterTask.of(task, reviewed))
    run = last_run(db)
    too_small = set(loads(run["report"], {}).get("too_small_to_split", [])) if run else set()
    return [
        Cluster(
            id=c["id"],
            rank=rank,
            skill=c["skill"],
            managed_skill=bool(c["managed"]),
            description=c["description"],
            recurring=bool(c["recurring"]),
            n_turns=c["n_turns"],
            n_sessions=c["n_sessions"],
            n_days=c["n_days"],
            failure_rate=c["failure_rate"],
            score=c["score"],
            first_seen=c["first_seen"],
            last_seen=c["last_seen"],
            sample_intents=tuple(loads(c["sample_intents"], [])),
            too_small_to_split=c["id"] in too_small,
            members=tuple(members.get(c["id"], [])),
            tasks=tuple(sorted(tasks.get(c["id"], []), key=lambda t: (t.split, t.id))),
        )
        for rank, c in enumerate(rows, 1)
    ]
