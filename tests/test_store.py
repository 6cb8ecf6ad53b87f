"""The store: WAL, private files, named migrations that upgrade in place."""

from __future__ import annotations

import sqlite3
import stat
from pathlib import Path

import pytest
import sqlite_utils
from ingest_helpers import lay_out_own, run

from session_ingest import migrations, schema
from skillopt_sleep.store import StoreError, components, db_path, open_store


def _mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


def _applied(db: sqlite_utils.Database) -> dict[str, list[str]]:
    out: dict[str, list[str]] = {}
    for row in db.execute("SELECT migration_set, name FROM _sqlite_migrations ORDER BY rowid"):
        out.setdefault(row[0], []).append(row[1])
    return out


def test_store_is_private_wal_and_migrated(tmp_path: Path) -> None:
    state = tmp_path / "state"
    db = open_store(state)
    assert db.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    assert {"files", "sessions", "turns", "tool_calls", "signals"} <= set(db.table_names())
    expected = {"ingest": [n for n, _ in schema.MIGRATIONS]}
    expected.update({name: [n for n, _ in steps] for name, steps in components()})
    assert _applied(db) == expected
    versions = {r["component"]: r["version"] for r in db["schema_version"].rows}
    assert versions == {name: len(names) for name, names in expected.items()}
    db["sessions"].insert({"id": "s1", "source": "claude"})
    db.close()
    assert _mode(state) == 0o700
    assert _mode(db_path(state)) == 0o600
    for side in state.glob("*.db-*"):
        assert _mode(side) == 0o600


def test_reopen_keeps_data_and_does_not_rerun_migrations(tmp_path: Path) -> None:
    db = open_store(tmp_path)
    db["sessions"].insert({"id": "s1", "source": "codex"})
    before = db.execute("SELECT rowid, applied_at FROM _sqlite_migrations").fetchall()
    db.close()
    db = open_store(tmp_path)
    assert db["sessions"].count == 1
    assert db.execute("SELECT rowid, applied_at FROM _sqlite_migrations").fetchall() == before


def test_named_migrations_apply_in_order_once(tmp_path: Path) -> None:
    db = sqlite_utils.Database(tmp_path / "x.db")
    ran: list[str] = []

    def one(d: sqlite_utils.Database) -> None:
        ran.append("one")
        d["demo"].create({"id": int}, pk="id")

    def two(d: sqlite_utils.Database) -> None:
        ran.append("two")
        d["demo"].add_column("name", str)

    assert migrations.apply(db, "demo", [("create", one)]) == ["create"]
    assert migrations.apply(db, "demo", [("create", one), ("name", two)]) == ["name"]
    assert migrations.apply(db, "demo", [("create", one), ("name", two)]) == []
    assert ran == ["one", "two"]
    assert "name" in db["demo"].columns_dict
    assert migrations.applied(db, "demo") == ["create", "name"]


def test_a_failing_migration_leaves_nothing_behind(tmp_path: Path) -> None:
    db = sqlite_utils.Database(tmp_path / "x.db")

    def half(d: sqlite_utils.Database) -> None:
        d["half"].create({"id": int}, pk="id")
        d["half"].add_column("a", str)
        raise RuntimeError("disk full")

    with pytest.raises(RuntimeError, match="disk full"):
        migrations.apply(db, "demo", [("half", half)])
    assert not db["half"].exists()
    assert migrations.applied(db, "demo") == []


def test_a_name_listed_twice_is_refused(tmp_path: Path) -> None:
    db = sqlite_utils.Database(tmp_path / "x.db")
    with pytest.raises(ValueError, match="listed twice"):
        migrations.apply(db, "demo", [("a", lambda d: None), ("a", lambda d: None)])


def _numbered_store(path: Path, versions: dict[str, int]) -> None:
    """A store as the list-position numbering left it: each component's first N steps run
    and ``schema_version`` saying N, no names recorded."""
    db = sqlite_utils.Database(path)
    steps = {"ingest": schema.MIGRATIONS, **dict(components())}
    db["schema_version"].create({"component": str, "version": int}, pk="component")
    for component, n in versions.items():
        for _name, step in steps[component][:n]:
            with db.conn:
                step(db)
        db["schema_version"].upsert({"component": component, "version": n}, pk="component")
    db.close()


