"""The held-out test's reserve: training leaves the calls, tokens, cost and time the test
needs, whatever budget runs out, so a night that accepted an edit can say how much better
it is on held-out tasks (a skill whose test was not measured is never promoted)."""

from __future__ import annotations

from collections import Counter
from dataclasses import replace

import pytest

from tests.sim_helpers import wrapped
from trainer import MemoryCache, TrainSettings, optimize
from trainer.backends.base import Completion, Roles
from trainer.budget import Budget, BudgetExhausted, BudgetLimits
from trainer.calls import Caller, Request
from trainer.measure import Measurer
from trainer.rollout import ChatRollout
from trainer.sim import SimWorld
from trainer.tasks import Judge

WORLD = SimWorld.generate(2, n_rules=4, n_harmful=2, n_train=12, n_val=30, n_test=20)
SETTINGS = TrainSettings(epochs=2, steps_per_epoch=3, minibatch=6, samples=4, seed=1)
COST = 0.0005  # per call, so a cost budget is a call budget in dollars

# Test tasks that a judge model also grades: the test then makes a judge call per rollout.
RUBRIC = Judge("rubric", "names the rule the answer follows", 1.0, "test")
JUDGED = [replace(t, judges=(*t.judges, RUBRIC)) if t.split == "test" else t for t in WORLD.tasks]


def _unlimited(tasks):
    roles, shared = wrapped(WORLD, cost=COST)
    return optimize(WORLD.start_skill, tasks, roles, settings=SETTINGS), shared


@pytest.fixture(scope="module")
def full():
    result, _ = _unlimited(WORLD.tasks)
    assert result.accepted >= 1 and result.test.n_tasks > 0  # the baseline measures the test
    return result


def _measured(result) -> bool:
    return result.test.n_tasks > 0 and not result.test.method.startswith("not measured")


@pytest.mark.parametrize("kind", ["tokens", "cost"])
def test_a_token_or_cost_budget_leaves_room_for_the_test(full, kind: str) -> None:
    """The budget covers the test and three quarters of training (enough for this world's
    first accepted edit, one rule per candidate). Spending it on training until it runs
    out (before: only the call budget had a reserve) leaves nothing for the test."""
    used = full.usage
    test_calls = 2 * SETTINGS.test_samples * sum(t.split == "test" for t in WORLD.tasks)
    if kind == "tokens":
        target = used.by_role["target"]
        test = test_calls * target["tokens"] / target["calls"]  # test calls are rollouts
        total = used.input_tokens + used.output_tokens
        limits = BudgetLimits(max_tokens=int(test + 0.75 * (total - test)))
    else:
        test = test_calls * COST
        limits = BudgetLimits(max_cost_usd=test + 0.75 * (used.cost_usd - test))
    roles, _ = wrapped(WORLD, cost=COST)
    result = optimize(
        WORLD.start_skill, WORLD.tasks, roles, settings=replace(SETTINGS, budget=limits)
    )
    assert result.accepted >= 1, "training stopped before any edit: nothing to measure"
    assert _measured(result), result.test
    assert result.stop_reason == f"budget: {kind}"  # training, not the test, gave way


