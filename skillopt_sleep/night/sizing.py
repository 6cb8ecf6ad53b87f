"""How far each of tonight's skills can go: its run sized to its val set and its share of the
night's time and call budget, before any model is called (`trainer.sizing`).

Sized once, with the plan, and checkpointed with it: a resumed night trains with the very
settings the interrupted one planned, whatever the clock says by then.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import replace
from datetime import datetime
from typing import Any

import sqlite_utils

from skillopt_sleep.night.model import Job, Plan
from trainer import TrainSettings
from trainer.sizing import ROLES, Sizing, size


def measured_seconds(db: sqlite_utils.Database) -> dict[str, float]:
    """Wall seconds per paid call of each role on the last finished night that made some."""
    rows = db.execute(
        "SELECT summary FROM nights WHERE status = 'done' AND NOT dry_run AND summary IS NOT "
        "NULL ORDER BY id DESC LIMIT 5"
    ).fetchall()
    for (text,) in rows:
        seconds: dict[str, list[float]] = {}
        for skill in json.loads(text).get("skills", []):
            for role, used in ((skill.get("usage") or {}).get("by_role") or {}).items():
                if used.get("timed_calls"):
                    got = seconds.setdefault(role, [0.0, 0.0])
                    got[0] += float(used.get("seconds", 0.0))
                    got[1] += float(used["timed_calls"])
        if seconds:
            return {role: s / n for role, (s, n) in seconds.items()}
    return {}


def seconds_per_call(db: sqlite_utils.Database, config: Mapping[str, Any]) -> dict[str, float]:
    """The configured seconds per call of each role, else the last night's measured ones."""
    configured = config["night"].get("seconds_per_call") or {}
    measured = measured_seconds(db)
    out = {}
    for role in ROLES:
        value = configured.get(role) if configured.get(role) is not None else measured.get(role)
        if value is not None:
            out[role] = float(value)
    return out


def judge_calls(job: Job) -> float:
    """Rubric judges per task: a judge call each per rollout."""
    rubrics = sum(j.kind == "rubric" for t in job.tasks for j in t.judges)
    return rubrics / max(1, len(job.tasks))


def size_plan(
    db: sqlite_utils.Database,
    config: Mapping[str, Any],
    plan: Plan,
    *,
    deadline: datetime | None,
    now: datetime,
) -> Plan:
    """Each job sized to its val set and to an equal share of the time until `deadline` and
    of the night's call budget (a skill trained later gets what the earlier ones left; the
    plan gives each the same share)."""
    if not plan.jobs:
        return plan
    settings = TrainSettings.from_config(dict(config))
    per_call = seconds_per_call(db, config)
    share = len(plan.jobs)
    seconds = (deadline - now).total_seconds() / share if deadline is not None else None
    limit = settings.budget.max_calls
    calls = int(limit // share) if limit is not None else None
    jobs = tuple(
        replace(
            job,
            sizing=size(
                settings,
                job.n_tasks,
                worth=float(config["night"]["worth_effect"]),
                judge_calls=judge_calls(job),
                per_call=per_call,
                available_seconds=None if seconds is None else max(0.0, seconds),
                available_calls=calls,
            ),
        )
        for job in plan.jobs
    )
    return replace(plan, jobs=jobs)


def eta_seconds(sizings: list[Sizing]) -> float | None:
    """The planned wall time of these runs; None when a role's seconds per call is unknown."""
    total = 0.0
    for s in sizings:
        if s.seconds is None:
            return None
        total += s.seconds
    return total
