"""The simulated world for tests of what follows an accepted edit (promotion, reports, the
CLI after a night): those must not hang on how often the default simulated optimizer finds a
helpful edit (benchmarks/learning.py measures that), so they use one that nearly always
proposes a rule the failed tasks need and never a harmful one."""

from __future__ import annotations

import contextlib
import random
import threading
import time
from collections.abc import Mapping
from dataclasses import replace
from typing import Any

from trainer.backends.base import Completion, Roles
from trainer.calls import current_call_key
from trainer.sim import OptimizerRates, SimWorld
from trainer.tasks import Task

COMPETENT = OptimizerRates(helpful=0.95, harmful=0.0, bad_anchor=0.0, malformed=0.0, garbage=0.0)


def competent_roles(
    config: Mapping[str, Any], tasks: list[Task]
) -> contextlib.AbstractContextManager[Roles]:
    """A night's roles factory: the simulated world of these tasks, a competent optimizer."""
    world = SimWorld.for_tasks(tasks, seed=int(config["trainer"]["seed"]))
    return contextlib.nullcontext(world.roles(rates=COMPETENT))


class Killed(BaseException):
    """Stands for the process dying mid-run."""


class Wrap:
    """A backend wrapper: counts calls, records their keys, can die or fail."""

    def __init__(self, inner, shared: dict, *, cost: float = 0.0, jitter: bool = False) -> None:
        self.inner, self.shared, self.cost, self.jitter = inner, shared, cost, jitter
        self.identity, self.concurrency = inner.identity, shared.get("concurrency", 1)
        self.simulation = True

    def complete(self, messages, *, json_schema=None, max_tokens=None) -> Completion:
        with self.shared["lock"]:
            if self.shared["count"] >= self.shared.get("kill_after", 10**9):
                raise Killed
            self.shared["count"] += 1
            self.shared["keys"].append(current_call_key())
        if self.jitter:
            time.sleep(random.random() * 0.002)
        c = self.inner.complete(messages, json_schema=json_schema, max_tokens=max_tokens)
        return replace(c, cost_usd=self.cost) if self.cost else c


def wrapped(world: SimWorld, **kw) -> tuple[Roles, dict]:
    """The world's roles with a competent optimizer (tests.sim_helpers): these tests follow a
    run that accepts edits, which must not hang on the default optimizer's luck."""
    shared = {"lock": threading.Lock(), "count": 0, "keys": [], **kw}
    base = world.roles(concurrency=shared.get("concurrency", 1), rates=COMPETENT)
    cost = kw.get("cost", 0.0)
    jitter = kw.get("jitter", False)
    return Roles(
        *(
            Wrap(b, shared, cost=cost, jitter=jitter)
            for b in (base.optimizer, base.target, base.judge)
        )
    ), shared
