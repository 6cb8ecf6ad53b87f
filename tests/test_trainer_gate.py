"""The gate: exact sign-flip p-values checked by hand, ties, power, regressions."""

from __future__ import annotations

import numpy as np
import pytest

from trainer.gate import _p_exact, _p_grid, decide, sign_flip_p


def test_three_unanimous_improvements_give_one_eighth() -> None:
    # 2^3 equally likely sign patterns; only "+++" reaches the observed sum.
    d = decide([[1.0], [1.0], [1.0]], [[0.0], [0.0], [0.0]], alpha=0.2)
    assert d.p_value == pytest.approx(1 / 8) and d.method == "exact"
    assert d.verdict == "accept" and d.effect == 1.0 and d.n_tasks == 3


def test_mixed_signs_by_hand() -> None:
    # |d| = (1, .5, .25), observed sum 1.25; pattern sums: 1.75, 1.25, 0.75, 0.25, ...
    # -> two of eight patterns reach 1.25.
    d = decide([[1.0], [0.5], [0.0]], [[0.0], [0.0], [0.25]], alpha=0.3)
    assert d.p_value == pytest.approx(2 / 8)
    # d = (1, 1, -1): sums 3 (1 way), 1 (3 ways), -1 (3), -3 (1) -> P(S >= 1) = 4/8
    d2 = decide([[1], [1], [0]], [[0], [0], [1]], alpha=0.3)
    assert d2.p_value == pytest.approx(0.5)


def test_ties_carry_no_sign_information() -> None:
    # d = (.5, .5, 0, 0): over all 16 patterns 4 reach 1.0 = over the 4 patterns of the
    # two non-zero differences, 1 of 4.
    d = decide([[1, 0], [1, 0], [1, 1], [0, 0]], [[0, 0], [0, 0], [1, 1], [0, 0]], alpha=0.3)
    assert d.p_value == pytest.approx(1 / 4) and d.n_nonzero == 2 and d.effect == 0.25
    brute = np.array([0.5, 0.5, 0.0, 0.0])
    assert _p_exact(brute) == pytest.approx(1 / 4)  # enumerating the zeros too


def test_underpowered_by_design_and_by_ties() -> None:
    # 4 tasks: the best possible p is 1/16 > 0.05.
    four = decide([[1]] * 4, [[0]] * 4, alpha=0.05)
    assert four.verdict == "underpowered"
    five = decide([[1]] * 5, [[0]] * 5, alpha=0.05)
    assert five.verdict == "accept" and five.p_value == pytest.approx(1 / 32)
    # 10 tasks but only 3 differ: nothing on these data could reach alpha.
    tied = decide([[1]] * 3 + [[1]] * 7, [[0]] * 3 + [[1]] * 7, alpha=0.05)
    assert tied.verdict == "underpowered" and tied.n_nonzero == 3
    assert decide([], [], alpha=0.05).verdict == "underpowered"


def test_reject_on_effect_pvalue_and_regressions() -> None:
    cand = [[1]] * 6 + [[0]] * 4
    inc = [[0]] * 6 + [[1]] * 2 + [[0]] * 2
    weak = decide(cand, inc, alpha=0.05)  # effect .4, m = 8, p = 37/256
    assert weak.verdict == "reject" and weak.p_value == pytest.approx(37 / 256)
    strong = [[1.0, 1.0]] * 8
    base = [[0.0, 0.5]] * 8
    assert decide(strong, base, alpha=0.05).verdict == "accept"
    assert decide(strong, base, alpha=0.05, min_effect=0.8).verdict == "reject"
    assert decide(base, strong, alpha=0.05).verdict == "reject"
    drop = decide(strong[:7] + [[0.0, 0.0]], base[:7] + [[1.0, 1.0]], no_regression=0.5)
    assert drop.verdict == "reject" and drop.regressions == (7,)
    ok = decide(strong[:7] + [[0.5, 0.5]], base[:7] + [[1.0, 0.5]], no_regression=0.5)
    assert ok.regressions == () and ok.verdict == "accept"


def test_large_n_grid_is_exact_and_monte_carlo_is_seeded() -> None:
    rng = np.random.default_rng(3)
    d = rng.integers(-2, 3, size=14) / 4
    d = d[d != 0]
    assert _p_grid(d, 4) == pytest.approx(_p_exact(d))
    big = rng.integers(-3, 4, size=40) / 3
    p, method = sign_flip_p(big)
    assert method == "exact-grid" and 0 < p < 1
    cont = rng.normal(0.05, 0.3, size=40)
    p1, m1 = sign_flip_p(cont)
    p2, _ = sign_flip_p(cont)
    assert m1 == "monte-carlo" and p1 == p2


def test_input_validation() -> None:
    with pytest.raises(ValueError):
        decide([[1]], [[1], [0]])
    with pytest.raises(ValueError):
        decide([[1], []], [[1], [0]])