def test_the_call_reserve_counts_the_judge_calls_of_the_test() -> None:
    """Each test rollout is also graded by the judge model: the reserve must hold both."""
    full, _ = _unlimited(JUDGED)
    rollouts = 2 * SETTINGS.test_samples * sum(t.split == "test" for t in JUDGED)
    assert full.usage.calls > rollouts * 2  # training happened, and the test took 2×
    roles, _ = wrapped(WORLD, cost=COST)
    limits = BudgetLimits(max_calls=full.usage.calls - rollouts)  # half the test short
    result = optimize(WORLD.start_skill, JUDGED, roles, settings=replace(SETTINGS, budget=limits))
    assert _measured(result), result.test
    assert result.stop_reason == "budget: calls"
    assert result.accepted >= 1


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def test_the_deadline_keeps_time_for_the_reserved_calls() -> None:
    """At 1 s per call so far, 10 reserved calls need 10 s before the deadline."""
    clock = Clock()
    budget = Budget(BudgetLimits(deadline=1100.0), clock=clock)
    budget.reserve_calls = 10
    clock.now = 1050.0  # 50 s for 50 calls
    budget.check((50, 0, 0.0))
    clock.now = 1091.0  # 91 calls in 91 s: 10 more reach past 1100
    with pytest.raises(BudgetExhausted, match="deadline") as caught:
        budget.check((91, 0, 0.0))
    assert "kept for the held-out test" in str(caught.value)
    budget.reserve_calls = 0  # the test itself runs on what is left
    budget.check((91, 0, 0.0))


def test_reserves_scale_tokens_and_cost_by_the_average_call() -> None:
    """10 calls kept at 20 calls so far: limits shrink by half of what was spent."""
    budget = Budget(BudgetLimits(max_calls=100, max_tokens=1000, max_cost_usd=1.0))
    budget.reserve_calls = 10
    budget.check((20, 600, 0.6))  # 900 tokens, $0.90 with the reserve
    for usage, kind in [((20, 700, 0.6), "tokens"), ((20, 600, 0.7), "cost"),
                        ((90, 0, 0.0), "calls")]:  # fmt: skip
        with pytest.raises(BudgetExhausted) as caught:
            budget.check(usage)
        assert caught.value.kind == kind
    budget.check((89, 0, 0.0))


def test_a_batch_is_cut_where_its_calls_would_spend_the_token_or_cost_limit() -> None:
    """Checked against the usage at the batch start, a batch of 100 calls was all allowed or
    all refused on tokens and cost: one large batch could spend the test's reserve and more.
    Each position now counts the batch's earlier calls at the average call so far."""
    budget = Budget(BudgetLimits(max_tokens=1000, max_cost_usd=1.0))
    start = (10, 500, 0.1)  # 10 calls so far, 50 tokens and $0.01 each
    budget.check(start, position=9)  # 500 + 9 x 50 = 950 tokens
    with pytest.raises(BudgetExhausted) as caught:
        budget.check(start, position=10)  # 1,000 tokens
    assert caught.value.kind == "tokens"
    budget.reserve_calls = 4  # the reserve and the batch add up
    budget.check(start, position=5)
    with pytest.raises(BudgetExhausted):
        budget.check(start, position=6)
    cheap = Budget(BudgetLimits(max_cost_usd=0.2))
    cheap.check((10, 0, 0.1), position=9)
    with pytest.raises(BudgetExhausted) as caught:
        cheap.check((10, 0, 0.1), position=10)
    assert caught.value.kind == "cost"


class Ticking:
    """A model edge whose every call advances the clock: `seconds` per call."""

    def __init__(self, name: str, clock: Clock, seconds: float, concurrency: int = 1) -> None:
        self.identity, self.clock, self.seconds = name, clock, seconds
        self.concurrency = concurrency

    def complete(self, messages, *, json_schema=None, max_tokens=None) -> Completion:
        self.clock.now += self.seconds
        return Completion("ok", 10, 1)


ASK = [{"role": "user", "content": "x"}]


def _timed(deadline_in: float) -> tuple[Clock, Budget, Caller]:
    """A caller whose budget has timed one 60 s proposal and ten 2 s target calls."""
    clock = Clock()
    budget = Budget(BudgetLimits(deadline=clock.now + deadline_in), clock=clock)
    roles = Roles(Ticking("opt", clock, 60.0), Ticking("tgt", clock, 2.0), Ticking("j", clock, 2.0))
    caller = Caller(roles, MemoryCache(), budget)
    caller.run("optimizer", [Request(ASK, "h", "reflect", 0)])
    caller.run("target", [Request(ASK, "h", f"t{i}", 0) for i in range(10)])
    return clock, budget, caller


