"""``doctor`` on a broken state directory: it names whose the directory is, what stands
where a file or directory belongs, and fails a damaged store (SQLite's integrity check)."""

from __future__ import annotations

import json
import sqlite3
import subprocess
from pathlib import Path
from typing import Any

import pytest

from skillopt_sleep.running.lock import LOCK_NAME
from skillopt_sleep.store import db_path, integrity_problems
from tests.broken_state_helpers import (
    FAULTS,
    NOBODY,
    another_users,
    corpus,
    index_bit_flipped,
    invoke,
    pages_overwritten,
    with_state,
)
from tests.night_helpers import CLI, env

__all__ = ["corpus"]  # the module-scoped fixture, imported for pytest


def test_doctor_says_whose_state_directory_it_is(
    tmp_path: Path, corpus: tuple[dict[str, Any], bytes]
) -> None:
    config = with_state(tmp_path, corpus)
    config.chmod(0o644)
    state = tmp_path / "state"
    prefix = another_users(state, 0o700, tmp_path)
    proc = subprocess.run(
        [*prefix, *CLI, "--config", str(config), "doctor", "--no-rollout", "--json"],
        capture_output=True,
        text=True,
        env=env(),
        timeout=120,
    )
    assert proc.returncode == 1 and proc.stderr == "", proc.stderr
    failed = [c for c in json.loads(proc.stdout)["checks"] if c["status"] == "fail"]
    assert [c["what"] for c in failed] == ["state directory"]
    detail = failed[0]["detail"]
    if prefix:  # root pretending: the owner is nobody
        assert f"belongs to uid {NOBODY}, not you (uid 0)" in detail
    else:
        assert "is not writable by you" in detail


def test_doctor_fails_a_store_with_a_flipped_bit_that_quick_check_passes(
    tmp_path: Path, corpus: tuple[dict[str, Any], bytes]
) -> None:
    config = with_state(tmp_path, corpus)
    state = tmp_path / "state"
    assert "integrity ok" in invoke(config, "doctor", "--no-rollout").stdout
    index_bit_flipped(state)
    conn = sqlite3.connect(db_path(state))
    assert conn.execute("PRAGMA quick_check").fetchall() == [("ok",)]  # why not quick_check
    problems = integrity_problems(conn)
    conn.close()
    assert problems and all("missing from index idx_turns_session_id" in p for p in problems)
    result = invoke(config, "doctor", "--no-rollout", "--json")
    assert result.exit_code == 1
    store = next(c for c in json.loads(result.stdout)["checks"] if c["what"] == "store")
    assert store["status"] == "fail"
    assert store["detail"].startswith(f"{db_path(state)} is damaged (row ")


def test_doctor_fails_a_store_with_overwritten_pages(
    tmp_path: Path, corpus: tuple[dict[str, Any], bytes]
) -> None:
    config = with_state(tmp_path, corpus)
    pages_overwritten(tmp_path / "state")
    result = invoke(config, "doctor", "--no-rollout")
    assert result.exit_code == 1
    assert f"fail  store: {db_path(tmp_path / 'state')} is damaged (" in result.stdout
    assert " ok  store" not in result.stdout


@pytest.mark.parametrize(
    ("fault", "says"),
    [
        ("lock-is-a-directory", f"{LOCK_NAME} must be a file"),
        ("nights-is-a-file", "nights must be a directory"),
        ("database-is-a-directory", "skillopt-sleep.db must be a file"),
        ("state-is-a-file", "state is not a directory"),
    ],
)
def test_doctor_names_what_stands_in_the_state_directory(
    fault: str, says: str, tmp_path: Path, corpus: tuple[dict[str, Any], bytes]
) -> None:
    config = with_state(tmp_path, corpus)
    FAULTS[fault](tmp_path / "state")
    result = invoke(config, "doctor", "--no-rollout")
    assert result.exit_code == 1
    failed = [ln for ln in result.stdout.splitlines() if ln.startswith("fail")]
    assert len(failed) == 1 and failed[0].startswith("fail  state directory: ")
    assert says in failed[0]


def test_a_night_refuses_a_damaged_store_before_writing_into_it(
    tmp_path: Path, corpus: tuple[dict[str, Any], bytes]
) -> None:
    config = with_state(tmp_path, corpus)
    index_bit_flipped(tmp_path / "state")
    result = invoke(config, "run", "--once", "-q", "--json")
    assert result.exit_code == 1
    assert json.loads(result.stdout)["code"] == "database_corrupt"
    conn = sqlite3.connect(db_path(tmp_path / "state"))
    nights = conn.execute("SELECT count(*) FROM sqlite_master WHERE name = 'nights'").fetchone()
    started = conn.execute("SELECT count(*) FROM nights").fetchone()[0] if nights[0] else 0
    conn.close()
    assert started == 0
