"""Time zones a correction asks for: "use UTC" asks to see the zone written; "UTC on the
times" asks it of every time of day the answer writes, and nothing of one that writes none."""

from __future__ import annotations

import re

from skillopt_sleep.mining.phrases import Check

TIMEZONES = ("UTC", "GMT")  # what "use UTC" asks to see written; a tuple: checks in one order


# A time of day ("14:05", "9am", "02:00-03:00"): what "UTC on the times" is said of.
_TIME = r"(?<![\w:.])(?:\d{1,2}:\d{2}(?::\d{2})?|\d{1,2}\s?[ap]\.?m\b\.?)"
_TIMES_NAMED = re.compile(r"\b(?:times?|timestamps?)\b", re.IGNORECASE)


def zone_check(zone: str, sentence: str) -> Check:
    """ "use UTC": the zone written; "UTC on the times", "times need UTC": every time of day
    with the zone after it on its line ("02:00-03:00 UTC", "`--at 02:00` (read as UTC)",
    ``T02:00Z``), and none needed where there is no time ("ISO dates and say UTC on the
    times": a list of dates obeys)."""
    if not _TIMES_NAMED.search(sentence):
        return Check("contains", zone, "answer")
    return Check("not_regex", zone_pattern(zone), "answer")


def zone_pattern(zone: str) -> str:
    """A time of day without ``zone`` after it on its line."""
    return rf"{_TIME}(?!Z)(?![^\n]*\b{zone}\b)"


# Rules of their own: a clock's convention from the same words ("24h, UTC") is no narrower
# reading of them.
ZONE_PATTERNS = {zone_pattern(zone): zone for zone in TIMEZONES}
