"""Which skills a night trains, on which tasks, starting from which text.

The plan is computed once per night and checkpointed, so a resumed night trains exactly
what the interrupted one meant to, whatever was ingested in between.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import sqlite_utils

from skillopt_sleep import promote
from skillopt_sleep.mining import cluster_dicts, load_tasks
from trainer.skill import SkillDoc


def seed_skill(name: str, description: str) -> str:
    """The first version of a managed skill: a name, when to use it, and room to grow."""
    title = name.replace("-", " ").capitalize()
    doc = SkillDoc(
        name=name,
        description=description or f"Use for recurring '{title}' requests.",
        body=f"# {title}\n\n## Steps\n\n1. Restate the request in one line.\n\n## Rules\n\n",
    )
    return doc.render()


def plan_night(db: sqlite_utils.Database, config: Mapping[str, Any]) -> dict[str, Any]:
    """Jobs (one per skill, most valuable first) and the clusters set aside, with reasons."""
    jobs: dict[str, dict[str, Any]] = {}
    skipped: list[dict[str, str]] = []
    max_skills = int(config["night"]["max_skills"])
    for cluster in cluster_dicts(db):
        if not cluster["recurring"]:
            continue
        name = cluster["skill"]
        job = jobs.get(name)
        if job is None:
            if len(jobs) >= max_skills:
                skipped.append({"skill": name, "reason": f"night.max_skills={max_skills} reached"})
                continue
            managed = cluster["managed_skill"]
            text = promote.current_text(config, name)
            if text is None and not managed:
                skipped.append({"skill": name, "reason": "its SKILL.md is in no skill target"})
                continue
            job = jobs[name] = {
                "skill": name,
                "managed": managed,
                "clusters": [],
                "start_text": text or seed_skill(name, cluster["description"]),
                "base_hash": promote.snapshot(config, name),
                "tasks": [],
            }
        job["clusters"].append(cluster["id"])
        job["tasks"] += [t.to_dict() for t in load_tasks(db, cluster_id=cluster["id"])]
    ready = []
    for job in jobs.values():
        counts = {
            s: sum(1 for t in job["tasks"] if t["split"] == s) for s in ("train", "val", "test")
        }
        job["n_tasks"] = counts
        if min(counts.values()) == 0:
            missing = ", ".join(s for s, n in counts.items() if n == 0)
            skipped.append({"skill": job["skill"], "reason": f"too few tasks: no {missing} split"})
        else:
            ready.append(job)
    return {"jobs": ready, "skipped": skipped}