def test_a_numbered_store_upgrades_in_place(tmp_path: Path) -> None:
    state = tmp_path / "state"
    state.mkdir(mode=0o700)
    full = {name: len(steps) for name, steps in components()}
    _numbered_store(db_path(state), {"ingest": 2, **full})
    raw = sqlite3.connect(db_path(state))
    raw.execute("INSERT INTO files (path, source) VALUES ('/logs/a.jsonl', 'claude')")
    raw.commit()
    raw.close()
    db = open_store(state)
    applied = _applied(db)
    # version 2 became the first two names; the third ran now; the others had run all
    assert applied["ingest"] == [n for n, _ in schema.MIGRATIONS]
    assert {k: v for k, v in applied.items() if k != "ingest"} == {
        name: [n for n, _ in steps] for name, steps in components()
    }
    unique = [i for i in db["events"].indexes if i.unique]
    assert [i.columns for i in unique] == [["grp", "id"]]  # what migration 3 made
    assert db.execute("SELECT path FROM files").fetchall() == [("/logs/a.jsonl",)]
    db.close()


MAIN_STORE = Path(__file__).parent / "fixtures" / "store-numbered-main.sql"
DATA_TABLES = ("files", "sessions", "turns", "tool_calls", "signals", "events")


def _shape(db: sqlite_utils.Database) -> dict[str, tuple]:
    """Every table's columns (name, type, not null, pk) and indexes (columns, unique)."""
    return {
        t.name: (
            [(c[1], c[2], c[3], c[5]) for c in db.execute(f"PRAGMA table_info([{t.name}])")],
            sorted((tuple(i.columns), i.unique) for i in t.indexes),
        )
        for t in db.tables
    }


def _counts(db: sqlite_utils.Database) -> dict[str, int]:
    return {t: db[t].count for t in DATA_TABLES}


def test_a_store_made_by_mains_numbered_migrations_upgrades_in_place(tmp_path: Path) -> None:
    """The recorded store (main's code: schema_version, no names, the project's own logs
    ingested) opens with every name recorded, the shape of a fresh store, its rows intact;
    ingesting the same logs again (new inodes: re-read from 0) counts nothing twice."""
    home = tmp_path / "home"
    lay_out_own(home)
    state = home / "state"
    state.mkdir(mode=0o700)
    old = sqlite3.connect(db_path(state))
    old.executescript(MAIN_STORE.read_text().replace("@HOME@", str(home)))
    old.close()
    old_db = sqlite_utils.Database(db_path(state))
    before = _counts(old_db)
    old_db.close()
    assert before["sessions"] > 10 and before["events"] > 100  # a real store, not an empty one
    db = open_store(state)
    upgraded, counts = _shape(db), _counts(db)
    applied = _applied(db)
    versions = {r["component"]: r["version"] for r in db["schema_version"].rows}
    db.close()
    fresh = open_store(tmp_path / "fresh")
    assert upgraded == _shape(fresh)
    fresh.close()
    expected = {"ingest": [n for n, _ in schema.MIGRATIONS]}
    expected.update({name: [n for n, _ in steps] for name, steps in components()})
    assert applied == expected
    assert versions == {name: len(names) for name, names in expected.items()}
    assert counts == before
    report = run(home)
    assert report.files_changed == before["files"] and report.new_turns == 0
    db = open_store(state)
    assert _counts(db) == before
    db.close()


def test_a_numbered_store_newer_than_the_program_is_refused(tmp_path: Path) -> None:
    state = tmp_path / "state"
    state.mkdir(mode=0o700)
    _numbered_store(db_path(state), {"ingest": 3})
    db = sqlite_utils.Database(db_path(state))
    db["schema_version"].upsert({"component": "ingest", "version": 99}, pk="component")
    db.close()
    with pytest.raises(StoreError, match="ingest schema is version 99, newer than this program"):
        open_store(state)


def test_an_unknown_applied_name_is_a_one_line_error(tmp_path: Path) -> None:
    db = open_store(tmp_path)
    db["_sqlite_migrations"].insert(
        {"migration_set": "mining", "name": "from-the-future", "applied_at": "2030-01-01"}
    )
    count = db["_sqlite_migrations"].count
    db.close()
    with pytest.raises(StoreError) as err:
        open_store(tmp_path)
    message = str(err.value)
    assert "'from-the-future', newer than this program" in message and "\n" not in message
    db = sqlite_utils.Database(db_path(tmp_path))
    assert db["_sqlite_migrations"].count == count  # nothing changed


def test_corrupt_database_is_a_store_error(tmp_path: Path) -> None:
    tmp_path.mkdir(exist_ok=True)
    db_path(tmp_path).write_bytes(b"this is not a database" * 100)
    with pytest.raises(StoreError, match="cannot open the store"):
        open_store(tmp_path)
