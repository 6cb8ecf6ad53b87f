"""The edits ledger on SQLite: per skill, with the verdict kind, upgraded in place."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import sqlite_utils

from session_ingest import migrations
from skillopt_sleep.night.store import MIGRATIONS, SqliteLedger
from skillopt_sleep.store import db_path, open_store
from trainer.cache import KEPT_STREAMS, JsonLedger, MemoryLedger


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
    assert "h1" in b and a.recent(1)[0].text == "x" and b.recent(1)[0].text == "x for b"
    # a pending record is replaced as its evidence grows, then forgotten when it lapses
    b.add("h2", {"status": "pending", "text": "y", "evidence": {"sweeps": 4}})
    b.add("h2", {"status": "pending", "text": "y", "evidence": {"sweeps": 9}})
    assert [p.comparison["evidence"]["sweeps"] for p in b.pending()] == [9] and a.pending() == []
    assert b.recent(5)[0].text == "y"  # the newest record first
    b.forget("h2")
    assert "h2" not in b and b.pending() == [] and "h1" in b


def test_incumbent_sweeps_are_kept_per_skill_and_only_the_newest_few(tmp_path: Path) -> None:
    tmp_path.mkdir(exist_ok=True)
    old = sqlite_utils.Database(db_path(tmp_path))
    migrations.apply(old, "night", MIGRATIONS[:2])  # a store from before streams were kept
    old.close()
    db = open_store(tmp_path)
    a, b = SqliteLedger(db, "a", "n1"), SqliteLedger(db, "b", "n1")
    a.keep_stream("s0", {"origin": "n1:0", "sweeps": [[1.0, None]], "beaten": None})
    assert a.stream("s0") == {"origin": "n1:0", "sweeps": [[1.0, None]], "beaten": None}
    assert b.stream("s0") is None and a.stream("other") is None
    a.keep_stream("s0", {"origin": "n1:0", "sweeps": [], "beaten": "n2"})  # replaced
    assert a.stream("s0")["beaten"] == "n2"
    for i in range(1, KEPT_STREAMS + 2):
        a.keep_stream(f"s{i}", {"sweeps": [[float(i)]]})
    b.keep_stream("s0", {"sweeps": []})
    left = {r[0] for r in db.execute("SELECT key FROM streams WHERE skill = 'a'").fetchall()}
    assert left == {f"s{i}" for i in range(2, KEPT_STREAMS + 2)}
    assert b.stream("s0") == {"sweeps": []}
    # streams are not edits: the optimizer's "already tried" list never sees them
    assert a.recent(5) == [] and a.pending() == []


@pytest.mark.parametrize("kind", ["sqlite", "json", "memory"])
def test_every_ledger_keeps_the_same_newest_streams(tmp_path: Path, kind: str) -> None:
    """A ledger kept across nights gains a stream a night: each implementation keeps the
    newest KEPT_STREAMS, a replaced stream counting as new, and the JSON file stays bounded."""
    memory = MemoryLedger()
    store = open_store(tmp_path) if kind == "sqlite" else None

    def ledger():  # a fresh handle on the same ledger, as the next night gets
        if store is not None:
            return SqliteLedger(store, "a", "n1")
        if kind == "json":
            return JsonLedger(tmp_path / "ledger.json")
        return memory

    for night in range(3 * KEPT_STREAMS):
        ledger().keep_stream(f"s{night}", {"sweeps": [[float(night)]]})
        ledger().keep_stream("s0", {"sweeps": [[-1.0]]})  # the rolled-back-to version
    kept = {f"s{i}" for i in range(2 * KEPT_STREAMS + 1, 3 * KEPT_STREAMS)} | {"s0"}
    reopened = ledger()
    assert {f"s{i}" for i in range(3 * KEPT_STREAMS) if reopened.stream(f"s{i}")} == kept
    assert reopened.stream("s0") == {"sweeps": [[-1.0]]}
    if kind == "json":
        assert len(json.loads((tmp_path / "ledger.json").read_text())["streams"]) == KEPT_STREAMS
