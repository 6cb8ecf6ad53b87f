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

import sqlite_utils

from skillopt_sleep.night.model import Job, Plan
from skillopt_sleep.night.settings import NightSettings
from skillopt_sleep.report.document import NightSummary
from trainer.sizing import ROLES, Sizing, size


def measured_seconds(db: sqlite_utils.Database) -> dict[str, float]:
    """Wall seconds per paid call of each role on the last finished night that made some."""
    rows = db.execute(
        "SELECT summary FROM nights WHERE status = 'done' AND NOT dry_run AND summary IS NOT "
        "NULL ORDER BY id DESC LIMIT 5"
    ).fetchall()
    for (text,) in rows:
        seconds: dict[str, list[float]] = {}
        for skill in NightSummary.from_json(json.loads(text)).skills:
            for role, used in skill.usage.by_role.items():
                if used.get("timed_calls"):
                    got = seconds.setdefault(role, [0.0, 0.0])
                    got[0] += float(used.get("seconds", 0.0))
                    got[1] += float(used["timed_calls"])
        if seconds:
            return {role: s / n for role, (s, n) in seconds.items()}
    return {}


def seconds_per_call(
    db: sqlite_utils.Database, configured: Mapping[str, float]
) -> dict[str, float]:
    """The configured seconds per call of each role, else the last night's measured ones."""
    merged = {**measured_seconds(db), **configured}
    return {role: merged[role] for role in ROLES if role in merged}


def judge_calls(job: Job) -> float:
    """Rubric judges per task: a judge call each per rollout."""
    rubrics = sum(j.kind == "rubric" for t in job.tasks for j in t.judges)
    return rubrics / max(1, len(job.tasks))


def size_plan(
    db: sqlite_utils.Database, settings: NightSettings, plan: Plan, *, now: datetime
) -> Plan:
    """Each job sized to its val set and to an equal share of the time until the night's
    deadline and of its call budget (a skill trained later gets what the earlier ones left;
    the plan gives each the same share)."""
    if not plan.jobs:
        return plan
    per_call = seconds_per_call(db, settings.seconds_per_call)
    share = len(plan.jobs)
    seconds = (settings.deadline - now.timestamp()) / share
    limit = settings.train.budget.max_calls
    calls = int(limit // share) if limit is not None else None
    jobs = tuple(
        replace(
            job,
            sizing=size(
                settings.train,
                job.n_tasks,
                worth=settings.worth_effect,
                judge_calls=judge_calls(job),
                per_call=per_call,
                available_seconds=max(0.0, seconds),
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
