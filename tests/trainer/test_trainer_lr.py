"""The textual learning rate: per-step budgets and their schedules."""

from __future__ import annotations

import pytest

from trainer.edits import Edit
from trainer.lr import LearningRate, StepBudget


def test_step_budget_caps_edit_count_and_changed_tokens() -> None:
    edits = [Edit("add", text="one two three"), Edit("add", text="four"), Edit("add", text="x")]
    kept, dropped = StepBudget(max_edits=2, max_changed_tokens=10).select(edits)
    assert kept == edits[:2] and dropped == edits[2:]
    kept, dropped = StepBudget(max_edits=5, max_changed_tokens=2).select(edits)
    assert kept == edits[1:] and dropped == edits[:1]  # the long one does not fit


def test_schedules() -> None:
    const = LearningRate(max_edits=4, max_changed_tokens=100, schedule="constant")
    assert const.at(0, 3) == const.at(2, 3) == StepBudget(4, 100)
    cos = LearningRate(max_edits=4, max_changed_tokens=100, schedule="cosine", min_fraction=0.25)
    assert cos.at(0, 3) == StepBudget(4, 100)
    assert cos.fraction(1, 3) == pytest.approx(0.625)
    assert cos.at(2, 3) == StepBudget(1, 25)
    step = LearningRate(
        max_edits=4, max_changed_tokens=100, schedule="step", gamma=0.5, min_fraction=0.2
    )
    assert [step.at(e, 4).max_changed_tokens for e in range(4)] == [100, 50, 25, 20]
    assert LearningRate(max_edits=1, schedule="cosine").at(5, 6).max_edits == 1  # floor 1


def test_invalid_settings() -> None:
    with pytest.raises(ValueError):
        LearningRate(schedule="linear")
    with pytest.raises(ValueError):
        LearningRate(max_edits=0)
