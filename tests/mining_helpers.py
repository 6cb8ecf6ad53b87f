"""Helpers for mining tests: write ingest-shaped rows straight into a real store."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import sqlite_utils

from skillopt_sleep.store import open_store

CONFIG: dict[str, Any] = {
    "mining": {
        "min_sessions": 3,
        "min_days": 2,
        "similarity_threshold": 0.3,
        "split_fractions": {"train": 0.6, "val": 0.2, "test": 0.2},
    }
}


def store(tmp_path: Path) -> sqlite_utils.Database:
    return open_store(tmp_path / "state")


def add_turn(
    db: sqlite_utils.Database,
    session: str,
    idx: int,
    text: str,
    day: int,
    *,
    answer: str = "done",
    skills: list[str] | None = None,
    signals: list[tuple[str, str]] | None = None,
    commands: list[str] | None = None,
    kind: str = "main",
    minute: int = 0,
) -> str:
    """One human turn (and its session row) on 2026-03-<day>; returns the turn id."""
    ts = f"2026-03-{day:02d}T10:{minute % 60:02d}:{idx % 60:02d}Z"
    db["sessions"].upsert(
        {"id": session, "source": "claude", "kind": kind, "project": "/home/u/demo",
         "branch": "main", "started_at": ts},
        pk="id",
        alter=True,
    )  # fmt: skip
    tid = f"{session}:{idx}"
    db["turns"].insert(
        {"id": tid, "session_id": session, "idx": idx, "started_at": ts, "ended_at": ts,
         "user_text": text, "assistant_text": answer, "n_tool_calls": len(commands or []),
         "n_errors": 0, "skills": json.dumps(skills or []), "finished": 1},
        pk="id",
        replace=True,
        alter=True,
    )  # fmt: skip
    for i, (k, ev) in enumerate(signals or []):
        db["signals"].insert(
            {"id": f"{tid}:{i}", "turn_id": tid, "session_id": session, "kind": k,
             "evidence": ev}, pk="id", replace=True)  # fmt: skip
    for i, cmd in enumerate(commands or []):
        db["tool_calls"].insert(
            {"id": f"{tid}:c{i}", "turn_id": tid, "session_id": session, "idx": i,
             "name": "Bash", "args_summary": cmd, "exit_code": 0, "is_error": 0,
             "output_excerpt": ""}, pk="id", replace=True)  # fmt: skip
    return tid


COMMIT = [
    "write a conventional commit message for the staged changes",
    "draft a commit msg for what I have staged",
    "give me a commit message for the staged diff in src/app.py",
    "can you write the commit message for these staged changes please",
    "commit message for my staged work on utils.py",
]
REGRESSION = [
    "add a pytest regression test for bug #812",
    "write a regression test with pytest that reproduces issue 77",
    "add a test to tests/test_api.py that catches the regression from bug 4021",
    "please add a pytest regression test covering the crash in parse_config",
]
ONE_OFFS = [
    "rename the sidebar colour variable in the theme file",
    "what is the capital of mongolia",
    "set up a github action that deploys docs to pages",
    "convert this csv of invoices into a markdown table",
    "explain how the websocket reconnect backoff works",
    "draw an ascii diagram of the payment flow",
]


# The commit message the user corrected (a long subject, unittest) and the one they accepted.
CORRECTED = "Move the parser tests from unittest classes over to the shared harness module"
ACCEPTED = "Move parser tests to pytest"


def seed(db: sqlite_utils.Database, sessions: int = 9, start_day: int = 1) -> None:
    """Commit-message and regression-test kinds over ``sessions`` sessions and days,
    with one correction, plus one-off requests."""
    for s in range(sessions):
        sid = f"sess-{start_day + s:03d}"
        day = start_day + s
        idx = 0
        add_turn(db, sid, idx, COMMIT[s % len(COMMIT)], day,
                 signals=[("correction", "no, subject under 50 chars")] if s == 1 else None,
                 commands=["git diff --staged"],
                 answer=CORRECTED if s == 1 else "done")  # fmt: skip
        idx += 1
        if s == 1:
            add_turn(db, sid, idx, "no, the subject line must be under 50 chars and use "
                     "pytest not unittest", day, answer=ACCEPTED)  # fmt: skip
            idx += 1
        add_turn(db, sid, idx, REGRESSION[s % len(REGRESSION)], day, skills=["regression-tests"])
        idx += 1
        add_turn(db, sid, idx, ONE_OFFS[s % len(ONE_OFFS)] + f" ({s})", day)
