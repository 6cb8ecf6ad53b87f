"""Run budgets: calls, tokens, cost and a wall-clock deadline.

Checked before every model call. When one runs out the engine stops cleanly: it keeps the
best skill so far and the result names the budget that ended the run. Usage is what the
endpoint reported (Completion tokens and cost), not an estimate.

Cache replays are charged too (their recorded usage), so a killed run that is resumed
stops at the same point as an uninterrupted one; `live_calls` counts what was really paid.
Within one concurrent batch the check uses the usage at the batch start plus the call's
position in the batch (for tokens and cost, that many calls at the run's average per call),
so which call is refused does not depend on completion order, and a large batch cannot run
through a token or cost limit (and the test's reserve below it) on one early check. The
deadline is the one check that reads the clock, by nature.

A reserve keeps room for work that must follow (the held-out test after training): while
`reserve_calls` is set, every limit is lowered by what that many calls cost at the run's
average so far — calls, tokens and cost per call — so training stops in time for the test
under any budget, not only a call budget. Its time is what the test's own calls (target
rollouts and judge calls) took per call, batch by batch, so concurrency counts and the
optimizer's slow proposals do not: at the run's overall average, a demo night on the
embedded models stopped training after one proposal, three minutes into its ten. A call is
also not started when it would itself end past that line: its role's calls so far tell how
long one takes (an optimizer proposal on a small CPU takes a minute or more). The estimate
can still fall short on a machine that gets busier; the test then measures the tasks both
skills were scored on (`Caller.partial`).
"""

from __future__ import annotations

import threading
import time
from collections.abc import Mapping
from dataclasses import asdict, dataclass, field, fields, replace
from typing import Any, Protocol

BUDGET_KINDS = ("calls", "tokens", "cost", "deadline")
RESERVE_ROLES = ("target", "judge")  # the roles of the held-out test's calls


class Metered(Protocol):
    """What a paid call reports: a chat Completion or a rollout Outcome."""

    input_tokens: int
    output_tokens: int
    cost_usd: float


class BudgetExhausted(Exception):
    """A budget ran out; `kind` is one of BUDGET_KINDS."""

    def __init__(self, kind: str, detail: str = "") -> None:
        super().__init__(f"budget exhausted: {kind}" + (f" ({detail})" if detail else ""))
        self.kind = kind


@dataclass(frozen=True)
class BudgetLimits:
    max_calls: int | None = None
    max_tokens: int | None = None
    max_cost_usd: float | None = None
    deadline: float | None = None  # epoch seconds


@dataclass
class Usage:
    calls: int = 0  # live + replayed, what the budget is checked against
    live_calls: int = 0  # really sent to an endpoint
    cached_calls: int = 0
    input_tokens: int = 0
    output_tokens: int = 0
    cost_usd: float = 0.0
    infra_errors: int = 0
    by_role: dict[str, dict[str, float]] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        d = asdict(self)
        d["cost_usd"] = round(self.cost_usd, 6)
        return d

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Usage:
        """A stored `to_dict()`; what an older copy did not hold reads as none."""
        known = {f.name for f in fields(cls)}
        out = cls(**{k: v for k, v in data.items() if k in known})
        return replace(out, by_role={r: dict(v) for r, v in out.by_role.items()})

    def snapshot(self) -> Usage:
        """A copy that the meter's later calls do not change."""
        return Usage.from_dict(asdict(self))


class Budget:
    """Thread-safe usage meter with limits."""

    def __init__(self, limits: BudgetLimits | None = None, clock: Any = time.time) -> None:
        self.limits = limits or BudgetLimits()
        self.usage = Usage()
        self.reserve_calls = 0  # calls kept for later work (see the module docstring)
        self._clock = clock
        self._started = clock()
        self._lock = threading.Lock()
        self._timed: dict[str, list[float]] = {}  # role -> [wall seconds, live calls]

    def clock(self) -> float:
        return self._clock()

    def timed(self, role: str, seconds: float, live_calls: int) -> None:
        """A batch of `role`'s calls took `seconds` of wall time for `live_calls` paid ones."""
        if live_calls:
            with self._lock:
                t = self._timed.setdefault(role, [0.0, 0])
                t[0] += seconds
                t[1] += live_calls
                # in the usage too: the next night's plan reads its seconds per call from it
                r = self.usage.by_role.setdefault(role, {"calls": 0, "tokens": 0, "cost_usd": 0.0})
                r["seconds"] = r.get("seconds", 0.0) + seconds
                r["timed_calls"] = r.get("timed_calls", 0) + live_calls

    def _per_call(self, roles: tuple[str, ...]) -> float | None:
        """Wall seconds per paid call of `roles`' batches so far; None before the first."""
        with self._lock:
            seconds = sum(self._timed[r][0] for r in roles if r in self._timed)
            live = sum(self._timed[r][1] for r in roles if r in self._timed)
        return seconds / live if live else None

    def snapshot(self) -> tuple[int, int, float]:
        with self._lock:
            u = self.usage
            return u.calls, u.input_tokens + u.output_tokens, u.cost_usd

    def check(
        self,
        snapshot: tuple[int, int, float] | None = None,
        position: int = 0,
        role: str | None = None,
    ) -> None:
        """Raise BudgetExhausted if the next call would exceed a limit (less the reserve);
        `role`: the next call's, so that its own expected time counts against the deadline."""
        calls, toks, cost = snapshot if snapshot is not None else self.snapshot()
        lim = self.limits
        keep = self.reserve_calls
        share = keep / calls if keep and calls else 0.0  # the reserve, per call made so far
        # the reserve and this batch's earlier calls, at the average call so far
        ahead = (keep + position) / calls if calls else 0.0
        note = f", {keep} kept for the held-out test" if keep else ""
        if lim.max_calls is not None and calls + position >= lim.max_calls - keep:
            raise BudgetExhausted("calls", f"{lim.max_calls} calls{note}")
        if lim.max_tokens is not None and toks * (1 + ahead) >= lim.max_tokens:
            raise BudgetExhausted("tokens", f"{lim.max_tokens} tokens{note}")
        if lim.max_cost_usd is not None and cost * (1 + ahead) >= lim.max_cost_usd:
            raise BudgetExhausted("cost", f"${lim.max_cost_usd}{note}")
        if lim.deadline is None:
            return
        now = self._clock()
        test = self._per_call(RESERVE_ROLES)
        ahead = keep * test if test is not None else (now - self._started) * share
        own = self._per_call((role,)) if role is not None else None
        if now + ahead + (own or 0.0) >= lim.deadline:
            raise BudgetExhausted("deadline", note.removeprefix(", "))

    def charge(self, role: str, completion: Metered, *, cached: bool) -> None:
        with self._lock:
            u = self.usage
            u.calls += 1
            if cached:
                u.cached_calls += 1
            else:
                u.live_calls += 1
            u.input_tokens += completion.input_tokens
            u.output_tokens += completion.output_tokens
            u.cost_usd += completion.cost_usd
            r = u.by_role.setdefault(role, {"calls": 0, "tokens": 0, "cost_usd": 0.0})
            r["calls"] += 1
            r["tokens"] += completion.input_tokens + completion.output_tokens
            r["cost_usd"] += completion.cost_usd

    def infra_error(self) -> None:
        with self._lock:
            self.usage.infra_errors += 1
