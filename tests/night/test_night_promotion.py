"""Whole nights (simulated models, generated corpus) at the promotion step: a linked skill,
a test that could not be measured, a user's reject on the next night, and the modes of
everything a night writes under umask 000."""

from __future__ import annotations

import contextlib
import os
import shutil
import stat
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from skillopt_sleep import promotion
from skillopt_sleep.night.run import run_night
from skillopt_sleep.report.document import NightSummary
from skillopt_sleep.store import open_store
from tests.night_helpers import make_root, write_yaml
from tests.sim_helpers import competent_roles
from tests.test_faults import MANAGED, ONE, cli
from trainer.backends.base import InfraError, Roles

# The user's own skill for the corpus's regression-test requests: the simulated night's
# edits win on it (staged in 5 of 5 seeds measured), where they win on the corpus's
# commit-message skill in about 1 of 3 (a draw these tests must not hang on).
USER = "add-regression-test"
USER_TEXT = """---
name: add-regression-test
description: Add a regression test for a bug that was fixed. Use when asked to add a test so a
  bug never comes back.
---
# Add a regression test

1. Find the code the bug was in.
2. Write a test that fails without the fix.
"""


def with_user_skill(root: Path, **extra: Any) -> dict[str, Any]:
    """The corpus, with the user's own add-regression-test skill in its skill target."""
    config = make_root(root, **extra)
    (root / "skills" / USER).mkdir()
    (root / "skills" / USER / "SKILL.md").write_text(USER_TEXT)
    return config


def _skill(summary: NightSummary | None, name: str) -> dict[str, Any]:
    """The skill's report as stored (its JSON)."""
    assert summary is not None
    return next(s.to_json() for s in summary.skills if s.name == name)


def test_a_linked_user_skill_is_trained_and_staged_with_the_reason(tmp_path: Path) -> None:
    """The dotfiles setup: ~/.claude/skills/<name> is a symlink into a repository."""
    config = with_user_skill(tmp_path, **{"promotion.auto_promote_user_skills": True})
    skills, dotfiles = tmp_path / "skills", tmp_path / "dotfiles"
    dotfiles.mkdir()
    shutil.move(skills / USER, dotfiles / USER)
    (skills / USER).symlink_to(dotfiles / USER)
    outcome = run_night(config, progress=lambda m: None, roles_factory=competent_roles)
    assert outcome.status == "done" and outcome.exit_code == 0
    skill = _skill(outcome.summary, USER)
    assert skill["n_tasks"]["val"] > 0 and skill["edits"]  # it was read and trained
    promo = skill["promotion"]
    assert promo["status"] == "staged" and "never writes through links" in promo["reason"]
    assert "never writes through links" in outcome.reports["md"].read_text()
    assert (dotfiles / USER / "SKILL.md").read_text() == USER_TEXT


class _TestSplitDown:
    """The target endpoint fails (after retries) on every held-out test request."""

    def __init__(self, inner: Any, prompts: set[str]) -> None:
        self.inner, self.prompts = inner, prompts
        self.identity, self.concurrency, self.simulation = inner.identity, 1, True

    def complete(self, messages: Any, **kwargs: Any) -> Any:
        if messages[-1]["content"] in self.prompts:
            raise InfraError("503 from the endpoint")
        return self.inner.complete(messages, **kwargs)


def test_a_skill_whose_test_was_not_measured_is_staged_not_promoted(tmp_path: Path) -> None:
    @contextlib.contextmanager
    def roles(cfg: Any, tasks: Any) -> Iterator[Roles]:
        prompts = {t.prompt for t in tasks if t.split == "test"}
        with competent_roles(cfg, tasks) as r:
            yield Roles(r.optimizer, _TestSplitDown(r.target, prompts), r.judge)

    config = make_root(tmp_path, **ONE)
    outcome = run_night(config, progress=lambda m: None, roles_factory=roles)
    skill = _skill(outcome.summary, MANAGED)
    assert skill["edits"] and any(e["status"] == "accepted" for e in skill["edits"])
    assert skill["test"] is None  # no test task was scored on both sides
    assert skill["promotion"]["status"] == "staged"
    reason = "held-out test was not measured (no test task was scored on both sides)"
    assert reason in skill["promotion"]["reason"] and reason in skill["reason"]
    assert not (tmp_path / "skills" / MANAGED).exists()


def test_a_rejected_candidate_is_not_staged_again_the_next_night(tmp_path: Path) -> None:
    config = with_user_skill(tmp_path)
    first = run_night(config, progress=lambda m: None, roles_factory=competent_roles)
    staged = _skill(first.summary, USER)["promotion"]
    assert staged["status"] == "staged"
    db = open_store(tmp_path / "state")
    try:
        (row,) = promotion.pending(db, USER)
        rejected = {e["hash"] for e in row["evidence"]["edits"]}
    finally:
        db.close()
    assert rejected
    cfg = write_yaml(tmp_path, config)
    assert cli(cfg, "reject", USER).exit_code == 0
    second = run_night(config, progress=lambda m: None, roles_factory=competent_roles)
    assert second.night_id != first.night_id
    assert _skill(second.summary, USER)["edits"]  # it was trained again
    db = open_store(tmp_path / "state")
    try:
        # the rejected edits stay the user's verdict: the second night never re-decided them
        kinds = dict(db.execute("SELECT hash, kind FROM edits WHERE skill = ?", [USER]).fetchall())
        assert {kinds.get(h) for h in rejected} == {"rejected"}, kinds
        nights = db.execute(
            "SELECT DISTINCT night_id FROM edits WHERE skill = ? AND hash IN "
            f"({','.join('?' * len(rejected))})",
            [USER, *rejected],
        ).fetchall()
        assert nights == [(first.night_id,)]
        rows = promotion.pending(db, USER)
        assert all(r["version"] != staged["version"] for r in rows)  # not the same candidate
    finally:
        db.close()


def _modes(root: Path) -> dict[str, int]:
    return {str(p.relative_to(root)): stat.S_IMODE(p.lstat().st_mode) for p in root.rglob("*")}


def test_everything_a_night_writes_has_safe_modes_under_umask_000(tmp_path: Path) -> None:
    config = make_root(tmp_path, **ONE)
    cfg = write_yaml(tmp_path, config)
    old = os.umask(0)
    try:
        outcome = run_night(config, progress=lambda m: None, roles_factory=competent_roles)
        assert cli(cfg, "tasks", "export", str(tmp_path / "tasks.yaml")).exit_code == 0
    finally:
        os.umask(old)
    assert _skill(outcome.summary, MANAGED)["promotion"]["status"] == "promoted"
    state = _modes(tmp_path / "state")
    assert any(p.startswith("nights/") and p.endswith("history.json") for p in state)
    wrong = {p: oct(m) for p, m in state.items()
             if m != (0o700 if (tmp_path / "state" / p).is_dir() else 0o600)}  # fmt: skip
    assert wrong == {}
    assert stat.S_IMODE((tmp_path / "tasks.yaml").stat().st_mode) == 0o600
    skill = tmp_path / "skills" / MANAGED
    assert stat.S_IMODE(skill.stat().st_mode) == 0o755
    assert stat.S_IMODE((skill / "SKILL.md").stat().st_mode) == 0o644
