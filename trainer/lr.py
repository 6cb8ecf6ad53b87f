"""The textual learning rate: how much of the skill one step may change.

Large rewrites are hard to attribute and easy to overfit, so a step may apply at most
`max_edits` edits and `max_changed_tokens` added+removed tokens, and both shrink over the
epochs (constant, step or cosine), like a numeric learning rate. The hard cap on skill
length lives in TrainSettings and is enforced by the engine: a longer skill costs context
in every future session, so growth must pay for itself at the gate.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Literal, get_args

from trainer.edits import Edit

Schedule = Literal["constant", "step", "cosine"]
SCHEDULES: tuple[Schedule, ...] = get_args(Schedule)


@dataclass(frozen=True)
class StepBudget:
    max_edits: int
    max_changed_tokens: int

    def select(self, edits: list[Edit]) -> tuple[list[Edit], list[Edit]]:
        """Keep edits in order while both budgets allow; returns (kept, dropped)."""
        kept: list[Edit] = []
        dropped: list[Edit] = []
        used = 0
        for edit in edits:
            cost = edit.changed_tokens
            if len(kept) < self.max_edits and used + cost <= self.max_changed_tokens:
                kept.append(edit)
                used += cost
            else:
                dropped.append(edit)
        return kept, dropped


@dataclass(frozen=True)
class LearningRate:
    max_edits: int = 2
    max_changed_tokens: int = 120
    schedule: Schedule = "cosine"
    min_fraction: float = 0.34  # the last epoch keeps this share of the initial budget
    step_every: int = 1  # "step": decay every this many epochs
    gamma: float = 0.5  # "step": multiply by this at each decay

    def __post_init__(self) -> None:
        if self.schedule not in SCHEDULES:
            raise ValueError(f"unknown lr schedule {self.schedule!r}; expected {SCHEDULES}")
        if self.max_edits < 1 or self.max_changed_tokens < 1:
            raise ValueError("lr budgets must be at least 1")

    def fraction(self, epoch: int, epochs: int) -> float:
        """Share of the initial budget at `epoch` (0-based) of `epochs`."""
        if self.schedule == "constant" or epochs <= 1:
            return 1.0
        if self.schedule == "step":
            return max(self.min_fraction, self.gamma ** (epoch // max(1, self.step_every)))
        t = min(1.0, epoch / (epochs - 1))
        return self.min_fraction + (1 - self.min_fraction) * 0.5 * (1 + math.cos(math.pi * t))

    def at(self, epoch: int, epochs: int) -> StepBudget:
        f = self.fraction(epoch, epochs)
        return StepBudget(
            max_edits=max(1, round(self.max_edits * f)),
            max_changed_tokens=max(1, round(self.max_changed_tokens * f)),
        )
