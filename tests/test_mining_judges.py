"""Rule judges mean what the user meant, scored by the trainer's own rule scorer."""

from __future__ import annotations

from skillopt_sleep.mining.judges import rules_from_text
from trainer.rollout import Outcome
from trainer.scoring import rule_score


def _score(text: str, answer: str) -> list[float | None]:
    return [rule_score(j, Outcome(answer)) for j in rules_from_text(text, "test")]


def test_no_emojis_forbids_emoji_characters_not_the_word() -> None:
    said = "no, keep the subject short. don't use emojis"
    assert _score(said, "Fix parser crash on empty input") == [1.0]
    assert _score(said, "Fix parser crash, no emojis this time") == [1.0]
    assert _score(said, "Fix parser crash 🚀") == [0.0]
    assert _score(said, "✨ Fix parser crash") == [0.0]
    assert _score("use words, not emojis", "ship it 🎉") == [0.0]


def test_layout_words_become_layout_checks() -> None:
    assert _score("never use bullets", "one\n- two") == [0.0]
    assert _score("never use bullets", "a paragraph about bullets") == [1.0]
    assert _score("do not add headings", "## Summary\ntext") == [0.0]


def test_tools_stay_literal_and_vague_plurals_go_to_the_rubric() -> None:
    assert _score("use pytest not unittest", "import unittest") == [0.0, 0.0]
    assert _score("use pytest not unittest", "def test_x(): pytest.raises") == [1.0, 1.0]
    assert rules_from_text("don't use mocks", "test") == []  # the rubric quotes it
    assert _score("do not use print", "print(x)") == [0.0]
