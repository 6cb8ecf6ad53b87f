"""Tables written by ingest, and ``migrate(db)``, which creates or upgrades them in place.

Other packages read these tables; only ingest writes them. ``MIGRATIONS`` is an ordered
list of ``(name, function)``: append a line to change the schema, never edit or rename a
released one (stores in the field have already run it). Importing this module is cheap:
sqlite-utils is loaded by whoever opens the database.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import orjson

from session_ingest import migrations

if TYPE_CHECKING:
    import sqlite_utils

COMPONENT = "ingest"


def _v1(db: sqlite_utils.Database) -> None:
    # One row per log file: where incremental ingest stopped.
    db["files"].create(
        {
            "path": str,  # absolute path
            "source": str,  # "claude" | "codex"
            "dev": int,
            "inode": int,
            "size": int,
            "mtime_ns": int,
            "offset": int,  # byte offset just past the last complete line consumed
            "bad_lines": int,
            "last_error": str,
            "ingested_at": str,
        },
        pk="path",
    )
    db["sessions"].create(
        {
            "id": str,  # Claude sessionId / Codex thread id
            "source": str,  # "claude" | "codex"
            "parent_id": str,  # set for subagent / sub-thread transcripts
            "kind": str,  # "main" | "subagent" | "headless"
            "project": str,  # cwd
            "branch": str,
            "model": str,
            "cli_version": str,
            "title": str,
            "started_at": str,  # ISO-8601 UTC
            "ended_at": str,
            "n_turns": int,
            "n_tool_calls": int,
            "n_signals": int,
            "input_tokens": int,
            "output_tokens": int,
            "unknown_records": int,
        },
        pk="id",
    )
    # One human request and the agent's work after it.
    db["turns"].create(
        {
            "id": str,  # stable: f"{session_id}:{idx}"
            "session_id": str,
            "idx": int,  # 0-based order within the session
            "started_at": str,
            "ended_at": str,
            "user_text": str,  # the human request, harness text removed, redacted
            "assistant_text": str,  # the agent's text answer(s), redacted, truncated
            "n_tool_calls": int,
            "n_errors": int,
            "skills": str,  # JSON list of skill names invoked in this turn
            "finished": int,  # 1 when the agent completed the turn
        },
        pk="id",
        foreign_keys=[("session_id", "sessions", "id")],
    )
    db["tool_calls"].create(
        {
            "id": str,  # tool_use id / call_id (prefixed by session when needed for uniqueness)
            "turn_id": str,
            "session_id": str,
            "idx": int,
            "name": str,
            "args_summary": str,  # short, redacted
            "exit_code": int,  # null when unknown
            "is_error": int,
            "output_excerpt": str,  # short, redacted
        },
        pk="id",
    )
    db["signals"].create(
        {
            "id": str,
            "turn_id": str,
            "session_id": str,
            # interrupt | tool_rejected | tool_failure | test_failure | correction | reask
            # | positive | abandonment
            "kind": str,
            "evidence": str,  # short redacted quote or description of why
        },
        pk="id",
    )
    db["turns"].create_index(["session_id"])
    db["tool_calls"].create_index(["turn_id"])
    db["signals"].create_index(["turn_id"])


def _v2(db: sqlite_utils.Database) -> None:
    # Per-record normalized events, stored idempotently by record id (hash of Claude uuid or
    # Codex line): the source of truth the session rows are rebuilt from on every pass.
    # Rows are appended in rowid order (cheap); ``id`` is the de-duplication key.
    db.execute(
        "CREATE TABLE events (rid INTEGER PRIMARY KEY, id INTEGER NOT NULL UNIQUE,"
        " grp TEXT NOT NULL, source TEXT NOT NULL, path TEXT NOT NULL, offset INTEGER NOT NULL,"
        " data BLOB NOT NULL)"
    )
    db["events"].create_index(["grp"])
    db["files"].add_column("session_id", str)  # Codex: the rollout's session id
    db["sessions"].add_column("grp", str)  # main session id this row is rebuilt with
    db["turns"].add_column("kind", str)  # human | command | subagent | continuation
    db["turns"].add_column("command", str)  # slash command that opened a command turn
    db["turns"].add_column("input_tokens", int)
    db["turns"].add_column("output_tokens", int)
    db["sessions"].create_index(["grp"])
    db["tool_calls"].create_index(["session_id"])
    db["signals"].create_index(["session_id"])


def _v3(db: sqlite_utils.Database) -> None:
    # 1. A record id is unique within its group (session), not across all of them: forked
    # and resumed Claude sessions copy records, same uuid, into another session, and each
    # session keeps its copy. Ids stay as they were, so records already stored still
    # de-duplicate against a re-read of their file. The (grp, id) index also serves the
    # per-group reads the old grp index served.
    # 2. Stores written before the redaction rules grew hold secrets those rules missed:
    # every stored text is redacted again as it is copied, the old pages are zeroed
    # (secure_delete) and every session is rebuilt from the redacted events.
    from session_ingest.records import redact_values
    from session_ingest.rows import rebuild

    conn = db.conn
    conn.create_function(
        "redacted", 1, lambda data: orjson.dumps(redact_values(orjson.loads(data))),
        deterministic=True,
    )  # fmt: skip
    secure = conn.execute("PRAGMA secure_delete").fetchone()[0]
    conn.execute("PRAGMA secure_delete = ON")
    try:
        conn.execute(
            "CREATE TABLE events_v3 (rid INTEGER PRIMARY KEY, id INTEGER NOT NULL,"
            " grp TEXT NOT NULL, source TEXT NOT NULL, path TEXT NOT NULL,"
            " offset INTEGER NOT NULL, data BLOB NOT NULL, UNIQUE (grp, id))"
        )
        conn.execute(
            "INSERT INTO events_v3 (rid, id, grp, source, path, offset, data)"
            " SELECT rid, id, grp, source, path, offset, redacted(data) FROM events"
        )
        conn.execute("DROP TABLE events")
        conn.execute("ALTER TABLE events_v3 RENAME TO events")
        for source, grp in conn.execute("SELECT DISTINCT source, grp FROM events").fetchall():
            rebuild(conn, source, grp)
    finally:
        conn.execute(f"PRAGMA secure_delete = {int(secure)}")


def _v4(db: sqlite_utils.Database) -> None:
    # The commit a session started from, where the log says (Codex session_meta.git):
    # harness replay copies the repository at that commit. Sessions ingested before it
    # have none (their stored events never kept it); mining then asks the local repository.
    db["sessions"].add_column("git_commit", str)


def _v5(db: sqlite_utils.Database) -> None:
    # The redaction rules grew again (pre-signed URL signatures, passwords on a command
    # line, base64 of a key): events stored before may hold what they now catch. Each is
    # redacted again; with secure_delete the old bytes are zeroed, and the sessions whose
    # events changed are rebuilt (their turns held the same text).
    from session_ingest.records import redact_values
    from session_ingest.rows import rebuild

    conn = db.conn
    secure = conn.execute("PRAGMA secure_delete").fetchone()[0]
    conn.execute("PRAGMA secure_delete = ON")
    try:
        changed: set[tuple[str, str]] = set()
        last = -(1 << 63)
        while batch := conn.execute(  # in batches: a store can hold gigabytes of events
            "SELECT rid, source, grp, data FROM events WHERE rid > ? ORDER BY rid LIMIT 2000",
            (last,),
        ).fetchall():
            for rid, source, grp, data in batch:
                event = orjson.loads(data)
                redacted = redact_values(event)
                if redacted != event:
                    conn.execute(
                        "UPDATE events SET data = ? WHERE rid = ?", (orjson.dumps(redacted), rid)
                    )
                    changed.add((source, grp))
            last = batch[-1][0]
        for source, grp in sorted(changed):
            rebuild(conn, source, grp)
    finally:
        conn.execute(f"PRAGMA secure_delete = {int(secure)}")


def _v6(db: sqlite_utils.Database) -> None:
    # A fingerprint of the bytes before ``offset`` (``prefix.py``): a file rewritten in
    # place and grown is read again from 0 instead of from an offset into other bytes.
    # Rows from before have none: their file is read again from 0 the next time it grows.
    db["files"].add_column("prefix", int)


MIGRATIONS: list[migrations.Step] = [
    ("tables", _v1),
    ("events", _v2),
    ("events-per-session-redacted", _v3),
    ("sessions-git-commit", _v4),
    ("events-redacted-again-signatures-cli-passwords-base64", _v5),
    ("files-prefix-fingerprint", _v6),
]


def migrate(db: sqlite_utils.Database) -> list[str]:
    """Create or upgrade the ingest tables of ``db``; return the migrations applied now."""
    return migrations.apply(db, COMPONENT, MIGRATIONS)
