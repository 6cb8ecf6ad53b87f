"""Promotion: put a validated skill into the agent's skill directories, safely and reversibly.

Policy (``policy``, pure): a candidate is written without review only when the night's
verdict says promote (``verdict.py``: the gate accepted it and the held-out test, measured,
did not go down), and nothing blocks it:

- the text must pass the content policy (``content.py``: no download run as code, no new
  host or URL, nothing about credentials, no "ignore your instructions", no hidden text)
  and the Agent Skills rules (``spec.py``);
- the write must not go through a symbolic link (``dirs.link_problem``);
- the skill must be one skillopt-sleep created in that skill root (``managed_skills``): a
  skill on disk that it did not create is the user's, whatever mining called it, and is
  staged unless ``promotion.auto_promote_user_skills`` is on; a brand-new managed skill's
  first version is staged unless ``promotion.auto_promote_new_skills`` is on (its name
  and description come from user prompts).

Independently of policy, a skill whose file changed since the night began (its hash
differs from :func:`snapshot`'s) is staged, never overwritten: the user's edits win.

Every text that is written or replaced is first saved as a version (the text on disk
before the candidate, so the user's original is v1), every decision is a ``promotions``
row and an event, so adopt / reject / rollback / diff / history work from the store alone.
Calls are idempotent per (night, skill, target): a resumed night does not promote twice.
A night killed between writing a skill and recording it finds the candidate on disk when
it resumes; the text it replaced is the backup saved before the write (found by the hash
the night began with), never the file on disk, so ``rollback`` brings the user's text back.
``tests/test_promote_kill.py`` kills a promotion, adopt and rollback at every write.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import sqlite_utils

from skillopt_sleep.promotion import content, spec
from skillopt_sleep.promotion.dirs import (
    SKILL_FILE,
    SkillWriteError,
    Target,
    atomic_write,
    check_name,
    claude_user_root,
    clear_stale,
    link_problem,
    read_skill,
    skill_targets,
    text_hash,
)
from skillopt_sleep.promotion.verdict import Verdict
from skillopt_sleep.promotion.versions import (
    PromotionError,
    insert_decision,
    is_managed,
    now_iso,
    record_created,
    save_version,
    version_of,
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


@dataclass(frozen=True)
class Facts:
    """What the policy decides on, for one candidate in one skill root."""

    managed: bool  # the night trained it as a skill skillopt-sleep manages
    exists: bool  # the skill root holds the skill now
    ours: bool  # the store records that skillopt-sleep created it there
    first: bool  # skillopt-sleep created it in no skill root yet: a brand-new skill
    verdict: Verdict  # what the night's evidence says: promote or stage (never keep)
    blocks: tuple[str, ...] = ()  # content policy, Agent Skills rules, a symbolic link


def policy(config: Mapping[str, Any], facts: Facts) -> tuple[bool, str]:
    """Whether a candidate may be written without review, and why (pure)."""
    section = config.get("promotion", {})
    why_not = []
    if facts.verdict.action != "promote":
        why_not.append(facts.verdict.reason)
    why_not += facts.blocks
    if facts.managed and facts.exists and not facts.ours:
        why_not.append("a skill of that name is already here and skillopt-sleep did not create it")
    elif facts.managed and not facts.exists:
        if facts.first and not section.get("auto_promote_new_skills", False):
            why_not.append(
                "a new skill: its first version waits for review "
                "(promotion.auto_promote_new_skills is off)"
            )
    elif facts.managed:
        if not section.get("auto_promote_managed", True):
            why_not.append("promotion.auto_promote_managed is off")
    elif not section.get("auto_promote_user_skills", False):
        why_not.append("your own skill (promotion.auto_promote_user_skills is off)")
    if why_not:
        return False, "staged: " + "; ".join(why_not)
    if not facts.managed:
        return True, "your skill, promoted (promotion.auto_promote_user_skills is on)"
    if facts.verdict.outcome == "improved":
        return True, "gate accepted and the held-out test confirmed it"
    return True, "gate accepted and the held-out test did not go down"


def snapshot(config: Mapping[str, Any], name: str) -> dict[str, str | None]:
    """Hash of ``name`` in every target (None when absent), to record at night start."""
    return {
        str(t.root): (text_hash(text) if (text := read_skill(t.root, name)) is not None else None)
        for t in skill_targets(config, name)
    }


def current_text(config: Mapping[str, Any], name: str) -> str | None:
    """The skill's text in the first target that has it (what the night trains from)."""
    for target in skill_targets(config, name):
        text = read_skill(target.root, name)
        if text is not None:
            return text
    return None


def _blocks(name: str, new_text: str, current: str | None, root: Path) -> tuple[str, ...]:
    out = []
    if link := link_problem(root, name):
        out.append(link)
    if findings := content.added(new_text, current):
        out.append(content.explain(findings))
    if problems := spec.problems(new_text, name):
        out.append("breaks the Agent Skills rules: " + "; ".join(problems))
    return tuple(out)


def _project_roots(db: sqlite_utils.Database, config: Mapping[str, Any]) -> list[Path]:
    """Project directories the user works in: configured, and seen in the sessions."""
    dirs = [Path(p).expanduser() for p in config.get("promotion", {}).get("project_dirs") or []]
    if db["sessions"].exists():
        dirs += [Path(r[0]) for r in db.execute("SELECT DISTINCT project FROM sessions") if r[0]]
    return list(dict.fromkeys(dirs))


