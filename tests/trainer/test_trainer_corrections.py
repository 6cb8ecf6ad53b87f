"""The user's corrections as the first candidate (trainer.corrections): the rules the train
tasks' verified judges quote, in the user's words, one edit with no optimizer call, through
the ledger, the learning rate, the firewall, the screen and the gate like any edit.

The run tests use the simulated world (SIMULATION) around tasks whose judges quote a user,
as mining makes them; tests/night/test_night_corrections.py runs whole nights on a mined store."""

from __future__ import annotations

from dataclasses import replace

import pytest
from scripted_helpers import Scripted
from scripted_helpers import tasks as commit_tasks

from trainer import TrainSettings, optimize
from trainer.backends.base import Roles
from trainer.cache import MemoryLedger
from trainer.corrections import ORIGIN, clauses, edit, lines
from trainer.demos import MARKER, examples
from trainer.edits import apply_edit
from trainer.sim import OptimizerRates, SimWorld
from trainer.skill import SkillDoc
from trainer.tasks import Judge, Task, said_source

SKILL = SkillDoc("commit", "Write commit messages.", "# Commit\n\n- Say what changed.\n")


def said(kind: str, value: str, words: str, turn: str = "a", scope: str = "answer") -> Judge:
    """A judge as mining makes it from a correction: the user's words in source and quotes."""
    return Judge(kind, value, 1.0, said_source(f"turn {turn}: user correction", words),
                 (words,), scope)  # fmt: skip


@pytest.mark.parametrize(
    ("quote", "expected"),
    [
        ("too long. keep the whole message under 12 words",
         ["Keep the whole message under 12 words."]),
        ("no, start with the failing job name. keep it under 80 words",
         ["Start with the failing job name.", "Keep it under 80 words."]),
        ("I said no numbered lists", ["No numbered lists."]),
        ("please don't call os.system", ["Don't call os.system."]),
        # "no" is the rule here, not a reply: it stays
        ("no explanation please, just the message", ["No explanation, just the message."]),
        ("too long again: one line, under 12 words", ["One line, under 12 words."]),
        ("you forgot the ticket key again", ["Don't forget the ticket key."]),
        ("nope. lowercase the subject please", ["Lowercase the subject."]),
        ("Please, no emojis!", ["No emojis!"]),
        ("way too long", []),  # a complaint alone states no rule
        ("too long, keep the subject under 50 chars", ["Keep the subject under 50 chars."]),
        # a colon inside the rule is the user's: no clause ends there
        ("use conventional commits, like fix: or feat:",
         ["Use conventional commits, like fix: or feat:"]),
    ],
)  # fmt: skip
def test_a_correction_becomes_imperative_lines_in_the_user_s_words(
    quote: str, expected: list[str]
) -> None:
    assert clauses(quote) == expected


def tasks(train: list[Judge], val: list[Judge], test: list[Judge]) -> list[Task]:
    out = []
    for split, js, n in (("train", train, 4), ("val", val, 8), ("test", test, 8)):
        out += [Task(f"{split}-{i}", f"commit message for change {split}-{i}", split, tuple(js))
                for i in range(n)]  # fmt: skip
    return out


def test_only_train_evidence_shapes_the_lines_one_line_a_rule() -> None:
    words = "too long. keep it under 12 words, and don't add ## headings"
    train = [
        said("max_words", "12", words),
        said("not_contains", "##", words),  # the same words state two rules: said once
        said("no", "emoji", "no emojis please", "b"),
        said("no", "emoji", "I said no emojis", "c"),  # the rule said most often comes first
        # a request's own rule is the request, not a rule of the kind
        Judge("max_chars", "50", 1.0, "turn d: the request", ("commit msg under 50 chars",)),
        Judge("rubric", "keep it short", 1.0, "accepted outcome", ("no rubric words",)),
    ]
    val = [said("no", "past_tense", "no past tense in the subject", "v")]
    test = [said("has", "bullet", "as bullet points", "t")]
    got = lines(tasks(train, val, test))
    assert got == ["No emojis.", "Keep it under 12 words, and don't add ## headings."]
    assert not any("past" in x or "bullet" in x or "50" in x for x in got)


def test_the_edit_adds_only_what_the_skill_does_not_say_within_the_learning_rate() -> None:
    ts = tasks([said("no", "emoji", "no emojis"), said("max_words", "12", "under 12 words", "b")],
               [], [])  # fmt: skip
    e = edit(SKILL, ts, max_tokens=120)
    assert e is not None and e.origin == ORIGIN and e.kind == "add"
    assert e.text == "- No emojis.\n- Under 12 words."
    after = apply_edit(SKILL, e)
    assert edit(after, ts, max_tokens=120) is None  # nothing new to say
    one = edit(SKILL, ts, max_tokens=5)  # the step's budget holds one line
    assert one is not None and one.text == "- No emojis."
    assert edit(SKILL, ts, max_tokens=2) is None


def test_the_lines_go_before_the_skill_s_worked_examples() -> None:
    skill = SKILL.with_body(SKILL.body + f"\n{MARKER}\n\nfix: keep csv line endings\n")
    e = edit(skill, tasks([said("no", "emoji", "no emojis")], [], []), max_tokens=120)
    assert e is not None and e.anchor == "- Say what changed."
    after = apply_edit(skill, e)
    assert examples(after) == ["fix: keep csv line endings"]
    assert "- No emojis." in after.body.split(MARKER)[0]


LONG = "always end the message with Signed-off-by Dana Example"  # a long literal the user said


def world_tasks() -> list[Task]:
    rules = [
        said("no", "emoji", "no emojis in the message, please"),
        said("contains", "Signed-off-by Dana Example", LONG, "b"),
    ]
    return tasks(rules, rules, rules) + [
        Task(f"train-x{i}", f"commit message for change x{i}", "train", tuple(rules))
        for i in range(4)
    ]


