"""``skillopt-sleep demo``: one real night on bundled sample sessions, in a scratch folder.

The samples are Claude Code and Codex logs written for this project in the tools' real
formats, with recurring tasks in them. Everything the night writes — state, reports, skill
versions, promoted skills — goes under a new temporary directory; the user's own config,
state and skill directories are never read or touched.
"""

from __future__ import annotations

import shutil
import tempfile
from collections.abc import Callable
from importlib import resources
from pathlib import Path
from typing import Any

from skillopt_sleep import config as config_mod
from skillopt_sleep.night import NightOutcome
from skillopt_sleep.night.run import run_night

# Small enough for the embedded 135M model to finish a night well within 5 minutes on 2 busy
# cores (~3.5 s per rollout + rubric judgment there): per skill one step of 4 train rollouts,
# one reflection, and — when an edit applies — one look of the real gate (alpha unchanged)
# on the val tasks, plus the test comparison if it is accepted. Short answers (48 tokens)
# keep rollouts cheap; no screening, so every applicable edit is decided by the gate.
DEMO_SETTINGS: dict[str, Any] = {
    "trainer.epochs": 1,
    "trainer.steps_per_epoch": 1,
    "trainer.minibatch": 4,
    "trainer.train_samples": 1,
    "trainer.samples": 1,
    "trainer.max_samples": 1,
    "trainer.max_answer_tokens": 48,
    "trainer.screen": False,
    "night.max_skills": 2,
    # the samples are small: give the gate as many val tasks as they allow (>= 5 for alpha)
    "mining.split_fractions": {"train": 0.35, "val": 0.45, "test": 0.2},
    "budget.max_calls": 300,
}


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
        "daemon.deadline": "23:59",
        "models.backend": "local",
        **DEMO_SETTINGS,
    }
    return config_mod.load(overrides=overrides, environ={})


def run_demo(
    workdir: Path | None = None, progress: Callable[[str], None] | None = None, **kwargs: Any
) -> tuple[Path, NightOutcome]:
    """Run the demo night; returns the scratch directory and the night's outcome."""
    workdir = workdir or Path(tempfile.mkdtemp(prefix="skillopt-sleep-demo-"))
    config = prepare(workdir)
    return workdir, run_night(config, progress=progress, **kwargs)
