"""Echoed headings (trainer.echo): when failed answers repeat the skill's own section
headings, the step's first candidate deletes them — read off the answers, no optimizer
call — and the gate decides as for any edit.

The target is a scripted backend (the model edge) that behaves as the embedded 0.5B was
measured to (docs/models.md): while its skill has section headings it answers with them and
the lines under them; without them it writes a short message of its own.
"""

from __future__ import annotations

from scripted_helpers import Scripted, tasks

from trainer import TrainSettings, optimize
from trainer.backends.base import Roles
from trainer.echo import echoed_headings, edits
from trainer.edits import apply_edits
from trainer.skill import SkillDoc
from trainer.tasks import Judge

SKILL = (
    "---\nname: commit\ndescription: Write commit messages.\n---\n# Commit message\n\n"
    "## Steps\n\n1. Read the staged diff.\n2. Say what changed.\n\n"
    "## Rules\n\n- Mention the files that changed.\n"
)
ECHO = "## Commit message\n\n### steps\n\n1. Read the staged diff.\n\n## Rules\n\n- Mention it."


def test_the_section_headings_an_answer_repeats_are_found_at_any_level_but_not_the_title() -> None:
    skill = SkillDoc.parse(SKILL)
    assert echoed_headings(skill, [ECHO]) == ["## Steps", "## Rules"]
    assert echoed_headings(skill, ["fix: follow the steps and the rules"]) == []  # words only
    assert echoed_headings(skill, ["## Commit message\n\nfix: clamp heights"]) == []  # title
    assert echoed_headings(skill, ["### Steps\n1.", "fix: x"]) == ["## Steps"]


def test_deleting_the_echoed_headings_keeps_every_instruction() -> None:
    skill = SkillDoc.parse(SKILL)
    new, applied, failed = apply_edits(skill, edits(skill, [ECHO]))
    assert failed == [] and [e.kind for e in applied] == ["delete", "delete"]
    assert "## " not in new.body and "\n\n\n" not in new.body  # one blank line between parts
    for line in (
        "# Commit message",
        "1. Read the staged diff.",
        "- Mention the files that changed.",
    ):
        assert line in new.body


def echoing_target(system: str, user: str) -> str:
    if "## Steps" in system:
        return "## Steps\n\n1. Read the staged diff.\n2. Say what changed."
    return f"fix: update {user.split()[-1]}"


def test_a_target_that_echoes_the_headings_loses_them_without_an_optimizer_call() -> None:
    opt = Scripted("optimizer", lambda s, u: "I would make the skill clearer.")
    judge = Scripted("judge", lambda s, u: '{"grade": 10, "reason": "ok"}')
    settings = TrainSettings(
        epochs=1, steps_per_epoch=1, minibatch=4, train_samples=1, max_samples=2, test_samples=1
    )
    judges = (Judge("not_contains", "##"), Judge("max_words", "12"))
    result = optimize(
        SKILL,
        tasks(judges),
        Roles(opt, Scripted("target", echoing_target), judge),
        settings=settings,
    )
    assert opt.prompts == []  # found in the answers
    assert result.counters["echo_edits"] == 1  # "## Rules" was never repeated
    (step,) = result.history
    assert [(e["kind"], e["anchor"]) for e in step["edits"]] == [("delete", "## Steps")]
    assert step["evidence"]["verdict"] == "accept"
    assert "## Steps" not in result.best_skill.body and "## Rules" in result.best_skill.body
    # the echo breaks "no ##" and meets the word limit; the answers after it meet both
    assert (result.test.start_score, result.test.best_score) == (0.5, 1.0)


def test_a_target_that_echoes_nothing_gets_no_echo_edit() -> None:
    opt = Scripted("optimizer", lambda s, u: "I would make the skill clearer.")
    judge = Scripted("judge", lambda s, u: '{"grade": 10, "reason": "ok"}')
    long = Scripted("target", lambda s, u: "the diff shows edits " * 5)
    settings = TrainSettings(epochs=1, steps_per_epoch=1, minibatch=4, train_samples=1)
    result = optimize(
        SKILL, tasks((Judge("max_words", "12"),)), Roles(opt, long, judge), settings=settings
    )
    assert "echo_edits" not in result.counters
    assert result.counters["unparseable_proposals"] == 1  # the step went on to reflection
