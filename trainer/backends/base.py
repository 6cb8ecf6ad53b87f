"""What the trainer needs from a model endpoint, whatever serves it."""

from __future__ import annotations

import contextlib
import contextvars
import hashlib
from collections.abc import Iterator
from dataclasses import dataclass, fields
from typing import Any, Protocol

Message = dict[str, str]  # {"role": "system" | "user" | "assistant", "content": str}

_SAMPLE_SEED: contextvars.ContextVar[int | None] = contextvars.ContextVar(
    "sample_seed", default=None
)


def sample_seed() -> int | None:
    """The sampler seed for the answer being drawn in this thread, if the trainer set one.

    It depends on the task and the sample only, never on the skill: a backend that seeds its
    sampler with it draws two skills' answers to one task and sample from the same random
    stream (common random numbers). Where the skills barely differ the answers then barely
    differ, so the paired difference the gate tests has far less noise; the pair is still one
    draw per skill, so every mean and test stays what it was. Backends that cannot seed
    ignore it."""
    return _SAMPLE_SEED.get()


def paired_seed(task_id: str, sample: int | str) -> int:
    """The seed of (task, sample), the same for every skill (a 31-bit int: llama.cpp and the
    OpenAI API both take it)."""
    digest = hashlib.sha256(f"{task_id}\x00{sample}".encode()).digest()
    return int.from_bytes(digest[:4], "big") & 0x7FFFFFFF


@contextlib.contextmanager
def seeded_sample(seed: int | None) -> Iterator[None]:
    """Within, `sample_seed()` in this thread is `seed`."""
    token = _SAMPLE_SEED.set(seed)
    try:
        yield
    finally:
        _SAMPLE_SEED.reset(token)


class ModelConfigError(ValueError):
    """The ``models:`` settings and the environment cannot make a backend (no API key, an
    unknown setting or model): the user fixes the config, nothing was called. A
    ValueError, as it was before it had a name."""


class InfraError(Exception):
    """The endpoint failed (after retries): the call has no answer. Never a task failure."""


class ContextOverflow(Exception):
    """The endpoint refused the request because it does not fit the model's context. Not an
    outage: the same request always overflows. For a rollout it is the answer — a skill too
    long for the model has failed that task."""


@dataclass(frozen=True)
class Completion:
    text: str
    input_tokens: int = 0
    output_tokens: int = 0
    cost_usd: float = 0.0
    overflow: bool = False  # the request did not fit the context (see ContextOverflow)


class ChatBackend(Protocol):
    """One model endpoint in one role. Implementations must be safe to call from threads."""

    identity: str  # model and answer-changing settings; part of every cache key
    concurrency: int  # calls in flight at most

    def complete(
        self,
        messages: list[Message],
        *,
        json_schema: dict[str, Any] | None = None,
        max_tokens: int | None = None,
    ) -> Completion: ...


@dataclass
class Roles:
    """The three roles of a run: who edits the skill, who uses it, who grades the answers."""

    optimizer: ChatBackend
    target: ChatBackend
    judge: ChatBackend


def describe_roles(roles: Roles) -> dict[str, dict[str, Any]]:
    """Role -> what serves it (model, backend, ...), for reports: a backend's
    ``description`` when it has one; the simulated world says it is a simulation."""
    out: dict[str, dict[str, Any]] = {}
    for f in fields(roles):
        backend = getattr(roles, f.name)
        desc = getattr(backend, "description", None)
        if desc is None:
            sim = bool(getattr(backend, "simulation", False))
            desc = {
                "model": "simulated" if sim else str(getattr(backend, "identity", "?")),
                "backend": "sim" if sim else type(backend).__name__,
            }
        out[f.name] = dict(desc)
    return out
