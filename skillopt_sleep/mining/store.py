"""Mining's tables. Only mining writes them; the trainer and reports read tasks from here.

``MINING_MIGRATIONS`` is an ordered list of (name, function) registered in
``skillopt_sleep.store.components()`` as ``("mining", MINING_MIGRATIONS)``: append to change
the schema, never edit or rename a released step.

What must survive a night, and why:

* ``clusters`` keep their id and skill so a skill keeps its history across nights;
  ``cluster_members`` is what tomorrow's clustering is matched against.
* ``split_keys`` fixes the split of each near-duplicate group the first time it is seen,
  so val stays the same yardstick night after night.
* ``reviewed_tasks`` holds tasks a person imported; they win over re-mined ones and are
  never overwritten by mining.
* ``correction_checks`` caches what the judge model compiled from each correction, so a
  night compiles only the corrections it has not seen.
"""

from __future__ import annotations

import json
from typing import Any

import sqlite_utils

from session_ingest.migrations import Step


def _v1(db: sqlite_utils.Database) -> None:
    db["mining_runs"].create(
        {
            "id": int,
            "started_at": str,
            "finished_at": str,
            "ingest_marker": str,  # what the ingest tables looked like; stale when it differs
            "n_turns": int,
            "n_clusters": int,
            "n_recurring": int,
            "report": str,  # JSON: skipped turns, small clusters, bridging intents …
        },
        pk="id",
    )
    db["clusters"].create(
        {
            "id": str,  # stable across nights, "c-<hex>"
            "skill": str,  # the invoked skill, or the managed skill's slug
            "managed": int,  # 1 = a skill the daemon creates and owns
            "description": str,  # when to use the skill
            "recurring": int,
            "n_turns": int,
            "n_sessions": int,
            "n_days": int,
            "failure_rate": float,
            "score": float,  # rank: frequency x recency x failure
            "first_seen": str,
            "last_seen": str,
            "sample_intents": str,  # JSON list
            "rules": str,  # JSON list of cluster-level judges (dicts)
            "active": int,  # present in the latest run
            "created_at": str,
            "updated_at": str,
        },
        pk="id",
    )
    db["cluster_members"].create(
        {
            "turn_id": str,
            "cluster_id": str,
            "session_id": str,
            "started_at": str,
            "intent": str,  # cleaned, for people
            "norm": str,  # normalized, what clustering saw
            "group_id": str,  # near-duplicate group
        },
        pk="turn_id",
    )
    db["cluster_members"].create_index(["cluster_id"])
    db["split_keys"].create(
        {
            "key": str,  # normalized intent
            "group_id": str,
            "cluster_id": str,
            "split": str,  # train | val | test | excluded (bridges two splits)
            "assigned_at": str,
        },
        pk="key",
    )
    db["split_keys"].create_index(["group_id"])
    db["tasks"].create(
        {
            "id": str,  # "t-<hex>" from the turn id: stable
            "cluster_id": str,
            "turn_id": str,
            "split": str,
            "group_id": str,
            "prompt": str,
            "judges": str,  # JSON list of Judge dicts
            "meta": str,  # JSON
            "updated_at": str,
        },
        pk="id",
    )
    db["tasks"].create_index(["cluster_id"])
    db["reviewed_tasks"].create(
        {
            "id": str,
            "cluster_id": str,
            "data": str,  # Task.to_dict() JSON as imported
            "imported_at": str,
            "source_file": str,
        },
        pk="id",
    )


def _v2(db: sqlite_utils.Database) -> None:
    # where a task replays in the agent harness: {"repo", "commit", "setup"} JSON, or null
    db["tasks"].add_column("workspace", str)


def _v3(db: sqlite_utils.Database) -> None:
    # Ingest's redaction rules grew (its migration "events-redacted-again-…"): turns were
    # redacted again, but what mining wrote from them keeps the old text, and the turn
    # counts mining watches did not change, so it would not run again by itself. The mined
    # texts are redacted in place (a split key that changes is dropped: the request's new
    # key gets its split afresh), tasks are deleted, and the runs forgotten, so the next
    # `tasks mine` or night re-mines from the redacted turns. Old bytes are zeroed.
    from session_ingest.records import redact_values
    from session_ingest.redact import redact

    conn = db.conn
    secure = conn.execute("PRAGMA secure_delete").fetchone()[0]
    conn.execute("PRAGMA secure_delete = ON")
    try:
        conn.execute("DELETE FROM tasks")
        conn.execute("DELETE FROM mining_runs")
        rows = conn.execute("SELECT turn_id, intent, norm FROM cluster_members").fetchall()
        for turn_id, intent, norm in rows:
            new = (redact(intent or ""), redact(norm or ""))
            if new != (intent or "", norm or ""):
                conn.execute(
                    "UPDATE cluster_members SET intent = ?, norm = ? WHERE turn_id = ?",
                    (*new, turn_id),
                )
        for cid, texts, rules in conn.execute(
            "SELECT id, sample_intents, rules FROM clusters"
        ).fetchall():
            old = (loads(texts, []), loads(rules, []))
            new = (redact_values(old[0]), redact_values(old[1]))
            if new != old:
                conn.execute(
                    "UPDATE clusters SET sample_intents = ?, rules = ? WHERE id = ?",
                    (json.dumps(new[0]), json.dumps(new[1]), cid),
                )
        for (key,) in conn.execute("SELECT key FROM split_keys").fetchall():
            if redact(key) != key:
                conn.execute("DELETE FROM split_keys WHERE key = ?", (key,))
    finally:
        conn.execute(f"PRAGMA secure_delete = {int(secure)}")


def _v4(db: sqlite_utils.Database) -> None:
    # What the judge model compiled from a correction, so a night asks only about new ones.
    # Keyed by a hash of the correction: the text itself stays in the turns table only.
    db["correction_checks"].create(
        {
            "key": str,  # sha256 of the prompt version and the correction's text
            "prompt_version": int,
            "model": str,  # the judge model that compiled it
            "checks": str,  # JSON list of {kind, value, scope}; [] = nothing exact
            "created_at": str,
        },
        pk="key",
    )


MINING_MIGRATIONS: list[Step] = [
    ("tables", _v1),
    ("tasks-workspace", _v2),
    ("mined-text-dropped-after-redaction-grew", _v3),
    ("correction-checks", _v4),
]


def loads(text: str | None, default: Any) -> Any:
    """JSON column reader tolerant of NULL."""
    if not text:
        return default
    return json.loads(text)


def last_run(db: sqlite_utils.Database) -> dict[str, Any] | None:
    if not db["mining_runs"].exists():
        return None
    rows = list(db.query("select * from mining_runs order by id desc limit 1"))
    return rows[0] if rows else None


def ingest_marker(db: sqlite_utils.Database) -> str:
    """A fingerprint of the ingest tables: when it changes, mining has new input."""
    row = next(
        db.query(
            "select (select count(*) from turns) as t, (select max(ended_at) from turns) as e,"
            " (select max(started_at) from turns) as s, (select count(*) from signals) as g,"
            " (select count(*) from tool_calls) as c"
        )
    )
    return f"{row['t']}|{row['e']}|{row['s']}|{row['g']}|{row['c']}"
