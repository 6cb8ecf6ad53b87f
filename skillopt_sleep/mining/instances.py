"""A forbidden instance read as its kind where its numbers are only placeholders: "$12",
"410ms", "70%" or ``-q2`` stand for every amount, duration, share or count written that
way, not for that one number ("$12" -> "USD 12" forbids ``$`` before any amount). The
kind is kept only where it still separates the two answers, so "18,342" written with its
separator, or "0.4%" of an error rate beside a rule against "70% done", is never read as
an instance.
"""

from __future__ import annotations

import re

from skillopt_sleep.mining.phrases import Check
from trainer.checks import case_sensitive, word_pattern

_DIGITS = re.compile(r"\d+")


def number_shape(check: Check) -> Check | None:
    """The check with the numbers of its forbidden literal free, or None when it has no
    number to free or is nothing but a number (a bare number's kind is every number)."""
    if check.kind == "not_contains":
        value = check.value
        pattern = word_pattern(value).pattern
        if not case_sensitive(value):
            pattern = "(?i)" + pattern
    elif check.kind == "not_regex" and not check.value.startswith("(?"):
        value, pattern = check.value, check.value
    else:
        return None
    if not _DIGITS.search(value) or not re.search(r"[^\d\s.,]", _DIGITS.sub("", value)):
        return None
    shape = _DIGITS.sub(r"\\d+", pattern)
    shape = re.sub(r"(?<![\\\w])\\d\+", r"(?<![\\d.,])\\d+", shape, count=1)
    try:
        re.compile(shape)
    except re.error:
        return None
    return Check("not_regex", shape, check.scope)
