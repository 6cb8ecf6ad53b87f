"""What reflection hears about a failure: words, the user's own words, never judge internals."""

from __future__ import annotations

from trainer.calls import Caller
from trainer.rollout import Outcome
from trainer.scoring import Rollout, Scorer
from trainer.tasks import Judge, Task, said_source, user_said


def feedback(judge: Judge, answer: str) -> list[str]:
    task = Task("t", "write the commit message", "val", (judge,))
    scorer = Scorer(Caller(None, None, None), {})  # type: ignore[arg-type] - rules only
    scored = scorer.score([Rollout(task, 0, "h", Outcome(answer))])[0]
    assert scored is not None
    return scored.feedback


def test_a_rule_read_from_a_correction_tells_the_optimizer_what_the_user_said() -> None:
    source = said_source("turn s:1: user correction", "too long.\n keep it under  12 words")
    assert user_said(source) == "too long. keep it under 12 words"
    judge = Judge("max_words", "12", 1.0, source)
    words = feedback(judge, "word " * 30)
    assert words == [
        'the answer was longer than the task wants; the user said: "too long. keep it under '
        '12 words"'
    ]
    assert feedback(judge, "fix: clamp heights") == []  # passed: nothing to say


def test_a_rule_without_the_users_words_says_only_what_went_wrong() -> None:
    judge = Judge("regex", r"\A\s*[^\n]{1,50}(?:\n|\Z)", 1.0, "turn s:1: the request")
    assert user_said(judge.source) is None
    (words,) = feedback(judge, "x" * 80)
    assert words == "the answer did not have the expected form"
    assert "{1,50}" not in words  # the judge's regex never reaches the optimizer
