"""The daemon's schedule: cron expression, time zone, morning deadline, missed nights.

Kept apart from the daemon so a night can read its morning deadline without starting a
scheduler.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime, time, timedelta, tzinfo
from typing import Any

from apscheduler.triggers.cron import CronTrigger

from skillopt_sleep.running import cron


@dataclass(frozen=True)
class Schedule:
    expression: str
    timezone: tzinfo
    trigger: CronTrigger
    deadline: time
    run_missed: bool
    live_ingest: bool


def parse_schedule(config: Mapping[str, Any]) -> Schedule:
    """The ``daemon`` section as the scheduler needs it (its values are validated when the
    config loads: a cron expression, a time zone, ``HH:MM``)."""
    section = config["daemon"]
    tz = cron.zone(section["timezone"])
    hours, minutes = (int(x) for x in section["deadline"].split(":"))
    return Schedule(
        section["schedule"],
        tz,
        cron.build(section["schedule"], tz),
        time(hours, minutes),
        section["run_missed"],
        section["live_ingest"],
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
