"""The gate: the e-process by hand, its level under the weak null, monotone verdicts, pending
evidence, and the sequential driver."""

from __future__ import annotations

import math

import numpy as np
import pytest

from trainer.gate import BETS, FUTILITY_PAIRS, Evidence, decide, sequential


def e_by_hand(diffs: list[list[float]], shift: float = 0.0) -> float:
    """Mixture over BETS of prod over tasks and sweeps of (1 + bet * (x - shift))."""
    return sum(math.prod(1 + b * (x - shift) for row in diffs for x in row) for b in BETS) / len(
        BETS
    )


def test_one_sweep_of_wins_by_hand() -> None:
    d = decide([[1.0]] * 10, [[0.0]] * 10, alpha=0.05)
    assert d.e_value == pytest.approx(e_by_hand([[1.0]] * 10))
    assert d.e_value >= 20 and d.verdict == "accept" and d.p_value == pytest.approx(1 / d.e_value)
    assert (d.effect, d.n_tasks, d.sweeps, d.pairs) == (1.0, 10, 1, 10)
    # the same data at a stricter level is not enough yet: pending, not rejected
    strict = decide([[1.0]] * 10, [[0.0]] * 10, alpha=0.001)
    assert strict.verdict == "pending" and strict.more_sweeps is not None


def test_ties_losses_and_missing_pairs_by_hand() -> None:
    cand = [[1.0, 0.5], [0.0, 1.0], [0.5, float("nan")]]
    inc = [[0.0, 0.5], [0.5, 1.0], [1.0, 0.0]]
    d = decide(cand, inc, alpha=0.05)
    diffs = [[1.0, 0.0], [-0.5, 0.0], [-0.5]]  # the NaN pair counts as no bet at all
    assert d.e_value == pytest.approx(e_by_hand(diffs)) and d.pairs == 5
    assert d.effect == pytest.approx(0.0) and d.diffs[2] == pytest.approx(-0.5)
    shifted = decide(cand, inc, alpha=0.05, min_effect=0.05)
    assert shifted.e_value == pytest.approx(e_by_hand(diffs, 0.05))


def test_reject_needs_enough_pairs_and_no_gain() -> None:
    n = FUTILITY_PAIRS // 2
    worse = ([[0.0, 0.0]] * n, [[0.5, 0.5]] * n)
    assert decide(*worse, alpha=0.05).verdict == "reject"  # 2 sweeps x n tasks pairs
    one_sweep = ([[0.0]] * n, [[0.5]] * n)
    assert decide(*one_sweep, alpha=0.05).verdict == "pending"  # too few pairs to retire it
    assert decide([], [], alpha=0.05).verdict == "pending"


def test_a_blocking_regression_rejects_an_otherwise_accepted_candidate() -> None:
    cand = [[1.0, 1.0]] * 9 + [[0.0, 0.0]]
    inc = [[0.0, 0.0]] * 9 + [[1.0, 1.0]]
    assert decide(cand, inc, alpha=0.05).verdict == "accept"
    blocked = decide(cand, inc, alpha=0.05, no_regression=0.5)
    assert blocked.verdict == "reject" and blocked.regressions == (9,)


def _trial(rng, p_cand: np.ndarray, p_inc: np.ndarray, alpha: float, sweeps: int) -> bool:
    n = len(p_inc)
    ev = Evidence.empty(n)

    def draw(_look: int):
        c = (rng.random(n) < p_cand).astype(float)
        i = (rng.random(n) < p_inc).astype(float)
        return [[x] for x in c], [[x] for x in i]

    return sequential(draw, ev, looks=sweeps, alpha=alpha).verdict == "accept"


