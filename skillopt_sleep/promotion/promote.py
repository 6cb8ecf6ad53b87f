"""Promotion: put a validated skill into the agent's skill directories, safely and reversibly.

Policy: a *managed* skill (one skillopt-sleep created) is written automatically when the
gate accepted and the held-out test split did not regress; a *user-written* skill is
staged for review unless ``promotion.auto_promote_user_skills`` is on. Independently of
policy, a skill whose file changed since the night began (its hash differs from the one
recorded at night start, see :func:`snapshot`) is staged, never overwritten: the user's
own edits always win over the night's.

Every text that is written or replaced is first saved under
``<state_dir>/skills/<name>/versions/v<N>.md`` (table ``skill_versions``), and every
decision is a row in ``promotions``, so adopt / reject / rollback / diff / history work
from the store alone. Calls are idempotent per (night, skill, target): a night resumed
after a crash does not promote twice.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

import sqlite_utils

from skillopt_sleep.promotion.dirs import (
    SkillWriteError,
    atomic_write,
    check_name,
    read_skill,
    targets,
    text_hash,
)
from skillopt_sleep.promotion.versions import (
    PromotionError,
    now_iso,
    save_version,
)


@dataclass
class TargetOutcome:
    target: str  # the skill root
    path: str  # the SKILL.md written or that would be written
    status: str  # promoted | staged | unchanged
    reason: str
    row_id: int | None = None


@dataclass
class PromotionOutcome:
    name: str
    status: str  # promoted (any target written) | staged | unchanged
    version: int | None
    hash: str
    reason: str
    targets: list[TargetOutcome] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)


def policy(
    config: Mapping[str, Any], *, managed: bool, gate_accepted: bool, test_regressed: bool
) -> tuple[bool, str]:
    """Whether a candidate may be written without review, and why (pure)."""
    section = config.get("promotion", {})
    if not gate_accepted:
        return False, "the gate did not accept the change; staged for review"
    if test_regressed:
        return False, "the held-out test split regressed; staged for review"
    if managed:
        if section.get("auto_promote_managed", True):
            return True, "managed skill: gate accepted and the test split did not regress"
        return False, "managed skill staged (promotion.auto_promote_managed is off)"
    if section.get("auto_promote_user_skills", False):
        return True, "user skill promoted (promotion.auto_promote_user_skills is on)"
    return False, "user-written skill: staged for review"


def snapshot(config: Mapping[str, Any], name: str) -> dict[str, str | None]:
    """Hash of ``name`` in every target (None when absent), to record at night start."""
    return {
        str(t.root): (text_hash(text) if (text := read_skill(t.root, name)) is not None else None)
        for t in targets(config)
    }


def current_text(config: Mapping[str, Any], name: str) -> str | None:
    """The skill's text in the first target that has it (what the night trains from)."""
    for target in targets(config):
        text = read_skill(target.root, name)
        if text is not None:
            return text
    return None


def _insert(db: sqlite_utils.Database, row: dict[str, Any]) -> int:
    """Insert a promotion row, retiring older pending rows for the same skill and target."""
    with db.conn:
        if row["status"] == "staged":
            db.execute(
                "UPDATE promotions SET status = 'rejected', reason = ?, updated_at = ? "
                "WHERE name = ? AND target = ? AND status = 'staged'",
                [
                    f"superseded by night {row['night_id']}",
                    row["created_at"],
                    row["name"],
                    row["target"],
                ],
            )
        return db["promotions"].insert(row).last_pk


def promote(
    db: sqlite_utils.Database,
    config: Mapping[str, Any],
    name: str,
    new_text: str,
    *,
    night_id: str,
    base_hash: str | None | Mapping[str, str | None],
    managed: bool,
    evidence: Mapping[str, Any] | None = None,
    gate_accepted: bool = True,
    test_regressed: bool = False,
    dry_run: bool = False,
) -> PromotionOutcome:
    """Promote or stage ``new_text`` as skill ``name`` in every configured target.

    ``base_hash`` is the skill's hash when the night began (None = it did not exist), or
    :func:`snapshot`'s per-target mapping. Raises SkillPathError for an unsafe name or
    path, PromotionError (after recording a staged row, so nothing is lost) when a
    target cannot be written.
    """
    check_name(name)
    new_hash = text_hash(new_text)
    auto, why = policy(
        config, managed=managed, gate_accepted=gate_accepted, test_regressed=test_regressed
    )
    outcome = PromotionOutcome(name, "unchanged", None, new_hash, why)
    evidence_json = json.dumps(dict(evidence or {}), default=str)
    for target in targets(config):
        root = str(target.root)
        done = next(
            db["promotions"].rows_where(
                "night_id = ? AND name = ? AND target = ?", [night_id, name, root]
            ),
            None,
        )
        if done is not None:  # a resumed night: report what was decided, do nothing again
            outcome.targets.append(
                TargetOutcome(root, done["path"], done["status"], done["reason"], done["id"])
            )
            outcome.version = done["version"]
            continue
        path = str(target.root / name / "SKILL.md")
        current = read_skill(target.root, name)
        cur_hash = text_hash(current) if current is not None else None
        base = base_hash.get(root) if isinstance(base_hash, Mapping) else base_hash
        if cur_hash == new_hash:
            if cur_hash == base:
                outcome.targets.append(TargetOutcome(root, path, "unchanged", "already current"))
                continue
            status, reason = "promoted", "already in place (resumed after the write)"
        elif cur_hash != base:
            status = "staged"
            reason = {
                (True, False): "the skill was created since the night began",
                (False, True): "the skill was deleted since the night began",
            }.get((base is None, cur_hash is None), "the skill was edited since the night began")
        else:
            status, reason = ("promoted", why) if auto else ("staged", why)
        if dry_run:
            outcome.targets.append(TargetOutcome(root, path, status, f"(dry run) {reason}"))
            continue
        try:  # keep both texts first: if even that fails, nothing else is touched
            outcome.version = save_version(
                db, config, name, new_text, source="candidate", night_id=night_id
            )
            prev = (
                save_version(db, config, name, current, source="backup", night_id=night_id)
                if current is not None and cur_hash != new_hash
                else None
            )
        except SkillWriteError as exc:
            raise PromotionError(f"{name}: {exc}", outcome) from exc
        if status == "promoted" and cur_hash != new_hash:
            try:
                atomic_write(target.root, name, new_text)
            except SkillWriteError as exc:
                status, reason = "staged", f"write failed, staged instead: {exc}"
                outcome.errors.append(str(exc))
        now = now_iso()
        row_id = _insert(
            db,
            {
                "name": name,
                "version": outcome.version,
                "hash": new_hash,
                "previous_version": prev,
                "previous_hash": cur_hash,
                "target": root,
                "path": path,
                "night_id": night_id,
                "status": status,
                "managed": int(managed),
                "reason": reason,
                "evidence": evidence_json,
                "created_at": now,
                "updated_at": now,
            },
        )
        outcome.targets.append(TargetOutcome(root, path, status, reason, row_id))
    statuses = {t.status for t in outcome.targets}
    outcome.status = next((s for s in ("promoted", "staged") if s in statuses), "unchanged")
    if outcome.targets and outcome.status != "promoted":
        outcome.reason = next(t.reason for t in outcome.targets if t.status == outcome.status)
    if outcome.errors:
        raise PromotionError(f"{name}: " + "; ".join(outcome.errors), outcome)
    return outcome
