"""The one decision of what a night's result means (promotion/verdict.py), row by row."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import pytest

from skillopt_sleep.promotion.verdict import decide
from trainer.result import TestLift as Lift


def _test(lift: float, low: float, high: float, pass_all: dict[str, Any] | None = None) -> Lift:
    return Lift.from_dict({"n_tasks": 10, "start_score": 0.5, "best_score": 0.5 + lift,
                               "lift": lift, "ci_low": low, "ci_high": high,
                               "method": "paired t-interval over test tasks",
                               "pass_all": pass_all})  # fmt: skip


def _pass_all(lift: float, low: float, high: float) -> dict[str, Any]:
    return {"n_tasks": 10, "before": 0.2, "after": 0.2 + lift, "lift": lift, "ci_low": low,
            "ci_high": high}  # fmt: skip


@pytest.mark.parametrize(
    ("kw", "outcome", "action", "metric"),
    [
        ({"test": _test(0.2, 0.05, 0.35)}, "improved", "promote", "mean"),
        ({"test": _test(0.05, -0.05, 0.15)}, "unconfirmed", "promote", "mean"),
        ({"test": _test(-0.05, -0.15, 0.05)}, "worse", "keep", "mean"),
        # pass-all leads: it decides even when the mean's interval says otherwise
        ({"test": _test(0.02, -0.01, 0.05, _pass_all(0.4, 0.2, 0.6))}, "improved", "promote",
         "pass-all"),
        ({"test": _test(0.1, 0.02, 0.2, _pass_all(-0.1, -0.3, 0.1))}, "worse", "keep",
         "pass-all"),
        # a mean wholly below zero is a regression even where pass-all did not move
        ({"test": _test(-0.2, -0.3, -0.1, _pass_all(0.0, -0.1, 0.1))}, "worse", "keep",
         "pass-all"),
        ({"test": Lift.skipped("budget: deadline")}, "not_measured", "stage", ""),
        ({"accepted": 0, "undecided": 2}, "not_enough_evidence", "keep", ""),
        ({"accepted": 0}, "unchanged", "keep", ""),
        ({"endpoint_failed": "the model endpoint failed every call (3 errors)"}, "error", "keep",
         ""),
    ],
)  # fmt: skip
def test_each_result_has_one_outcome_and_action(
    kw: dict[str, Any], outcome: str, action: str, metric: str
) -> None:
    args: dict[str, Any] = {"accepted": 1, "undecided": 0, "endpoint_failed": "",
                            "stop_reason": "completed", "test": Lift.unchanged()}  # fmt: skip
    v = decide(**{**args, **kw})
    assert (v.outcome, v.action, v.metric) == (outcome, action, metric)
    assert bool(v.reason) == (outcome != "improved")


def test_a_lift_on_too_few_tasks_is_not_called_confirmed() -> None:
    test = replace(_test(0.3, 0.1, 0.5), n_tasks=1)
    v = decide(accepted=1, undecided=0, endpoint_failed="", stop_reason="completed", test=test)
    assert v.outcome == "unconfirmed" and "1 test task(s)" in v.reason