def test_level_holds_under_optional_stopping_and_the_weak_null() -> None:
    rng = np.random.default_rng(11)
    alpha, trials = 0.05, 300
    p_inc = rng.uniform(0.1, 0.9, size=20)
    # A/A: the candidate changes nothing; looked at after every sweep, up to 40 sweeps.
    aa = sum(_trial(rng, p_inc, p_inc, alpha, 40) for _ in range(trials)) / trials
    # Weak null: a big gain on 4 tasks, a loss on the other 16 that outweighs it on average.
    p_mixed = p_inc.copy()
    p_mixed[:4] = np.minimum(1.0, p_inc[:4] + 0.6)
    p_mixed[4:] = np.maximum(0.0, p_inc[4:] - 0.2)
    assert p_mixed.mean() <= p_inc.mean()
    mixed = sum(_trial(rng, p_mixed, p_inc, alpha, 40) for _ in range(trials)) / trials
    # binomial slack: 300 trials at a true rate of 0.05 exceed 0.085 with probability < 1%
    assert aa <= 0.085 and mixed <= 0.085
    # ... while a real average gain is found
    p_better = np.minimum(1.0, p_inc + 0.15)
    assert sum(_trial(rng, p_better, p_inc, alpha, 40) for _ in range(60)) / 60 >= 0.9


def test_verdicts_are_monotone_in_the_candidate_scores() -> None:
    rng = np.random.default_rng(5)
    order = {"reject": 0, "pending": 1, "accept": 2}
    for _ in range(200):
        n, s = int(rng.integers(5, 30)), int(rng.integers(1, 8))
        cand = rng.integers(0, 3, size=(n, s)) / 2
        inc = rng.integers(0, 3, size=(n, s)) / 2
        better = np.minimum(1.0, cand + (rng.random((n, s)) < 0.2) * 0.5)
        a = decide(cand.tolist(), inc.tolist(), alpha=0.01)
        b = decide(better.tolist(), inc.tolist(), alpha=0.01)
        assert order[b.verdict] >= order[a.verdict] and b.e_value >= a.e_value - 1e-12


def test_sequential_stops_at_the_first_decision_and_gives_up_when_out_of_reach() -> None:
    looks: list[int] = []

    def wins(look: int):
        looks.append(look)
        return [[1.0]] * 10, [[0.0]] * 10

    d = sequential(wins, Evidence.empty(10), looks=8, alpha=0.005)
    assert d.verdict == "accept" and looks == [0, 1]  # e ~ 118 after one sweep, > 200 after two
    noise = np.random.default_rng(2)

    def coin(_look: int):
        return [[float(noise.random() < 0.5)] for _ in range(50)], [
            [float(noise.random() < 0.5)] for _ in range(50)
        ]

    ev = Evidence.empty(50)
    flat = sequential(coin, ev, looks=40, alpha=0.001)
    assert flat.verdict in ("pending", "reject") and ev.sweeps < 40  # stopped, not exhausted


def test_evidence_round_trips_with_missing_samples() -> None:
    ev = Evidence.empty(2)
    ev.extend([[1.0, float("nan")], [0.5, 0.0]], [[0.0, 1.0], [float("nan"), 0.5]])
    back = Evidence.from_dict(ev.to_dict())
    assert back.sweeps == 2 and back.to_dict() == ev.to_dict()
    assert ev.to_dict()["candidate"][0] == [1.0, None]


def test_input_validation() -> None:
    with pytest.raises(ValueError):
        decide([[1.0]], [[1.0], [0.0]])
    with pytest.raises(ValueError):
        decide([[1.0], [0.0, 1.0]], [[1.0], [0.0, 1.0]])
    with pytest.raises(ValueError):
        decide([[1.0]], [[0.0]], alpha=1.5)
    with pytest.raises(ValueError):
        decide([[1.0]], [[0.0]], min_effect=0.2)


def test_the_verdict_says_on_how_many_tasks_the_skills_differed() -> None:
    """The report's advice tells "the target ignores the skill" from this count."""
    candidate = [[1.0, 1.0], [0.0, 1.0], [1.0, 1.0], [0.0, 0.0]]
    incumbent = [[1.0, 1.0], [0.0, 0.0], [0.0, 1.0], [0.0, 0.0]]
    d = decide(candidate, incumbent)
    assert d.n_differ == 2 and d.to_dict()["n_differ"] == 2
