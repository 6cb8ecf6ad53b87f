"""Mining: from ingested sessions to the user's recurring tasks and a replay set.

Public entry points::

    from skillopt_sleep.mining import mine, mine_if_stale, load_tasks, MiningResult
    result = mine(db, config)           # cluster, map to skills, split, write tasks
    tasks = load_tasks(db, split="val") # trainer.tasks.Task objects, reviewed ones first
    clusters = load_clusters(db)        # typed Clusters, recurring first, with their tasks

Modules, one job each: ``intents`` (clean + normalize requests), ``vectors`` (request
vectors weighted by corpus-learnt informativeness), ``cluster`` (average linkage, joins,
agreement on the action), ``evidence`` (read the ingest tables), ``identity`` (stable ids and
skill names), ``judges`` (rule checks and rubric from evidence), ``splits`` (stable,
leak-free train/val/test), ``store`` (tables), ``taskfile`` (export/import), ``query``
(read clusters and tasks), ``pipeline`` (the pass itself: ``mine``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # what a type checker sees; at run time, __getattr__ below
    from skillopt_sleep.mining.pipeline import MiningResult, is_stale, mine, mine_if_stale
    from skillopt_sleep.mining.query import Cluster, load_clusters, load_tasks

# Lazy: ``skillopt_sleep.store`` imports ``mining.store`` for its migrations on every
# command, and must not pay for scikit-learn's import when it does not mine.
_EXPORTS = {
    "MiningResult": "pipeline",
    "is_stale": "pipeline",
    "mine": "pipeline",
    "mine_if_stale": "pipeline",
    "Cluster": "query",
    "load_clusters": "query",
    "load_tasks": "query",
}


def __getattr__(name: str) -> Any:
    if name in _EXPORTS:
        import importlib

        return getattr(importlib.import_module(f"skillopt_sleep.mining.{_EXPORTS[name]}"), name)
    raise AttributeError(name)


__all__ = sorted(_EXPORTS)
