"""Run settings, with the defaults documented in configs/default.yaml (`trainer:`, `budget:`)."""

from __future__ import annotations

from dataclasses import dataclass, field, fields
from datetime import datetime
from typing import Any

from trainer.budget import BudgetLimits
from trainer.lr import LearningRate


@dataclass(frozen=True)
class TrainSettings:
    epochs: int = 2
    steps_per_epoch: int = 4
    minibatch: int = 8  # train tasks rolled out per step
    train_samples: int = 2  # samples per train task (reflection and screening only)
    samples: int = 1  # sweeps (one sample per val task and side) between looks of the gate
    max_samples: int = 40  # most sweeps a candidate gets per night; then it stays pending
    test_samples: int = 4  # samples per test task and side for the end-of-run lift
    alpha: float = 0.05  # false-accept rate of the whole run (split over its comparisons)
    min_effect: float = 0.0  # smallest mean gain worth a change
    no_regression: float | None = None  # block if any val task drops by more than this
    lr: LearningRate = field(default_factory=LearningRate)
    screen: bool = True  # pre-check candidates on the train minibatch before the gate
    max_skill_tokens: int = 1500  # hard cap on the rendered skill
    max_failures_shown: int = 4
    max_successes_shown: int = 2
    max_prompt_tokens: int = 3000  # reflection prompt; fits small models' contexts
    max_answer_tokens: int = 512  # rollouts
    seed: int = 0
    run_id: str = ""  # part of every sample id: another run (night) never replays these
    budget: BudgetLimits = field(default_factory=BudgetLimits)

    @property
    def planned_comparisons(self) -> int:
        return max(1, self.epochs * self.steps_per_epoch)

    @property
    def alpha_per_comparison(self) -> float:
        """The share of alpha each planned step adds (online Bonferroni; see engine)."""
        return self.alpha / self.planned_comparisons

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {}
        for f in fields(self):
            value = getattr(self, f.name)
            out[f.name] = value.__dict__.copy() if f.name in ("lr", "budget") else value
        return out

    @classmethod
    def from_config(cls, config: dict[str, Any], now: datetime | None = None) -> TrainSettings:
        """From the whole config (`trainer:` and `budget:` sections) or a `trainer:` section."""
        section = dict(config.get("trainer", config) or {})
        budget = BudgetLimits.from_config(config.get("budget"), now)
        lr = LearningRate(
            max_edits=int(section.pop("lr_max_edits", 2)),
            max_changed_tokens=int(section.pop("lr_max_changed_tokens", 120)),
            schedule=str(section.pop("lr_schedule", "cosine")),
            min_fraction=float(section.pop("lr_min_fraction", 0.34)),
        )
        known = {f.name for f in fields(cls)} - {"lr", "budget"}
        unknown = set(section) - known - {"budget"}
        if unknown:
            raise ValueError(f"unknown trainer settings: {sorted(unknown)}")
        kwargs = {k: v for k, v in section.items() if k in known}
        return cls(lr=lr, budget=budget, **kwargs)
