"""The Agent Skills rules both agent CLIs enforce, where a skill file is written or edited."""

from __future__ import annotations

import pytest

from skillopt_sleep.promotion.spec import clean_description, name_problem, problems
from trainer.edits import Edit, EditError, apply_edit
from trainer.skill import SkillDoc


def _skill(name: str, description: str = "Review a PR") -> str:
    return SkillDoc(name=name, description=description, body="# Steps\n").render()


@pytest.mark.parametrize("name", ["review", "review-pr", "a", "pdf2text", "x" * 64])
def test_valid_names(name: str) -> None:
    assert name_problem(name) is None and problems(_skill(name), name) == []


@pytest.mark.parametrize(
    ("name", "why"),
    [
        ("Review", "lowercase"),
        ("review_pr", "lowercase"),
        ("-review", "no hyphen at either end"),
        ("review-", "no hyphen at either end"),
        ("review--pr", "single hyphens"),
        ("x" * 65, "at most 64"),
        ("", "no name"),
    ],
)
def test_invalid_names(name: str, why: str) -> None:
    assert why in (name_problem(name) or "")


def test_the_name_must_be_its_directory_and_the_description_bounded() -> None:
    assert "differs from its directory 'review-pr'" in problems(_skill("review"), "review-pr")[0]
    assert problems(_skill("review", "x" * 1025), "review") == [
        "description is 1025 characters (at most 1024)"
    ]
    assert problems(_skill("review", "use <b>this</b>"), "review") == [
        "description contains '<' or '>'"
    ]
    assert problems("# no frontmatter\n", "review") == [
        "SKILL.md has no frontmatter with a name and a description"
    ]


def test_clean_description_makes_untrusted_text_pass() -> None:
    raw = 'Use when asked "<b>fix</b>\n the `tests`"\u202e\x00' + " word" * 400
    cleaned = clean_description(raw)
    assert problems(_skill("fix", cleaned), "fix") == []
    assert cleaned.startswith('Use when asked "bfix/b the tests"') and cleaned.endswith("…")


@pytest.mark.parametrize(
    ("text", "why"), [("x" * 1025, "longer than 1024"), ("use <this>", "'<' or '>'")]
)
def test_a_description_edit_stays_within_the_rules(text: str, why: str) -> None:
    doc = SkillDoc.parse(_skill("review"))
    with pytest.raises(EditError, match=why):
        apply_edit(doc, Edit("description", text=text))
    assert apply_edit(doc, Edit("description", text="Review a pull request")).description
