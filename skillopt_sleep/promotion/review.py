"""Review of staged and promoted skills: adopt, reject, rollback and diff.

These are the user's answers to what a night decided. Each one saves whatever is on disk
as a version before replacing it, so no review step can lose text either.
"""

from __future__ import annotations

import difflib
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import sqlite_utils

from skillopt_sleep.promotion.dirs import (
    atomic_write,
    check_name,
    read_skill,
    remove_skill,
    targets,
    text_hash,
)
from skillopt_sleep.promotion.versions import (
    PromotionError,
    _pending_or_fail,
    _rows,
    _update,
    pending,
    save_version,
    version_text,
)


def adopt(
    db: sqlite_utils.Database, config: Mapping[str, Any], name: str | None = None
) -> list[dict[str, Any]]:
    """Write staged candidates (one skill, or all when ``name`` is None) into place."""
    done = []
    for row in _pending_or_fail(db, name):
        root = Path(row["target"])
        text = version_text(config, row["name"], row["version"])
        current = read_skill(root, row["name"])
        prev = (
            save_version(db, config, row["name"], current, source="backup")
            if current is not None
            else None
        )
        atomic_write(root, row["name"], text)
        done.append(
            _update(
                db,
                row["id"],
                status="adopted",
                previous_version=prev,
                previous_hash=text_hash(current) if current is not None else None,
                reason="adopted by the user",
            )
        )
    return done


def reject(
    db: sqlite_utils.Database, config: Mapping[str, Any], name: str | None = None
) -> list[dict[str, Any]]:
    """Decline staged candidates; the skill files are not touched."""
    return [
        _update(db, row["id"], status="rejected", reason="rejected by the user")
        for row in _pending_or_fail(db, name)
    ]


def rollback(
    db: sqlite_utils.Database, config: Mapping[str, Any], name: str, to_version: int | None = None
) -> list[dict[str, Any]]:
    """Undo the latest promotion of ``name`` in each target, or restore ``to_version``.

    Without ``to_version`` the text that the promotion replaced comes back (or the file
    is removed when the promotion created it); repeating walks further back. Whatever is
    on disk is saved as a version first, so a rollback never loses text either.
    """
    check_name(name)
    live: dict[str, dict[str, Any]] = {}
    for row in _rows(db, "name = ? AND status IN ('promoted', 'adopted')", [name]):
        live[row["target"]] = row  # latest per target wins (rows are in id order)
    if to_version is not None:
        version_text(config, name, to_version)  # fail before touching anything
        roots = list(live) or [str(t.root) for t in targets(config)]
    elif not live:
        raise PromotionError(f"nothing to roll back: {name} has no promoted version")
    else:
        roots = list(live)
    results = []
    for root in roots:
        row = live.get(root)
        restore = to_version if to_version is not None else (row or {}).get("previous_version")
        current = read_skill(Path(root), name)
        if current is not None:
            save_version(db, config, name, current, source="backup")
        if restore is None:
            remove_skill(Path(root), name)
            what = "removed (the promotion had created it)"
        else:
            atomic_write(Path(root), name, version_text(config, name, restore))
            what = f"restored v{restore}"
        if row is not None:
            results.append(
                _update(db, row["id"], status="rolled_back", reason=f"rolled back: {what}")
            )
        else:
            results.append(
                {
                    "name": name,
                    "target": root,
                    "status": "rolled_back",
                    "reason": what,
                    "version": restore,
                }
            )
    return results


def diff(db: sqlite_utils.Database, config: Mapping[str, Any], name: str) -> str:
    """Unified diff of the staged candidate against the file on disk, else of the last
    promotion against what it replaced. Empty when they are identical."""
    check_name(name)
    rows = pending(db, name)
    if rows:
        row = rows[-1]
        before = read_skill(Path(row["target"]), name) or ""
        labels = (f"{row['path']} (current)", f"{name} v{row['version']} (staged)")
    else:
        promoted = _rows(db, "name = ? AND status IN ('promoted', 'adopted')", [name])
        if not promoted:
            raise PromotionError(f"{name} has no staged or promoted version to compare")
        row = promoted[-1]
        prev = row["previous_version"]
        before = version_text(config, name, prev) if prev else ""
        labels = (
            f"{name} v{prev}" if prev else f"{name} (none)",
            f"{name} v{row['version']} ({row['status']})",
        )
    after = version_text(config, name, row["version"])
    return "".join(
        difflib.unified_diff(
            before.splitlines(keepends=True), after.splitlines(keepends=True), *labels
        )
    )
