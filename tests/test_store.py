"""The store: WAL, private files, versioned migrations that upgrade in place."""

from __future__ import annotations

import stat
from pathlib import Path

import pytest

from skillopt_sleep import migrations
from skillopt_sleep.store import StoreError, db_path, open_store


def _mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


def test_store_is_private_wal_and_migrated(tmp_path: Path) -> None:
    state = tmp_path / "state"
    db = open_store(state)
    assert db.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    assert {"files", "sessions", "turns", "tool_calls", "signals"} <= set(db.table_names())
    versions = {r["component"]: r["version"] for r in db["schema_version"].rows}
    assert versions["ingest"] >= 1
    db["sessions"].insert({"id": "s1", "source": "claude"})
    db.close()
    assert _mode(state) == 0o700
    assert _mode(db_path(state)) == 0o600
    for side in state.glob("*.db-*"):
        assert _mode(side) == 0o600


def test_reopen_keeps_data_and_does_not_rerun_migrations(tmp_path: Path) -> None:
    db = open_store(tmp_path)
    db["sessions"].insert({"id": "s1", "source": "codex"})
    db.close()
    db = open_store(tmp_path)
    assert db["sessions"].count == 1


def test_migrations_apply_in_order_once(tmp_path: Path) -> None:
    db = open_store(tmp_path)
    ran: list[int] = []

    def one(d):  # type: ignore[no-untyped-def]
        ran.append(1)
        d["demo"].create({"id": int}, pk="id")

    def two(d):  # type: ignore[no-untyped-def]
        ran.append(2)
        d["demo"].add_column("name", str)

    assert migrations.apply(db, "demo", [one]) == 1
    assert migrations.apply(db, "demo", [one, two]) == 2
    assert migrations.apply(db, "demo", [one, two]) == 2
    assert ran == [1, 2]
    assert "name" in db["demo"].columns_dict


def test_newer_store_is_refused(tmp_path: Path) -> None:
    db = open_store(tmp_path)
    db["schema_version"].upsert({"component": "ingest", "version": 99}, pk="component")
    db.close()
    with pytest.raises(RuntimeError, match="newer than this program"):
        open_store(tmp_path)


def test_corrupt_database_is_a_store_error(tmp_path: Path) -> None:
    tmp_path.mkdir(exist_ok=True)
    db_path(tmp_path).write_bytes(b"this is not a database" * 100)
    with pytest.raises(StoreError, match="cannot open the store"):
        open_store(tmp_path)
