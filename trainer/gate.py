"""The validation gate: accept a candidate skill only on paired, held-out evidence.

Why not "accept if the mean went up": with a noisy target and one sample per task that
rule accepts edits that change nothing about a third of the time. Here, per task,
d_i = mean(candidate samples) − mean(incumbent samples), and the one-sided null
"the candidate is no better" is tested with a sign-flip permutation test on sum(d):
under the null each d_i is symmetric around 0, so every pattern of signs is equally likely.

p-value. Tied tasks (d_i = 0) carry no sign information; flipping them does not move the
statistic, so the p-value over all 2^n patterns equals the p-value over the 2^m patterns of
the m non-zero differences. It is computed exactly:
  * by enumerating the 2^m sign patterns when m <= EXACT_MAX_N (16);
  * above that, exactly by convolution when the differences lie on a grid (always true for
    rule judges: d_i is a multiple of 1/(k·W) for k samples and integer judge weights);
  * otherwise by Monte Carlo with a fixed seed, p = (1 + hits) / (1 + draws), which never
    under-states p.

Underpowered. The smallest p any outcome can reach is 2^-m (all non-zero differences
positive). If 2^-n > alpha the val set is too small by design; if 2^-m > alpha too few
tasks disagree for the data to show anything (e.g. both skills always pass the same
tasks). In both cases no result could have been accepted, so the verdict is "underpowered"
— an honest "this evidence cannot decide" rather than a "reject" that reads as evidence
against the edit. Blocking regressions are checked first: they are evidence, whatever n.

Pure function, no I/O, deterministic.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np

EXACT_MAX_N = 16
MC_DRAWS = 20_000
MC_SEED = 20_240_601
_GRID_MAX = 720  # largest grid denominator tried
_EPS = 1e-9


@dataclass(frozen=True)
class Decision:
    verdict: str  # "accept" | "reject" | "underpowered"
    effect: float  # mean paired difference, candidate − incumbent
    p_value: float
    n_tasks: int
    regressions: tuple[int, ...] = ()
    n_nonzero: int = 0
    alpha: float = 0.05
    method: str = ""  # "exact" | "exact-grid" | "monte-carlo" | "none"
    reason: str = ""
    diffs: tuple[float, ...] = field(default=(), repr=False)

    def to_dict(self) -> dict[str, Any]:
        return {
            "verdict": self.verdict,
            "effect": round(self.effect, 6),
            "p_value": round(self.p_value, 6),
            "n_tasks": self.n_tasks,
            "n_nonzero": self.n_nonzero,
            "alpha": self.alpha,
            "regressions": list(self.regressions),
            "method": self.method,
            "reason": self.reason,
        }


def _p_exact(d: np.ndarray) -> float:
    m = len(d)
    patterns = np.arange(2**m, dtype=np.int64)[:, None]
    signs = 1 - 2 * ((patterns >> np.arange(m)) & 1)  # pattern 0 = all +
    stats = signs @ d
    return float(np.mean(stats >= d.sum() - _EPS))


def _grid(d: np.ndarray) -> int | None:
    for k in range(1, _GRID_MAX + 1):
        scaled = d * k
        if np.all(np.abs(scaled - np.round(scaled)) < 1e-7):
            return k if np.abs(np.round(scaled)).sum() <= 200_000 else None
    return None


def _p_grid(d: np.ndarray, k: int) -> float:
    """Exact sign-flip distribution of sum(v_i * s_i) for integers v_i, by convolution."""
    v = np.abs(np.round(d * k)).astype(np.int64)
    total = int(v.sum())
    dist = np.zeros(2 * total + 1)
    dist[total] = 1.0
    for x in v:
        if x:
            dist = 0.5 * (np.roll(dist, x) + np.roll(dist, -x))  # no wrap: support fits
    observed = int(np.round(d * k).sum())
    return float(min(1.0, dist[observed + total :].sum()))


def _p_monte_carlo(d: np.ndarray) -> float:
    rng = np.random.default_rng(MC_SEED)
    hits = 0
    for start in range(0, MC_DRAWS, 5000):
        n = min(5000, MC_DRAWS - start)
        signs = rng.choice(np.array([-1.0, 1.0]), size=(n, len(d)))
        hits += int(np.sum(signs @ d >= d.sum() - _EPS))
    return (1 + hits) / (1 + MC_DRAWS)


def sign_flip_p(d: np.ndarray) -> tuple[float, str]:
    """One-sided p-value of sum(d) under random sign flips, and the method used."""
    d = d[np.abs(d) > _EPS]
    if len(d) == 0:
        return 1.0, "none"
    if len(d) <= EXACT_MAX_N:
        return _p_exact(d), "exact"
    k = _grid(d)
    if k is not None:
        return _p_grid(d, k), "exact-grid"
    return _p_monte_carlo(d), "monte-carlo"


def decide(
    candidate: list[list[float]],
    incumbent: list[list[float]],
    *,
    alpha: float = 0.05,
    min_effect: float = 0.0,
    no_regression: float | None = None,
) -> Decision:
    """Paired gate verdict for per-task sample scores (same task order in both lists)."""
    if len(candidate) != len(incumbent):
        raise ValueError("candidate and incumbent must cover the same tasks")
    if not 0 < alpha < 1:
        raise ValueError("alpha must be in (0, 1)")
    for row in (*candidate, *incumbent):
        if not row:
            raise ValueError("every task needs at least one score on both sides")
    d = np.array([np.mean(c) - np.mean(i) for c, i in zip(candidate, incumbent, strict=True)])
    n = len(d)
    m = int(np.sum(np.abs(d) > _EPS))
    effect = float(d.mean()) if n else 0.0
    regressions: tuple[int, ...] = ()
    if no_regression is not None:
        regressions = tuple(int(i) for i in np.flatnonzero(d < -no_regression - _EPS))

    def out(verdict: str, p: float, method: str, reason: str) -> Decision:
        return Decision(
            verdict, effect, p, n, regressions, m, alpha, method, reason, tuple(map(float, d))
        )

    if n == 0 or math.ldexp(1.0, -n) > alpha:
        return out("underpowered", 1.0, "none", f"{n} tasks cannot reach alpha={alpha:g}")
    p, method = sign_flip_p(d)
    if regressions:
        return out("reject", p, method, f"{len(regressions)} task(s) regressed beyond tolerance")
    if math.ldexp(1.0, -m) > alpha:
        return out("underpowered", p, method, f"only {m} of {n} tasks differ; cannot reach alpha")
    if effect <= 0 or effect < min_effect - _EPS:
        return out("reject", p, method, f"effect {effect:+.3f} below minimum {min_effect:g}")
    if p > alpha:
        return out("reject", p, method, f"p={p:.4f} > alpha={alpha:g}")
    return out("accept", p, method, f"effect {effect:+.3f}, p={p:.4f}")


Scores = list[list[float]]


def _both(cand: Scores, inc: Scores) -> tuple[Scores, Scores]:
    keep = [i for i in range(len(cand)) if cand[i] and inc[i]]
    return [cand[i] for i in keep], [inc[i] for i in keep]


@dataclass(frozen=True)
class Looks:
    decision: Decision
    samples: int  # per task and side at the last look
    futility_stop: bool
    dropped_tasks: int  # tasks without a score on one side (endpoint failures)


def decide_in_looks(
    draw: Callable[[range], tuple[Scores, Scores]],
    *,
    step: int,
    top: int,
    alpha: float = 0.05,
    min_effect: float = 0.0,
    no_regression: float | None = None,
    verdict: Callable[..., Decision] = decide,
) -> Looks:
    """Group-sequential use of the gate: draw `step` fresh samples per task and side, and
    more in looks of `step` up to `top`, stopping early only for futility (mean effect <= 0).

    Why it keeps the level: the single efficacy test is the one at the end; a futility stop
    can only remove chances to accept. Why it pays: losers cost one look, likely winners get
    the full sample size. `draw(samples)` returns per-task score lists (possibly empty when
    a sample failed) for candidate and incumbent, for those sample indices.
    """
    cand, inc = draw(range(step))
    cand, inc = [list(x) for x in cand], [list(x) for x in inc]
    k, futile = step, False
    while k < top:
        c, i = _both(cand, inc)
        if (
            not c
            or sum(float(np.mean(a)) - float(np.mean(b)) for a, b in zip(c, i, strict=True)) <= 0
        ):
            futile = True
            break
        more = range(k, min(top, k + step))
        c2, i2 = draw(more)
        for side, add in ((cand, c2), (inc, i2)):
            for scores, new in zip(side, add, strict=True):
                scores.extend(new)
        k = more.stop
    c, i = _both(cand, inc)
    d = verdict(c, i, alpha=alpha, min_effect=min_effect, no_regression=no_regression)
    return Looks(d, k, futile, len(cand) - len(c))
