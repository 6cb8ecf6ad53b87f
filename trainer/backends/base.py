"""What the trainer needs from a model endpoint, whatever serves it."""

from __future__ import annotations

from dataclasses import dataclass, fields
from typing import Any, Protocol

Message = dict[str, str]  # {"role": "system" | "user" | "assistant", "content": str}


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
