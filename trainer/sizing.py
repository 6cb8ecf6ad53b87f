"""Sizing a run before it starts: the calls it plans, and the smallest effect its val set
can show.

One estimate of a run's calls (`planned_calls`) serves the night's progress meter and ETA,
`run --dry-run` and the planner. It is an estimate, not a bound: a step rolls out its train
minibatch, asks the optimizer for a rule and for worked examples, screens one candidate and
compares it on fresh sweeps of the val tasks; the incumbent's sweeps are drawn once and
shared by every comparison against it (trainer.engine); then the held-out test. A step that
tries both kinds of candidate, builds on an undecided one or needs fresh incumbent sweeps
after an accept spends more; a comparison that stops early for futility or acceptance spends
less.

What the val set can show is read off the gate itself (`detectable_effect`): the smallest
mean effect `decide` accepts on `n_val` tasks × `sweeps` sweeps at the comparison's alpha,
when every paired difference equals that effect. For a given observed mean a constant
difference is the best case: log(1 + λx) is concave, so it grows every bet of the e-process
most (Jensen's inequality). So the gate accepts a comparison only when its observed mean
effect over the sweeps it has had is at least this large (over fewer sweeps, larger still):
an edit whose true effect is below it is accepted tonight only by a lucky draw.

`size` fits a run's settings to the val set, the time and the calls available: comparisons
are cut before sweeps (sweeps are what lets a comparison decide; fewer comparisons each get a
larger share of alpha), and it says when the smallest effect worth having cannot be detected.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Mapping
from dataclasses import asdict, dataclass, replace
from typing import Any

from trainer.demos import TRIES
from trainer.settings import TrainSettings

ROLES = ("optimizer", "target", "judge")


@dataclass(frozen=True)
class CallPlan:
    """A run's planned model calls, by role."""

    optimizer: int
    target: int
    judge: int

    @property
    def total(self) -> int:
        return self.optimizer + self.target + self.judge

    def seconds(self, per_call: Mapping[str, float | None]) -> float | None:
        """Wall time at these seconds per call of each role; None when a role that makes
        calls has no figure."""
        total = 0.0
        for role in ROLES:
            calls = getattr(self, role)
            if calls and per_call.get(role) is None:
                return None
            total += calls * float(per_call.get(role) or 0.0)
        return total

    def to_dict(self) -> dict[str, int]:
        return asdict(self)


def planned_calls(
    settings: TrainSettings, n_train: int, n_val: int, n_test: int, judge_calls: float = 0.0
) -> CallPlan:
    """The calls one run is planned to make on this many tasks (see the module docstring).
    ``judge_calls``: rubric judges per task (a judge call each per rollout and checked answer)."""
    steps = settings.planned_comparisons
    sweeps = max(1, settings.max_samples)
    train = min(settings.minibatch, n_train) * settings.train_samples
    screen = train if settings.screen else 0
    rollouts = steps * (train + screen + n_val * sweeps) + n_val * sweeps
    rollouts += 2 * n_test * settings.test_samples
    checks = steps * TRIES  # worked examples checked by their task's judges
    return CallPlan(
        optimizer=steps * (1 + TRIES),
        target=rollouts,
        judge=math.ceil(judge_calls * (rollouts + checks)),
    )


@functools.cache
def detectable_effect(
    n_val: int, sweeps: int, alpha: float, min_effect: float = 0.0
) -> float | None:
    """The smallest mean val effect the gate accepts on `n_val` tasks × `sweeps` sweeps at
    `alpha` (every paired difference equal to it; see the module docstring), to 0.001; None
    when not even a candidate that wins every pair by the whole score is accepted."""
    # the gate (and numpy) only when a run is sized: `status` reads a stored plan without it
    from trainer.gate import decide

    def accepts(effect: float) -> bool:
        cand = [[effect] * sweeps for _ in range(n_val)]
        inc = [[0.0] * sweeps for _ in range(n_val)]
        return decide(cand, inc, alpha=alpha, min_effect=min_effect).verdict == "accept"

    if n_val < 1 or sweeps < 1 or not accepts(1.0):
        return None
    low, high = 0.0, 1.0  # low never accepts, high always does
    while high - low > 1e-4:
        mid = (low + high) / 2
        low, high = (low, mid) if accepts(mid) else (mid, high)
    return math.ceil(high * 1000) / 1000


