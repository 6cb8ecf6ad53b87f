"""Saved skill versions and the promotion log: the store side of promotion and review.

Every text promotion writes or replaces is kept as ``<state_dir>/skills/<name>/versions/
v<N>.md`` (numbered per skill, deduplicated by hash, file written before its row so a row
never points at a missing file), and every decision is a ``promotions`` row. Review
commands (adopt, reject, rollback, diff, history) work from these alone.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from datetime import datetime
from pathlib import Path
from typing import Any

import sqlite_utils

from skillopt_sleep import config as config_mod
from skillopt_sleep.promotion.dirs import check_name, text_hash, write_private

STATUSES = ("promoted", "staged", "adopted", "rejected", "rolled_back")
LIVE = ("promoted", "adopted")  # rows whose text is (or was last put) on disk


def _v1(db: sqlite_utils.Database) -> None:
    db["skill_versions"].create(
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
    db["skill_versions"].create_index(["name", "hash"], unique=True)
    db["promotions"].create(
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
    db["promotions"].create_index(["name", "target"])
    db["promotions"].create_index(["night_id"])


PROMOTION_MIGRATIONS = [_v1]


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
        return path.read_text(encoding="utf-8")
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
    if not path.exists():  # file first: a row never points at a missing file
        write_private(path, text)
    if row is None:
        with db.conn:
            db["skill_versions"].insert(
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


def _row_dict(row: Mapping[str, Any]) -> dict[str, Any]:
    out = dict(row)
    out["managed"] = bool(out.get("managed"))
    out["evidence"] = json.loads(out["evidence"]) if out.get("evidence") else None
    return out


def _rows(db: sqlite_utils.Database, where: str, args: list[Any]) -> list[dict[str, Any]]:
    return [_row_dict(r) for r in db["promotions"].rows_where(where, args, order_by="id")]


def history(db: sqlite_utils.Database, name: str | None = None) -> list[dict[str, Any]]:
    """Every promotion decision, oldest first (for one skill or all)."""
    return _rows(db, "name = ?", [name]) if name else _rows(db, "1 = 1", [])


def pending(db: sqlite_utils.Database, name: str | None = None) -> list[dict[str, Any]]:
    """Staged candidates awaiting adopt or reject."""
    if name:
        return _rows(db, "status = 'staged' AND name = ?", [name])
    return _rows(db, "status = 'staged'", [])


def _pending_or_fail(db: sqlite_utils.Database, name: str | None) -> list[dict[str, Any]]:
    if name is not None:
        check_name(name)
    rows = pending(db, name)
    if not rows:
        raise PromotionError(
            f"no staged version of {name} to review" if name else "no staged skills to review"
        )
    return rows


def _update(db: sqlite_utils.Database, row_id: int, **values: Any) -> dict[str, Any]:
    with db.conn:
        db["promotions"].update(row_id, {**values, "updated_at": now_iso()})
    return _row_dict(db["promotions"].get(row_id))
