"""Review of staged and promoted skills: adopt, reject, rollback and diff.

These are the user's answers to what a night decided. Each one saves whatever is on disk
as a version before replacing it, so no review step can lose text either, and each is an
event in the history. An adopt notes that version in its row before the write, so one
killed after the write and run again does not take the new file for the old one; a
rollback killed midway restores the same version when run again. A reject or a rollback
is also the user's verdict on the edits that made the candidate: they go into the edits
ledger for that skill ("user rejected"), so the nights that follow never propose them
again.
"""

from __future__ import annotations

import difflib
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import sqlite_utils

from skillopt_sleep.night.store import SqliteLedger
from skillopt_sleep.promotion import spec
from skillopt_sleep.promotion.dirs import (
    atomic_write,
    check_name,
    link_problem,
    read_skill,
    remove_skill,
    skill_targets,
    text_hash,
)
from skillopt_sleep.promotion.versions import (
    PromotionError,
    live_rows,
    log_event,
    note_previous,
    pending,
    pending_or_fail,
    record_created,
    record_removed,
    save_version,
    update_decision,
    version_text,
)
from trainer.ledger import REJECTED, LedgerRecord

USER_REJECTED = "user rejected"


def _adoptable(config: Mapping[str, Any], row: dict[str, Any]) -> str:
    """The staged text, once it is sure it can be written: not through a link, and not
    breaking an Agent Skills rule the file on disk does not already break."""
    name, root = row["name"], Path(row["target"])
    if problem := link_problem(root, name):
        raise PromotionError(
            f"cannot adopt {name}: {problem}; apply `skillopt-sleep diff {name}` by hand "
            f"and `skillopt-sleep reject {name}`"
        )
    text = version_text(config, name, row["version"])
    current = read_skill(root, name)
    new = [
        p
        for p in spec.problems(text, name)
        if current is None or p not in spec.problems(current, name)
    ]
    if new:
        raise PromotionError(f"cannot adopt {name}: the staged text {'; '.join(new)}")
    return text


def adopt(
    db: sqlite_utils.Database, config: Mapping[str, Any], name: str | None = None
) -> list[dict[str, Any]]:
    """Write staged candidates (one skill, or all when ``name`` is None) into place; every
    one is checked before the first is written."""
    rows = pending_or_fail(db, name)
    texts = [_adoptable(config, row) for row in rows]
    done = []
    for row, text in zip(rows, texts, strict=True):
        root = Path(row["target"])
        current = read_skill(root, row["name"])
        if current is not None and text_hash(current) == row["hash"]:
            # already in place (an adopt killed after its write): what it replaced is the
            # version noted before the write, never the file
            prev, prev_hash = row["previous_version"], row["previous_hash"]
        else:
            prev = (
                save_version(db, config, row["name"], current, source="backup")
                if current is not None
                else None
            )
            prev_hash = text_hash(current) if current is not None else None
            note_previous(db, row["id"], prev, prev_hash)
            atomic_write(root, row["name"], text)
        if prev_hash is None and row["managed"]:
            record_created(db, row["name"], row["target"], row["night_id"])
        done.append(
            update_decision(
                db,
                row["id"],
                "adopted",
                version=row["version"],
                status="adopted",
                previous_version=prev,
                previous_hash=prev_hash,
                reason="adopted by the user",
            )
        )
    return done


def _ledger_user_verdict(db: sqlite_utils.Database, row: dict[str, Any], how: str) -> int:
    """Put the candidate's edits into the skill's rejected-edit ledger; returns how many."""
    edits = (row.get("evidence") or {}).get("edits") or []
    ledger = SqliteLedger(db, row["name"], row["night_id"])
    for edit in edits:
        text = edit.get("text") or edit.get("anchor") or ""
        record = LedgerRecord(
            status=REJECTED,  # never evaluated again
            where=f"night {row['night_id']} ({how} by the user)",
            reason=USER_REJECTED,
            edits=({k: v for k, v in edit.items() if k != "hash"},),
            edit_hash=edit["hash"],
            text=f"{edit.get('kind', '')}: {text}",
            verdict=USER_REJECTED,
        )
        ledger.add(edit["hash"], record.to_dict())
    return len(edits)


def reject(
    db: sqlite_utils.Database, config: Mapping[str, Any], name: str | None = None
) -> list[dict[str, Any]]:
    """Decline staged candidates; the skill files are not touched, the candidate's edits
    go into the ledger so no later night proposes them again."""
    done = []
    for row in pending_or_fail(db, name):
        _ledger_user_verdict(db, row, "rejected")
        done.append(
            update_decision(
                db,
                row["id"],
                "rejected",
                version=row["version"],
                status="rejected",
                reason="rejected by the user",
            )
        )
    return done


def rollback(
    db: sqlite_utils.Database, config: Mapping[str, Any], name: str, to_version: int | None = None
) -> list[dict[str, Any]]:
    """Undo the latest promotion of ``name`` in each target, or restore ``to_version``.

    Without ``to_version`` the text that the promotion replaced comes back (or the file
    is removed when the promotion created it); repeating walks further back. Whatever is
    on disk is saved as a version first, so a rollback never loses text either, and the
    undone candidate's edits go into the ledger like a reject's.
    """
    check_name(name)
    live: dict[str, dict[str, Any]] = {}
    for promoted in live_rows(db, name):
        live[promoted["target"]] = promoted  # latest per target wins (rows are in id order)
    if to_version is not None:
        version_text(config, name, to_version)  # fail before touching anything
        roots = list(live) or [str(t.root) for t in skill_targets(config, name)]
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
            record_removed(db, name, root)
            what = "removed (the promotion had created it)"
        else:
            atomic_write(Path(root), name, version_text(config, name, restore))
            what = f"restored v{restore}"
        if row is not None:
            _ledger_user_verdict(db, row, "rolled back")
            results.append(
                update_decision(
                    db,
                    row["id"],
                    "rolled_back",
                    version=restore,
                    status="rolled_back",
                    reason=f"rolled back: {what}",
                )
            )
        else:
            with db.atomic():
                log_event(
                    db,
                    name=name,
                    target=root,
                    event="rolled_back",
                    version=restore,
                    reason=f"rolled back: {what}",
                )
            results.append(
                {
                    "name": name,
                    "target": root,
                    "status": "rolled_back",
                    "reason": f"rolled back: {what}",
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
        promoted = live_rows(db, name)
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
