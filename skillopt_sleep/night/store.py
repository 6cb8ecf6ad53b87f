"""Tables of the night: nights, their checkpointed steps, the model-call cache and the
edits ledger. The cache and ledger implement the trainer's protocols on SQLite, so a killed
night resumes without paying for any call twice, never retries a rejected edit, and the next
night continues the gate's evidence for a pending one."""

from __future__ import annotations

import contextlib
import json
import sqlite3
import threading
from datetime import UTC, datetime
from typing import Any

import sqlite_utils

from session_ingest.migrations import Step
from trainer.cache import KEPT_STREAMS
from trainer.ledger import LedgerRecord
from trainer.shapes import CHECKPOINT, LEDGER, STREAM, stamp, unstamped


def now_iso() -> str:
    return datetime.now(UTC).isoformat(timespec="seconds").replace("+00:00", "Z")


def _v1(db: sqlite_utils.Database) -> None:
    db.table("nights").create(
        {
            "id": str,  # e.g. 2026-11-29T02-00-00Z
            "status": str,  # running | done | failed | stopped
            "dry_run": int,
            "started_at": str,
            "finished_at": str,
            "summary": str,  # JSON: the report's data, once done
            "error": str,
        },
        pk="id",
    )
    db.table("night_steps").create(
        {"night_id": str, "step": str, "status": str, "result": str, "finished_at": str},
        pk=("night_id", "step"),
    )
    db.table("rollouts").create({"key": str, "value": str, "created_at": str}, pk="key")
    db.table("edits").create(
        {"hash": str, "skill": str, "night_id": str, "record": str, "created_at": str}, pk="hash"
    )
    db.table("edits").create_index(["skill"])


def _v2(db: sqlite_utils.Database) -> None:
    """Edits keyed by (skill, hash) with the verdict kind: lookups are per skill, so an
    edit rejected for one skill is still recorded for another; a pending record is
    replaced as its evidence grows. Every earlier record was a rejection."""
    db.table("edits").add_column("kind", str)
    db.execute("UPDATE edits SET kind = 'rejected'")
    db.table("edits").transform(pk=("skill", "hash"), not_null={"kind"})
    db.table("edits").create_index(["skill", "kind"], if_not_exists=True)


def _streams(db: sqlite_utils.Database) -> None:
    """Incumbents' val sweeps kept across nights (the trainer's Ledger.stream)."""
    db.table("streams").create(
        {"skill": str, "key": str, "night_id": str, "record": str, "created_at": str},
        pk=("skill", "key"),
    )


MIGRATIONS: list[Step] = [
    ("tables", _v1),
    ("edits-by-skill-and-hash", _v2),
    ("incumbent-streams", _streams),
]


class SqliteCache:
    """The trainer's Cache on SQLite: a value is durable once ``put`` returns.

    The trainer calls ``get``/``put`` from its worker threads when a backend allows more
    than one call in flight, and a sqlite3 connection may only be used by the thread that
    made it; so the cache has its own connection to the same file, shared under a lock.
    """

    def __init__(self, db: sqlite_utils.Database) -> None:
        self.db = db
        self._lock = threading.Lock()
        path = next((r[2] for r in db.execute("PRAGMA database_list") if r[1] == "main"), "")
        self._conn = sqlite3.connect(path, timeout=30, check_same_thread=False) if path else None
        if self._conn is not None:
            self._conn.execute("PRAGMA busy_timeout = 30000")

    def _execute(self, sql: str, params: list[Any], write: bool = False) -> Any:
        if self._conn is None:  # an in-memory store: single-threaded use only
            with self.db.conn if write else contextlib.nullcontext():
                return self.db.execute(sql, params).fetchone()
        with self._lock:
            if not write:
                return self._conn.execute(sql, params).fetchone()
            with self._conn:
                return self._conn.execute(sql, params).fetchone()

    def get(self, key: str) -> dict[str, Any] | None:
        row = self._execute("SELECT value FROM rollouts WHERE key = ?", [key])
        return json.loads(row[0]) if row else None

    def put(self, key: str, value: dict[str, Any]) -> None:
        self._execute(
            "INSERT OR REPLACE INTO rollouts (key, value, created_at) VALUES (?, ?, ?)",
            [key, json.dumps(value), now_iso()],
            write=True,
        )

    def close(self) -> None:
        if self._conn is not None:
            with self._lock:
                self._conn.close()
                self._conn = None


