"""The validation-gated skill optimization loop. Knows nothing of sessions or SQLite.

One public entry point, `optimize(skill, tasks, roles, settings=..., cache=..., ledger=...)`,
returning a `RunResult` (with `write_outputs(out_dir)`). The gate is `trainer.gate.decide`;
the simulated world for tests and benchmarks is `trainer.sim.SimWorld` (SIMULATION).
"""

from trainer.budget import BudgetLimits
from trainer.cache import Cache, JsonLedger, Ledger, MemoryCache, MemoryLedger
from trainer.engine import optimize
from trainer.result import RunResult, TestLift
from trainer.settings import TrainSettings
from trainer.skill import SkillDoc

__all__ = [
    "BudgetLimits",
    "Cache",
    "JsonLedger",
    "Ledger",
    "MemoryCache",
    "MemoryLedger",
    "RunResult",
    "SkillDoc",
    "TestLift",
    "TrainSettings",
    "optimize",
]
