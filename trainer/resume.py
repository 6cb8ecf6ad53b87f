"""What an undecided comparison needs to go on in a later run, and when it may not.

A comparison still undecided when a run ends (its gate's cap for the night, or the call,
token, cost or time budget cutting it between two looks) is kept pending with its paired
samples, and a later run adds fresh sweeps to the same e-process instead of starting anew.

Why that keeps the gate's level: the e-process (trainer.gate) is a test supermartingale
under the null, sweep by sweep, whatever came before. Ville's inequality bounds the chance
that it *ever* reaches 1/alpha, so any stopping rule that decides when to look or pause
from what has happened so far (a budget, a deadline, a night's end, the evidence itself)
keeps the error bound; only one that peeked at samples not yet drawn would not, and none
can. Resuming is the same process going on, provided the null stays the one it was
measured under: the same incumbent skill, the same candidate, the same val tasks judged by
the same judges, and fresh draws (sample ids carry the run, so no answer is replayed). When
any of those changed, the kept samples measure another question: they are discarded, with
the reason in the report, and the edit may be compared afresh.

A comparison cut short keeps the looks (of `samples` sweeps each) drawn whole; the look in
progress is let go, for a reason (the budget) that does not depend on its scores.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable, Mapping
from typing import Any

from trainer.tasks import Task


def val_digest(val: Iterable[Task]) -> str:
    """The val set by its task ids (what an incumbent's kept stream is keyed by)."""
    ids = "\n".join(t.id for t in val)
    return hashlib.sha256(ids.encode()).hexdigest()[:16]


def judges_digest(val: Iterable[Task]) -> str:
    """What each val task asks and how it is judged: a remined task set with the same ids
    but recompiled judges scores answers differently, so kept samples would mix two nulls."""
    parts = [[t.id, t.prompt, [j.to_dict() for j in t.judges]] for t in val]
    return hashlib.sha256(json.dumps(parts, sort_keys=True).encode()).hexdigest()[:16]


def stale(comparison: Mapping[str, Any], skill_hash: str, val: str, judges: str) -> str | None:
    """Why a kept comparison may not be resumed against this skill and val set, or None."""
    if comparison.get("from_hash") != skill_hash:
        return "the skill it was measured against has changed"
    if comparison.get("val_digest") != val:
        return "the val tasks it was measured on have changed"
    if "judges_digest" not in comparison:
        return "it was kept without its judges named (an older release)"
    if comparison["judges_digest"] != judges:
        return "the judges of its val tasks have changed"
    return None


def discarded(why: str) -> str:
    """A discarded comparison's reason, as the report shows it."""
    return f"kept evidence discarded: {why}"
