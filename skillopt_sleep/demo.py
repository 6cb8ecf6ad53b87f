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
from skillopt_sleep.night import NightOutcome, run_night

# Small enough for the embedded 135M model to finish a night in a few minutes on 2 cores.
DEMO_SETTINGS: dict[str, Any] = {
    "trainer.epochs": 1,
    "trainer.steps_per_epoch": 2,
    "trainer.minibatch": 4,
    "trainer.train_samples": 1,
    "trainer.samples": 2,
    "trainer.max_samples": 4,
    "trainer.max_answer_tokens": 160,
    "night.max_skills": 2,
    # the samples are small: give the gate as many val tasks as they allow
    "mining.split_fractions": {"train": 0.3, "val": 0.5, "test": 0.2},
    "budget.max_calls": 600,
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
