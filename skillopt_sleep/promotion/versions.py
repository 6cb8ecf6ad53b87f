"""Saved skill versions and the promotion log: the store side of promotion and review.

Every text promotion writes or replaces is kept as ``<state_dir>/skills/<name>/versions/
v<N>.md`` (numbered per skill in the order the texts were seen, so the user's original is
v1; deduplicated by hash; file written before its row so a row never points at a missing
file). Each decision is a ``promotions`` row holding its *current* state (what ``pending``
and a resumed night read), and every change of state is also appended to
``promotion_events``, which is never updated: ``history`` tells the story from it. A row
and its event are written in one transaction (``db.atomic()``; inside ``with db.conn``
each sqlite-utils insert or update would commit on its own, and a kill between them would
leave a state with no event).
``managed_skills`` records the skill directories skillopt-sleep created itself; only those
are ever written without review as "managed".
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import asdict, dataclass
from datetime import datetime
from pathlib import Path
from typing import Any, cast

import sqlite_utils

from session_ingest.migrations import Step
from skillopt_sleep import files
from skillopt_sleep.promotion.dirs import SkillWriteError, check_name, describe, text_hash
from skillopt_sleep.settings import config as config_mod
from trainer.shapes import EVIDENCE, HISTORY, stamp, unstamped

STATUSES = ("promoted", "staged", "adopted", "rejected", "rolled_back")
LIVE = ("promoted", "adopted")  # rows whose text is (or was last put) on disk
EVENTS = ("promoted", "staged", "superseded", "adopted", "rejected", "rolled_back")


def _v1(db: sqlite_utils.Database) -> None:
    db.table("skill_versions").create(
        {
            "name": str,
            "version": int,
            "hash": str,
            "source": str,
            "night_id": str,
            "created_at": str,
        },
        pk=("name", "version"),
    )
    db.table("skill_versions").create_index(["name", "hash"], unique=True)
    db.table("promotions").create(
        {
            "id": int,
            "name": str,
            "version": int,
            "hash": str,
            "previous_version": int,
            "previous_hash": str,
            "target": str,
            "path": str,
            "night_id": str,
            "status": str,
            "managed": int,
            "reason": str,
            "evidence": str,
            "created_at": str,
            "updated_at": str,
        },
        pk="id",
    )
    db.table("promotions").create_index(["name", "target"])
    db.table("promotions").create_index(["night_id"])


def _v2(db: sqlite_utils.Database) -> None:
    """The append-only event log and the record of skills skillopt-sleep created. Stores
    from v1 get one event per row for how it began and one for the state it is in now
    (their older transitions were overwritten and cannot be recovered)."""
    db.table("promotion_events").create(
        {
            "id": int,
            "promotion_id": int,
            "name": str,
            "target": str,
            "event": str,
            "version": int,
            "night_id": str,
            "reason": str,
            "at": str,
        },
        pk="id",
    )
    db.table("promotion_events").create_index(["name"])
    db.table("managed_skills").create(
        {"name": str, "target": str, "night_id": str, "created_at": str}, pk=("name", "target")
    )
    for row in db["promotions"].rows_where(order_by="id"):
        began = "promoted" if row["status"] in ("promoted", "rolled_back") else "staged"
        events = [(began, row["created_at"], "")]
        if row["status"] != began:
            event = "superseded" if "superseded" in (row["reason"] or "") else row["status"]
            events.append((event, row["updated_at"], row["reason"]))
        for event, at, reason in events:
            db.table("promotion_events").insert(
                {
                    "promotion_id": row["id"],
                    "name": row["name"],
                    "target": row["target"],
                    "event": event,
                    "version": row["version"],
                    "night_id": row["night_id"],
                    "reason": reason,
                    "at": at,
                }
            )
    db.execute(
        "INSERT OR IGNORE INTO managed_skills (name, target, night_id, created_at) "
        "SELECT name, target, night_id, created_at FROM promotions WHERE managed = 1 "
        "AND previous_hash IS NULL AND status IN ('promoted', 'adopted') ORDER BY id"
    )


PROMOTION_MIGRATIONS: list[Step] = [
    ("versions-and-promotions", _v1),
    ("events-and-managed-skills", _v2),
]


class PromotionError(Exception):
    """A promotion could not be completed; one line, and ``outcome`` says what was kept."""

    def __init__(self, message: str, outcome: Any = None) -> None:
        super().__init__(message)
        self.outcome = outcome


def now_iso() -> str:
    return datetime.now().astimezone().isoformat(timespec="seconds")


def _versions_dir(config: Mapping[str, Any], name: str) -> Path:
    return config_mod.state_dir(config) / "skills" / check_name(name) / "versions"


def version_text(config: Mapping[str, Any], name: str, version: int) -> str:
    """The saved text of ``name`` version ``version``."""
    path = _versions_dir(config, name) / f"v{version}.md"
    try:
        return path.read_bytes().decode("utf-8")  # its bytes, CRLF line ends and all
    except FileNotFoundError:
        raise PromotionError(f"skill {name} has no saved version {version}") from None


def save_version(
    db: sqlite_utils.Database,
    config: Mapping[str, Any],
    name: str,
    text: str,
    *,
    source: str,
    night_id: str | None = None,
) -> int:
    """Keep ``text`` as a version of ``name`` (deduplicated by hash); return its number."""
    digest = text_hash(text)
    row = next(db["skill_versions"].rows_where("name = ? AND hash = ?", [name, digest]), None)
    version = (
        row["version"]
        if row
        else 1
        + (
            db.execute(
                "SELECT COALESCE(MAX(version), 0) FROM skill_versions WHERE name = ?", [name]
            ).fetchone()[0]
        )
    )
    path = _versions_dir(config, name) / f"v{version}.md"
    # file first: a row never points at a missing file. A new number's file, if there is
    # one, was left by a save killed before its row and may hold another text: replaced
    if row is None or not path.exists():
        try:
            files.write_private(path, text)
        except OSError as exc:
            msg = f"cannot save a skill version to {path}: {describe(exc)}"
            raise SkillWriteError(msg) from exc
    if row is None:
        with db.atomic():
            db.table("skill_versions").insert(
                {
                    "name": name,
                    "version": version,
                    "hash": digest,
                    "source": source,
                    "night_id": night_id,
                    "created_at": now_iso(),
                }
            )
    return version


def version_of(db: sqlite_utils.Database, name: str, digest: str) -> int | None:
    """The saved version of ``name`` whose text has this hash, or None."""
    row = next(db["skill_versions"].rows_where("name = ? AND hash = ?", [name, digest]), None)
    return row["version"] if row else None


# -- who created a skill --------------------------------------------------------------------
def is_managed(db: sqlite_utils.Database, name: str, target: str) -> bool:
    """Whether skillopt-sleep created ``name`` in the skill root ``target``."""
    return bool(db["managed_skills"].count_where("name = ? AND target = ?", [name, target]))


def record_created(db: sqlite_utils.Database, name: str, target: str, night_id: str | None) -> None:
    with db.atomic():
        db.execute(
            "INSERT OR IGNORE INTO managed_skills (name, target, night_id, created_at) "
            "VALUES (?, ?, ?, ?)",
            [name, target, night_id, now_iso()],
        )


def record_removed(db: sqlite_utils.Database, name: str, target: str) -> None:
    """The skill skillopt-sleep created is gone again: a same-named one later is not ours."""
    with db.atomic():
        db.execute("DELETE FROM managed_skills WHERE name = ? AND target = ?", [name, target])


# -- decisions and their events -------------------------------------------------------------
def _row_dict(row: Mapping[str, Any]) -> dict[str, Any]:
    out = dict(row)
    out["managed"] = bool(out.get("managed"))
    out["evidence"] = (
        unstamped(EVIDENCE, json.loads(out["evidence"])) if out.get("evidence") else None
    )
    return out


def _rows(db: sqlite_utils.Database, where: str, args: list[Any]) -> list[dict[str, Any]]:
    return [_row_dict(r) for r in db["promotions"].rows_where(where, args, order_by="id")]


def log_event(
    db: sqlite_utils.Database,
    *,
    name: str,
    target: str,
    event: str,
    version: int | None,
    reason: str,
    night_id: str | None = None,
    promotion_id: int | None = None,
) -> None:
    """Append one event (the caller holds the transaction)."""
    db.table("promotion_events").insert(
        {
            "promotion_id": promotion_id,
            "name": name,
            "target": target,
            "event": event,
            "version": version,
            "night_id": night_id,
            "reason": reason,
            "at": now_iso(),
        }
    )


def insert_decision(db: sqlite_utils.Database, row: dict[str, Any]) -> int:
    """Record a night's decision for one skill and target, retiring older staged rows for
    the same skill and target (superseded), each with its event."""
    with db.atomic():
        if row["status"] == "staged":
            why = f"superseded by night {row['night_id']}"
            for old in _rows(
                db, "name = ? AND target = ? AND status = 'staged'", [row["name"], row["target"]]
            ):
                db.table("promotions").update(
                    old["id"], {"status": "rejected", "reason": why, "updated_at": now_iso()}
                )
                log_event(
                    db,
                    name=old["name"],
                    target=old["target"],
                    event="superseded",
                    version=old["version"],
                    reason=why,
                    night_id=row["night_id"],
                    promotion_id=old["id"],
                )
        # the row's id (INTEGER PRIMARY KEY): an insert always sets it, sqlite-utils types
        # it Optional for tables without one
        row_id = cast(int, db.table("promotions").insert(row).last_rowid)
        log_event(
            db,
            name=row["name"],
            target=row["target"],
            event=row["status"],
            version=row["version"],
            reason=row["reason"],
            night_id=row["night_id"],
            promotion_id=row_id,
        )
    return row_id


def update_decision(
    db: sqlite_utils.Database, row_id: int, event: str, *, version: int | None, **values: Any
) -> dict[str, Any]:
    """Move a decision to a new state (``values``) and append the event for it."""
    with db.atomic():
        db.table("promotions").update(row_id, {**values, "updated_at": now_iso()})
        row = _row_dict(db.table("promotions").get(row_id))
        log_event(
            db,
            name=row["name"],
            target=row["target"],
            event=event,
            version=version,
            reason=values.get("reason", ""),
            night_id=row["night_id"],
            promotion_id=row_id,
        )
    return row


def note_previous(
    db: sqlite_utils.Database, row_id: int, version: int | None, digest: str | None
) -> None:
    """Record, before a staged text is written, the version it replaces: an adopt killed
    after the write reads it back instead of taking the new file for the old one. Not a
    change of state, so no event."""
    with db.atomic():
        db.table("promotions").update(
            row_id, {"previous_version": version, "previous_hash": digest}
        )


@dataclass(frozen=True)
class HistoryEvent:
    """One row of the promotion log, as ``history`` shows it and ``history --json`` prints
    it among its ``events``. Its ``version`` is the skill's (the number ``rollback --to``
    takes); the shape's version is on the object that holds the events (`History`)."""

    id: int
    promotion_id: int | None
    name: str
    target: str
    event: str  # one of EVENTS
    version: int | None  # the skill's version (v1: the oldest text kept, the original)
    night_id: str | None
    reason: str | None
    at: str

    def to_json(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> HistoryEvent:
        return cls(**data)


@dataclass(frozen=True)
class History:
    """What ``history --json`` prints: the events, oldest first, under the ``history``
    shape's version. It replaced a bare list of the events (so a
    script reading ``.[-1].version`` fails loudly instead of reading a shape version)."""

    events: list[HistoryEvent]

    def to_json(self) -> dict[str, Any]:
        return stamp(HISTORY, {"events": [event.to_json() for event in self.events]})

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> History:
        stored = unstamped(HISTORY, data)
        return cls([HistoryEvent.from_json(event) for event in stored["events"]])


def history(db: sqlite_utils.Database, name: str | None = None) -> list[HistoryEvent]:
    """Every event, oldest first (for one skill or all): what happened, when, to which
    version, in which skill root, and why."""
    where, args = ("name = ?", [name]) if name else ("1 = 1", [])
    rows = db["promotion_events"].rows_where(where, args, order_by="id")
    return [HistoryEvent.from_json(r) for r in rows]


def pending(db: sqlite_utils.Database, name: str | None = None) -> list[dict[str, Any]]:
    """Staged candidates awaiting adopt or reject."""
    if name:
        return _rows(db, "status = 'staged' AND name = ?", [name])
    return _rows(db, "status = 'staged'", [])


def pending_or_fail(db: sqlite_utils.Database, name: str | None) -> list[dict[str, Any]]:
    if name is not None:
        check_name(name)
    rows = pending(db, name)
    if not rows:
        raise PromotionError(
            f"no staged version of {name} to review" if name else "no staged skills to review"
        )
    return rows


def live_rows(db: sqlite_utils.Database, name: str) -> list[dict[str, Any]]:
    """Decisions of ``name`` whose text is (or was last put) on disk, oldest first."""
    return _rows(db, "name = ? AND status IN ('promoted', 'adopted')", [name])
