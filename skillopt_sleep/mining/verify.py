"""Verify each compiled judge against the sessions before a night may use it.

A judge read from a correction must mean what the user meant, and the user has already
shown what they meant: the answer they corrected must fail the judge, and the answer they
then accepted must pass it. Judges from different sessions of one kind must not contradict
each other either, so each is also checked against every accepted answer of the cluster.
A judge that fails any of these is dropped, with the reason, and listed in ``tasks show``:
an inverted or unsatisfiable judge can then never reach a night.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from trainer.rollout import Outcome
from trainer.scoring import rule_score
from trainer.tasks import Judge

CORRECTED_PASSES = "the corrected answer passes it"
ACCEPTED_FAILS = "the accepted answer fails it"
NO_ACCEPTED = "no accepted answer to check it against"


def passes(judge: Judge, answer: str) -> bool:
    """Whether ``answer`` passes ``judge`` as a night scores it (a chat answer)."""
    return rule_score(judge, Outcome(answer)) == 1.0


@dataclass(frozen=True)
class Dropped:
    judge: Judge
    reason: str

    def to_dict(self) -> dict[str, object]:
        return {**self.judge.to_dict(), "reason": self.reason}

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Dropped:
        return cls(Judge.from_dict(dict(data)), str(data.get("reason") or ""))


@dataclass(frozen=True)
class Evidence:
    """One correction's judges and the answers that bear on them."""

    judges: tuple[Judge, ...]
    corrected: str | None  # the answer the user corrected (None: a request's own words)
    accepted: str | None  # the answer the user accepted after it (None: none was)
    turn_id: str  # the request they belong to


def verify(
    evidence: Sequence[Evidence], accepted: Sequence[tuple[str, str]]
) -> tuple[list[Judge], list[Dropped]]:
    """``(kept, dropped)``. ``accepted`` is ``(turn id, answer)`` for every accepted answer
    the judges will be held to (the cluster's, for a correction's judges; none beyond its
    own for the rules a request states for itself). A judge is kept when the corrected
    answer fails it, its own accepted answer passes it (or, where the session has none,
    some other accepted answer does), and no accepted answer given fails it."""
    kept: list[Judge] = []
    dropped: list[Dropped] = []
    failures = _Failures(accepted)
    for ev in evidence:
        for judge in ev.judges:
            reason = _reason(judge, ev, accepted, failures)
            if reason:
                dropped.append(Dropped(judge, reason))
            else:
                kept.append(judge)
    return kept, dropped


def distinct(dropped: Sequence[Dropped]) -> list[Dropped]:
    """Each dropped judge once per reason (the newest statement of it): a kind's corrections
    repeat one rule in session after session, and every task of the kind lists what its
    kind dropped, so listing each statement would grow with the square of the kind."""
    newest: dict[tuple[str, str, str, str], Dropped] = {}
    for d in dropped:
        key = (d.judge.kind, d.judge.value.lower(), d.judge.scope, d.reason)
        newest.pop(key, None)
        newest[key] = d
    return list(newest.values())


class _Failures:
    """The accepted answers that fail each judge, found in order and kept: a kind's
    corrections state one rule in session after session, and each statement was held to
    every accepted answer of the kind again (the judges times the answers)."""

    def __init__(self, accepted: Sequence[tuple[str, str]]) -> None:
        self._accepted = accepted
        self._found: dict[tuple[str, str, str], list[str]] = {}  # failing turn ids so far
        self._read: dict[tuple[str, str, str], int] = {}  # accepted answers read so far

    def first(self, judge: Judge, other_than: str) -> str | None:
        """The first accepted answer's turn, not ``other_than``'s, whose answer fails."""
        key = (judge.kind, judge.value, judge.scope)  # all a chat answer's score reads
        found = self._found.setdefault(key, [])
        failing = next((tid for tid in found if tid != other_than), None)
        at = self._read.get(key, 0)
        while failing is None and at < len(self._accepted):
            tid, answer = self._accepted[at]
            at += 1
            if not passes(judge, answer):
                found.append(tid)
                failing = tid if tid != other_than else None
        self._read[key] = at
        return failing


def _reason(
    judge: Judge, ev: Evidence, accepted: Sequence[tuple[str, str]], failures: _Failures
) -> str:
    if ev.corrected is not None and passes(judge, ev.corrected):
        return CORRECTED_PASSES
    if ev.accepted is not None and not passes(judge, ev.accepted):
        return ACCEPTED_FAILS
    failing = failures.first(judge, ev.turn_id)
    if failing is not None:
        return f"the accepted answer of turn {failing} fails it"
    if ev.accepted is None and not any(tid != ev.turn_id for tid, _ in accepted):
        return NO_ACCEPTED
    return ""