def test_the_deadline_reserve_is_timed_on_the_test_s_own_calls_not_the_optimizer_s() -> None:
    """One 60 s proposal and ten 2 s target calls: 70 s for 11 calls. At that average the
    10 reserved test calls would need ~64 s and training would stop; timed on the target's
    own calls they need 20 s, which fits."""
    clock, budget, _caller = _timed(deadline_in=120.0)
    assert clock.now == 1080.0
    budget.reserve_calls = 10
    budget.check()  # 1080 + 10 x 2 s < 1120
    clock.now = 1101.0
    with pytest.raises(BudgetExhausted, match="deadline"):
        budget.check()  # 1101 + 20 s > 1120


def test_a_call_that_would_run_into_the_test_s_time_is_not_started() -> None:
    """A 60 s proposal and ten 2 s target calls timed: 10 reserved test calls need 20 s. At
    50 s before the deadline a target call (2 s) still fits, another proposal does not: it
    would end 30 s past the point where the test has to begin."""
    clock, budget, caller = _timed(deadline_in=200.0)
    budget.reserve_calls = 10
    clock.now = 1150.0  # 50 s left: 20 s for the test, then 30 s
    budget.check(role="target")
    with pytest.raises(BudgetExhausted, match="deadline"):
        budget.check(role="optimizer")
    with pytest.raises(BudgetExhausted, match="deadline"):  # through the caller, as training does
        caller.run("optimizer", [Request(ASK, "h", "reflect-2", 0)])
    assert clock.now == 1150.0  # the proposal was not made
    budget.reserve_calls = 0  # the test itself: its 2 s calls fit in the 50 s left
    caller.run("target", [Request(ASK, "h", f"test{i}", 0) for i in range(10)])
    assert clock.now == 1170.0


class TickingTarget:
    """The simulation's target, each of its calls advancing the clock by `seconds`."""

    def __init__(self, inner, clock: Clock, seconds: float) -> None:
        self.inner, self.clock, self.seconds = inner, clock, seconds
        self.identity, self.concurrency, self.simulation = inner.identity, 1, True

    def complete(self, messages, *, json_schema=None, max_tokens=None) -> Completion:
        self.clock.now += self.seconds
        return self.inner.complete(messages, json_schema=json_schema, max_tokens=max_tokens)


def _test_lift(budget: Budget, clock: Clock, skill, tasks):
    roles = WORLD.roles()
    measure = Measurer(
        Caller(roles, MemoryCache(), budget),
        ChatRollout(TickingTarget(roles.target, clock, 1.0)),
        Counter(),
        200,
    )
    return measure.lift(skill, WORLD.start_skill, tasks, "test:cut", range(1))


def test_a_test_the_deadline_cuts_short_is_measured_on_the_tasks_both_skills_got(full) -> None:
    """40 test calls of 1 s (the best skill's 20, then the start's) and 35.5 s left: the
    start skill's last 4 tasks get no answer. The 16 tasks both were scored on measure the
    lift, exactly as a test of those 16 would; before, the 36 answers were thrown away and
    the accepted edit stayed unmeasured."""
    tasks = [t for t in WORLD.tasks if t.split == "test"]
    assert len(tasks) == 20
    clock = Clock()
    cut = _test_lift(Budget(BudgetLimits(deadline=clock.now + 35.5), clock=clock), clock,
                     full.best_skill, tasks)  # fmt: skip
    assert clock.now == 1036.0  # 36 calls were made, the 37th refused
    assert cut.n_tasks == 16
    assert cut.method.endswith("(16 of 20 test tasks: budget deadline ran out)")
    clock = Clock()
    whole = _test_lift(Budget(clock=clock), clock, full.best_skill, tasks[:16])
    assert (cut.lift, cut.ci_low, cut.ci_high) == (whole.lift, whole.ci_low, whole.ci_high)
    assert whole.method == "paired t-interval over test tasks"
