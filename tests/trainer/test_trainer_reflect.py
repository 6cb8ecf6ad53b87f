"""Reflection (trainer.reflect): one question per problem, one rule per question, and no
edit in the prompt a small optimizer could copy.

The optimizer and the target are scripted backends (the model edge). The target fails the
train tasks in two ways: three of four answers open with a `##` heading, one runs long. The
user's corrections name both problems in their own words.
"""

from __future__ import annotations

import json

from scripted_helpers import Scripted, tasks

from trainer import MemoryLedger, TrainSettings, optimize
from trainer.backends.base import Roles
from trainer.reflect import (
    NO_FULL_SCORE,
    SYSTEM,
    Example,
    failure_clusters,
    question_messages,
)
from trainer.skill import SkillDoc
from trainer.tasks import Judge, said_source

NO_HEADINGS = "don't add ## headings, it's a commit message"
SHORT = "keep the whole message under 12 words"
JUDGES = (
    Judge("not_contains", "##", source=said_source("turn a:2, user correction", NO_HEADINGS)),
    Judge("max_words", "12", source=said_source("turn b:2, user correction", SHORT)),
)
SKILL = (
    "---\nname: commit\ndescription: Write commit messages.\n---\n# Commit\n\n- Say what changed.\n"
)
SKILL_DOC = SkillDoc.parse(SKILL)
RULE = "- Reply with the message only, without headings."


def target(system: str, user: str) -> str:
    task = user.split()[-1]
    if RULE[2:] in system:
        return f"fix: update {task}"
    if task == "train-3" or task.endswith("1") and not task.startswith("train"):
        return "fix: " + "the diff shows edits to several files " * 3  # long, no heading
    return f"## {task}\n\nfix: update {task}"


def proposes(text: str) -> Scripted:
    def answer(system: str, user: str) -> str:
        if system.startswith("You answer a task"):
            return "## no example"  # fails its judges: never offered
        return json.dumps({"edits": [{"why": "w", "text": text, "kind": "add", "anchor": "",
                                      "section": ""}]})  # fmt: skip

    return Scripted("optimizer", answer)


def run(opt: Scripted, steps: int = 2, ledger: MemoryLedger | None = None):
    settings = TrainSettings(
        epochs=1, steps_per_epoch=steps, minibatch=4, train_samples=1, max_samples=2,
        test_samples=1, screen=False,
    )  # fmt: skip
    judge = Scripted("judge", lambda s, u: '{"grade": 10, "reason": "ok"}')
    skill = SKILL + "\nExample of a good answer:\n\nfix: add tide export\n"  # rules asked first
    return optimize(skill, tasks(JUDGES), Roles(opt, Scripted("target", target), judge),
                    settings=settings, ledger=ledger)  # fmt: skip


def reflections(opt: Scripted) -> list[str]:
    return [p for p in opt.prompts if p.startswith("SKILL")]


def test_failures_are_grouped_by_problem_and_a_rubric_s_reason_stays_with_its_answer() -> None:
    graded = "the answer fell short of the quality the task asks for"
    fails = [
        Example("a", "x", ("too long", f"{graded} (it names no file)")),
        Example("b", "y", (f"{graded} (it is vague)",)),
        Example("c", "z", ("too long",)),
    ]
    fails.append(Example("d", "w", ("too long",)))
    fails.append(Example("e", "v", ()))  # a grade short of full, no judge failed outright
    clusters = failure_clusters(fails)  # most failed first; one cluster per judge, not reason
    assert [(words, [ex.prompt for ex in exs]) for words, exs in clusters] == [
        ("too long", ["a", "c", "d"]),
        (graded, ["a", "b"]),
        (NO_FULL_SCORE, ["e"]),
    ]
    _system, user = question_messages(SKILL_DOC, graded, clusters[1][1], 4, [], [],
                                      max_prompt_tokens=3000)  # fmt: skip
    assert "Judge's note: it names no file" in user["content"]
    assert "Judge's note: it is vague" in user["content"] and "too long" not in user["content"]


def test_each_question_names_one_problem_in_the_user_s_words_with_the_answers_that_failed_it():
    opt = proposes("- Write a line.")
    ledger = MemoryLedger()
    result = run(opt, ledger=ledger)
    first, second = reflections(opt)
    # the problem most answers failed first, then the other one: one problem per question
    assert f'the user said: "{NO_HEADINGS}"' in first and SHORT not in first
    assert f'the user said: "{SHORT}"' in second and NO_HEADINGS not in second
    assert "WHAT WENT WRONG (in 3 of 4 failed answers)" in first
    assert "## train-0" in first and "several files" not in first  # only its own failures
    assert "WHAT WENT WRONG (in 1 of 4 failed answers)" in second and "several files" in second
    # nothing in the prompt is an edit to copy: no example rule, no JSON with content
    for prompt in (SYSTEM, first, second):
        assert '"text"' not in prompt and "Leave type hints" not in prompt
    assert result.counters["parsed_proposals"] == 2
    # the gate's verdict on it is kept in the ledger with where it came from
    (record,) = ledger.recent(5)
    assert [e["origin"] for e in record.edits] == ["reflection"]


def test_a_problem_the_user_put_in_words_is_asked_before_a_larger_grade_short_of_full() -> None:
    opt = proposes("- Write a line.")
    settings = TrainSettings(
        epochs=1, steps_per_epoch=1, minibatch=4, train_samples=1, max_samples=2,
        test_samples=1, screen=False,
    )  # fmt: skip
    grader = Scripted("judge", lambda s, u: '{"grade": 4, "reason": "it is vague"}')
    rubric = Judge("rubric", "A good commit message for the change.")
    optimize(SKILL, tasks((*JUDGES, rubric)), Roles(opt, Scripted("target", target), grader),
             settings=settings)  # fmt: skip
    (first,) = reflections(opt)  # every answer fell short of full; three broke a correction
    assert f'the user said: "{NO_HEADINGS}"' in first
    assert "fell short of the quality" not in first


def test_a_reflected_rule_is_one_edit_and_says_where_it_came_from() -> None:
    opt = proposes(RULE)
    schemas: list[dict] = []
    complete = opt.complete

    def spy(messages, *, json_schema=None, max_tokens=None):
        if json_schema is not None:
            schemas.append(json_schema)
        return complete(messages, json_schema=json_schema, max_tokens=max_tokens)

    opt.complete = spy  # type: ignore[method-assign]
    result = run(opt, steps=1)
    assert schemas and all(s["properties"]["edits"]["maxItems"] == 1 for s in schemas)
    (step,) = result.history
    assert [(e.text, e.origin) for e in step.edits] == [(RULE, "reflection")]
    assert (result.test.start_score, result.test.best_score) == (0.5, 1.0)


def test_a_proposal_that_writes_the_prompt_s_instructions_back_is_dropped_not_compared() -> None:
    result = run(proposes("- Write one short rule for the skill."), steps=1)
    assert result.counters["prompt_copies"] == 1
    assert result.counters.get("comparisons", 0) == 0 and result.history == []
