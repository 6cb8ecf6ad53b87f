"""Worked examples (trainer.demos): the answer the user accepted for a failed train task, or
else the optimizer's answer to it, checked by the task's judges (its content check among them),
gated like any edit; an answer that copies the example fails its task.

The optimizer and the target are scripted backends — the model edge — that answer as the
embedded models were measured to (docs/models.md): the target writes a long, headed answer
until its skill shows an example, then a one-line message of its own for each task.
"""

from __future__ import annotations

from dataclasses import replace

from scripted_helpers import Scripted
from scripted_helpers import tasks as commit_tasks

from trainer import TrainSettings, optimize
from trainer.backends.base import Roles
from trainer.demos import MARKER, clean, copies_example, example_edit, examples
from trainer.edits import apply_edit
from trainer.skill import SkillDoc
from trainer.tasks import Judge

SKILL = (
    "---\nname: commit\ndescription: Write commit messages.\n---\n# Commit\n\n- Say what changed.\n"
)
JUDGES = (Judge("not_contains", "##"), Judge("max_words", "12"))
CORRECTED = "fix: keep csv line endings"


def task_of(prompt: str) -> str:
    """The task id a prompt names ("... for change train-0")."""
    return next(w for w in prompt.split() if w.startswith(("train-", "val-", "test-")))


def optimizer(correction: str, name_the_task: bool = True) -> Scripted:
    """Answers a worked-example request with `correction` (about the task it was asked for
    unless `name_the_task` is false); no JSON for reflection."""

    def answer(system: str, user: str) -> str:
        if system.startswith("You answer a task"):
            about = f" for {task_of(user)}" if name_the_task else ""
            return f'"{correction}{about}"'  # models often quote it: cleaned before checking
        return "I would make the skill clearer."  # no JSON: reflection comes to nothing

    return Scripted("optimizer", answer)


def target(copy: bool = False) -> Scripted:
    def answer(system: str, user: str) -> str:
        if MARKER not in system:
            return "## Changes\n\n" + " ".join(["the diff shows edits to several files"] * 3)
        if copy:  # the skill's example, verbatim
            return system.split(MARKER, 1)[1].strip().splitlines()[0]
        return f"fix: update {user.split()[-1]}"

    return Scripted("target", answer)


def with_content(tasks: list, accepted: bool = False) -> list:
    """Each task with its content check (its answer must name its change), and the answer
    the user accepted for it when `accepted`."""
    out = []
    for t in tasks:
        check = Judge("mentions_any", t.id)
        meta = {"accepted": f"fix: trim header row in {t.id}"} if accepted else {}
        out.append(replace(t, judges=(*t.judges, check), meta=meta))
    return out


def run(
    opt: Scripted,
    tgt: Scripted,
    judges: tuple[Judge, ...] = JUDGES,
    skill: str = SKILL,
    content: bool = True,
    accepted: bool = False,
):
    settings = TrainSettings(
        epochs=1, steps_per_epoch=1, minibatch=4, train_samples=1, max_samples=2, test_samples=1
    )
    roles = Roles(opt, tgt, Scripted("judge", lambda s, u: '{"grade": 10, "reason": "ok"}'))
    tasks = commit_tasks(judges)
    if content:
        tasks = with_content(tasks, accepted)
    return optimize(skill, tasks, roles, settings=settings)


def test_a_skill_without_an_example_gets_one_first_and_it_wins_the_gate() -> None:
    opt = optimizer(CORRECTED)
    result = run(opt, target())
    assert "unparseable_proposals" not in result.counters  # no reflection was needed
    # three failed tasks answered, each answer passes its task: the screen keeps the first
    assert (result.counters["example_answers"], result.counters["worked_examples"]) == (3, 3)
    (step,) = result.history
    first = step.edits[0].text
    assert first.startswith(f"{MARKER}\n\n{CORRECTED} for train-")
    assert step.edits[0].origin == "example"
    assert step.evidence["verdict"] == "accept"
    assert result.best_skill.body.rstrip().endswith(first)
    assert (result.test.start_score, result.test.best_score) == (0.0, 1.0)
    # the optimizer saw the task and what went wrong as requirements, not the failed answer
    asked = opt.prompts[-1]
    assert asked.startswith("Task:\nwrite the commit message for change train-")
    assert "- the answer was longer than the task wants" in asked and "## Changes" not in asked


def test_an_answer_that_names_nothing_of_its_task_is_no_example_of_it() -> None:
    # passes every rule the user stated (short, no heading), but is not about the task
    result = run(optimizer(CORRECTED, name_the_task=False), target())
    assert result.counters["example_answers"] == 3 and "worked_examples" not in result.counters
    assert result.history == []


def test_the_optimizer_is_not_asked_for_an_example_of_a_task_without_a_content_check() -> None:
    opt = optimizer(CORRECTED)
    result = run(opt, target(), content=False)
    assert result.counters["examples_without_content_check"] == 4
    assert not any(p.startswith("Task:") for p in opt.prompts)
    assert result.history == []


