"""Session rows from events: rebuild a group's sessions, turns, tool calls and signals.

Ingest stores events; this module turns a group's events into rows. Rebuilding the whole
group every time its events change (rather than patching rows) is what makes the result
independent of how the log files were split across passes.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import orjson

from session_ingest import registry, signals
from session_ingest.model import Session


def rebuild(conn: Any, source: str, grp: str) -> None:
    """Recompute the session rows of one group from all of its stored events."""
    rows = conn.execute(
        "SELECT path, offset, data FROM events WHERE grp = ? AND source = ?", (grp, source)
    ).fetchall()
    rows.sort(key=lambda r: (r[0], r[1]))
    store_sessions(conn, source, grp, [orjson.loads(r[2]) for r in rows])


def groups_with_events(conn: Any, groups: Iterable[tuple[str, str]]) -> set[tuple[str, str]]:
    names = sorted({g for _s, g in groups})
    found: set[tuple[str, str]] = set()
    for i in range(0, len(names), 500):
        part = names[i : i + 500]
        marks = ",".join("?" * len(part))
        found.update(
            conn.execute(f"SELECT DISTINCT source, grp FROM events WHERE grp IN ({marks})", part)
        )
    return found


def store_sessions(conn: Any, source: str, grp: str, events: list[dict[str, Any]]) -> None:
    """Replace the session rows of one group by those built from ``events`` (file order)."""
    sessions = registry.get(source).build(grp, events)
    old = [r[0] for r in conn.execute(
        "SELECT id FROM sessions WHERE grp = ? AND source = ?", (grp, source))]  # fmt: skip
    for sid in old:
        for table in ("turns", "tool_calls", "signals"):
            conn.execute(f"DELETE FROM {table} WHERE session_id = ?", (sid,))
    conn.execute("DELETE FROM sessions WHERE grp = ? AND source = ?", (grp, source))
    for s in sessions:
        _write_session(conn, s)


def _write_session(conn: Any, s: Session) -> None:
    s.signals = signals.compute(s)
    turn_rows, call_rows, signal_rows = [], [], []
    seen_calls: set[str] = set()
    n_calls = 0
    for t in s.turns:
        tid = f"{s.id}:{t.idx}"
        n_errors = 0
        for i, c in enumerate(t.tool_calls):
            cid = f"{s.id}:{c.id}" if c.id else f"{tid}:{i}"
            if cid in seen_calls:
                cid = f"{tid}:{i}"
            seen_calls.add(cid)
            err = c.is_error or c.exit_code not in (None, 0)
            n_errors += err
            call_rows.append((cid, tid, s.id, n_calls, c.name, c.args_summary, c.exit_code,
                              int(err), c.output_excerpt))  # fmt: skip
            n_calls += 1
        turn_rows.append(
            (tid, s.id, t.idx, t.started_at, t.ended_at, t.user_text, t.assistant_text,
             len(t.tool_calls), n_errors, orjson.dumps(t.skills).decode(), int(t.finished),
             t.kind, t.command, t.input_tokens, t.output_tokens)
        )  # fmt: skip
    for i, sig in enumerate(s.signals):
        signal_rows.append((f"{s.id}:{sig.turn_idx}:{i}", f"{s.id}:{sig.turn_idx}", s.id,
                            sig.kind, sig.evidence))  # fmt: skip
    conn.execute(
        "INSERT OR REPLACE INTO sessions (id, source, parent_id, kind, project, branch, model,"
        " cli_version, title, started_at, ended_at, n_turns, n_tool_calls, n_signals,"
        " input_tokens, output_tokens, unknown_records, grp)"
        " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
        (s.id, s.source, s.parent_id, s.kind, s.project, s.branch, s.model, s.cli_version,
         s.title, s.started_at, s.ended_at, len(s.turns), n_calls, len(s.signals),
         s.input_tokens, s.output_tokens, s.unknown_records, s.grp),
    )  # fmt: skip
    if s.git_commit and _has_column(conn, "sessions", "git_commit"):  # not while migration 3
        conn.execute("UPDATE sessions SET git_commit = ? WHERE id = ?", (s.git_commit, s.id))
    conn.executemany(
        "INSERT OR REPLACE INTO turns (id, session_id, idx, started_at, ended_at, user_text,"
        " assistant_text, n_tool_calls, n_errors, skills, finished, kind, command,"
        " input_tokens, output_tokens) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
        turn_rows,
    )
    conn.executemany(
        "INSERT OR REPLACE INTO tool_calls (id, turn_id, session_id, idx, name, args_summary,"
        " exit_code, is_error, output_excerpt) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
        call_rows,
    )
    conn.executemany(
        "INSERT OR REPLACE INTO signals (id, turn_id, session_id, kind, evidence)"
        " VALUES (?, ?, ?, ?, ?)",
        signal_rows,
    )


def totals(conn: Any) -> dict[str, int]:
    q = (
        "SELECT (SELECT count(*) FROM sessions), (SELECT count(*) FROM turns),"
        " (SELECT count(*) FROM tool_calls), (SELECT count(*) FROM signals),"
        " (SELECT coalesce(sum(bad_lines), 0) FROM files)"
    )
    s, t, c, g, b = conn.execute(q).fetchone()
    return {"sessions": s, "turns": t, "tool_calls": c, "signals": g, "bad_lines": b}


def _has_column(conn: Any, table: str, column: str) -> bool:
    """Migration 3 rebuilds sessions before migration 4 adds ``git_commit``."""
    return any(row[1] == column for row in conn.execute(f"PRAGMA table_info({table})"))
