"""Pass-all: every score says whether the answer passed every rule judge; non-answers fail;
the end-of-night test reports the share of answers that pass all, paired like the mean."""

from __future__ import annotations

import math
from collections import Counter

import numpy as np
import pytest

from trainer import MemoryCache, TrainSettings, optimize
from trainer import result as result_mod
from trainer.backends.base import Completion, Roles
from trainer.budget import Budget, BudgetLimits
from trainer.calls import Caller
from trainer.measure import Measurer
from trainer.nonanswer import ECHO, EMPTY, REFUSAL, non_answer
from trainer.result import PassAll
from trainer.rollout import ChatRollout, Outcome, ToolCall
from trainer.scoring import Rollout, Scorer
from trainer.sim import SimWorld
from trainer.tasks import Judge, Task

PROMPT = "write a commit message for the staged change to the parser\n\n(Context: project /p/app)"


def chat(answer: str) -> Outcome:
    return Outcome(answer)


# -- the non-answer check ------------------------------------------------------------------
@pytest.mark.parametrize(
    ("answer", "why"),
    [
        ("", EMPTY),
        ("  \n\t ", EMPTY),
        ("...", EMPTY),
        ("write a commit message for the staged change to the parser", ECHO),
        ("Sure! Write a commit message for the staged change to the parser.", ECHO),
        ("write a commit message for the staged change to", ECHO),  # cut short
        ("I can't help with that.", REFUSAL),
        ("I’m sorry, but I cannot assist with this request.", REFUSAL),
        ("I'm unable to help with that. Is there anything else?", REFUSAL),
        ("As an AI language model, I do not have access to your repository.", REFUSAL),
    ],
)
def test_non_answers_are_recognised(answer: str, why: str) -> None:
    assert non_answer(chat(answer), PROMPT) == why


@pytest.mark.parametrize(
    "answer",
    [
        "fix: typo",  # short but real
        "ok",
        "parser: handle empty input",
        "Fix the parser",  # shares the request's words, is not the request
        "the parser",  # a quote of the request, far from all of it
        "I can't run the tests here, but this is the message: fix(parser): handle empty input",
        "As an AI I can't see the repo, so here is a message from the diff: fix: parser",
        "I cannot help noticing the parser change is small.\n\nfix(parser): guard None input\n"
        "\nThe function crashed on empty files; it now returns an empty tree. "
        "Tests cover the empty case and the one-line case. No behaviour change otherwise. "
        "Refs #12. More words here so the answer is long, as real ones often are, well past "
        "the length a bare refusal has.",
    ],
)
def test_real_answers_are_not_non_answers(answer: str) -> None:
    assert non_answer(chat(answer), PROMPT) is None


def test_an_answer_that_starts_with_a_short_request_is_not_its_echo() -> None:
    assert non_answer(chat("commit message: fix the parser crash"), "commit message") is None
    assert non_answer(chat("Commit message."), "commit message") == ECHO


def test_an_agent_that_did_the_work_silently_answered() -> None:
    worked = Outcome("", where="claude-code", files_changed=("parser.py",))
    ran = Outcome("", where="codex", tool_calls=(ToolCall("bash", "pytest -x"),))
    idle = Outcome("", where="claude-code")
    assert non_answer(worked, PROMPT) is None
    assert non_answer(ran, PROMPT) is None
    assert non_answer(idle, PROMPT) == EMPTY


# -- scores say pass-all ----------------------------------------------------------------------
class CountingJudge:
    """The judge role: counts its calls, grades every answer 10/10."""

    identity = "counting-judge"
    concurrency = 1

    def __init__(self) -> None:
        self.calls = 0

    def complete(self, messages, *, json_schema=None, max_tokens=None) -> Completion:
        self.calls += 1
        return Completion('{"grade": 10, "reason": "fine"}', 10, 5, 0.0)


def scorer() -> tuple[Scorer, CountingJudge, Counter]:
    judge = CountingJudge()
    roles = Roles(optimizer=judge, target=judge, judge=judge)  # type: ignore[arg-type]
    counters: Counter[str] = Counter()
    return Scorer(Caller(roles, MemoryCache(), Budget(BudgetLimits())), counters), judge, counters


RULES = (
    Judge("not_contains", "unittest"),
    Judge("max_words", "12"),
    Judge("rubric", "a commit message for the change", 1.0),
    Judge("command_ran", r"\bpytest\b"),  # an outcome judge: not applicable to a chat
)


def test_pass_all_is_every_applicable_rule_judge_and_not_the_rubric() -> None:
    sc, _judge, _ = scorer()
    task = Task("t1", PROMPT, "test", RULES)
    good, long, rubric_only = sc.score(
        [
            Rollout(task, 0, "h", chat("fix(parser): handle empty input")),
            Rollout(task, 1, "h", chat("fix the parser " + "word " * 20)),
            Rollout(Task("t2", PROMPT, "test", RULES[2:3]), 0, "h", chat("fix: parser")),
        ]
    )
    assert good is not None and good.pass_all is True and good.score == 1.0
    assert long is not None and long.pass_all is False
    assert long.score == pytest.approx(2 / 3)  # the weighted mean is unchanged
    assert rubric_only is not None and rubric_only.pass_all is None  # no rule judge spoke
    # in a harness the outcome judge applies and decides pass-all
    harness = Outcome("fix(parser): handle empty input", where="claude-code")
    ran = Outcome(harness.answer, where="claude-code", tool_calls=(ToolCall("bash", "pytest"),))
    missed, done = sc.score([Rollout(task, 2, "h", harness), Rollout(task, 3, "h", ran)])
    assert missed is not None and missed.pass_all is False
    assert done is not None and done.pass_all is True


