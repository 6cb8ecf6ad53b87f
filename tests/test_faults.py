"""Bad input and faults: each ends in a clear one-line message, a non-zero exit where the user
must act, no half-written skill, and a next night that goes on from a consistent state."""

from __future__ import annotations

import errno
import json
import os
import re
import socket
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner, Result

from skillopt_sleep.cli import main
from skillopt_sleep.night.run import run_night
from skillopt_sleep.store import db_path, open_store
from tests.night_helpers import CLI, PROJECT, env, make_root, write_yaml
from tests.sim_helpers import competent_roles

MANAGED = "add-regression-test"  # the managed skill the 30-session corpus trains and promotes
ONE = {"user_skill": False, "night.max_skills": 1}  # train only MANAGED: faster


def cli(cfg: Path, *args: str) -> Result:
    return CliRunner().invoke(main, ["--config", str(cfg), *args])


def one_clear_line(result: Result) -> str:
    """A user-facing failure: click's one-line error, no traceback."""
    assert isinstance(result.exception, SystemExit), result.exception
    assert "Traceback" not in result.output
    errors = [ln for ln in result.output.splitlines() if ln.startswith("Error: ")]
    assert len(errors) == 1, result.output
    return errors[0]


def leftovers(skills: Path) -> list[str]:
    """Files under the skill root other than the user's skill and complete SKILL.md files:
    temp files, partial writes, anything a failed promotion left behind."""
    return sorted(
        str(p.relative_to(skills))
        for p in skills.rglob("*")
        if p.is_file()
        and not p.is_relative_to(skills / "commit-message")
        and not (p.name == "SKILL.md" and p.read_text().startswith("---"))
    )


def test_corrupt_database_is_one_clear_line_and_nonzero_exit(tmp_path: Path) -> None:
    cfg = write_yaml(tmp_path, make_root(tmp_path, **ONE))
    state = tmp_path / "state"
    state.mkdir(mode=0o700)
    db_path(state).write_bytes(os.urandom(8192))
    for args in (["run", "--once"], ["status"], ["report"]):
        result = cli(cfg, *args)
        assert result.exit_code == 1, (args, result.output)
        line = one_clear_line(result)
        assert str(db_path(state)) in line and "not a database" in line
    proc = subprocess.run([*CLI, "--config", str(cfg), "run", "--once"], cwd=PROJECT, env=env(),
                          capture_output=True, text=True, timeout=60)  # fmt: skip
    assert proc.returncode == 1
    assert proc.stderr.count("\n") == 1 and "Traceback" not in proc.stderr


@pytest.mark.slow
def test_locked_database_is_one_clear_line_after_the_busy_timeout(tmp_path: Path) -> None:
    """Another process holds the store's write lock past the 30 s busy timeout."""
    cfg = write_yaml(tmp_path, make_root(tmp_path, **ONE))
    state = tmp_path / "state"
    open_store(state).close()
    holder = subprocess.Popen(
        [sys.executable, "-c",
         "import sqlite3, sys, time; c = sqlite3.connect(sys.argv[1], isolation_level=None);"
         " c.execute('BEGIN IMMEDIATE'); print('locked', flush=True); time.sleep(90)",
         str(db_path(state))],
        stdout=subprocess.PIPE, text=True,
    )  # fmt: skip
    try:
        assert holder.stdout is not None and holder.stdout.readline().strip() == "locked"
        proc = subprocess.run([*CLI, "--config", str(cfg), "run", "--once", "-q"], cwd=PROJECT,
                              env=env(), capture_output=True, text=True, timeout=80)  # fmt: skip
    finally:
        holder.kill()
        holder.wait()
    assert proc.returncode == 1
    assert "database is locked" in proc.stderr and "Traceback" not in proc.stderr
    assert proc.stderr.strip().count("\n") == 0
    # nothing was lost: once the lock is gone the night runs
    again = subprocess.run([*CLI, "--config", str(cfg), "run", "--once", "-q"], cwd=PROJECT,
                           env=env(), capture_output=True, text=True, timeout=120)  # fmt: skip
    assert again.returncode == 0, again.stderr


def test_skill_directory_blocked_before_the_night(
    tmp_path: Path, competent_optimizer: None
) -> None:
    cfg = write_yaml(tmp_path, make_root(tmp_path, **ONE))
    skills = tmp_path / "skills"
    (skills / MANAGED).write_text("a file where the skill's directory should be\n")
    result = cli(cfg, "run", "--once", "-q")
    assert result.exit_code == 1, result.output
    assert "Traceback" not in result.output
    assert re.search(rf"problem: {MANAGED}: its skill directory cannot be read", result.output)
    assert (skills / MANAGED).read_text().startswith("a file where")  # untouched
    assert leftovers(skills) == [MANAGED]
    summary = json.loads(cli(cfg, "report", "--format", "json").output)
    assert summary["problems_need_action"] and any(MANAGED in p for p in summary["problems"])
    # the user fixes it; the next night goes on and trains and promotes it
    (skills / MANAGED).unlink()
    result = cli(cfg, "run", "--once", "-q")
    assert result.exit_code == 0, result.output
    assert (skills / MANAGED / "SKILL.md").read_text().startswith("---")
    assert leftovers(skills) == []


