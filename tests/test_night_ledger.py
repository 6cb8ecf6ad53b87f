"""The edits ledger on SQLite: per skill, with the verdict kind, upgraded in place."""

from __future__ import annotations

import json
from pathlib import Path

import sqlite_utils

from session_ingest import migrations
from skillopt_sleep.night.store import MIGRATIONS, SqliteLedger
from skillopt_sleep.store import db_path, open_store


def test_an_older_store_is_upgraded_and_an_edit_is_recorded_for_every_skill(
    tmp_path: Path,
) -> None:
    # a store made by the first night schema, holding one rejection for skill "a"
    tmp_path.mkdir(exist_ok=True)
    old = sqlite_utils.Database(db_path(tmp_path))
    migrations.apply(old, "night", MIGRATIONS[:1])
    old["edits"].insert(
        {
            "hash": "h1",
            "skill": "a",
            "night_id": "n0",
            "record": json.dumps({"text": "x"}),
            "created_at": "2026-01-01T00:00:00Z",
        }  # fmt: skip
    )
    old.close()
    db = open_store(tmp_path)
    a, b = SqliteLedger(db, "a", "n1"), SqliteLedger(db, "b", "n1")
    assert "h1" in a and "h1" not in b
    assert db.execute("SELECT kind FROM edits WHERE skill = 'a'").fetchone()[0] == "rejected"
    # the same edit rejected for another skill is recorded for that skill too
    b.add("h1", {"status": "rejected", "text": "x for b"})
    assert "h1" in b and a.recent(1)[0]["text"] == "x" and b.recent(1)[0]["text"] == "x for b"
    # a pending record is replaced as its evidence grows, then forgotten when it lapses
    b.add("h2", {"status": "pending", "text": "y", "evidence": {"sweeps": 4}})
    b.add("h2", {"status": "pending", "text": "y", "evidence": {"sweeps": 9}})
    assert [p["evidence"]["sweeps"] for p in b.pending()] == [9] and a.pending() == []
    assert b.recent(5)[0]["text"] == "y"  # the newest record first
    b.forget("h2")
    assert "h2" not in b and b.pending() == [] and "h1" in b
