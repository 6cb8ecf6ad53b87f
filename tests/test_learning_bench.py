"""benchmarks/learning_tasks.py and learning_local.py's mechanics (SIMULATION roles: the
real-model figures are the benchmark's, docs/models.md): the generated tasks are what mining
would make of a user's sessions, and every arm is measured the same way."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "benchmarks"))

from learning_local import ARMS, goals, run_kind  # noqa: E402
from learning_tasks import KINDS, SPLITS, generate, pasted  # noqa: E402

from trainer.cache import MemoryCache  # noqa: E402
from trainer.checks import passes  # noqa: E402
from trainer.corrections import lines  # noqa: E402
from trainer.sim import SimWorld  # noqa: E402
from trainer.tasks import user_said  # noqa: E402


@pytest.mark.parametrize("kind", list(KINDS))
def test_generated_tasks_are_verified_and_split_like_a_mined_store(kind: str) -> None:
    for seed, sizes in ((0, SPLITS), (1, SPLITS), (2, {"train": 4, "val": 6, "test": 5})):
        gen = generate(kind, seed, sizes)  # a smaller run (--sizes) is verified the same way
        assert {s: sum(t.split == s for t in gen.tasks) for s in SPLITS} == sizes
        for task in gen.tasks:
            accepted = task.meta["accepted"]
            assert all(passes(j.kind, j.value, j.scope, accepted) for j in task.judges)
            content = [j for j in task.judges if j.kind == "mentions_any"]
            # a small run's few requests may leave a task without one (the benchmark counts it)
            assert (content or sizes != SPLITS) and not any(
                passes(c.kind, c.value, c.scope, "") for c in content
            )
        # train tasks quote only the train session's words; val and test have their own
        quotes = {s: {q for t in gen.tasks if t.split == s for j in t.judges for q in j.quotes}
                  for s in SPLITS}  # fmt: skip
        assert quotes["train"] == set(gen.said("train"))
        assert set(gen.said("val")) <= quotes["val"] and not set(gen.said("val")) & quotes["test"]
        assert all(user_said(j.source) for t in gen.tasks for j in t.judges if j.quotes)
        # the corrections candidate reads a line from each rule the user stated in train
        assert len(lines(gen.tasks)) >= len(gen.kind.rules)
        assert all(q in pasted(gen).body for q in gen.said("train"))
    assert generate(kind, 0).tasks != generate(kind, 1).tasks


def test_every_arm_is_measured_against_the_start_on_the_same_test_answers() -> None:
    gen = generate("ci-log-summary", 0)
    world = SimWorld.for_tasks(gen.tasks, seed=0, start_skill=gen.start)
    rows = run_kind(gen, 0, 120, world.roles(), MemoryCache(), say=lambda m: None)
    assert list(rows) == list(ARMS)
    start = rows["start"]["skill_test"]["pass_all"]["value"]
    for arm, row in rows.items():
        p = row["pass_all"]
        assert p["before"] == pytest.approx(start), arm  # one start, the same answers
        assert p["after"] == pytest.approx(row["skill_test"]["pass_all"]["value"]), arm
        assert p["n_tasks"] == SPLITS["test"]
        if arm in ("mean-went-up", "gepa", "ours"):
            assert 0 < row["calls"] <= 120, (arm, row["calls"])  # the same budget to learn
    assert rows["start"]["pass_all"]["lift"] == 0
    assert set(goals(rows)) == {"ours_pass_all_lift", "ours_ci_above_zero", "at_least_gepa",
                                "at_least_mean_went_up", "never_below_start"}  # fmt: skip


def test_over_two_nights_ours_spends_each_nights_budget_and_the_others_the_sum() -> None:
    """--nights 2: ours learns over two nights of the budget with one ledger (a comparison
    the first night's budget cut goes on the next night), the others get both nights' calls
    in one run, and the first night is the one-night arm's own run."""
    gen = generate("ci-log-summary", 0)
    world = SimWorld.for_tasks(gen.tasks, seed=0, start_skill=gen.start)
    cache = MemoryCache()
    arms = ("start", "mean-went-up", "ours")
    one = run_kind(gen, 0, 60, world.roles(), cache, say=lambda m: None, arms=arms)
    two = run_kind(gen, 0, 60, world.roles(), cache, say=lambda m: None, arms=arms, nights=2)
    first, second = two["ours"]["nights"]
    assert first["calls"] == one["ours"]["calls"] and first["stop"] == one["ours"]["stop"]
    assert all(0 < n["calls"] <= 60 for n in (first, second))
    assert two["ours"]["calls"] == first["calls"] + second["calls"]
    assert 60 < two["mean-went-up"]["calls"] <= 120  # both nights' calls in one run
    # at 60 calls the first night's budget cuts a comparison: the second night goes on with it
    assert first["pending"] == 1 and first["stop"] == "budget: calls"
    assert second["continued"] == 1
