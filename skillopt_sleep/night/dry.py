"""``run --dry-run``: what a night would do, computed on a throwaway copy of the store.

Ingest and mining run for real, but on a copy made with SQLite's backup API in a private
temporary directory; no model is called, no skill is written, the store is not touched.
"""

from __future__ import annotations

import sqlite3
import tempfile
from collections.abc import Callable, Mapping
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from skillopt_sleep.mining import mine
from skillopt_sleep.night.model import DryRun, NightOutcome, WouldTrain
from skillopt_sleep.night.plan import plan_night
from skillopt_sleep.night.settings import NightSettings
from skillopt_sleep.night.sizing import size_plan
from skillopt_sleep.settings import config as config_mod
from skillopt_sleep.settings.logs import ingest_logs
from skillopt_sleep.store import db_path, open_store


def dry_run_night(
    config: Mapping[str, Any], settings: NightSettings, say: Callable[[str], None]
) -> NightOutcome:
    """The night's plan, sized to ``settings`` (and the time until its deadline)."""
    state = config_mod.state_dir(config)
    with tempfile.TemporaryDirectory(prefix="skillopt-dry-") as tmp:
        copy_dir = Path(tmp)
        if db_path(state).exists():
            src = sqlite3.connect(f"file:{db_path(state)}?mode=ro", uri=True)
            dst = sqlite3.connect(db_path(copy_dir))
            with dst:
                src.backup(dst)
            src.close()
            dst.close()
        db = open_store(copy_dir)
        try:
            say("dry run: nothing will be written and no model will be called")
            ingested = ingest_logs(db, config)
            mined = mine(db, config)
            plan = plan_night(db, config, settings)
            plan = size_plan(db, settings, plan, now=datetime.now(UTC))
        finally:
            db.close()
    dry = DryRun(
        ingest=ingested,
        mining={"clusters": mined.n_clusters, "recurring": mined.n_recurring},
        would_train=tuple(
            WouldTrain(j.skill, j.managed, j.n_tasks, j.exists, j.sizing) for j in plan.jobs
        ),
        skipped=plan.skipped,
        budget=dict(config["budget"]),
    )
    for job in dry.would_train:
        sizing = job.sizing
        say(
            f"would train {job.skill} ({'managed' if job.managed else 'your skill'}) on "
            f"{job.n_tasks} tasks, about {job.estimated_calls} model calls"
            + (f": {sizing.shows()}" if sizing else "")
        )
        if sizing and sizing.warning():
            say(f"{job.skill}: {sizing.warning()}")
    for skip in plan.skipped:
        say(f"would skip {skip.skill}: {skip.reason}")
    if not dry.would_train:
        say("no recurring task is ready for training")
    return NightOutcome("dry-run", "dry_run", dry_run=dry)