def test_skill_directory_that_fails_during_promotion(tmp_path: Path) -> None:
    config = make_root(tmp_path, **ONE)
    skills = tmp_path / "skills"

    def block(msg: str) -> None:  # the directory turns unwritable while the night trains
        if msg.startswith("training") and not (skills / MANAGED).exists():
            (skills / MANAGED).write_text("not a directory\n")

    outcome = run_night(config, progress=block, roles_factory=competent_roles)
    assert outcome.status == "done" and outcome.exit_code == 1
    assert any(MANAGED in p for p in outcome.summary.problems), outcome.summary.problems
    assert (skills / MANAGED).read_text() == "not a directory\n"
    assert leftovers(skills) == [MANAGED]
    (skills / MANAGED).unlink()
    outcome = run_night(config, progress=lambda m: None, roles_factory=competent_roles)
    assert outcome.status == "done" and outcome.exit_code == 0
    assert (skills / MANAGED / "SKILL.md").exists()


def test_disk_full_during_promotion(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    config = make_root(tmp_path, **ONE)
    skills = tmp_path / "skills"
    real_replace = os.replace

    def full(src: Any, dst: Any, *args: Any, **kwargs: Any) -> None:
        if kwargs.get("dst_dir_fd") is not None or str(dst).startswith(str(skills)):
            raise OSError(errno.ENOSPC, "No space left on device", str(dst))
        real_replace(src, dst, *args, **kwargs)

    monkeypatch.setattr(os, "replace", full)
    outcome = run_night(config, progress=lambda m: None, roles_factory=competent_roles)
    assert outcome.status == "done" and outcome.exit_code == 1
    problems = " ".join(outcome.summary.problems)
    assert f"{MANAGED}: cannot write" in problems and "disk is full" in problems
    assert not (skills / MANAGED / "SKILL.md").exists()
    assert leftovers(skills) == []  # no temp file, no half-written SKILL.md
    monkeypatch.setattr(os, "replace", real_replace)
    outcome = run_night(config, progress=lambda m: None, roles_factory=competent_roles)
    assert outcome.status == "done" and outcome.exit_code == 0
    assert (skills / MANAGED / "SKILL.md").exists()


def _closed_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def test_provider_that_fails_every_call(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    port = _closed_port()
    models: dict[str, Any] = {"models.backend": "openai"}
    for role in ("optimizer", "target", "judge"):
        models[f"models.{role}.base_url"] = f"http://127.0.0.1:{port}/v1"
        models[f"models.{role}.max_retries"] = 0
        models[f"models.{role}.timeout_s"] = 0.5
    cfg = write_yaml(tmp_path, make_root(tmp_path, **ONE, **models))
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-not-a-key")
    result = cli(cfg, "run", "--once", "-q", "--json")
    assert result.exit_code == 1, result.output
    summary = json.loads(result.output[result.output.index("{") :])
    assert summary["problems_need_action"]
    assert any("failed every call" in p for p in summary["problems"]), summary["problems"]
    for skill in summary["skills"]:
        assert skill["outcome"] == "error"
        assert skill["usage"]["infra_errors"] > 0
        assert skill["edits"] == [] and skill["test"] is None  # nothing scored as a failure
        assert skill["promotion"]["status"] == "unchanged"
    db = open_store(tmp_path / "state")
    try:
        assert db.execute("SELECT count(*) FROM rollouts").fetchone()[0] == 0
        assert db.execute("SELECT count(*) FROM edits").fetchone()[0] == 0
    finally:
        db.close()
    text = cli(cfg, "report").output
    assert "failed every call" in text


def test_config_typo_exits_2_with_the_key(tmp_path: Path) -> None:
    cfg = tmp_path / "config.yaml"
    cfg.write_text("trainer:\n  epoch: 2\n")
    result = cli(cfg, "run", "--once")
    assert result.exit_code == 2
    line = one_clear_line(result)
    assert "trainer.epoch" in line and "trainer.epochs" in line


def test_zero_budget_ends_cleanly_and_names_the_budget(tmp_path: Path) -> None:
    cfg = write_yaml(tmp_path, make_root(tmp_path, **ONE, **{"budget.max_calls": 0}))
    result = cli(cfg, "run", "--once", "-q")
    assert result.exit_code == 0, result.output
    assert "budget" in result.output and "calls" in result.output
    summary = json.loads(cli(cfg, "report", "--format", "json").output)
    assert summary["status"] == "done" and summary["usage"]["live_calls"] == 0
    assert summary["skills"]
    for skill in summary["skills"]:
        assert skill["stopped_by"] == "budget: calls"
        assert skill["promotion"]["status"] == "unchanged"
    assert "budget: calls" in cli(cfg, "report").output


def _status(cfg: Path) -> dict[str, Any]:
    result = cli(cfg, "status", "--json")
    assert result.exit_code == 0, result.output
    return json.loads(result.output)


def test_status_of_a_killed_night_is_interrupted_not_running(tmp_path: Path) -> None:
    """The store says "running" until a night ends; after kill -9 it never ends. status
    checks the lock holder instead of believing the row."""
    from tests.night_helpers import Child

    config = make_root(tmp_path, **ONE)
    cfg = write_yaml(tmp_path, config)
    child = Child(tmp_path, config, 0, pause_at="ingest")
    alive: dict[str, Any] = {}

    def paused_and_looked() -> bool:  # status taken while the paused night holds the lock
        if child.paused():
            alive.update(_status(cfg))
        return bool(alive)

    try:
        child.kill_when(paused_and_looked)
    finally:
        if child.proc.poll() is None:
            child.proc.kill()
    assert alive["last_night"]["status"] == "running"
    assert f"night pid {child.proc.pid}" in alive["running_now"]
    info = _status(cfg)
    assert info["last_night"]["status"] == "interrupted" and info["running_now"] is None
    text = cli(cfg, "status").output
    assert "(running)" not in text and "interrupted" in text and "resumes" in text
    listed = json.loads(cli(cfg, "nights", "--json").output)
    assert [n["status"] for n in listed] == ["interrupted"]
