"""The demo's tasks as ``skillopt-sleep demo`` reviews them, for the benchmarks that measure
the embedded models on them (paired_seeds.py, reflection_local.py, skill_effect_local.py)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from skillopt_sleep import demo
from skillopt_sleep.mining import load_tasks
from skillopt_sleep.store import open_store
from trainer.tasks import Task

SKILL = "commit-message"


def demo_tasks(workdir: Path, skill: str = SKILL) -> tuple[list[Task], str, dict[str, Any]]:
    """The demo's reviewed tasks of one sample skill, its start text and the demo's config."""
    config = demo.prepare(workdir)
    demo.review_tasks(config, workdir / "tasks-reviewed.yaml")
    db = open_store(Path(config["state_dir"]))
    try:
        row = db.execute("select id from clusters where skill = ? and recurring", [skill])
        cluster = row.fetchone()[0]
        tasks = load_tasks(db, cluster_id=cluster)
    finally:
        db.close()
    start = (workdir / "skills" / skill / "SKILL.md").read_text()
    return tasks, start, config
