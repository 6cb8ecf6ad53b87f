"""Words the user offers as alternatives ("lead with PASS or FAIL", "end with `Cheers` or
`Thanks`"): one check that any of them meets, never a check on the first one alone, which
every answer choosing the other would fail.
"""

from __future__ import annotations

import re

from skillopt_sleep.mining.phrases import Check
from skillopt_sleep.mining.topic import HAS, KEEP, Topic
from trainer.checks import case_sensitive

# What stands between two alternatives: "or", "/", a comma, quotes around them.
_BETWEEN = re.compile(r"[\s\"'`]*(?:,\s*)?(?:or|/|,)[\s\"'`]*", re.IGNORECASE)


def alternative_groups(found: list[Topic], text: str) -> list[list[Topic]]:
    """Runs of two or more literals asked for in the same place, written one after the
    other with "or", "/" or a comma between them (``text`` as the topics read it)."""
    groups: list[list[Topic]] = []
    run: list[Topic] = []
    # at the start, the kept half of "X, not Y" is asked for too: "start with FAIL or PASS,
    # not ❌" puts a word first, where "use pytest, not unittest" needs no word at all
    literals = [t for t in found if t.what == "literal"
                and (t.role == HAS or (t.role == KEEP and t.at == "start"))]  # fmt: skip
    for t in literals:
        last = run[-1] if run else None
        if last is not None and last.at == t.at:
            end = text.find(last.value, last.order) + len(last.value)  # after its quote
            gap = text[end : t.order]
            if _BETWEEN.fullmatch(gap):
                run.append(t)
                continue
        if len(run) > 1:
            groups.append(run)
        run = [t]
    if len(run) > 1:
        groups.append(run)
    return groups


def alternative_check(group: list[Topic]) -> Check:
    """Any of the alternatives, where the user put them: at the start of the subject, at
    the end of the answer, or anywhere, each as a word."""
    values = [t.value for t in group]
    flags = "" if any(case_sensitive(v) for v in values) else "(?i)"
    either = "(?:" + "|".join(_word(v) for v in values) + ")"
    if group[0].at == "start":
        return Check("regex", rf"{flags}\A\W*{either}", "first_line")
    if group[0].at == "end":
        return Check("regex", rf"{flags}{either}\W*\Z", "answer")
    return Check("regex", flags + either, "answer")


def _word(value: str) -> str:
    """``value`` as a whole word where it begins or ends with a letter or digit."""
    body = r"\s+".join(re.escape(part) for part in value.split())
    left = r"\b" if value[:1].isalnum() else ""
    right = r"\b" if value[-1:].isalnum() else ""
    return left + body + right
