"""The daemon's schedule: cron expression, time zone, morning deadline, missed nights.

Kept apart from the daemon so ``install cron`` / ``status`` can validate and explain the
same configuration without starting a scheduler.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime, time, timedelta, tzinfo
from typing import Any

from apscheduler.triggers.cron import CronTrigger

from skillopt_sleep import cron
from skillopt_sleep.config import ConfigError


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
    try:
        return cron.zone(name)
    except ValueError:
        raise ConfigError(f"daemon.timezone {name!r} is not 'local' or an IANA zone") from None


def cron_trigger(expression: str, tz: tzinfo) -> CronTrigger:
    """A CronTrigger from 5 cron fields, or 6 with a leading seconds field (for tests)."""
    try:
        return cron.build(expression, tz)
    except ValueError as exc:
        raise ConfigError(f"daemon.schedule {expression!r} is not valid cron: {exc}") from None


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
