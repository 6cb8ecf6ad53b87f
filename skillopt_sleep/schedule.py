"""The daemon's schedule: cron expression, time zone, morning deadline, missed nights.

Kept apart from the daemon so ``install cron`` / ``status`` can validate and explain the
same configuration without starting a scheduler.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from datetime import UTC, datetime, time, timedelta, tzinfo
from typing import Any
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from apscheduler.triggers.cron import CronTrigger

from skillopt_sleep.config import ConfigError

_WEEKDAYS = ("sun", "mon", "tue", "wed", "thu", "fri", "sat", "sun")


@dataclass(frozen=True)
class Schedule:
    expression: str
    timezone: tzinfo
    trigger: CronTrigger
    deadline: time
    run_missed: bool
    live_ingest: bool


def resolve_timezone(name: str) -> tzinfo:
    """``"local"`` → the machine's zone; else an IANA name such as ``Europe/Paris``."""
    if name in ("", "local"):
        import tzlocal  # a dependency of APScheduler 3.x

        return tzlocal.get_localzone()
    try:
        return ZoneInfo(name)
    except (ZoneInfoNotFoundError, ValueError):
        raise ConfigError(f"daemon.timezone {name!r} is not 'local' or an IANA zone") from None


def timezone_problem(name: str) -> str | None:
    """None for ``local`` or a known IANA zone, else why not (config validation)."""
    try:
        resolve_timezone(name)
    except ConfigError:
        return "no such IANA zone"
    return None


def _cron_weekdays(field_: str) -> str:
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


def _build_cron(expression: str, tz: tzinfo) -> CronTrigger:
    """Raises ValueError saying which field is wrong."""
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
        weekdays = _cron_weekdays(dow)
        return CronTrigger(**named, day_of_week=weekdays, timezone=tz)
    except ValueError as exc:
        raise ValueError(f"weekday {dow!r}: {exc}") from None


def cron_trigger(expression: str, tz: tzinfo) -> CronTrigger:
    """A CronTrigger from 5 cron fields, or 6 with a leading seconds field (for tests)."""
    try:
        return _build_cron(expression, tz)
    except ValueError as exc:
        raise ConfigError(f"daemon.schedule {expression!r} is not valid cron: {exc}") from None


def cron_problem(expression: str) -> str | None:
    """None for a valid cron expression, else what is wrong with it (config validation)."""
    try:
        _build_cron(expression, UTC)
    except ValueError as exc:
        return str(exc)
    return None


def parse_schedule(config: Mapping[str, Any]) -> Schedule:
    """Validate the ``daemon`` section; raises ConfigError with one line."""
    section = config["daemon"]
    tz = resolve_timezone(str(section["timezone"]))
    try:
        hours, minutes = (int(x) for x in str(section["deadline"]).split(":"))
        deadline = time(hours, minutes)
    except ValueError:
        raise ConfigError(f"daemon.deadline {section['deadline']!r} must be HH:MM") from None
    return Schedule(
        str(section["schedule"]),
        tz,
        cron_trigger(str(section["schedule"]), tz),
        deadline,
        bool(section["run_missed"]),
        bool(section["live_ingest"]),
    )


def next_deadline(start: datetime, deadline: time, tz: tzinfo) -> datetime:
    """The first ``deadline`` o'clock after ``start``: 02:00 → 07:00 the same morning."""
    local = start.astimezone(tz)
    candidate = datetime.combine(local.date(), deadline, tzinfo=tz)
    return candidate if candidate > local else candidate + timedelta(days=1)


def missed_run(trigger: CronTrigger, last: datetime | None, now: datetime) -> datetime | None:
    """The scheduled time after ``last`` that has already passed, if any."""
    if last is None:
        return None
    due = trigger.get_next_fire_time(None, last + timedelta(seconds=1))
    return due if due is not None and due <= now else None
