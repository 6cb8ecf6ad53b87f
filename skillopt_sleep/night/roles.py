"""The models a night calls: its roles from the config, each guarded so that a stop request
ends the night before its next paid call, progress is counted, and a failed call is told to
the night (which names the role, model and URL in its report).
"""

from __future__ import annotations

import contextlib
import os
import threading
from collections.abc import Callable, Mapping
from typing import Any, Generic, TypeVar

from skillopt_sleep.health.endpoints import url_of
from skillopt_sleep.settings import config as config_mod
from trainer.backends.base import ChatBackend, Completion, InfraError, Message, Roles
from trainer.backends.config import ROLE_NAMES
from trainer.calls import Stopped  # the night asked to stop (SIGTERM): work is checkpointed
from trainer.rollout import Outcome, RolloutAdapter
from trainer.skill import SkillDoc
from trainer.tasks import Task


def default_roles(
    config: Mapping[str, Any], tasks: list[Task]
) -> contextlib.AbstractContextManager[Roles]:
    """Roles from ``models:``; the embedded local model when no endpoint is configured."""
    from trainer.backends.factory import build_roles

    world = None
    if config["models"].get("backend") == "sim":
        from trainer.sim import SimWorld

        world = SimWorld.for_tasks(tasks, seed=int(config["trainer"]["seed"]))
    log_dir = config_mod.state_dir(config)  # local-model-<model>.log per embedded model
    return build_roles(config["models"], os.environ, local_log_dir=log_dir, sim_world=world)


OnFailure = Callable[[str, Any, InfraError], None]  # role, its backend or adapter, error


Inner = TypeVar("Inner", ChatBackend, RolloutAdapter)


class Guarded(Generic[Inner]):
    """A backend that refuses to start a call once the night is asked to stop, reports
    progress, and tells the night about a failed call; cached calls never reach it, so
    it only sees paid work."""

    def __init__(
        self,
        inner: Inner,
        stop: threading.Event,
        tick: Callable[[], None],
        role: str,
        on_failure: OnFailure,
    ):
        self.inner: Inner = inner
        self.identity = inner.identity
        self.concurrency = inner.concurrency
        self.simulation = getattr(inner, "simulation", False)
        self._stop = stop
        self._tick = tick
        self._role = role
        self._on_failure = on_failure

    def _paid(self, call: Callable[[], Any]) -> Any:
        if self._stop.is_set():
            raise Stopped()
        try:
            result = call()
        except InfraError as exc:
            self._on_failure(self._role, self.inner, exc)
            raise
        self._tick()
        return result


class GuardedChat(Guarded[ChatBackend]):
    """A role's chat backend, guarded."""

    def complete(self, messages: list[Message], **kwargs: Any) -> Completion:
        return self._paid(lambda: self.inner.complete(messages, **kwargs))


def guard(
    roles: Roles, stop: threading.Event, tick: Callable[[], None], on_failure: OnFailure
) -> Roles:
    """Each role's backend guarded (see ``Guarded``)."""
    return Roles(
        **{r: GuardedChat(getattr(roles, r), stop, tick, r, on_failure) for r in ROLE_NAMES}
    )


def config_of(backend: Any) -> Any:
    """The endpoint settings behind a backend, or behind a chat rollout's backend."""
    inner = getattr(backend, "backend", None)
    return getattr(backend, "config", None) or getattr(inner, "config", None)


def where(roles: Roles) -> str:
    """``optimizer gpt-4o-mini at https://…; target …`` (one phrase when all are the same)."""
    parts = {}
    for role in ROLE_NAMES:
        cfg = config_of(getattr(roles, role))
        if cfg is not None:
            parts[role] = f"{cfg.model} at {url_of(cfg)}"
    if len(parts) == len(ROLE_NAMES) and len(set(parts.values())) == 1:
        return f"every role on {parts['target']}"
    return "; ".join(f"{role} {where}" for role, where in parts.items())


class GuardedRollout(Guarded[RolloutAdapter]):
    """The target's rollouts (chat or agent harness), guarded like calls."""

    def fingerprint(self, skill: SkillDoc, task: Task, max_tokens: int | None) -> Any:
        return self.inner.fingerprint(skill, task, max_tokens)

    def rollout(self, skill: SkillDoc, task: Task, *, max_tokens: int | None) -> Outcome:
        return self._paid(lambda: self.inner.rollout(skill, task, max_tokens=max_tokens))
