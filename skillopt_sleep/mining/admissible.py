"""Whether a check the judge model proposed reads the user's words as the grammar does.

The judge model is asked only where the grammar's reading of a correction found no check
that separates the two answers; what it proposes must still mean what the user said. A
word it asks for must be one the user asked for, a word it forbids one they rejected or
named, a layout one they asked for. Verification on the session's pair comes after.
"""

from __future__ import annotations

import re

from skillopt_sleep.mining.phrases import Check, respell
from skillopt_sleep.mining.topic import HAS, KEEP, NAMED, NO
from skillopt_sleep.mining.topics import topics

_LITERAL_ASKS = ("contains", "starts_with", "ends_with")
_LITERAL_FORBIDS = ("not_contains", "not_starts_with", "not_ends_with")
# Where the user says a word goes: a word asked for at the start / end of the answer.
_PLACED = {
    "starts_with": re.compile(r"\b(?:first|start\w*|begin\w*|open\w*|top|leads?|goes on)\b"),
    "ends_with": re.compile(r"\b(?:last|end\w*|clos\w*|bottom|goes on)\b"),
}


def admissible(check: Check, said: str, corrected: str = "") -> bool:
    """Whether a check proposed by the judge model reads a word as the user's words do: a
    word it asks for is one they asked for (never the one they prefer, "use logging"), a
    word it forbids one they rejected or named as code, a layout it asks for one they
    asked for. A word the reading of their words found no role for ("where's the tl;dr?
    it goes on the first line") may be asked for where they placed it: a position, not a
    preference."""
    found = topics(respell(said, corrected), corrected)
    value = check.value.lower()
    if check.kind in (*_LITERAL_ASKS, *_LITERAL_FORBIDS, "identifier_like"):
        roles = {t.role for t in found if t.what != "feature" and t.value.lower() == value}
        if check.kind in _LITERAL_FORBIDS:
            return bool(roles & {NO, NAMED})
        placed = _PLACED.get(check.kind)
        return HAS in roles or (
            not roles and placed is not None and bool(placed.search(said.lower()))
        )
    if check.kind == "has":
        return any(t.what == "feature" and t.value == check.value and t.role in (HAS, KEEP)
                   for t in found)  # fmt: skip
    return True
