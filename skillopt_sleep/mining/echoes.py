"""Follow-ups mined as requests: later turns about the answer just given, not new work.

``followups.classify`` reads a turn after an answer by its words, and some follow-ups read
as asks ("which job exactly?", "just the first error pls", "group it by features and
fixes"): short, worded like a request, about the answer. What the agent did tells them
apart. A follow-up about the answer makes the agent do nothing new (it answers from what
it already found, or redoes the last change and re-runs its check); new work, even of
the same kind, runs or touches something the request before it did not.

An *echo* is a request that is not its session's first and whose work (``fingerprint``
units; none at all included) holds nothing the session's previous request's work did
not. A cluster whose requests are mostly echoes (``ECHO_SHARE``) is a follow-up asked
alike in many sessions, not a task the user keeps asking for: it is never recurring (no
night is spent on it). On the session corpora a kind's clusters hold at most 2% echoes,
clusters of follow-ups 69-100%.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Protocol

ECHO_SHARE = 0.5


class _Turn(Protocol):
    turn_id: str
    session_id: str
    started_at: str
    fingerprint: list[str]


def echoes(reqs: Iterable[_Turn]) -> frozenset[str]:
    """The turn ids of the requests that are echoes of the request before them."""
    previous: dict[str, _Turn] = {}
    out = set()
    for r in sorted(reqs, key=lambda r: (r.session_id, r.started_at, r.turn_id)):
        before = previous.get(r.session_id)
        if before is not None and set(r.fingerprint) <= set(before.fingerprint):
            out.add(r.turn_id)
        previous[r.session_id] = r
    return frozenset(out)


def follow_ups(group: Sequence[_Turn], echoed: frozenset[str]) -> bool:
    """Whether ``group`` (a cluster's requests) is mostly echoes: follow-ups, not a task."""
    return sum(r.turn_id in echoed for r in group) >= ECHO_SHARE * len(group)
