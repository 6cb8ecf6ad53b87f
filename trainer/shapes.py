"""The JSON shapes the tool stores or prints, each with a version and one way to read it.

A shape written today carries ``"version": CURRENT[shape]``. A copy an older release wrote
(no ``"version"``: version 1) is read through ``upgrade``, which applies that shape's steps
in order, so every reader sees today's shape and no reader keeps an "older reports" branch.
A copy from a newer release is refused (``ShapeError``): read as ours, what we do not know
would be dropped on the next write.

Shapes: the night's ``summary`` (``summary.json``, ``report.json``, every ``--json`` of a
night), a night's step ``checkpoint``, an edit's ``ledger`` record, an incumbent's kept
validation ``stream``, a promotion's ``evidence``, a training ``run``'s files, and what
the CLI's ``--json`` prints (``dry_run``, ``status``, ``ingest``, ``doctor``, ``mining``,
``clusters``, ``cluster``, ``task``, ``check``, ``replay``, ``history``, the ``error`` of a
failure, and each item of a printed list: ``listed_night``, ``listed_session``). docs/operations.md
lists them and what each version changed.
"""

from __future__ import annotations

import copy
import json
from collections.abc import Callable
from typing import Any

SUMMARY = "summary"
CHECKPOINT = "checkpoint"
LEDGER = "ledger"
EVIDENCE = "evidence"
STREAM = "stream"
RUN = "run"  # a training run's files (history.json, summary.json, ...), for people
# what a command's --json prints (a list, such as `nights --json`, is not wrapped: each of
# its items carries its own version, so `jq '.[1].id'` still works)
DRY_RUN = "dry_run"  # run --dry-run --json
STATUS = "status"  # status --json
INGEST = "ingest"  # ingest --json, one per pass
DOCTOR = "doctor"  # doctor --json
MINING = "mining"  # tasks mine --json
CLUSTERS = "clusters"  # tasks list --json
CLUSTER = "cluster"  # tasks show c-… --json
TASK = "task"  # tasks show t-… --json
CHECK = "check"  # tasks check --json
REPLAY = "replay"  # tasks replay --json
HISTORY = "history"  # history --json: {"version", "events"} (an event's own "version" is
# the skill's, the number `rollback --to` takes, so its events cannot carry a shape version)
LISTED_NIGHT = "listed_night"  # each item of nights --json and report --list --json
LISTED_SESSION = "listed_session"  # each item of sessions --json
ERROR = "error"  # what any command given --json prints when it fails
PRINTED = (DRY_RUN, STATUS, INGEST, DOCTOR, MINING, CLUSTERS, CLUSTER, TASK, CHECK, REPLAY,
           HISTORY, LISTED_NIGHT, LISTED_SESSION, ERROR)  # fmt: skip

KEY = "version"


class ShapeError(ValueError):
    """A stored shape this release cannot read (written by a newer one, or not an object)."""


def _gate_counts_differing_tasks(data: Any) -> Any:
    """Version 2: a gate's count of the tasks on which candidate and incumbent differed is
    ``n_differ`` (version 1 called it ``n_nonzero``), wherever a gate result sits."""
    if isinstance(data, dict):
        if "n_nonzero" in data and "n_differ" not in data:
            data["n_differ"] = data.pop("n_nonzero")
        for value in data.values():
            _gate_counts_differing_tasks(value)
    elif isinstance(data, list):
        for value in data:
            _gate_counts_differing_tasks(value)
    return data


def _keys_added(data: Any) -> Any:
    """Version 3: an undecided comparison's record names the judges of its val tasks
    (``judges_digest``) and the budget that cut it (``cut_by``); a report's pending
    candidate says what was kept (``kept``); an edit made of the user's accepted answer has
    origin ``accepted_answer``. A version-2 copy reads as it was: its pending comparisons,
    not naming their judges, are discarded rather than resumed (trainer.resume)."""
    return data


# shape -> the steps from version 1 on: STEPS[shape][v - 1] turns version v into v + 1
Step = Callable[[Any], Any]
STEPS: dict[str, tuple[Step, ...]] = {
    SUMMARY: (_gate_counts_differing_tasks, _keys_added),
    CHECKPOINT: (_gate_counts_differing_tasks, _keys_added),
    LEDGER: (_gate_counts_differing_tasks, _keys_added),
    EVIDENCE: (_gate_counts_differing_tasks,),
    STREAM: (),
    RUN: (),
    **dict.fromkeys(PRINTED, ()),
}
CURRENT = {shape: len(steps) + 1 for shape, steps in STEPS.items()}


def stamp(shape: str, data: dict[str, Any]) -> dict[str, Any]:
    """`data` as written today: the shape's current version first."""
    return {KEY: CURRENT[shape], **{k: v for k, v in data.items() if k != KEY}}


def upgrade(shape: str, data: Any) -> dict[str, Any]:
    """A stored copy of `shape` in today's form (a new dict; `data` is left as it was)."""
    if not isinstance(data, dict):
        raise ShapeError(f"a stored {shape} is not a JSON object")
    version = data.get(KEY, 1)
    if not isinstance(version, int) or isinstance(version, bool) or version < 1:
        raise ShapeError(f"a stored {shape} has version {version!r}, not a whole number >= 1")
    if version > CURRENT[shape]:
        raise ShapeError(
            f"a stored {shape} is version {version}, newer than this release reads "
            f"({CURRENT[shape]}): upgrade skillopt-sleep"
        )
    steps = STEPS[shape][version - 1 :]
    # a current copy needs no step: a shallow copy keeps `data` as it was without copying
    # a whole plan checkpoint (every task of the night) on each read
    out = copy.deepcopy(data) if steps else dict(data)
    for step in steps:
        out = step(out)
    out[KEY] = CURRENT[shape]
    return out


def loads(shape: str, text: str) -> dict[str, Any]:
    """A stored copy of `shape` (JSON text) in today's form."""
    return upgrade(shape, json.loads(text))


def unstamped(shape: str, data: Any) -> dict[str, Any]:
    """A stored copy of `shape` in today's form without its version (for a typed object's
    ``from_dict``, which knows only its fields)."""
    out = upgrade(shape, data)
    del out[KEY]
    return out
