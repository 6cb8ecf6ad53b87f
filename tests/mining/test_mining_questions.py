"""A question is a complaint about what the answer has, and the counts in it say what the
answer is: "it's a one-liner, why the heading?" forbids the heading and sets no limit of one
line; "why is the code block gone?" asks for the block back."""

from __future__ import annotations

from pathlib import Path

from skillopt_sleep.mining.grammar import Check, compile_text
from tests.judge_helpers import compiler_for, holds

compiled = compiler_for("explain the config")


def test_a_count_that_says_what_the_answer_is_sets_no_limit(tmp_path: Path) -> None:
    corrected = "## Answer\nSet `retries: 3` in the worker block."
    accepted = "Set `retries: 3` in the worker block."
    said = "this is a one-line fix, why does it need a heading?"
    checks = compiled(tmp_path, said, corrected, accepted)
    assert checks and not holds(checks, corrected) and holds(checks, accepted)
    assert not any(c.kind.endswith("_lines") for c in checks)
    assert holds(checks, "First drain the queue.\nThen set `retries: 3`.\nThen restart.")
    assert not holds(checks, "# Fix\nSet retries.")


def test_a_count_in_a_why_question_is_what_the_answer_holds(tmp_path: Path) -> None:
    corrected = "| key | value |\n|---|---|\n| retries | 3 |\n| timeout | 30 |"
    accepted = "Set retries to 3 and the timeout to 30 s."
    checks = compiled(tmp_path, "why a table for two settings lines", corrected, accepted)
    assert checks and not holds(checks, corrected) and holds(checks, accepted)
    assert not any(c.kind.endswith("_lines") for c in checks)
    assert holds(checks, "Retries:\n- 3 on the worker\n- 5 on the api\n- 0 on the cron")


def test_a_count_asked_for_is_still_a_limit() -> None:
    assert Check("max_lines", "1", "answer") in compile_text("keep it to a single line")
    assert Check("max_lines", "1", "answer") in compile_text("why isn't this a one-liner?")


def test_why_is_it_missing_asks_for_it_back(tmp_path: Path) -> None:
    corrected = "Run make migrate before you deploy."
    accepted = "Run this before you deploy:\n\n```bash\nmake migrate\n```"
    checks = compiled(tmp_path, "why is the code block gone?", corrected, accepted)
    assert not any(c.kind == "no" and c.value == "code_fence" for c in checks)
