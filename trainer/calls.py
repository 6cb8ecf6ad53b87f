"""Model calls: cache, budget, concurrency and infrastructure errors in one place.

The engine hands a batch of requests for one role; answers come back in request order
whatever order the threads finish in. Each call runs with its cache key in a context
variable (`current_call_key()`): real endpoints ignore it, deterministic backends such as
the simulation seed their randomness from it, which is what makes a concurrent, resumed
run end exactly like a sequential, uninterrupted one.
"""

from __future__ import annotations

import contextvars
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Any

from trainer.backends.base import (
    ChatBackend,
    Completion,
    ContextOverflow,
    InfraError,
    Message,
    Roles,
)
from trainer.budget import Budget, BudgetExhausted
from trainer.cache import Cache, cache_key

_CALL_KEY: contextvars.ContextVar[str | None] = contextvars.ContextVar("call_key", default=None)


def current_call_key() -> str | None:
    """The cache key of the call being made in this thread, if any."""
    return _CALL_KEY.get()


@dataclass(frozen=True)
class Request:
    messages: list[Message]
    skill_hash: str
    task_id: str
    sample: int | str
    json_schema: dict[str, Any] | None = None
    max_tokens: int | None = None
    extra: dict[str, Any] = field(default_factory=dict)  # settings that change the answer

    def key(self, role: str, identity: str) -> str:
        prompt = [self.messages, self.json_schema, self.max_tokens, self.extra]
        return cache_key(
            skill_hash=self.skill_hash,
            task_id=self.task_id,
            role=role,
            sample=self.sample,
            identity=identity,
            prompt=prompt,
        )


class Caller:
    def __init__(self, roles: Roles, cache: Cache, budget: Budget) -> None:
        self.roles = roles
        self.cache = cache
        self.budget = budget

    def backend(self, role: str) -> ChatBackend:
        return getattr(self.roles, role)

    def run(self, role: str, requests: list[Request]) -> list[Completion | None]:
        """Answers in request order; None where the endpoint failed (counted, not scored).

        Raises BudgetExhausted (the first refused position) after the batch settles; any
        other exception (a kill) also propagates only after finished calls are cached.
        """
        backend = self.backend(role)
        snapshot = self.budget.snapshot()
        identity = backend.identity

        def one(i: int) -> Completion | None | BaseException:
            try:
                return self._one(role, backend, identity, requests[i], snapshot, i)
            except BaseException as err:  # noqa: BLE001 - re-raised by the caller below
                return err

        workers = max(1, min(int(backend.concurrency or 1), len(requests)))
        if workers == 1:
            results: list[Any] = [one(i) for i in range(len(requests))]
        else:
            with ThreadPoolExecutor(max_workers=workers) as pool:
                results = list(pool.map(one, range(len(requests))))
        for r in results:
            if isinstance(r, BaseException) and not isinstance(r, BudgetExhausted):
                raise r
        for r in results:
            if isinstance(r, BudgetExhausted):
                raise r
        return results

    def _one(
        self,
        role: str,
        backend: ChatBackend,
        identity: str,
        req: Request,
        snapshot: tuple[int, int, float],
        position: int,
    ) -> Completion | None:
        self.budget.check(snapshot, position)
        key = req.key(role, identity)
        hit = self.cache.get(key)
        if hit is not None:
            comp = Completion(
                text=str(hit["text"]),
                input_tokens=int(hit.get("input_tokens", 0)),
                output_tokens=int(hit.get("output_tokens", 0)),
                cost_usd=float(hit.get("cost_usd", 0.0)),
                overflow=bool(hit.get("overflow", False)),
            )
            self.budget.charge(role, comp, cached=True)
            return comp
        token = _CALL_KEY.set(key)
        try:
            comp = _call(backend.complete, req)
        except ContextOverflow:  # an answer of sorts: it would overflow again, so it is cached
            comp = Completion(text="", overflow=True)
        except InfraError:  # failures are not cached: a resumed run retries them
            self.budget.infra_error()
            return None
        finally:
            _CALL_KEY.reset(token)
        self.cache.put(
            key,
            {
                "text": comp.text,
                "input_tokens": comp.input_tokens,
                "output_tokens": comp.output_tokens,
                "cost_usd": comp.cost_usd,
                **({"overflow": True} if comp.overflow else {}),
            },
        )
        self.budget.charge(role, comp, cached=False)
        return comp


def _call(fn: Callable[..., Completion], req: Request) -> Completion:
    return fn(req.messages, json_schema=req.json_schema, max_tokens=req.max_tokens)
