"""What ``tasks list``, ``tasks show`` and ``tasks mine`` print with ``--json``, each a
versioned shape (trainer/shapes.py) read back through ``from_json``.

A cluster is the typed ``query.Cluster`` the night's plan reads too; these objects give
each printed shape its version and its one reader.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from skillopt_sleep.mining.pipeline import MiningResult
from skillopt_sleep.mining.query import Cluster
from trainer.shapes import CLUSTER, CLUSTERS, MINING, TASK, stamp, unstamped
from trainer.tasks import Task

JsonDict = dict[str, Any]


@dataclass(frozen=True)
class MiningRun:
    """``tasks mine --json``: the run's id and counts, and its report."""

    result: MiningResult

    def to_json(self) -> JsonDict:
        r = self.result
        return stamp(MINING, {"run_id": r.run_id, "requests": r.n_requests,
                              "clusters": r.n_clusters, "recurring": r.n_recurring,
                              "tasks": r.n_tasks, "report": r.report})  # fmt: skip

    @classmethod
    def from_json(cls, stored: Any) -> MiningRun:
        d = unstamped(MINING, stored)
        return cls(MiningResult(d["run_id"], d["requests"], d["clusters"], d["recurring"],
                                d["tasks"], dict(d["report"])))  # fmt: skip


@dataclass(frozen=True)
class ClusterList:
    """``tasks list --json``: every cluster, recurring first (``query.load_clusters``)."""

    clusters: tuple[Cluster, ...]

    def to_json(self) -> JsonDict:
        return stamp(CLUSTERS, {"clusters": [c.to_json() for c in self.clusters]})

    @classmethod
    def from_json(cls, stored: Any) -> ClusterList:
        return cls(tuple(Cluster.from_json(c) for c in unstamped(CLUSTERS, stored)["clusters"]))


@dataclass(frozen=True)
class ShownCluster:
    """``tasks show c-… --json``: one cluster, as ``tasks list`` has it."""

    cluster: Cluster

    def to_json(self) -> JsonDict:
        return stamp(CLUSTER, self.cluster.to_json())

    @classmethod
    def from_json(cls, stored: Any) -> ShownCluster:
        return cls(Cluster.from_json(unstamped(CLUSTER, stored)))


@dataclass(frozen=True)
class ShownTask:
    """``tasks show t-… --json``: one task and whether a person reviewed it."""

    task: Task
    reviewed: bool

    def to_json(self) -> JsonDict:
        return stamp(TASK, {**self.task.to_dict(), "reviewed": self.reviewed})

    @classmethod
    def from_json(cls, stored: Any) -> ShownTask:
        data = unstamped(TASK, stored)
        return cls(Task.from_dict(data), bool(data["reviewed"]))