def test_a_non_answer_fails_whatever_the_judges_say_and_costs_no_judge_call() -> None:
    sc, judge, counters = scorer()
    task = Task("t1", PROMPT, "test", RULES)
    # every rule passes an empty answer: "no unittest", "at most 12 words"
    empty, refusal, real = sc.score(
        [
            Rollout(task, 0, "h", chat("")),
            Rollout(task, 1, "h", chat("I can't help with that.")),
            Rollout(task, 2, "h", chat("fix: parser")),
        ]
    )
    assert (empty.score, empty.pass_all, empty.feedback) == (0.0, False, [EMPTY])
    assert (refusal.score, refusal.pass_all) == (0.0, False)
    assert real.score == 1.0 and real.pass_all is True
    assert judge.calls == 1  # only the real answer was graded
    assert counters["non_answers"] == 2
    # a task without a rule judge: a non-answer scores 0, pass-all says nothing there either
    (silent,) = sc.score([Rollout(Task("t2", PROMPT, "test", RULES[2:3]), 0, "h", chat(""))])
    assert silent.score == 0.0 and silent.pass_all is None


# -- the end-of-night test ------------------------------------------------------------------
def test_pass_all_interval_is_paired_over_tasks_like_the_mean() -> None:
    best = [[1.0, 1.0], [1.0, 0.0], [1.0, 1.0], [0.0, 1.0]]
    start = [[0.0, 0.0], [1.0, 0.0], [0.0, 1.0], [0.0, 0.0]]
    p = PassAll.measure(best, start)
    d = np.array([1.0, 0.0, 0.5, 0.5])
    assert p.n_tasks == 4
    assert (p.before, p.after, p.lift) == pytest.approx((0.25, 0.75, d.mean()))
    half = 3.182446305284263 * d.std(ddof=1) / 2  # t(0.975, 3) * sd / sqrt(4)
    assert (p.ci_low, p.ci_high) == pytest.approx((d.mean() - half, d.mean() + half))
    # a task whose samples no rule judge spoke about is left out, not counted as a failure
    q = PassAll.measure([*best, []], [*start, [1.0]])
    assert q == p
    assert PassAll.measure([[]], [[]]).n_tasks == 0
    lift = result_mod.TestLift.measure([[0.5]] * 4, [[0.5]] * 4, best, start)
    out = lift.to_dict()["pass_all"]
    assert out["before"] == 0.25 and out["n_tasks"] == 4 and out["lift"] == 0.5


def test_the_end_of_night_test_measures_pass_all_on_the_test_split() -> None:
    """A world whose test tasks need two rules each: the skill that teaches both passes all
    far more often than the one that teaches one; the measured shares match the answers'
    own judgments, sample by sample."""
    world = SimWorld.generate(4, n_rules=3, n_train=0, n_val=0, n_test=30)
    best = world.start_skill.with_body(
        "# Conventions\n\n" + "".join(f"- {r.paraphrases[0]}\n" for r in world.rules)
    )
    roles = world.roles()
    counters: Counter[str] = Counter()
    budget = Budget(BudgetLimits())
    measurer = Measurer(Caller(roles, MemoryCache(), budget), ChatRollout(roles.target),
                        counters, 256)  # fmt: skip
    tasks = sorted((t for t in world.tasks if t.split == "test"), key=lambda t: t.id)
    lift = measurer.lift(best, world.start_skill, tasks, "test:x", range(4))
    p = lift.pass_all
    assert p is not None and p.n_tasks == len(tasks) == lift.n_tasks
    assert p.ci_low > 0 and p.after > p.before
    # 120 answers a side: near the world's exact expectation (SE about 0.04)
    assert abs(p.before - world.expected_pass_all(world.start_skill)) < 0.12
    assert abs(p.after - world.expected_pass_all(best)) < 0.12
    # the same samples again (cached): pass-all is the answers' every-judge pass
    b, s = measurer.grid([best, world.start_skill], tasks, "test:x", range(4))
    share = np.mean([np.mean([x.score == 1.0 for x in row]) for row in s])
    assert p.before == pytest.approx(share)
    assert math.isclose(p.after, np.mean([np.mean([x.pass_all for x in row]) for row in b]))


def test_a_run_reports_pass_all_next_to_the_mean() -> None:
    world = SimWorld.generate(2, n_rules=4, n_harmful=2, n_train=12, n_val=30, n_test=20)
    from tests.sim_helpers import COMPETENT

    settings = TrainSettings(epochs=1, steps_per_epoch=3, minibatch=6, seed=1)
    result = optimize(world.start_skill, world.tasks, world.roles(rates=COMPETENT),
                      settings=settings)  # fmt: skip
    assert result.accepted >= 1
    summary = result.summary()["test"]
    assert set(summary["pass_all"]) == {"before", "after", "lift", "ci_low", "ci_high", "n_tasks"}
    assert summary["pass_all"]["n_tasks"] == summary["n_tasks"] == 20
    p = summary["pass_all"]
    assert p["lift"] == pytest.approx(p["after"] - p["before"])
