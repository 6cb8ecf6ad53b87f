"""A night's settings: read once from the validated config, typed."""

from __future__ import annotations

from dataclasses import fields, replace
from datetime import datetime, timedelta

import pytest

from skillopt_sleep.night.settings import NightSettings, train_settings
from skillopt_sleep.settings import config as config_mod
from trainer import TrainSettings
from trainer.budget import BudgetLimits


def test_the_trainer_keys_are_settings_fields_with_the_same_defaults() -> None:
    config = config_mod.load(environ={})
    names = {f.name for f in fields(TrainSettings)}
    assert set(config["trainer"]) <= names
    assert replace(train_settings(config), budget=BudgetLimits()) == TrainSettings()


def test_the_night_reads_what_the_user_set() -> None:
    config = config_mod.load(
        environ={},
        overrides={
            "trainer.epochs": 3,
            "trainer.no_regression": 0.5,
            "budget.max_calls": 100,
            "budget.deadline": "06:30",
            "night.max_skills": 2,
            "night.seconds_per_call": {"optimizer": 30, "target": None},
            "mining.max_val_tasks": 12,
        },
    )
    morning = datetime.now().astimezone() + timedelta(days=2)  # after any 06:30 to come
    s = NightSettings.from_config(config, deadline=morning)
    assert (s.train.epochs, s.train.no_regression, s.train.budget.max_calls) == (3, 0.5, 100)
    at = datetime.fromtimestamp(s.train.budget.deadline or 0)
    assert (at.hour, at.minute) == (6, 30) and at > datetime.now()
    assert s.deadline == s.train.budget.deadline  # the sooner of the two ends training
    assert (s.max_skills, s.replay_caps) == (2, {"val": 12, "test": 20})
    assert s.seconds_per_call == {"optimizer": 30.0}  # the others: what last night measured


def test_without_a_budget_deadline_the_given_one_ends_training() -> None:
    config = config_mod.load(environ={})
    morning = datetime.now().astimezone() + timedelta(hours=5)
    assert NightSettings.from_config(config, deadline=morning).deadline == morning.timestamp()


def test_what_the_config_takes_for_the_gate_the_gate_takes() -> None:
    """`trainer.min_effect` accepted up to 1 at load, and the gate refused 0.1 or more in
    the middle of a night: the key's `valid:` line is now the gate's own range."""
    from trainer.gate import decide

    largest = 0.0999
    config = config_mod.load(environ={}, overrides={"trainer.min_effect": largest})
    s = NightSettings.from_config(config, deadline=datetime.now().astimezone())
    decide([[1.0]], [[0.0]], alpha=s.train.alpha, min_effect=s.train.min_effect)
    with pytest.raises(config_mod.ConfigError, match=r"trainer\.min_effect.*\[0, 0\.1\)"):
        config_mod.load(environ={}, overrides={"trainer.min_effect": 0.1})