def _record(edit_hash: str, kind: str, stored: str) -> LedgerRecord:
    """A row of ``edits`` as a record; its hash and kind are the row's (a record an early
    release wrote may lack them)."""
    data = unstamped(LEDGER, json.loads(stored))
    return LedgerRecord.from_dict({"status": kind, **data, "edit_hash": edit_hash})


class SqliteLedger:
    """The trainer's edits Ledger on SQLite for one skill, kept across nights: rejected
    edits (never evaluated again) and pending ones (their gate evidence goes on)."""

    def __init__(self, db: sqlite_utils.Database, skill: str, night_id: str) -> None:
        self.db = db
        self.skill = skill
        self.night_id = night_id

    def __contains__(self, edit_hash: object) -> bool:
        row = self.db.execute(
            "SELECT 1 FROM edits WHERE skill = ? AND hash = ?", [self.skill, edit_hash]
        ).fetchone()
        return row is not None

    def add(self, edit_hash: str, record: dict[str, Any]) -> None:
        kind = str(record.get("status", "rejected"))
        with self.db.conn:
            self.db.execute(
                "INSERT OR REPLACE INTO edits (hash, skill, night_id, record, created_at, kind) "
                "VALUES (?, ?, ?, ?, ?, ?)",
                [
                    edit_hash,
                    self.skill,
                    self.night_id,
                    json.dumps(stamp(LEDGER, record)),
                    now_iso(),
                    kind,
                ],
            )

    def recent(self, limit: int) -> list[LedgerRecord]:
        rows = self.db.execute(
            "SELECT hash, kind, record FROM edits WHERE skill = ? ORDER BY rowid DESC LIMIT ?",
            [self.skill, limit],
        ).fetchall()
        return [_record(*row) for row in rows]

    def pending(self) -> list[LedgerRecord]:
        rows = self.db.execute(
            "SELECT hash, kind, record FROM edits WHERE skill = ? AND kind = 'pending' "
            "ORDER BY rowid",
            [self.skill],
        ).fetchall()
        return [_record(*row) for row in rows]

    def forget(self, edit_hash: str) -> None:
        with self.db.conn:
            self.db.execute(
                "DELETE FROM edits WHERE skill = ? AND hash = ?", [self.skill, edit_hash]
            )

    def stream(self, key: str) -> dict[str, Any] | None:
        row = self.db.execute(
            "SELECT record FROM streams WHERE skill = ? AND key = ?", [self.skill, key]
        ).fetchone()
        return unstamped(STREAM, json.loads(row[0])) if row else None

    def keep_stream(self, key: str, record: dict[str, Any]) -> None:
        with self.db.conn:
            self.db.execute(
                "INSERT OR REPLACE INTO streams (skill, key, night_id, record, created_at) "
                "VALUES (?, ?, ?, ?, ?)",
                [self.skill, key, self.night_id, json.dumps(stamp(STREAM, record)), now_iso()],
            )
            self.db.execute(
                "DELETE FROM streams WHERE skill = ? AND rowid NOT IN (SELECT rowid FROM "
                "streams WHERE skill = ? ORDER BY rowid DESC LIMIT ?)",
                [self.skill, self.skill, KEPT_STREAMS],
            )


class Checkpoints:
    """Steps of one night: a finished step's result is stored, so a rerun skips it."""

    def __init__(self, db: sqlite_utils.Database, night_id: str) -> None:
        self.db = db
        self.night_id = night_id

    def done(self, step: str) -> dict[str, Any] | None:
        row = self.db.execute(
            "SELECT result FROM night_steps WHERE night_id = ? AND step = ? AND status = 'done'",
            [self.night_id, step],
        ).fetchone()
        return unstamped(CHECKPOINT, json.loads(row[0])) if row else None

    def finish(self, step: str, result: dict[str, Any]) -> None:
        with self.db.conn:
            self.db.table("night_steps").upsert(
                {
                    "night_id": self.night_id,
                    "step": step,
                    "status": "done",
                    "result": json.dumps(stamp(CHECKPOINT, result)),
                    "finished_at": now_iso(),
                },
                pk=("night_id", "step"),
            )
