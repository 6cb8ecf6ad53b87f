"""The simulated world for tests of what follows an accepted edit (promotion, reports, the
CLI after a night): those must not hang on how often the default simulated optimizer finds a
helpful edit (benchmarks/learning.py measures that), so they use one that nearly always
proposes a rule the failed tasks need and never a harmful one."""

from __future__ import annotations

import contextlib
from collections.abc import Mapping
from typing import Any

from trainer.backends.base import Roles
from trainer.sim import OptimizerRates, SimWorld
from trainer.tasks import Task

COMPETENT = OptimizerRates(helpful=0.95, harmful=0.0, bad_anchor=0.0, malformed=0.0, garbage=0.0)


def competent_roles(
    config: Mapping[str, Any], tasks: list[Task]
) -> contextlib.AbstractContextManager[Roles]:
    """A night's roles factory: the simulated world of these tasks, a competent optimizer."""
    world = SimWorld.for_tasks(tasks, seed=int(config["trainer"]["seed"]))
    return contextlib.nullcontext(world.roles(rates=COMPETENT))