def run(tasks_: list[Task], rates: OptimizerRates | None = None, ledger=None):
    world = SimWorld.for_tasks(tasks_, seed=3, start_skill=SKILL)
    settings = TrainSettings(epochs=1, steps_per_epoch=2, minibatch=4, train_samples=1,
                             max_samples=12, test_samples=2)  # fmt: skip
    roles = world.roles(rates=rates)
    return world, optimize(SKILL, tasks_, roles, settings=settings, ledger=ledger)


def test_the_corrections_are_the_first_candidate_and_win_the_gate_without_the_optimizer() -> None:
    """SIMULATION. An optimizer that writes nothing usable (every answer garbage) cannot be
    where the edit came from."""
    silent = OptimizerRates(helpful=0.0, harmful=0.0, bad_anchor=0.0, malformed=0.0, garbage=1.0)
    world, result = run(world_tasks(), silent)
    first = result.history[0]
    assert first.where.startswith("epoch 0 step 0")
    (e,) = first.edits
    assert e.origin == "corrections"
    # the user's words pass the judge firewall, a long literal of theirs included
    assert (
        e.text == "- No emojis in the message.\n- Always end the message with "
        "Signed-off-by Dana Example."
    )
    assert result.counters["correction_candidates"] == 1
    assert "firewall_rejected" not in result.counters
    assert first.evidence["verdict"] == "accept"
    assert world.expected_pass_all(result.best_skill) > world.expected_pass_all(SKILL) + 0.3
    assert result.test.pass_all is not None and result.test.pass_all.ci_low > 0


def test_a_rejected_corrections_edit_is_in_the_ledger_and_never_compared_again() -> None:
    """SIMULATION. A later night whose skill has not taken the edit (the user rejected it,
    or the gate did) finds it in the ledger: it is not proposed again."""
    ts = world_tasks()
    tried = edit(SKILL, ts, 120)
    assert tried is not None
    ledger = MemoryLedger()
    ledger.add(tried.hash, {"status": "rejected", "text": tried.text})
    _, again = run(ts, ledger=ledger)
    assert "correction_candidates" not in again.counters
    assert all(e.origin != ORIGIN for x in again.history for e in x.edits)


# -- the corrections with an answer the user accepted: one candidate --------------------------

SHORT = "keep it under 8 words"
PREFIX = "start with fix: please"


def scripted_run(target_answer, steps: int = 1):
    """Commit-message tasks whose judges quote the user's two corrections, each train task
    with the answer the user accepted for it; the target answers from what its skill says
    (`target_answer(system, task_id)`), the optimizer is never needed."""
    rules = (said("max_words", "8", SHORT), said("regex", "^fix: ", PREFIX, "b"))
    ts = [
        replace(
            t,
            judges=(*rules, Judge("mentions_any", t.id)),
            meta={"accepted": f"fix: trim header row in {t.id}"} if t.split == "train" else {},
        )
        for t in commit_tasks(rules)
    ]
    opt = Scripted("optimizer", lambda s, u: "I would make the skill clearer.")
    tgt = Scripted("target", lambda system, user: target_answer(system, user.split()[-1]))
    roles = Roles(opt, tgt, Scripted("judge", lambda s, u: '{"grade": 10, "reason": "ok"}'))
    settings = TrainSettings(epochs=1, steps_per_epoch=steps, minibatch=4, train_samples=1,
                             max_samples=2, test_samples=1)  # fmt: skip
    return opt, optimize(SKILL, ts, roles, settings=settings)


def follows(system: str, task_id: str) -> str:
    """A small target: the user's length rule shortens its answer, an example gives it the
    example's form; it needs both to meet every rule."""
    text = (
        f"update {task_id}"
        if "under 8 words" in system
        else (f"this change updates many files across the code base, see {task_id} for the details")
    )
    return f"fix: {text}" if MARKER in system else text


def test_one_comparison_carries_the_user_s_rules_and_their_accepted_answer() -> None:
    """Gated apart, the rules and the user's example cost two comparisons; on a night with
    room for one, the target then still misses a rule. Offered together they are one."""
    opt, result = scripted_run(follows)
    assert opt.prompts == []  # no optimizer call: all of it is the user's
    assert result.counters["comparisons"] == 1
    (step,) = result.history
    assert [e.origin for e in step.edits] == ["corrections", "accepted_answer"]
    rules, example = (e.text for e in step.edits)
    assert rules == "- Keep it under 8 words.\n- Start with fix:"
    assert example.startswith(f"{MARKER}\n\nfix: trim header row in train-")
    assert step.evidence["verdict"] == "accept"
    assert result.test.pass_all is not None
    assert (result.test.pass_all.before, result.test.pass_all.after) == (0.0, 1.0)
    # the next step finds nothing of the user's left to add
    _, longer = scripted_run(follows, steps=2)
    assert longer.counters["correction_candidates"] == 1 and len(longer.history) == 1


def test_when_the_pair_does_worse_on_the_minibatch_the_rules_go_alone() -> None:
    """A target that copies a skill's example instead of answering is hurt by the pair: the
    screen turns the pairs down (not banned) and the corrections alone are compared."""

    def copies(system: str, task_id: str) -> str:
        if MARKER in system:
            return system.split(MARKER, 1)[1].strip().splitlines()[0]
        return follows(system, task_id)

    _, result = scripted_run(copies)
    assert result.counters["screened_out"] >= 1
    assert "corrections_with_example" not in result.counters
    (step,) = result.history
    assert [e.origin for e in step.edits] == ["corrections"]
    assert all(r.reason.startswith("screen:") for r in result.rejected)