@dataclass(frozen=True)
class Sizing:
    """A run's settings fitted to tonight, what they can show and what they cost."""

    epochs: int
    steps_per_epoch: int
    max_samples: int
    n_val: int
    alpha_per_comparison: float
    detectable: float | None  # the smallest val effect that can be accepted tonight
    worth: float  # the smallest effect worth having (night.worth_effect)
    calls: CallPlan
    seconds: float | None  # planned calls × seconds per call; None when a role's is unknown
    available_seconds: float | None  # the run's share of the night's time, if known
    available_calls: int | None  # its share of the night's call budget, if one is set
    configured: tuple[int, int, int]  # epochs, steps_per_epoch, max_samples as configured

    @property
    def comparisons(self) -> int:
        return self.epochs * self.steps_per_epoch

    @property
    def can_detect(self) -> bool:
        return self.detectable is not None and self.detectable <= self.worth + 1e-9

    @property
    def short_of_time(self) -> bool:
        """The plan needs more time than is left (unknown seconds per call cannot say so)."""
        return (
            self.available_seconds is not None
            and self.seconds is not None
            and self.seconds > self.available_seconds
        )

    @property
    def short_of_calls(self) -> bool:
        """The plan needs more calls than the call budget leaves it."""
        return self.available_calls is not None and self.calls.total > self.available_calls

    @property
    def fits(self) -> bool:
        """Within the time and calls available (when known)."""
        return not (self.short_of_time or self.short_of_calls)

    def apply(self, settings: TrainSettings) -> TrainSettings:
        return replace(
            settings,
            epochs=self.epochs,
            steps_per_epoch=self.steps_per_epoch,
            max_samples=self.max_samples,
        )

    def shows(self) -> str:
        """What tonight can show, in words for the night's progress and the report."""
        plan = (
            f"{self.comparisons} comparison(s) of up to {self.max_samples} sweep(s) of "
            f"{self.n_val} val tasks at alpha {self.alpha_per_comparison:.3g} each"
        )
        epochs, steps, sweeps = self.configured
        if (epochs * steps, sweeps) != (self.comparisons, self.max_samples):
            plan += f" (configured: {epochs * steps} of up to {sweeps})"
        if self.detectable is None:
            return f"{plan}: no val gain can be accepted"
        return f"{plan}: accepts a val gain of {self.detectable:.3g} or more"

    def warning(self) -> str:
        """Why tonight cannot show what is worth having, or '' when it can."""
        out = []
        if not self.can_detect:
            least = (
                "no gain" if self.detectable is None else f"only a gain of {self.detectable:.3g}"
            )
            out.append(
                f"the smallest val gain worth having ({self.worth:.3g}) cannot be detected "
                f"tonight: {self.n_val} val tasks × {self.max_samples} sweep(s) at alpha "
                f"{self.alpha_per_comparison:.3g} can show {least} or more"
            )
        if not self.fits:
            need = []
            if self.short_of_time:
                need.append(
                    f"about {_minutes(self.seconds)} of the {_minutes(self.available_seconds)} left"
                )
            if self.short_of_calls:
                need.append(f"{self.calls.total} calls of the {self.available_calls} left")
            out.append(
                "tonight's plan needs " + " and ".join(need) + ": training stops before "
                "the plan's end"
            )
        return "; ".join(out)

    def to_dict(self) -> dict[str, Any]:
        out = asdict(self)
        out["calls"] = self.calls.to_dict()
        out["configured"] = list(self.configured)
        out.update(
            comparisons=self.comparisons, can_detect=self.can_detect, fits=self.fits,
            shows=self.shows(), warning=self.warning(),
        )  # fmt: skip
        return out

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Sizing:
        fields = {k: data[k] for k in cls.__dataclass_fields__}
        fields["calls"] = CallPlan(**data["calls"])
        fields["configured"] = tuple(data["configured"])
        return cls(**fields)