def _hiding_note(
    db: sqlite_utils.Database, config: Mapping[str, Any], name: str, target: Target
) -> str:
    """Claude Code silently prefers a user-level skill over a same-named project skill:
    say which one hides which (empty when neither does)."""
    if target.kind == "claude_project":
        user = claude_user_root() / name / SKILL_FILE
        if not user.exists():
            return ""
        return f"note: in Claude Code the user-level skill {user} hides this one"
    if target.kind != "claude_user":
        return ""
    hidden = [
        str(path)
        for p in _project_roots(db, config)
        if (path := p / ".claude" / "skills" / name / SKILL_FILE).exists()
    ]
    if not hidden:
        return ""
    more = f" and {len(hidden) - 3} more" if len(hidden) > 3 else ""
    return (
        f"note: in Claude Code this user-level skill hides the project skill "
        f"{', '.join(hidden[:3])}{more}"
    )


def promote(
    db: sqlite_utils.Database,
    config: Mapping[str, Any],
    name: str,
    new_text: str,
    *,
    night_id: str,
    base_hash: str | None | Mapping[str, str | None],
    managed: bool,
    verdict: Verdict,
    evidence: Mapping[str, Any] | None = None,
    dry_run: bool = False,
) -> PromotionOutcome:
    """Promote or stage ``new_text`` as skill ``name`` in every target it goes to.

    ``base_hash`` is the skill's hash when the night began (None = it did not exist), or
    :func:`snapshot`'s per-target mapping. ``verdict`` is the night's (``verdict.py``); a
    verdict that says keep writes and stages nothing (ValueError: the caller should not ask).
    Raises SkillPathError for an unsafe name, PromotionError (after recording a staged
    row, so nothing is lost) when a target cannot be written.
    """
    check_name(name)
    if verdict.action == "keep":
        raise ValueError(f"{name}: the night's verdict keeps the skill ({verdict.outcome})")
    new_hash = text_hash(new_text)
    outcome = PromotionOutcome(name, "unchanged", None, new_hash, "")
    evidence_json = json.dumps(dict(evidence or {}), default=str)
    roots = skill_targets(config, name)
    first = not any(is_managed(db, name, str(t.root)) for t in roots)
    for target in roots:
        root = str(target.root)
        if not dry_run:
            clear_stale(target.root, name)
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
        path = str(target.root / name / SKILL_FILE)
        current = read_skill(target.root, name)
        cur_hash = text_hash(current) if current is not None else None
        base = base_hash.get(root) if isinstance(base_hash, Mapping) else base_hash
        backup = version_of(db, name, base) if base is not None else None
        # the candidate on disk though the night began with another text: this night wrote
        # it and was killed before recording it, if it had saved the text it replaced
        written = cur_hash == new_hash and cur_hash != base and (base is None or backup is not None)
        if cur_hash == new_hash and not written:
            outcome.targets.append(TargetOutcome(root, path, "unchanged", "already current"))
            continue
        if written:
            status, reason = "promoted", "already in place (resumed after the write)"
        elif cur_hash != base:
            status = "staged"
            reason = "staged: " + {
                (True, False): "the skill was created since the night began",
                (False, True): "the skill was deleted since the night began",
            }.get((base is None, cur_hash is None), "the skill was edited since the night began")
        else:
            facts = Facts(
                managed=managed,
                exists=current is not None,
                ours=is_managed(db, name, root),
                first=first,
                verdict=verdict,
                blocks=_blocks(name, new_text, current, target.root),
            )
            auto, reason = policy(config, facts)
            status = "promoted" if auto else "staged"
        if note := _hiding_note(db, config, name, target):
            reason = f"{reason}; {note}"
        if dry_run:
            outcome.targets.append(TargetOutcome(root, path, status, f"(dry run) {reason}"))
            continue
        # keep both texts first, the older one first: if that fails, nothing is touched. A
        # night resumed after its write finds the candidate on disk: what it replaced is
        # the backup saved before the write, never the file
        prev, prev_hash = (backup, base) if written else (None, cur_hash)
        try:
            if current is not None and not written:
                prev = save_version(db, config, name, current, source="backup", night_id=night_id)
            outcome.version = save_version(
                db, config, name, new_text, source="candidate", night_id=night_id
            )
        except SkillWriteError as exc:
            raise PromotionError(f"{name}: {exc}", outcome) from exc
        if status == "promoted" and not written:
            try:
                atomic_write(target.root, name, new_text)
            except SkillWriteError as exc:
                status, reason = "staged", f"staged: the write failed: {exc}"
                outcome.errors.append(str(exc))
        if status == "promoted" and base is None and managed:
            record_created(db, name, root, night_id)  # skillopt-sleep made this skill
        now = now_iso()
        row_id = insert_decision(
            db,
            {
                "name": name,
                "version": outcome.version,
                "hash": new_hash,
                "previous_version": prev,
                "previous_hash": prev_hash,
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
    if outcome.targets:
        outcome.reason = "; ".join(
            dict.fromkeys(t.reason for t in outcome.targets if t.status == outcome.status)
        )
    if outcome.errors:
        raise PromotionError(f"{name}: " + "; ".join(outcome.errors), outcome)
    return outcome
