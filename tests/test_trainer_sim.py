"""The simulated world (SIMULATION) and the gate's looks."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from trainer import TrainSettings
from trainer.calls import current_call_key
from trainer.edits import Edit, apply_edit
from trainer.rollout import Outcome
from trainer.scoring import rule_score
from trainer.sim import SimWorld
from trainer.skill import SkillDoc
from trainer.tasks import Judge, Task


def test_rules_are_taught_by_paraphrase_not_one_magic_sentence() -> None:
    world = SimWorld.generate(3)
    rule = world.rules[1]
    taught = [p for p in rule.paraphrases if rule.id in world.taught(f"- {p}\n")]
    assert len(taught) == len(rule.paraphrases) >= 4
    words = rule.paraphrases[0].rstrip(".").split()
    assert rule.id not in world.taught(words[-1])  # one word is not enough
    assert rule.id not in world.taught("Be clear and precise in every answer.")


def test_target_is_noisy_teaching_helps_harm_hurts_and_length_dilutes() -> None:
    world = SimWorld.generate(3)
    start = world.expected_score(world.start_skill, "val")
    rule = world.rules[1]
    helped = apply_edit(world.start_skill, Edit("add", text=f"- {rule.paraphrases[2]}"))
    assert world.expected_score(helped, "val") > start + 0.03
    harm = next(h for h in world.harmful if h.conflicts_with == world.rules[0].id)
    hurt = apply_edit(world.start_skill, Edit("add", text=f"- {harm.paraphrases[0]}"))
    assert world.expected_score(hurt, "val") < start - 0.03
    long = world.start_skill.with_body(world.start_skill.body + "- filler words here\n" * 200)
    assert world.expected_score(long, "val") < start
    probs = [p for task in world.task_probs(world.start_skill, "val") for p in task]
    assert min(probs) > 0 and max(probs) < 1  # every outcome is a coin, never certain


def test_sim_backends_are_deterministic_per_call_key_and_labelled() -> None:
    world = SimWorld.generate(0)
    roles = world.roles()
    assert all(
        getattr(b, "simulation", False) for b in (roles.optimizer, roles.target, roles.judge)
    )
    task = world.tasks[0]
    msgs = [
        {"role": "system", "content": world.target_text(world.start_skill)},
        {"role": "user", "content": task.prompt},
    ]
    a = [roles.target.complete(msgs).text for _ in range(3)]
    assert a[0] == a[1] == a[2]  # no call key: seeded from the messages
    assert current_call_key() is None


SAID = "use pytest, not nose, and keep the first line under 50 characters"
USER_RULES = (
    Judge("contains", "pytest", 1.0, "turn a:1: user correction", (SAID,)),
    Judge("not_contains", "nose", 1.0, "turn a:1: user correction", (SAID,)),
    Judge("regex", r"\A\s*[^\n]{1,50}(?:\n|\Z)", 1.0, "turn a:1: user correction", (SAID,)),
    Judge("max_words", "30", 1.0, "turn b:1: user correction", ("at most 30 words",)),
    Judge("regex", r"(?m)^\s*[-*•] \S", 1.0, "turn c:1: user correction", ("as bullets",)),
)


def test_for_tasks_builds_its_rules_from_the_judges_of_the_users_words() -> None:
    """Whatever their kind; a judge the user never said (a command the logs showed, the
    rubric) steers nothing, and neither does one no answer can flip."""
    unsaid = Judge("contains", "uv run", 0.5, "tool calls: run in 9/10 turns of this kind")
    always = Judge("regex", r"\w", 1.0, "turn d:1: user correction", ("say something",))
    rubric = Judge("rubric", "a regression test the user accepts", 1.0, "accepted outcome")
    tasks = [
        Task(
            f"t{i}",
            f"Add a regression test for bug {i}.",
            "val",
            (*USER_RULES, unsaid, always, rubric),
        )  # fmt: skip
        for i in range(10)
    ]
    world = SimWorld.for_tasks(tasks, seed=2)
    assert [r.judge for r in world.rules] == list(USER_RULES)
    assert world.rules[0].paraphrases[0] == SAID  # taught in the user's words
    rules = {r.id for r in world.rules}
    followed, broken = world.answer("t0", rules), world.answer("t0", set())
    for j in USER_RULES:
        assert rule_score(j, Outcome(followed)) == 1.0, (j, followed)
        assert rule_score(j, Outcome(broken)) == 0.0, (j, broken)
    for r in world.rules:  # each rule alone: its judge passes, every other one fails
        alone = world.answer("t0", {r.id})
        assert [rule_score(j, Outcome(alone)) for j in USER_RULES] == [
            float(j == r.judge) for j in USER_RULES
        ], (r.judge, alone)
    bare = world.expected_score(world.start_skill, "val")
    taught = world.start_skill.with_body(f"# Skill\n- {SAID}.\n")
    assert world.expected_score(taught, "val") > bare


def test_the_simulated_target_passes_the_judges_of_the_rules_it_follows() -> None:
    """Scored by the trainer's own judges, answers of a skill that states the user's rules
    pass them about as often as the world says (p_taught) and far more than without."""
    tasks = [Task(f"t{i}", f"Add a regression test for bug {i}.", "val", USER_RULES[:3])
             for i in range(40)]  # fmt: skip
    world = SimWorld.for_tasks(tasks, seed=5)
    roles = world.roles()
    taught = world.start_skill.with_body(f"# Skill\n- {SAID}.\n")

    def share(skill: SkillDoc) -> float:
        passed = []
        for t in tasks:
            msgs = [
                {"role": "system", "content": world.target_text(skill)},
                {"role": "user", "content": t.prompt},
            ]
            answer = roles.target.complete(msgs).text
            passed += [rule_score(j, Outcome(answer)) for j in t.judges]
        return sum(passed) / len(passed)

    p = world.params
    assert abs(share(taught) - p.p_taught) < 0.12
    assert abs(share(world.start_skill) - p.p_untaught) < 0.12


def test_config_trainer_section_matches_the_settings_defaults() -> None:
    path = Path(__file__).resolve().parents[1] / "configs/default.yaml"
    section = yaml.safe_load(path.read_text())["trainer"]
    assert TrainSettings.from_config({"trainer": section}) == TrainSettings()


@pytest.mark.parametrize("seed", [0, 1])
def test_generated_world_is_seeded(seed: int) -> None:
    a, b = SimWorld.generate(seed), SimWorld.generate(seed)
    assert [t.to_dict() for t in a.tasks] == [t.to_dict() for t in b.tasks]
    assert isinstance(a.start_skill, SkillDoc) and a.start_skill.name


def test_overreach_teaches_its_rule_hurts_the_rest_and_neutral_lines_cost_attention() -> None:
    world = SimWorld.generate(1)
    over = next(h for h in world.harmful if h.conflicts_with == f"~{world.rules[3].id}")
    line = f"- {over.paraphrases[0]}"
    assert world.taught(line) == {over.id, world.rules[3].id}  # only its own shell counts
    start = world.expected_score(world.start_skill, "test")
    hurt = apply_edit(world.start_skill, Edit("add", text=line))
    assert world.expected_score(hurt, "test") < start  # net harmful on the distribution
    neutral = apply_edit(world.start_skill, Edit("add", text="- Be clear and precise."))
    assert world.expected_score(neutral, "test") < start  # no free length
