"""Which skills a night trains, on which tasks, starting from which text.

The plan is computed once per night and checkpointed, so a resumed night trains exactly
what the interrupted one meant to, whatever was ingested in between.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import sqlite_utils

from skillopt_sleep import promotion
from skillopt_sleep.mining import Cluster, load_clusters, load_tasks
from skillopt_sleep.night.model import Job, Plan, Skip
from skillopt_sleep.night.settings import NightSettings
from skillopt_sleep.promotion import spec
from skillopt_sleep.promotion.verdict import MIN_TEST_TASKS
from trainer import TrainSettings
from trainer.sizing import detectable_effect
from trainer.skill import SkillDoc
from trainer.tasks import Task


def seed_skill(name: str, description: str) -> str:
    """The first version of a managed skill: a name, when to use it, and room to grow. The
    description comes from user prompts: it is cleaned to pass the Agent Skills rules (and
    what it says is checked by the content policy before anything is promoted)."""
    title = name.replace("-", " ").capitalize()
    doc = SkillDoc(
        name=name,
        description=spec.clean_description(description) or f"Use for recurring '{title}' requests.",
        body=f"# {title}\n\n## Steps\n\n1. Restate the request in one line.\n\n## Rules\n\n",
    )
    return doc.render()


def job_start(
    db: sqlite_utils.Database,
    config: Mapping[str, Any],
    cluster: Cluster,
    max_skill_tokens: int,
) -> dict[str, Any] | Skip:
    """A job's start for the cluster's skill, or why the skill is set aside. The night
    never fails on a skill it cannot handle: it reads what it can and says why not.
    ``config``: where the skill's targets are (``promotion:``)."""
    name = cluster.skill
    if why := promotion.unusable_name(name):
        return Skip(str(name), why)
    try:
        text = promotion.current_text(config, name)
        base_hash = promotion.snapshot(config, name)
    except UnicodeDecodeError:
        return Skip(name, "its SKILL.md is not UTF-8 text", error=True)
    except OSError as exc:  # e.g. a file where the skill's directory should be
        reason = f"its skill directory cannot be read: {exc.strerror}: {exc.filename}"
        return Skip(name, reason, error=True)
    except promotion.SkillPathError as exc:  # e.g. a project target without project_dirs
        return Skip(name, str(exc), error=True)
    if text is not None:
        # the store says who created it, not mining's label: a same-named skill on disk
        # that skillopt-sleep did not create is the user's and is never promoted unreviewed
        managed = all(promotion.is_managed(db, name, root) for root, h in base_hash.items() if h)
    elif not cluster.managed_skill:
        return Skip(name, "its SKILL.md is in no skill target")
    else:
        text = seed_skill(name, cluster.description)
        if problems := spec.problems(text, name):
            return Skip(name, "cannot create this skill: " + "; ".join(problems))
        managed = True
    if (size := SkillDoc.parse(text).n_tokens) > max_skill_tokens:  # candidates would be held
        reason = f"its SKILL.md is {size} tokens, over trainer.max_skill_tokens={max_skill_tokens}"
        return Skip(name, reason)
    return {"skill": name, "managed": managed, "clusters": [], "start_text": text,
            "base_hash": base_hash, "tasks": []}  # fmt: skip


def plan_night(
    db: sqlite_utils.Database, config: Mapping[str, Any], settings: NightSettings
) -> Plan:
    """Jobs (one per skill, most valuable first) and the skills set aside, with reasons."""
    found: dict[str, dict[str, Any]] = {}
    skipped: list[Skip] = []
    tasks: dict[str, list[Task]] = {}  # cluster id -> its tasks, read once
    for t in load_tasks(db):
        tasks.setdefault(str(t.meta.get("cluster_id", "")), []).append(t)
    for cluster in load_clusters(db):
        if not cluster.recurring:
            continue
        name = cluster.skill
        job = found.get(name)
        if job is None and any(skip.skill == name for skip in skipped):
            continue  # one reason per skill, however many of its clusters recur
        if job is None:
            start = job_start(db, config, cluster, settings.train.max_skill_tokens)
            if isinstance(start, Skip):
                skipped.append(start)
                continue
            job = found[name] = start
        job["clusters"].append(cluster.id)
        job["tasks"] += tasks.get(cluster.id, [])
    jobs = [
        Job(
            j["skill"],
            j["managed"],
            tuple(j["clusters"]),
            j["start_text"],
            j["base_hash"],
            replay_set(j["tasks"], settings.replay_caps),
        )  # fmt: skip
        for j in found.values()
    ]
    return _ready(jobs, skipped, settings)


def replay_set(tasks: list[Task], caps: Mapping[str, int]) -> tuple[Task, ...]:
    """The tasks a night replays: every train task (a step samples a minibatch of them),
    and at most ``caps[split]`` val and test tasks, since every gate sweep replays all of
    val and the end-of-night test all of test. Where a split holds more (a big group of
    near-duplicates, several clusters of one skill), the oldest tasks are kept, one group
    after another: the yardstick changes little as requests come in, and covers as many
    kinds of request as it can."""
    out = [t for t in tasks if t.split not in caps]
    for split, cap in caps.items():
        groups: dict[str, list[Task]] = {}
        for t in sorted((t for t in tasks if t.split == split), key=_age):
            groups.setdefault(t.group or t.id, []).append(t)
        rounds = max((len(g) for g in groups.values()), default=0)
        spread = [g[r] for r in range(rounds) for g in groups.values() if r < len(g)]
        out += spread[:cap]
    return tuple(out)


def _age(task: Task) -> tuple[str, str]:
    return (str(task.meta.get("started_at") or ""), task.id)


def _ready(jobs: list[Job], skipped: list[Skip], settings: NightSettings) -> Plan:
    """Only skills the gate can judge take one of the night's max_skills places: a small
    cluster ranked first must not crowd out a well-evidenced one behind it."""
    max_skills = settings.max_skills
    need_val = min_val_tasks(settings.train)
    ready: list[Job] = []
    for job in jobs:
        counts = job.n_tasks
        if min(counts.values()) == 0:
            missing = ", ".join(s for s, n in counts.items() if n == 0)
            skipped.append(Skip(job.skill, f"too few tasks: no {missing} split"))
        elif counts["val"] < need_val:
            reason = f"too few tasks: {counts['val']} val tasks, the gate needs >= {need_val}"
            skipped.append(Skip(job.skill, reason))
        elif counts["test"] < MIN_TEST_TASKS:
            reason = (
                f"too few tasks: {counts['test']} test task(s), the held-out lift needs "
                f">= {MIN_TEST_TASKS} (an edit it cannot measure is only staged)"
            )
            skipped.append(Skip(job.skill, reason))
        elif len(ready) >= max_skills:
            skipped.append(Skip(job.skill, f"night.max_skills={max_skills} reached"))
        else:
            ready.append(job)
    return Plan(tuple(ready), tuple(skipped))


def min_val_tasks(settings: TrainSettings) -> int:
    """Val tasks below which a skill is not trained: the fewest on which a candidate that
    wins every task in two sweeps (one, if the night allows only one) is accepted at the
    night's per-comparison alpha. The gate's e-process could decide on fewer given more
    sweeps, but a val set that small is a poor yardstick of a skill."""
    sweeps = min(2, max(1, settings.max_samples))
    n = 1
    while detectable_effect(n, sweeps, settings.alpha_per_comparison) is None:
        n += 1
    return n
