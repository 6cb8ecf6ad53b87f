"""The validation gate: accept a candidate skill only on held-out evidence that it is better.

Data. The gate works in sweeps: one sweep is one fresh sample of the candidate and one of
the incumbent on every val task. `candidate[i][s]` and `incumbent[i][s]` are the scores of
task i in sweep s (NaN: no score, e.g. the endpoint failed), x = candidate − incumbent.
Both sides of one (task, sweep) are drawn with the same sampler seed where the endpoint
takes one (`trainer.backends.base.sample_seed`): the pair is still one draw of each skill,
so E[x] is the same, but two similar skills then answer alike and x carries less noise.
Seeds differ between tasks and sweeps, so what follows holds as it would without them.

Null. H0: the mean over the val tasks of E[x] is <= `min_effect` — the candidate is no
better on average. This is the weak null: an edit that helps some tasks and hurts more of
them is a null, so it matters not where a gain shows, only whether the average moves.

E-process. For a bet λ in [0, 1), W_λ = Π over sweeps and tasks of (1 + λ·(x − min_effect)).
The tasks of one sweep are independent draws, so under H0
    E[Π_i (1 + λ y_i)] = Π_i (1 + λ E[y_i]) <= exp(λ Σ_i E[y_i]) <= 1      (1 + u <= e^u):
every sweep multiplies the wealth by a factor whose expectation is at most 1, whatever came
before. One bet for all tasks of a sweep is what makes this hold for the *mean* over tasks
(betting task by task would need every task to be a null). The e-value E is the average of
W_λ over a fixed grid of bets — a mixture, so no bet has to be guessed, and a mixture of test
supermartingales is one. Ville's inequality then bounds P(E ever reaches 1/alpha | H0) by
alpha, however long one samples and whenever one stops: sampling may go on until the data
decide, and across nights, as long as new sweeps are fresh draws on the same val tasks
against the same incumbent. 1/max(E) is an anytime-valid p-value; the report shows both.

Why not "accept if the mean went up": with a noisy target and one sample per task that rule
accepts edits that change nothing about half the time (benchmarks/gate.py).

Verdicts.
  accept   E reached 1/alpha (a blocking regression still rejects);
  reject   after at least FUTILITY_PAIRS paired samples the mean effect is <= min_effect: the
           data point against a gain (a futility stop can only remove chances to accept, so
           it costs no alpha);
  pending  neither yet. The caller samples more; at its cap the candidate stays pending with
           this evidence — underpowered so far, which is not evidence against it.
Every verdict is monotone: more candidate score (or less incumbent score) never turns an
accept into anything else. The engine relies on that (see its docstring).

Pure function, no I/O, deterministic.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

# Bets from 0.9 down to 0.11, each sqrt(2) apart: a skill that turns failures into passes
# grows the large ones, an effect of a few points the small ones. The best bet for a mean
# effect e is about e / E[x²] (E[x²] ~ 0.2 on a noisy target), and an effect under 2 points
# grows a bet below 0.1 so slowly that PENDING_NIGHTS nights of max_samples sweeps of 50 val
# tasks would not decide it: smaller bets would only dilute the mixture (benchmarks/learning.py:
# 5% fewer calls without them).
BETS = tuple(0.9 * 2 ** (-j / 2) for j in range(7))
FUTILITY_PAIRS = 100  # paired samples before a futility stop (see benchmarks/gate.py)
# Stop for tonight (pending) when, at the rate seen so far, the e-process would need more than
# GIVE_UP × the sweeps left. After two sweeps that rate is a noisy estimate, but an edit given
# up on early is not lost: the next step builds on it if it looked promising (engine).
# benchmarks/learning.py over seeds 0-399, lift as a share of the naive rule's / calls:
# GIVE_UP 2: 1.037 / 3.07×; 1.5: 1.020 / 2.94×; 1.25: 1.024 / 2.87×; 1: 1.007 / 2.81×.
GIVE_UP = 1.25
METHOD = f"e-process: mixture of {len(BETS)} bets over sweeps (weak null)"


def controls(alpha: float) -> str:
    """What the gate's level bounds, in words for the report. The engine splits `alpha` over
    a run's planned steps (online Bonferroni with fallback), so it bounds the family-wise
    false-accept rate of a run (one skill, one night) — not a false-discovery rate over
    accepted edits."""
    return (
        f"family-wise false-accept rate {alpha:g} per skill and night: the chance that a "
        "night's training of a skill accepts any edit that is no better on average over its "
        f"val tasks, tonight or when a later night settles it, is at most {alpha:g} "
        f"({METHOD})"
    )


Scores = Sequence[Sequence[float]]


@dataclass(frozen=True)
class Decision:
    verdict: str  # "accept" | "reject" | "pending"
    effect: float  # mean paired difference, candidate − incumbent
    e_value: float  # the e-process now (evidence for the candidate; 1 = none)
    p_value: float  # anytime-valid: 1 / the largest e-value reached, capped at 1
    n_tasks: int
    sweeps: int = 0
    pairs: int = 0  # paired samples with a score on both sides
    alpha: float = 0.05
    se: float = math.nan  # standard error of the effect (pairs treated as independent)
    regressions: tuple[int, ...] = ()
    more_sweeps: float | None = None  # at the observed rate, sweeps until E reaches 1/alpha
    method: str = METHOD
    reason: str = ""
    diffs: tuple[float, ...] = field(default=(), repr=False)  # per-task mean difference

    @property
    def needed(self) -> float:
        """The e-value that accepts."""
        return 1 / self.alpha

    def to_dict(self) -> dict[str, Any]:
        return {
            "verdict": self.verdict,
            "effect": round(self.effect, 6),
            "e_value": _round_e(self.e_value),
            "e_needed": _round_e(self.needed),
            "p_value": round(self.p_value, 6),
            "n_tasks": self.n_tasks,
            "sweeps": self.sweeps,
            "pairs": self.pairs,
            "alpha": self.alpha,
            "se": None if math.isnan(self.se) else round(self.se, 6),
            "regressions": list(self.regressions),
            "more_sweeps": None if self.more_sweeps is None else round(self.more_sweeps, 1),
            "method": self.method,
            "reason": self.reason,
            "decides": self.decides(),
            "n_differ": self.n_differ,
        }

    @property
    def n_differ(self) -> int:
        """Val tasks on which the two skills scored differently on average: few of them
        means the target barely reacts to the skill's text (the report's advice)."""
        return sum(1 for d in self.diffs if not math.isnan(d) and abs(d) > 1e-9)

    def decides(self) -> str:
        """What would settle an undecided comparison, in words for the report."""
        if self.verdict != "pending":
            return ""
        need = f"accepted when its e-value reaches {self.needed:.3g} (now {self.e_value:.3g})"
        if self.more_sweeps is not None:
            need += (
                f"; at the rate seen so far about {math.ceil(self.more_sweeps)} more sweep(s) "
                f"of {self.n_tasks} val tasks"
            )
        else:
            need += "; at the rate seen so far it would not get there"
        return (
            f"{need}; rejected if, after {FUTILITY_PAIRS} paired samples, its mean effect is "
            "not above the minimum effect"
        )


def _round_e(e: float) -> float:
    return float(f"{e:.4g}") if math.isfinite(e) else e


def _matrix(scores: Scores) -> np.ndarray:
    rows = [len(r) for r in scores]
    if rows and min(rows) != max(rows):
        raise ValueError("every task needs the same number of sweeps")
    return np.array(scores, dtype=float).reshape(len(rows), rows[0] if rows else 0)


def log_e_path(y: np.ndarray) -> np.ndarray:
    """log E after each sweep, for shifted differences y (tasks × sweeps, NaN = missing)."""
    lam = np.array(BETS)  # y >= -1.1 (min_effect < 0.1), so every factor stays positive
    terms = np.log1p(lam[:, None, None] * np.nan_to_num(y)[None])  # bets × tasks × sweeps
    per_bet = np.cumsum(terms.sum(axis=1), axis=1)  # bets × sweeps
    top = per_bet.max(axis=0)
    return top + np.log(np.mean(np.exp(per_bet - top), axis=0))


def decide(
    candidate: Scores,
    incumbent: Scores,
    *,
    alpha: float = 0.05,
    min_effect: float = 0.0,
    no_regression: float | None = None,
) -> Decision:
    """Verdict on per-task, per-sweep scores (same tasks and sweeps on both sides)."""
    if not 0 < alpha < 1:
        raise ValueError("alpha must be in (0, 1)")
    if not 0 <= min_effect < 0.1:
        raise ValueError("min_effect must be in [0, 0.1)")
    c, i = _matrix(candidate), _matrix(incumbent)
    if c.shape != i.shape:
        raise ValueError("candidate and incumbent must cover the same tasks and sweeps")
    n, sweeps = c.shape
    x = c - i
    ok = ~np.isnan(x)
    pairs = int(ok.sum())
    per_task = ok.sum(axis=1)
    sums = np.where(ok, x, 0.0).sum(axis=1)
    diffs = tuple(
        float(v) for v in np.divide(sums, per_task, out=np.full(n, np.nan), where=per_task > 0)
    )
    if pairs == 0:
        return Decision("pending", 0.0, 1.0, 1.0, n, sweeps, 0, alpha, reason="no paired sample")
    effect = float(np.mean(x[ok]))
    se = float(np.std(x[ok], ddof=1) / math.sqrt(pairs)) if pairs > 1 else math.nan
    path = log_e_path(x - min_effect)
    log_e, best = float(path[-1]), float(path.max())
    regressions: tuple[int, ...] = ()
    if no_regression is not None:
        regressions = tuple(j for j, d in enumerate(diffs) if d < -no_regression - 1e-9)
    more = _more_sweeps(x[ok] - min_effect, log_e, math.log(1 / alpha), pairs / sweeps)

    def out(verdict: str, reason: str) -> Decision:
        return Decision(
            verdict,
            effect,
            _exp(log_e),
            min(1.0, _exp(-best)),
            n,
            sweeps,
            pairs,
            alpha,
            se,
            regressions,
            more,
            METHOD,
            reason,
            diffs,
        )

    evidence = f"effect {effect:+.3f}, e={_exp(best):.3g} of {1 / alpha:.3g}"
    if best >= math.log(1 / alpha) - 1e-12:
        if regressions:
            return out("reject", f"{len(regressions)} task(s) regressed beyond tolerance")
        return out("accept", f"{evidence} after {sweeps} sweep(s)")
    if pairs >= FUTILITY_PAIRS and effect <= min_effect + 1e-12:
        return out("reject", f"no gain after {pairs} paired samples: {evidence}")
    return out("pending", f"undecided after {sweeps} sweep(s): {evidence}")


def _exp(x: float) -> float:
    """e^x, infinite past what a float holds (a long winning streak: e^710 overflows)."""
    return math.exp(x) if x < 709 else math.inf


def _more_sweeps(y: np.ndarray, log_e: float, target: float, per_sweep: float) -> float | None:
    """Sweeps until the e-process reaches `target` if it keeps growing at the best bet's
    observed rate per pair; None when no bet grows."""
    lam = np.array(BETS)
    rate = float(np.max(np.mean(np.log1p(lam[:, None] * y[None]), axis=1)))
    if rate <= 0 or per_sweep <= 0:
        return None
    return max(0.0, (target - log_e) / (rate * per_sweep))


Draw = Callable[[int], tuple[Scores, Scores]]


@dataclass
class Evidence:
    """The scores of one comparison so far, task-major (the decide() layout)."""

    candidate: list[list[float]]
    incumbent: list[list[float]]

    @classmethod
    def empty(cls, n_tasks: int) -> Evidence:
        return cls([[] for _ in range(n_tasks)], [[] for _ in range(n_tasks)])

    @property
    def sweeps(self) -> int:
        return len(self.candidate[0]) if self.candidate else 0

    def extend(self, candidate: Scores, incumbent: Scores) -> None:
        """Append new sweeps (per task, the same count on both sides)."""
        for side, new in ((self.candidate, candidate), (self.incumbent, incumbent)):
            for row, add in zip(side, new, strict=True):
                row.extend(float(v) for v in add)

    def promising(self, min_effect: float = 0.0) -> bool:
        """Whether the mean effect over the first sweeps that hold FUTILITY_PAIRS paired
        samples (the gate's first chance to stop for futility) is above `min_effect`. It reads
        a fixed stretch of samples, however the comparison went on, so "not promising" is an
        increasing event in the incumbent's scores (the engine's argument needs that)."""
        x = np.array(self.candidate, dtype=float) - np.array(self.incumbent, dtype=float)
        if x.size == 0:
            return False
        paired = np.cumsum((~np.isnan(x)).sum(axis=0))
        reached = np.flatnonzero(paired >= FUTILITY_PAIRS)
        if not len(reached):
            return False
        return float(np.nanmean(x[:, : reached[0] + 1])) > min_effect

    def to_dict(self) -> dict[str, Any]:
        return {
            "candidate": rows_to_json(self.candidate),
            "incumbent": rows_to_json(self.incumbent),
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Evidence:
        return cls(rows_from_json(data["candidate"]), rows_from_json(data["incumbent"]))


def rows_to_json(rows: list[list[float]]) -> list[list[float | None]]:
    """Score rows as JSON holds them: a missing score (NaN) is null."""
    return [[None if math.isnan(v) else v for v in r] for r in rows]


def rows_from_json(rows: list[list[float | None]]) -> list[list[float]]:
    return [[math.nan if v is None else float(v) for v in r] for r in rows]


def sequential(
    draw: Draw,
    evidence: Evidence,
    *,
    looks: int,
    alpha: float,
    min_effect: float = 0.0,
    no_regression: float | None = None,
    verdict: Callable[..., Decision] = decide,
) -> Decision:
    """Add up to `looks` looks of new sweeps to `evidence` (in place), deciding after each
    and stopping at the first accept or reject. `draw(look)` returns the look's new sweeps,
    per task, for candidate and incumbent. Returns the last decision."""

    def judge() -> Decision:
        return verdict(
            evidence.candidate,
            evidence.incumbent,
            alpha=alpha,
            min_effect=min_effect,
            no_regression=no_regression,
        )

    d = judge() if looks <= 0 else None
    for look in range(looks):
        before = evidence.sweeps
        evidence.extend(*draw(look))
        d = judge()
        if d.verdict != "pending":
            break
        left = (looks - look - 1) * (evidence.sweeps - before)
        if d.pairs >= FUTILITY_PAIRS and (d.more_sweeps is None or d.more_sweeps > GIVE_UP * left):
            break  # cannot decide tonight at this rate: stays pending, spends no more
    assert d is not None
    return d