def _minutes(seconds: float | None) -> str:
    if seconds is None:
        return "an unknown time"
    return f"{seconds / 60:.1f} min"


def sized(
    settings: TrainSettings,
    n_tasks: Mapping[str, int],
    *,
    worth: float,
    judge_calls: float = 0.0,
    per_call: Mapping[str, float | None] | None = None,
    available_seconds: float | None = None,
    available_calls: int | None = None,
    configured: tuple[int, int, int] | None = None,
) -> Sizing:
    """The sizing of `settings` as they are: what they can show and what they cost."""
    n_train, n_val, n_test = (n_tasks.get(s, 0) for s in ("train", "val", "test"))
    calls = planned_calls(settings, n_train, n_val, n_test, judge_calls)
    alpha = settings.alpha_per_comparison
    return Sizing(
        settings.epochs,
        settings.steps_per_epoch,
        settings.max_samples,
        n_val,
        alpha,
        detectable_effect(n_val, max(1, settings.max_samples), alpha, settings.min_effect),
        worth,
        calls,
        calls.seconds(per_call or {}),
        available_seconds,
        available_calls,
        configured or (settings.epochs, settings.steps_per_epoch, settings.max_samples),
    )


def size(
    settings: TrainSettings,
    n_tasks: Mapping[str, int],
    *,
    worth: float,
    judge_calls: float = 0.0,
    per_call: Mapping[str, float | None] | None = None,
    available_seconds: float | None = None,
    available_calls: int | None = None,
) -> Sizing:
    """Fit `settings` to the val set, then to the time and calls available.

    1. When the configured comparisons split alpha so finely that the smallest effect worth
       having cannot be accepted at the configured sweeps, plan the most comparisons that
       can accept it (none can: the configured ones stay, and the sizing says so).
    2. While the plan does not fit the time or calls, plan fewer comparisons, then fewer
       sweeps — never fewer than the smallest count that can still accept an effect worth
       having (or the configured count, when none can). When even the smallest plan does
       not fit, it is the plan, and the sizing says so: the deadline or budget will stop
       training early whatever is planned, and a plan of more comparisons would hold back
       shares of alpha for comparisons that never run, from the one that does.
    """
    configured = (settings.epochs, settings.steps_per_epoch, settings.max_samples)

    def sized_as(epochs: int, steps: int, sweeps: int) -> Sizing:
        shaped = replace(settings, epochs=epochs, steps_per_epoch=steps, max_samples=sweeps)
        return sized(
            shaped, n_tasks, worth=worth, judge_calls=judge_calls, per_call=per_call,
            available_seconds=available_seconds, available_calls=available_calls,
            configured=configured,
        )  # fmt: skip

    shapes = _fewer_comparisons(settings.epochs, settings.steps_per_epoch)
    by_val = [sized_as(*shape, settings.max_samples) for shape in shapes]
    plan = next((p for p in by_val if p.can_detect), by_val[0])
    if plan.fits:
        return plan
    floor = next(
        (k for k in range(1, settings.max_samples + 1) if sized_as(1, 1, k).can_detect),
        settings.max_samples,
    )
    start = shapes.index((plan.epochs, plan.steps_per_epoch))
    for shape in shapes[start:]:
        smaller = sized_as(*shape, plan.max_samples)
        if smaller.fits:
            return smaller
    for sweeps in range(plan.max_samples - 1, floor - 1, -1):
        smaller = sized_as(1, 1, sweeps)
        if smaller.fits:
            return smaller
    return sized_as(1, 1, min(floor, plan.max_samples))


def _fewer_comparisons(epochs: int, steps: int) -> list[tuple[int, int]]:
    """(epochs, steps per epoch) from the configured shape down to one comparison, one
    shape per count of comparisons (the one with more epochs: each epoch sees every train
    task again)."""
    shapes = sorted(
        ((e, s) for e in range(1, epochs + 1) for s in range(1, steps + 1)),
        key=lambda es: (-es[0] * es[1], -es[0]),
    )
    return list({e * s: (e, s) for e, s in reversed(shapes)}.values())[::-1]
