"""A hyphenated compound names its own feature: "task-list boxes" and "checkbox-list items" are
checkboxes, so a plain list that follows the rule passes the judge; and a mark named the way
many non-native writers name it ("end with a point"), or written as itself ("a `.`"), is that
mark."""

from __future__ import annotations

import pytest

from skillopt_sleep.mining.contrast import compile_pair, separates
from skillopt_sleep.mining.grammar import Check, compile_text
from trainer.checks import passes

CORRECTED = "Shipped:\n- [x] migration applied\n- [ ] dashboards"
ACCEPTED = "Shipped:\n- migration applied\n- dashboards still to do"


@pytest.mark.parametrize(
    "said",
    ["scrap the task-list boxes please", "checkbox-list items render badly in our tracker"],
)
def test_a_task_list_compound_is_a_checkbox_not_a_list(said: str) -> None:
    assert all(c.value != "list" for c in compile_text(said, CORRECTED))
    checks = [
        c for c in compile_pair(said, CORRECTED, ACCEPTED) if separates(c, CORRECTED, ACCEPTED)
    ]
    assert checks
    plain_list = "Next:\n- rotate the keys\n- update the runbook"
    assert all(passes(c.kind, c.value, c.scope, plain_list) for c in checks), checks


def test_a_point_at_the_end_is_the_full_stop() -> None:
    corrected = "Release notes.\n\nThe importer is faster."
    accepted = "Release notes\n\nThe importer is faster."
    said = "title must not finish with a point"
    checks = [
        c for c in compile_pair(said, corrected, accepted) if separates(c, corrected, accepted)
    ]
    assert [(c.kind, c.value) for c in checks] == [("not_ends_with", ".")]


@pytest.mark.parametrize(
    "said",
    [
        "titles don't end with a `.`, they're headlines",
        "never end the subject with a .",
        "please don't finish it with '.'",
    ],
)
def test_a_period_written_as_the_mark_itself_is_a_trailing_period(said: str) -> None:
    assert Check("not_ends_with", ".", "first_line") in compile_text(said)


def test_a_dot_inside_a_version_is_no_trailing_period() -> None:
    assert compile_text("the version is 1.2 . don't change it") == []


def test_a_count_past_a_comparison_mark_is_a_limit() -> None:
    assert Check("max_chars", "72", "first_line") in compile_text("title > 72 chars, trim it")
    at_least = compile_text("the summary needs >= 3 lines")  # not a limit past which
    assert not any(c.kind == "max_lines" for c in at_least)


def test_an_em_dash_written_as_the_mark_itself() -> None:
    corrected = "The fix is small — one line."
    accepted = "The fix is small: one line."
    checks = [c for c in compile_pair("no — please", corrected, accepted)
              if separates(c, corrected, accepted)]  # fmt: skip
    hyphen = "Two steps - build, ship."
    assert checks and all(passes(c.kind, c.value, c.scope, hyphen) for c in checks)
