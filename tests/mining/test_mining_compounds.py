"""A hyphenated compound names its own feature: "to-do-list boxes" and "task-list items" are
checkboxes, so a plain list that follows the rule passes the judge."""

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
