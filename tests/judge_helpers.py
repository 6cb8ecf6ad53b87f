"""What the correction tests ask of mining's compiler: the checks it makes of a correction
without a model (as the judges benchmark reads it), and whether an answer meets them all."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path

from skillopt_sleep.mining.compiler import Compiler
from skillopt_sleep.mining.grammar import Check
from skillopt_sleep.store import open_store
from trainer.checks import passes


def compiler_for(request: str) -> Callable[[Path, str, str, str], list[Check]]:
    """``compiled(tmp_path, said, corrected, accepted)`` for corrections of answers to
    ``request`` (the request is read too: a word it asks for is no rule of the user's)."""

    def compiled(tmp_path: Path, said: str, corrected: str, accepted: str) -> list[Check]:
        rules = Compiler(open_store(tmp_path / "state"), None)
        return rules.compile(said, corrected, request, accepted)

    return compiled


def holds(checks: Sequence[Check], answer: str) -> bool:
    """The answer passes every check."""
    return all(passes(c.kind, c.value, c.scope, answer) for c in checks)
