"""Cron expressions and time zones, parsed as the daemon reads them.

Free of the config module on purpose: ``config`` validates values with it (through
``constraints``), so ``schedule`` only ever sees values these accept.
"""

from __future__ import annotations

from datetime import UTC, tzinfo
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from apscheduler.triggers.cron import CronTrigger

_WEEKDAYS = ("sun", "mon", "tue", "wed", "thu", "fri", "sat", "sun")


def zone(name: str) -> tzinfo:
    """``"local"`` → the machine's zone; else an IANA name; ValueError otherwise."""
    if name in ("", "local"):
        import tzlocal  # a dependency of APScheduler 3.x

        return tzlocal.get_localzone()
    try:
        return ZoneInfo(name)
    except (ZoneInfoNotFoundError, ValueError):
        raise ValueError(f"{name!r} is not 'local' or an IANA zone") from None


def zone_problem(name: str) -> str | None:
    """None for ``local`` or a known IANA zone, else why not."""
    try:
        zone(name)
    except ValueError:
        return "no such IANA zone"
    return None


def cron_weekdays(field_: str) -> str:
    """Translate cron weekday numbers (0/7 = Sunday) into names: APScheduler 3.x counts
    0 as Monday, so passing numbers through would shift every weekly schedule by a day."""
    if field_ in ("*", "?") or any(c.isalpha() for c in field_):
        return field_
    days: set[int] = set()
    for part in field_.split(","):
        span, _, step = part.partition("/")
        if span == "*":
            lo, hi = 0, 6
        elif "-" in span:
            lo, hi = (int(x) for x in span.split("-", 1))
        else:
            lo = hi = int(span)
        if not (0 <= lo <= 7 and 0 <= hi <= 7 and lo <= hi):
            raise ValueError(f"{part!r} is out of range 0-7")
        days.update(d % 7 for d in range(lo, hi + 1, int(step) if step else 1))
    return ",".join(_WEEKDAYS[d] for d in sorted(days))


def build(expression: str, tz: tzinfo) -> CronTrigger:
    """A CronTrigger from 5 cron fields, or 6 with a leading seconds field (for tests).
    Raises ValueError saying which field is wrong."""
    fields = expression.split()
    if len(fields) not in (5, 6):
        raise ValueError(f"expected 5 fields (or 6 with seconds), got {len(fields)}")
    second = fields.pop(0) if len(fields) == 6 else "0"
    minute, hour, day, month, dow = fields
    named = {"second": second, "minute": minute, "hour": hour, "day": day, "month": month}
    for name, value in named.items():  # say which field is wrong
        try:
            CronTrigger(**{name: value}, timezone=tz)
        except ValueError as exc:
            why = str(exc).split("': ", 1)[-1]  # drop APScheduler's "Error validating '99': "
            raise ValueError(f"{name} {value!r}: {why}") from None
    try:
        weekdays = cron_weekdays(dow)
        return CronTrigger(**named, day_of_week=weekdays, timezone=tz)
    except ValueError as exc:
        raise ValueError(f"weekday {dow!r}: {exc}") from None


def problem(expression: str) -> str | None:
    """None for a valid cron expression, else what is wrong with it."""
    try:
        build(expression, UTC)
    except ValueError as exc:
        return str(exc)
    return None
