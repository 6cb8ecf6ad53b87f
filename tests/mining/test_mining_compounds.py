"""A hyphenated compound names its own feature: "task-list boxes" and "checkbox-list items" are
checkboxes, so a plain list that follows the rule passes the judge; and a mark named the way
many non-native writers name it ("end with a point") is that mark."""

from __future__ import annotations

import pytest

from skillopt_sleep.mining.contrast import compile_pair, separates
from skillopt_sleep.mining.grammar import compile_text
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
