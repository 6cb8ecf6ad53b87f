"""The held-out user generator writes real session logs: the real ingest reads every file
without a bad line or an unknown record, and finds exactly the sessions, turns and texts
the ground truth lists (nothing about mining is checked here)."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import pytest

from benchmarks.users.heldout import write
from skillopt_sleep import config as config_mod
from skillopt_sleep.logs import ingest_logs
from skillopt_sleep.store import open_store


@pytest.mark.parametrize("seed", [0, 1])
def test_generated_logs_ingest_as_the_ground_truth_says(tmp_path: Path, seed: int) -> None:
    truth = write(tmp_path / "logs", seed)
    config = config_mod.load(
        None,
        overrides={
            "state_dir": str(tmp_path / "state"),
            "sources.claude.roots": [str(tmp_path / "logs" / "claude")],
            "sources.codex.roots": [str(tmp_path / "logs" / "codex")],
        },
        environ={},
    )
    db = open_store(tmp_path / "state")
    try:
        report = ingest_logs(db, config)
        sessions = db.execute(
            "SELECT id, source, kind, unknown_records FROM sessions ORDER BY id"
        ).fetchall()
        turns = db.execute(
            "SELECT session_id, user_text, assistant_text, kind FROM turns ORDER BY session_id, idx"
        ).fetchall()
    finally:
        db.close()

    assert report.bad_lines == 0 and report.errors == []
    assert report.files_scanned == len(truth["sessions"])
    assert {(s[0], s[1]) for s in sessions} == {
        (s["session_id"], s["source"]) for s in truth["sessions"]
    }
    assert all(s[2] == "main" and s[3] == 0 for s in sessions)
    assert Counter(s[1] for s in sessions) == Counter(s["source"] for s in truth["sessions"])

    by_session: dict[str, list[tuple[str, str]]] = {}
    for t in truth["turns"]:
        by_session.setdefault(t["session_id"], []).append((t["text"], t["answer_after"]))
    ingested: dict[str, list[tuple[str, str]]] = {}
    for session_id, user_text, assistant_text, kind in turns:
        assert kind == "human"
        ingested.setdefault(session_id, []).append((user_text, assistant_text))
    assert len(turns) == len(truth["turns"])
    assert ingested == by_session
