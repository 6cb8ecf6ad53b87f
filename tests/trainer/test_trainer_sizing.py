"""Sizing a run (trainer.sizing): the smallest effect the gate can accept, read off the gate
itself, and a plan fitted to the val set, the time and the calls available."""

from __future__ import annotations

from dataclasses import replace

from trainer import TrainSettings
from trainer.gate import decide
from trainer.sizing import detectable_effect, planned_calls, size, sized

DEMO = TrainSettings(epochs=1, steps_per_epoch=2, minibatch=4, train_samples=1, max_samples=2,
                     test_samples=2)  # fmt: skip
TASKS = {"train": 8, "val": 16, "test": 16}


def accepted(diffs: list[list[float]], alpha: float) -> bool:
    zeros = [[0.0] * len(row) for row in diffs]
    return decide(diffs, zeros, alpha=alpha).verdict == "accept"


def test_the_smallest_detectable_effect_is_the_one_the_gate_accepts() -> None:
    for n, k, alpha in ((16, 2, 0.025), (16, 40, 0.05 / 8), (8, 3, 0.05)):
        d = detectable_effect(n, k, alpha)
        assert d is not None and 0 < d < 1
        assert accepted([[d] * k] * n, alpha)
        assert not accepted([[d - 0.002] * k] * n, alpha)
        # the same mean in every sweep, spread over the tasks, is not accepted: for an
        # observed mean, a constant difference is the best case
        noisy = [[d + (0.3 if i % 2 else -0.3)] * k for i in range(n)]
        assert not accepted(noisy, alpha)
    # fewer tasks or sweeps, or alpha split finer, can only raise it
    assert detectable_effect(16, 2, 0.025) < detectable_effect(8, 2, 0.025)
    assert detectable_effect(16, 4, 0.025) < detectable_effect(16, 2, 0.025)
    assert detectable_effect(16, 2, 0.05) < detectable_effect(16, 2, 0.025)
    # three val tasks and two sweeps: not even winning every pair is accepted
    assert detectable_effect(3, 2, 0.025) is None


def test_too_many_comparisons_for_the_val_set_are_cut_so_a_gain_worth_having_shows() -> None:
    s = TrainSettings(epochs=2, steps_per_epoch=4, max_samples=2)
    # 16 val tasks x 2 sweeps at alpha/8 or /4 cannot accept a gain of 0.22; at alpha/3 they can
    assert detectable_effect(16, 2, 0.05 / 4) > 0.22 >= detectable_effect(16, 2, 0.05 / 3)
    plan = size(s, TASKS, worth=0.22)
    assert (plan.comparisons, plan.max_samples, plan.can_detect) == (3, 2, True)
    assert plan.alpha_per_comparison == 0.05 / 3 and plan.warning() == ""
    assert "(configured: 8 of up to 2)" in plan.shows()
    applied = plan.apply(s)
    assert (applied.epochs, applied.steps_per_epoch) == (1, 3)
    assert applied.alpha_per_comparison == 0.05 / 3
    # a gain no plan of these sweeps can show: the configured comparisons stay, and the
    # sizing says why
    small = size(s, TASKS, worth=0.05)
    assert (small.comparisons, small.can_detect) == (8, False)
    assert small.warning().startswith(
        "the smallest val gain worth having (0.05) cannot be detected tonight: 16 val tasks × "
        "2 sweep(s) at alpha 0.00625 can show only a gain of 0.264 or more"
    )


def test_a_plan_too_long_for_the_night_cuts_comparisons_then_sweeps_to_a_floor() -> None:
    s = TrainSettings(epochs=1, steps_per_epoch=4, minibatch=4, train_samples=1, max_samples=8,
                      test_samples=1)  # fmt: skip
    per_call = {"optimizer": 30.0, "target": 2.0}
    full = size(s, TASKS, worth=0.1, per_call=per_call)
    assert (full.comparisons, full.max_samples, full.fits) == (4, 8, True)  # no time limit
    assert full.seconds == full.calls.optimizer * 30.0 + full.calls.target * 2.0
    # half the time: fewer comparisons at the same sweeps
    half = size(s, TASKS, worth=0.1, per_call=per_call, available_seconds=full.seconds / 2)
    assert half.max_samples == 8 and half.comparisons < 4 and half.fits
    assert half.seconds <= full.seconds / 2
    # little time: one comparison, fewer sweeps, but never fewer than can show 0.1
    floor = min(k for k in range(1, 9) if detectable_effect(16, k, 0.05) <= 0.1)
    one = replace(s, steps_per_epoch=1, max_samples=floor)
    least = sized(one, TASKS, worth=0.1, per_call=per_call).seconds
    little = size(s, TASKS, worth=0.1, per_call=per_call, available_seconds=least)
    assert (little.comparisons, little.max_samples, little.fits) == (1, floor, True)
    assert 1 < floor < 8 and little.can_detect
    # too little time for any plan: the smallest one, which gives its one comparison all of
    # alpha (the deadline stops training anyway), and the sizing says it does not fit
    none = size(s, TASKS, worth=0.1, per_call=per_call, available_seconds=least - 1)
    assert (none.comparisons, none.max_samples, none.fits) == (1, floor, False)
    assert none.alpha_per_comparison == 0.05 and none.can_detect
    assert "tonight's plan needs about" in none.warning()
    assert f"of the {(least - 1) / 60:.1f} min left" in none.warning()
    # the call budget sizes the same way; an unknown seconds per call cannot size by time
    calls = size(s, TASKS, worth=0.1, available_calls=full.calls.total // 2)
    assert calls.comparisons < 4 and calls.calls.total <= full.calls.total // 2
    unknown = size(s, TASKS, worth=0.1, per_call={"target": 2.0}, available_seconds=60)
    assert unknown.seconds is None and unknown.fits and unknown.comparisons == 4
    # short of calls with time to spare: the warning names the calls, not the time
    few = size(s, TASKS, worth=0.1, per_call=per_call, available_seconds=full.seconds * 2,
               available_calls=none.calls.total - 1)  # fmt: skip
    assert few.short_of_calls and not few.short_of_time and not few.fits
    assert f"needs {few.calls.total} calls of the {none.calls.total - 1} left" in few.warning()
    assert "min left" not in few.warning()


def test_the_planned_calls_grow_with_what_a_run_does() -> None:
    base = planned_calls(DEMO, 8, 16, 16)
    assert base.target == 2 * (4 + 4 + 16 * 2) + 16 * 2 + 2 * 16 * 2
    assert planned_calls(DEMO, 8, 16, 16, judge_calls=2.0).judge == 2 * (base.target + 2 * 3)
    unscreened = planned_calls(TrainSettings(**{**DEMO.to_dict(), "screen": False}), 8, 16, 16)
    assert unscreened.target == base.target - 2 * 4
