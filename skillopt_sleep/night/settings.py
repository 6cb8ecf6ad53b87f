"""What a night reads from the config, read once into typed settings.

The config reaches the night validated (every value passed its key's ``# valid:`` line in
``configs/default.yaml``); this module is the one place that turns the keys shaping a
night's work into the settings that plan, sizing, training and the summary share. Read
once per night, so no two steps see two readings (``budget.deadline`` is resolved against
one clock, and the end of training with it).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from trainer.budget import BudgetLimits
from trainer.settings import TrainSettings


def _clock_time(value: str | None, now: datetime) -> float | None:
    """``HH:MM`` (local time, already validated) -> epoch seconds of its next occurrence."""
    if value is None:
        return None
    hour, minute = (int(x) for x in value.split(":"))
    target = now.replace(hour=hour, minute=minute, second=0, microsecond=0)
    if target <= now:
        target += timedelta(days=1)
    return target.timestamp()


def _budget_limits(config: Mapping[str, Any], now: datetime | None = None) -> BudgetLimits:
    """The ``budget:`` section: the night's limits, its deadline as epoch seconds."""
    b = config["budget"]
    return BudgetLimits(
        max_calls=b["max_calls"],
        max_tokens=b["max_tokens"],
        max_cost_usd=None if b["max_cost_usd"] is None else float(b["max_cost_usd"]),
        deadline=_clock_time(b["deadline"], now or datetime.now()),
    )


def train_settings(config: Mapping[str, Any], now: datetime | None = None) -> TrainSettings:
    """The trainer's run as configured (``trainer:`` and ``budget:``), before the night
    sizes it. Every ``trainer:`` key is a TrainSettings field of the same name; the rest of
    TrainSettings are constants tuned by the benchmarks (their defaults)."""
    return TrainSettings(**config["trainer"], budget=_budget_limits(config, now))


@dataclass(frozen=True)
class NightSettings:
    """The night's reading of the config, built once by ``run_night``."""

    train: TrainSettings  # the configured run; each skill's is sized from it (trainer.sizing)
    deadline: float  # when training must end, epoch seconds
    max_skills: int  # skills trained in one night
    worth_effect: float  # the smallest mean val gain worth having (the plan sizes to it)
    replay_caps: Mapping[str, int]  # most val and test tasks a skill's night replays
    seconds_per_call: Mapping[str, float]  # configured per role; others come from last night

    @classmethod
    def from_config(
        cls, config: Mapping[str, Any], *, deadline: datetime | None = None
    ) -> NightSettings:
        """``deadline``: when the night must end (else the schedule's next morning deadline);
        ``budget.deadline`` ends training sooner when it comes first."""
        from skillopt_sleep.running.schedule import next_deadline, parse_schedule  # APScheduler

        train = train_settings(config)
        if deadline is None:
            sched = parse_schedule(config)
            deadline = next_deadline(datetime.now(sched.timezone), sched.deadline, sched.timezone)
        limit = train.budget.deadline
        end = deadline.timestamp() if limit is None else min(deadline.timestamp(), limit)
        night, mining = config["night"], config["mining"]
        return cls(
            train=train,
            deadline=end,
            max_skills=night["max_skills"],
            worth_effect=float(night["worth_effect"]),
            replay_caps={"val": mining["max_val_tasks"], "test": mining["max_test_tasks"]},
            seconds_per_call={
                role: float(v) for role, v in night["seconds_per_call"].items() if v is not None
            },
        )
