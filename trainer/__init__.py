"""The validation-gated skill optimization loop. Knows nothing of sessions or SQLite.

One public entry point, `optimize(skill, tasks, roles, settings=..., cache=..., ledger=...)`,
returning a `RunResult` (with `write_outputs(out_dir)`). The gate is `trainer.gate.decide`;
the simulated world for tests and benchmarks is `trainer.sim.SimWorld` (SIMULATION).

The names below load on first use (PEP 562), so importing a light module such as
`trainer.tasks` does not pull in the engine and its numerical libraries.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # what a type checker sees; at run time, __getattr__ below
    from trainer.budget import BudgetLimits
    from trainer.cache import (
        Cache,
        JsonLedger,
        Ledger,
        MemoryCache,
        MemoryLedger,
    )
    from trainer.engine import optimize
    from trainer.ledger import LedgerRecord
    from trainer.result import RunResult, TestLift
    from trainer.settings import TrainSettings
    from trainer.skill import SkillDoc

_EXPORTS = {
    "BudgetLimits": "trainer.budget",
    "Cache": "trainer.cache",
    "JsonLedger": "trainer.cache",
    "Ledger": "trainer.cache",
    "LedgerRecord": "trainer.ledger",
    "MemoryCache": "trainer.cache",
    "MemoryLedger": "trainer.cache",
    "RunResult": "trainer.result",
    "SkillDoc": "trainer.skill",
    "TestLift": "trainer.result",
    "TrainSettings": "trainer.settings",
    "optimize": "trainer.engine",
}
__all__ = sorted(_EXPORTS)


def __getattr__(name: str) -> Any:
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 'trainer' has no attribute {name!r}")
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted([*globals(), *__all__])
