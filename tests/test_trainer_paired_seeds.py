"""Paired seeds: every skill's attempt at one task and sample is drawn with the same seed
(common random numbers), so comparisons of similar skills carry less sampling noise."""

from __future__ import annotations

import threading
from dataclasses import replace

from trainer.backends.base import paired_seed, sample_seed
from trainer.budget import Budget
from trainer.cache import MemoryCache
from trainer.calls import Caller, RolloutJob
from trainer.edits import Edit, apply_edit
from trainer.rollout import ChatRollout, Outcome
from trainer.sim import SimParams, SimWorld
from trainer.skill import SkillDoc
from trainer.tasks import Task


class SeedRecorder:
    """A rollout adapter that answers with the sampler seed it was called under."""

    simulation = True
    identity = "seed-recorder"
    concurrency = 4

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.seen: list[int | None] = []

    def fingerprint(self, skill: SkillDoc, task: Task, max_tokens: int | None) -> list:
        return [skill.hash, task.prompt]

    def rollout(self, skill: SkillDoc, task: Task, *, max_tokens: int | None) -> Outcome:
        with self.lock:
            self.seen.append(sample_seed())
        return Outcome(str(sample_seed()))


def test_each_attempt_gets_the_seed_of_its_task_and_sample_whatever_the_skill() -> None:
    a = SkillDoc(name="s", description="d", body="Write tests.\n")
    b = a.with_body("Write tests first.\n")
    t1, t2 = Task("t1", "p1", "val"), Task("t2", "p2", "val")
    jobs = [RolloutJob(doc, t, f"val:{k}") for doc in (a, b) for t in (t1, t2) for k in (0, 1)]
    world = SimWorld.generate(0)
    caller = Caller(world.roles(), MemoryCache(), Budget())
    got = [o.answer for o in caller.rollouts(SeedRecorder(), jobs, None)]
    per_skill = len(got) // 2
    assert got[:per_skill] == got[per_skill:]  # skill a and skill b: the same seeds
    assert len(set(got[:per_skill])) == per_skill  # every (task, sample) its own seed
    assert got[0] == str(paired_seed("t1", "val:0"))
    assert sample_seed() is None  # set only while the attempt runs


def test_paired_seed_is_a_stable_31_bit_int_that_differs_by_task_and_sample() -> None:
    seeds = {paired_seed(t, k) for t in ("a", "b", "c") for k in (0, 1, "val:0", "val:1")}
    assert len(seeds) == 12 and all(0 <= s < 2**31 for s in seeds)
    assert paired_seed("a", 0) == paired_seed("a", 0)
    assert paired_seed("a", 0) != paired_seed("a", "0:own")


def _answers(world: SimWorld, docs: list[SkillDoc], samples: int) -> list[list[str]]:
    """Per skill, the simulated target's answers on every val task and sample."""
    val = [t for t in world.tasks if t.split == "val"]
    caller = Caller(world.roles(), MemoryCache(), Budget())
    adapter = ChatRollout(world.roles().target)
    out = []
    for doc in docs:
        jobs = [RolloutJob(doc, t, f"val:{k}") for t in val for k in range(samples)]
        out.append([o.answer for o in caller.rollouts(adapter, jobs, 400)])
    return out


def test_a_seeding_target_answers_similar_skills_alike_and_still_samples() -> None:
    """SIMULATION with paired_share 1: a neutral line changes no answer on a paired draw;
    the samples of one skill still differ; an edit that teaches a rule changes answers."""
    world = SimWorld.generate(2, params=SimParams(paired_share=1.0))
    start = world.start_skill
    neutral = apply_edit(start, Edit("add", text="- Keep the tone friendly."))
    rule = next(r for r in world.rules if r.id not in world.taught(world.target_text(start)))
    taught = apply_edit(start, Edit("add", text=f"- {rule.paraphrases[0]}"))
    assert world.taught(world.target_text(neutral)) == world.taught(world.target_text(start))
    base, same, better = _answers(world, [start, neutral, taught], samples=2)
    # dilution lowers compliance a little, so a handful may part; nearly all agree
    agree = sum(x == y for x, y in zip(base, same, strict=True))
    assert agree >= 0.9 * len(base)
    assert len(set(base)) > 1  # the target still samples
    assert better != base and sum(rule.judge.value in a for a in better) > sum(
        rule.judge.value in a for a in base
    )


def test_without_paired_draws_two_skills_answer_independently() -> None:
    """SIMULATION with paired_share 0 (an endpoint that cannot seed): the same neutral line
    leaves far fewer answers equal than paired draws do."""
    coupled = SimWorld.generate(2, params=SimParams(paired_share=1.0))
    apart = replace(coupled, params=SimParams(paired_share=0.0))
    counts = []
    for world in (coupled, apart):
        start = world.start_skill
        neutral = apply_edit(start, Edit("add", text="- Keep the tone friendly."))
        base, same = _answers(world, [start, neutral], samples=2)
        counts.append(sum(x == y for x, y in zip(base, same, strict=True)))
    assert counts[1] < counts[0] - 10