def test_the_answers_the_user_accepted_are_the_first_examples_and_cost_no_call() -> None:
    opt = optimizer(CORRECTED)
    result = run(opt, target(), accepted=True)
    assert not any(p.startswith("Task:") for p in opt.prompts)  # the optimizer was not asked
    assert result.counters["accepted_examples"] == 3 and "example_answers" not in result.counters
    (step,) = result.history
    (edit,) = step.edits
    assert edit.text.startswith(f"{MARKER}\n\nfix: trim header row in train-")
    assert edit.origin == "accepted_answer" and "accepted" in edit.rationale
    assert step.evidence["verdict"] == "accept"


def test_an_example_that_fails_its_judges_is_never_offered_and_rules_are_asked_next() -> None:
    result = run(optimizer("## fix: keep csv line endings"), target())
    assert result.counters["example_answers"] == 3 and "worked_examples" not in result.counters
    assert result.counters["unparseable_proposals"] == 1
    assert result.history == [] and result.counters.get("comparisons", 0) == 0
    assert result.best_skill.hash == SkillDoc.parse(SKILL).hash


def test_an_answer_that_copies_the_example_fails_its_task() -> None:
    result = run(optimizer(CORRECTED), target(copy=True))
    assert result.counters["worked_examples"] == 3
    # every screened answer was a copy: the minibatch but the task the example answers,
    # for each of the three examples
    assert result.counters["copied_examples"] == 9
    assert result.history == []
    assert {r.reason for r in result.rejected} == {"screen: no gain on the train minibatch"}


def test_of_several_worked_examples_the_screen_keeps_the_one_the_target_does_best_with() -> None:
    # the worst failure's answer passes its judges but is no commit message: the target
    # copies it on all tasks but one; the next task's answer is one the target follows
    answers = {"train-0": "docs/install.md train-0", "train-1": CORRECTED + " for train-1"}

    def answer(system: str, user: str) -> str:
        if system.startswith("You answer a task"):
            return answers.get(user.splitlines()[1].split()[-1], "## nothing")
        return "I would make the skill clearer."

    rolled: list[tuple[str, str]] = []

    def follow(system: str, user: str) -> str:
        rolled.append((system, user))
        if "docs/install.md" in system:
            return "fix: update train-2" if user.endswith("train-2") else "docs/install.md"
        if CORRECTED in system:
            return f"fix: update {user.split()[-1]}"
        return "## Changes\n\n" + " ".join(["the diff shows edits to several files"] * 3)

    result = run(Scripted("optimizer", answer), Scripted("target", follow))
    (step,) = result.history
    assert step.edits[0].text == f"{MARKER}\n\n{CORRECTED} for train-1"
    assert step.evidence["verdict"] == "accept"
    (set_aside,) = result.rejected
    assert set_aside.edits[0]["text"] == f"{MARKER}\n\ndocs/install.md train-0"
    assert set_aside.reason == "screen: another worked example gained more on the train minibatch"
    # neither example was screened on the task it answers
    assert not any("docs/install.md" in s and u.endswith("train-0") for s, u in rolled)
    assert not any(CORRECTED in s and u.endswith("train-1") for s, u in rolled)


def test_a_skill_with_an_example_asks_for_rules_first() -> None:
    opt = optimizer(CORRECTED)
    skill = SKILL + f"\n{MARKER}\n\nfeat: add tide export\n"
    deaf = Scripted("target", lambda system, user: "## Changes\n\n" + "the diff shows " * 9)
    result = run(opt, deaf, skill=skill)
    assert result.counters["unparseable_proposals"] == 1
    assert opt.prompts[0].startswith("SKILL") and opt.prompts[1].startswith("Task:")
    assert result.counters["worked_examples"] == result.counters["screened_out"] == 3


def test_no_example_is_asked_for_a_task_an_answer_cannot_pass() -> None:
    opt = optimizer(CORRECTED)
    result = run(opt, target(), judges=(Judge("max_words", "12"), Judge("exit_ok", "")))
    assert result.counters.get("example_answers", 0) == 0
    assert not any(p.startswith("Task:") for p in opt.prompts)


def test_examples_are_read_from_the_skill_after_their_marker_lines() -> None:
    doc = SkillDoc.parse(SKILL)
    first = apply_edit(doc, example_edit(CORRECTED))
    assert examples(first) == [CORRECTED]
    second = apply_edit(first, example_edit("feat: add tide export\nwith a second line"))
    assert examples(second) == [CORRECTED, "feat: add tide export\nwith a second line"]
    assert examples(doc) == []


def test_a_copy_is_the_example_verbatim_or_nearly_not_a_message_of_the_same_form() -> None:
    blocks = [CORRECTED]
    assert copies_example("Fix: keep CSV line endings", blocks)
    assert copies_example("Here it is:\nfix: keep csv line endings", blocks)
    assert copies_example("fix: keep csv line ending", blocks)
    assert not copies_example("fix: clamp tide heights below datum", blocks)
    assert not copies_example("anything", [])


def test_what_models_wrap_around_an_answer_is_not_part_of_the_example() -> None:
    for wrapped in (
        "```\nUpdate install docs\n```",
        "```text\nUpdate install docs```",
        '"Update install docs"',
        "``Update install docs``",
        "  `Update install docs`\n",
    ):
        assert clean(wrapped) == "Update install docs", wrapped
    assert clean("fix: `parse()` handles commas") == "fix: `parse()` handles commas"
