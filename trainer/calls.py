"""Model calls: cache, budget, concurrency and infrastructure errors in one place.

The engine hands a batch of chat requests for one role, or of rollouts for the target
(through its `RolloutAdapter`); results come back in order whatever order the threads
finish in, and both kinds share one cache, one budget and one rule for endpoint failures.
Each call runs with its cache key in a context variable (`current_call_key()`): real
endpoints ignore it, deterministic backends such as the simulation seed their randomness
from it, which is what makes a concurrent, resumed run end exactly like a sequential,
uninterrupted one.

A run asked to stop (its `stop` event set, e.g. on SIGTERM) raises `Stopped` at the next
call, cached or not, before its cache key is computed (a large skill's key is tens of
milliseconds), wherever the loop calls `Caller.checkpoint` between longer pieces of work,
and within `STOP_POLL_S` while a batch waits on calls in flight (those are abandoned, not
waited for); what was paid for is cached, so a rerun replays it.
"""

from __future__ import annotations

import contextlib
import contextvars
import functools
import threading
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

from trainer.backends.base import (
    ChatBackend,
    Completion,
    ContextOverflow,
    InfraError,
    Message,
    Roles,
    paired_seed,
    seeded_sample,
)
from trainer.budget import Budget, BudgetExhausted
from trainer.cache import Cache, cache_key
from trainer.rollout import Outcome, RolloutAdapter
from trainer.skill import SkillDoc
from trainer.tasks import Task

STOP_POLL_S = 0.2  # how often a batch waiting on its calls looks at the stop event


class Stopped(Exception):
    """The run was asked to stop; everything paid for so far is in the cache."""


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
    def __init__(
        self, roles: Roles, cache: Cache, budget: Budget, stop: threading.Event | None = None
    ) -> None:
        self.roles = roles
        self.cache = cache
        self.budget = budget
        self.stop = stop
        self._refused: list[BudgetExhausted] | None = None  # inside `partial()`

    def checkpoint(self) -> None:
        """Raise Stopped if the run was asked to stop."""
        if self.stop is not None and self.stop.is_set():
            raise Stopped()

    @contextlib.contextmanager
    def partial(self) -> Iterator[list[BudgetExhausted]]:
        """Inside, a call the budget refuses gives None (like a failed one) instead of
        ending its batch; the refusals are collected in the list this yields. For work
        whose finished part is still worth having: the held-out test, when the deadline
        comes a few calls before its end."""
        self._refused = refused = []
        try:
            yield refused
        finally:
            self._refused = None

    def backend(self, role: str) -> ChatBackend:
        return getattr(self.roles, role)

    def run(self, role: str, requests: list[Request]) -> list[Completion | None]:
        """Answers in request order; None where the endpoint failed (counted, not scored).

        Raises BudgetExhausted (the first refused position) after the batch settles; any
        other exception (a kill) also propagates only after finished calls are cached.
        """
        backend = self.backend(role)
        identity = backend.identity
        calls = [
            _Call(
                functools.partial(req.key, role, identity),
                functools.partial(_complete, backend.complete, req),
            )
            for req in requests
        ]
        return self._batch(role, backend.concurrency, calls, _completion_from, _completion_to)

    def rollouts(
        self, adapter: RolloutAdapter, jobs: list[RolloutJob], max_tokens: int | None
    ) -> list[Outcome | None]:
        """The target's outcomes in job order, cached and budgeted like calls (role
        "target"); None where the adapter raised InfraError. Each attempt is drawn with the
        seed of its task and sample (`paired_seed`), whatever the skill."""
        calls = [
            _Call(
                functools.partial(job.key, adapter, max_tokens),
                functools.partial(adapter.rollout, job.skill, job.task, max_tokens=max_tokens),
                paired_seed(job.task.id, job.sample),
            )
            for job in jobs
        ]
        return self._batch("target", adapter.concurrency, calls, Outcome.from_dict, _outcome_to)

    def _batch(
        self,
        role: str,
        concurrency: int,
        calls: list[_Call],
        decode: Callable[[dict], Any],
        encode: Callable[[Any], dict],
    ) -> list[Any]:
        snapshot = self.budget.snapshot()
        started, paid = self.budget.clock(), self.budget.usage.live_calls

        def one(i: int) -> Any:
            try:
                return self._one(role, calls[i], snapshot, i, decode, encode)
            except BaseException as err:  # noqa: BLE001 - re-raised by the caller below
                return err

        workers = max(1, min(int(concurrency or 1), len(calls)))
        results = self._gather(one, len(calls), workers)
        # batches run one at a time, so the live calls since the start are this batch's
        self.budget.timed(role, self.budget.clock() - started, self.budget.usage.live_calls - paid)
        for r in results:
            if isinstance(r, BaseException) and not isinstance(r, BudgetExhausted):
                raise r
        refused = [r for r in results if isinstance(r, BudgetExhausted)]
        if refused and self._refused is None:
            raise refused[0]
        if refused:
            self._refused.extend(refused)
            results = [None if isinstance(r, BudgetExhausted) else r for r in results]
        return results

    def _gather(self, one: Callable[[int], Any], n: int, workers: int) -> list[Any]:
        """``one(0..n-1)`` on ``workers`` daemon threads, results in order. A stop request
        raises Stopped at once, whatever is in flight: a slow model call (minutes, for a
        proposal on a busy CPU) is abandoned, not waited for, and the process can exit
        without joining it; what it returns later is cached by it like any answer."""
        pending = object()
        results: list[Any] = [pending] * n
        todo = iter(range(n))
        cond = threading.Condition()
        context = contextvars.copy_context()

        def work() -> None:
            while True:
                with cond:
                    i = next(todo, None)
                if i is None:
                    return
                r = context.copy().run(one, i)
                with cond:
                    results[i] = r
                    cond.notify_all()

        for _ in range(workers):
            threading.Thread(target=work, daemon=True).start()
        with cond:
            while any(r is pending for r in results):
                self.checkpoint()
                cond.wait(STOP_POLL_S)
        return results

    def _one(
        self,
        role: str,
        call: _Call,
        snapshot: tuple[int, int, float],
        position: int,
        decode: Callable[[dict], Any],
        encode: Callable[[Any], dict],
    ) -> Any:
        self.checkpoint()
        self.budget.check(snapshot, position, role)
        key = call.key()
        hit = self.cache.get(key)
        if hit is not None:
            value = decode(hit)
            self.budget.charge(role, value, cached=True)
            return value
        token = _CALL_KEY.set(key)
        try:
            with seeded_sample(call.seed):
                value = call.compute()
        except InfraError:  # failures are not cached: a resumed run retries them
            self.budget.infra_error()
            return None
        finally:
            _CALL_KEY.reset(token)
        self.cache.put(key, encode(value))
        self.budget.charge(role, value, cached=False)
        return value


