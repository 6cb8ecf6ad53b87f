"""SIMULATION — a seeded world with latent rules and simulated roles, for tests and
benchmarks only (``world.py``: the world and its tasks; ``agents.py``: target and judge;
``optimizer.py``: the optimizer; ``text.py``: what they share)."""

from trainer.sim.optimizer import OptimizerRates
from trainer.sim.text import LABEL
from trainer.sim.world import Rule, SimParams, SimWorld

__all__ = ["LABEL", "OptimizerRates", "Rule", "SimParams", "SimWorld"]
