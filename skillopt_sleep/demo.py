"""``skillopt-sleep demo``: one real night on bundled sample sessions, in a scratch folder.

The samples are two weeks of one user's Claude Code and Codex logs, written for this
project in the tools' real formats (``data/samples/README.md``; their generator lives in the
source repository, ``benchmarks/samples/demo_user.py``, and does not ship): commit messages
through her own ``commit-message`` skill, CI summaries and regression tests, with the
corrections she made in her own words. Everything the night writes — state, reports, skill
versions, promoted skills — goes under a new temporary directory; the user's own config,
state and skill directories are never read or touched.

Before the night the demo does what a user may do with ``tasks export`` / ``tasks import``:
it reviews the mined tasks and keeps their rule judges (the checks mined from the user's
corrections, verified against her sessions, e.g. "keep the subject under 50 chars", and
each task's content check) while dropping the rubric judge (a model call per answer). Rule
judges are free and exact, so the night's calls go to the target and the gate. The
reviewed file stays in the demo directory.
"""

from __future__ import annotations

import shutil
import tempfile
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from importlib import resources
from pathlib import Path
from typing import Any

from skillopt_sleep.mining import load_tasks, mine
from skillopt_sleep.mining.taskfile import export, import_file
from skillopt_sleep.night import NightOutcome
from skillopt_sleep.night.run import run_night
from skillopt_sleep.settings import config as config_mod
from skillopt_sleep.settings.logs import ingest_logs
from skillopt_sleep.store import open_store
from trainer.tasks import Task

# Sized for a night within 10 minutes on a quiet 2-core machine (docs/models.md): one
# skill, up to two steps of 4 train rollouts (the first step's candidate is the user's own
# corrections, no optimizer call; later ones a proposal of the 1.5B optimizer), a screen on
# those 4 tasks, then up to four sweeps of the real gate (alpha unchanged) on 16 val tasks,
# and 16 test tasks, two answers each, for the held-out interval. Four sweeps is the fewest
# at which 16 val tasks can show the smallest gain worth having (`night.worth_effect`, 0.1:
# 0.097 at alpha 0.025, and three show only 0.131); with two, the plan could show only 0.201
# and an edit of the user's corrections stayed pending at +0.13. When the two steps do not
# fit the time, the plan keeps one, which then has all of alpha. Commit messages are short:
# 40 answer tokens show a long one fails.
DEMO_SETTINGS: dict[str, Any] = {
    "trainer.epochs": 1,
    "trainer.steps_per_epoch": 2,
    "trainer.minibatch": 4,
    "trainer.train_samples": 1,
    "trainer.samples": 1,
    "trainer.max_samples": 4,
    "trainer.test_samples": 2,
    "trainer.max_answer_tokens": 40,
    "night.max_skills": 1,
    # val decides and test reports: both need more tasks than train, which only feeds reflection
    "mining.split_fractions": {"train": 0.2, "val": 0.4, "test": 0.4},
    # the sizes above: every sample request is a task, val and test hold 16 each
    "mining.max_val_tasks": 16,
    "mining.max_test_tasks": 16,
    "budget.max_calls": 400,
    # The plan's seconds per call before a night has measured any (docs/models.md, a quiet
    # 2-core machine): a 0.5B answer of 40 tokens ~4 s (599 s for a 110-call demo night with
    # 2 proposals); the 1.5B's proposal ~80 s and worked-example answer ~10 s, one of the
    # first and three of the second a step: 28 s a call.
    "night.seconds_per_call": {"optimizer": 28, "target": 4, "judge": 6},
}


MINUTES = 10  # the goal for a demo night on a quiet 2-core machine (docs/models.md)


def prepare(workdir: Path) -> dict[str, Any]:
    """Copy the samples into ``workdir`` and return the demo's configuration."""
    samples = resources.files("skillopt_sleep").joinpath("data/samples")
    with resources.as_file(samples) as src:
        shutil.copytree(src / "claude", workdir / "claude")
        shutil.copytree(src / "codex", workdir / "codex")
        shutil.copytree(src / "skills", workdir / "skills")
    overrides = {
        "state_dir": str(workdir / "state"),
        "sources.claude.roots": [str(workdir / "claude")],
        "sources.codex.roots": [str(workdir / "codex")],
        "promotion.targets": [str(workdir / "skills")],
        "models.backend": "local",
        **DEMO_SETTINGS,
    }
    return config_mod.load(overrides=overrides, environ={})


def rules_only(task: Task) -> Task | None:
    """The task with its rule judges only; None when it has none (nothing free to check)."""
    rules = tuple(j for j in task.judges if j.kind != "rubric")
    return Task(task.id, task.prompt, task.split, rules, task.group, task.meta) if rules else None


def review_tasks(config: dict[str, Any], out: Path) -> int:
    """Ingest and mine the samples, then import their tasks with rule judges only (through
    the task file, as a user would). Returns the number of reviewed tasks."""
    db = open_store(config_mod.state_dir(config))
    try:
        ingest_logs(db, config)
        mine(db, config)
        reviewed = [t for t in map(rules_only, load_tasks(db)) if t is not None]
        export(reviewed, out)
        return import_file(db, out)
    finally:
        db.close()


def run_demo(
    workdir: Path | None = None,
    progress: Callable[[str], None] | None = None,
    *,
    minutes: int = MINUTES,
    **kwargs: Any,
) -> tuple[Path, NightOutcome]:
    """Run the demo night; returns the scratch directory and the night's outcome.

    Training stops in time for the night to end within `minutes` of its start (a deadline
    at an hour of the clock would cut short a demo started just before it). Other keywords
    go to ``run_night``."""
    kwargs["deadline"] = datetime.now(UTC) + timedelta(minutes=minutes)
    workdir = workdir or Path(tempfile.mkdtemp(prefix="skillopt-sleep-demo-"))
    config = prepare(workdir)
    n = review_tasks(config, workdir / "tasks-reviewed.yaml")
    if progress:
        progress(f"demo: {n} mined tasks reviewed to rule judges only (tasks-reviewed.yaml)")
    return workdir, run_night(config, progress=progress, **kwargs)
