"""Whether a follow-up states a rule the answer just given breaks: what tells a correction
worded as a request ("list the columns, no select *") from new work ("add a table to the
README"), read by the grammar and by the topics the words name."""

from __future__ import annotations

from skillopt_sleep.mining import grammar
from skillopt_sleep.mining.contrast import ASKS, candidates
from skillopt_sleep.mining.phrases import respell
from skillopt_sleep.mining.topic import HAS, NO
from skillopt_sleep.mining.topics import topics
from trainer.checks import COUNT_KINDS, passes


def broken_by(said: str, answer: str) -> bool:
    """Whether ``said`` states a rule ``answer`` breaks, by its words alone: the grammar's
    reading, or a topic whose words say which way (forbidden, asked for) and whose first
    check of that polarity the answer fails."""
    return broken_by_respelt(respell(said, answer), answer)


# The checks that ask for something the answer lacks (not the ones that forbid or bound).
_ASKING_KINDS = (
    "contains", "identifier_like", "has", "regex", "starts_with", "ends_with",
    *(k for k in COUNT_KINDS if k.startswith("min_")),
)  # fmt: skip


def broken_by_respelt(said: str, answer: str, asks: bool = True) -> bool:
    """``broken_by`` of words already respelt against ``answer`` (``respell``: a follow-up
    is, before it is read at all; respelling again changes nothing). Without ``asks``, a
    thing the answer lacks and the words ask for breaks nothing (in a turn that names new
    work, "add a table" is the work)."""
    asked = ("contains", "identifier_like") if asks else _ASKING_KINDS
    for c in grammar.compile_text(said, answer):
        if c.kind not in asked and not passes(
            c.kind, c.value, c.scope, answer
        ):  # a word asked for may be new work's ("I need a Grafana dashboard")
            return True
    for t in topics(said, answer):
        if t.what in ("literal", "identifier") and t.role != NO and not t.at:
            continue  # a word only named or asked for may be new work's ("add Unreleased")
        if t.what == "count" and not (t.unit and t.bound):
            continue
        if t.what == "feature" and t.role not in (NO, HAS):
            continue
        if not asks and t.role != NO and t.what != "count":
            continue  # a convention named or a thing asked for may be the new work's
        wanted = ASKS if t.role == HAS else None
        for c in candidates(t, answer, ""):
            if wanted is not None and c.kind not in wanted:
                continue
            if not passes(c.kind, c.value, c.scope, answer):
                return True
            if t.what != "identifier":
                break  # the first reading; an identifier's are weaker to stronger
    return False