@dataclass(frozen=True)
class RolloutJob:
    """One attempt of the target: a skill on a task, as sample `sample`."""

    skill: SkillDoc
    task: Task
    sample: int | str

    def key(self, adapter: RolloutAdapter, max_tokens: int | None) -> str:
        return cache_key(
            skill_hash=self.skill.hash,
            task_id=self.task.id,
            role="target",
            sample=self.sample,
            identity=adapter.identity,
            prompt=adapter.fingerprint(self.skill, self.task, max_tokens),
        )


@dataclass(frozen=True)
class _Call:
    key: Callable[[], str]  # computed when the call's turn comes
    compute: Callable[[], Any]
    seed: int | None = None  # the sampler seed the call runs under (base.sample_seed)


def _complete(fn: Callable[..., Completion], req: Request) -> Completion:
    try:
        return fn(req.messages, json_schema=req.json_schema, max_tokens=req.max_tokens)
    except ContextOverflow:  # an answer of sorts: it would overflow again, so it is cached
        return Completion(text="", overflow=True)


def _completion_from(hit: dict) -> Completion:
    return Completion(
        text=str(hit["text"]),
        input_tokens=int(hit.get("input_tokens", 0)),
        output_tokens=int(hit.get("output_tokens", 0)),
        cost_usd=float(hit.get("cost_usd", 0.0)),
        overflow=bool(hit.get("overflow", False)),
    )


def _completion_to(comp: Completion) -> dict:
    out = {
        "text": comp.text,
        "input_tokens": comp.input_tokens,
        "output_tokens": comp.output_tokens,
        "cost_usd": comp.cost_usd,
    }
    return {**out, "overflow": True} if comp.overflow else out


def _outcome_to(outcome: Outcome) -> dict:
    return outcome.to_dict()
