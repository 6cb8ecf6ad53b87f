"""The GEPA arm's plumbing (benchmarks/gepa_arm.py) on the simulated world (SIMULATION): a
short GEPA run over our rollouts, judges and budget completes, spends within the budget, and
returns a skill with the start's name and description."""

from __future__ import annotations

import pytest

pytest.importorskip("gepa")

from benchmarks.gepa_arm import COMPONENT, SkillAdapter, run_gepa  # noqa: E402
from trainer.backends.base import Roles  # noqa: E402
from trainer.sim import SimWorld  # noqa: E402


@pytest.mark.parametrize("budget", [60, 200])
def test_a_short_gepa_run_spends_within_the_budget_and_returns_a_skill(budget: int) -> None:
    world = SimWorld.generate(0, n_train=6, n_val=8, n_test=4)
    roles = world.roles()
    run = run_gepa(world.start_skill, world.tasks, roles, max_calls=budget, seed=0)
    calls = run.usage["calls"]
    assert 0 < calls <= budget and run.stop == "budget"
    by_role = run.usage["by_role"]
    # the start on 8 val tasks, then minibatches of 3 train tasks, and reflections
    assert by_role["target"]["calls"] >= 8 + 3
    assert run.reflections == by_role["optimizer"]["calls"] >= 1
    assert (run.best.name, run.best.description) == (
        world.start_skill.name,
        world.start_skill.description,
    )
    assert run.candidates >= 1 and run.log


def test_the_adapter_scores_with_our_judges_and_tells_reflection_what_went_wrong() -> None:
    world = SimWorld.generate(1, n_train=4, n_val=4, n_test=2)
    from collections import Counter

    from trainer.budget import Budget
    from trainer.cache import MemoryCache
    from trainer.calls import Caller
    from trainer.measure import Measurer
    from trainer.rollout import ChatRollout

    roles: Roles = world.roles()
    budget = Budget()
    measure = Measurer(Caller(roles, MemoryCache(), budget), ChatRollout(roles.target), Counter(),
                       512)  # fmt: skip
    adapter = SkillAdapter(world.start_skill, measure)
    train = [t for t in world.tasks if t.split == "train"]
    batch = adapter.evaluate(train, {COMPONENT: world.start_skill.body}, capture_traces=True)
    assert len(batch.scores) == len(batch.outputs) == len(batch.trajectories) == len(train)
    assert all(0.0 <= s <= 1.0 for s in batch.scores) and budget.usage.calls == len(train)
    dataset = adapter.make_reflective_dataset({COMPONENT: ""}, batch, [COMPONENT])
    records = dataset[COMPONENT]
    assert [r["Inputs"]["task"] for r in records] == [t.prompt for t in train]
    failed = [r for r, s in zip(records, batch.scores, strict=True) if s < 1.0]
    assert failed and all("left out" in r["Feedback"] for r in failed)  # words, not literals
    assert not any("-ok]" in r["Feedback"] for r in records)  # the judge firewall holds
    # a second evaluation draws fresh answers (a new sample id), charged to the budget
    adapter.evaluate(train, {COMPONENT: world.start_skill.body})
    assert budget.usage.calls == 2 * len(train) and budget.usage.cached_calls == 0
