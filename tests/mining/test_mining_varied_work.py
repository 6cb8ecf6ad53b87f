"""A kind whose procedure has variants, asked several ways, beside a kind with the same
tools: one cluster each (sessions written, ingested and mined)."""

from __future__ import annotations

import random
from collections import Counter
from pathlib import Path

import pytest

from benchmarks.sessions.tuning_logs import Call, Turn
from skillopt_sleep.mining import load_clusters
from tests.mining.test_mining_sessions import _mine, _one_offs, _session

TESTS = [
    "alerts",
    "render",
    "export",
    "money",
    "slug",
    "feeds",
    "auth",
    "pager",
    "totals",
    "debounce",
    "unicode",
    "paginate",
    "reminders",
    "webhook",
    "csv_header",
    "gaps",
]
MODULES = ["cart", "tax", "orders", "users", "billing", "search", "mailer", "cache"]
# Five ways of asking about a test that fails now and then, sharing no content word
FLAKY_WAYS = ["test_{t} is flaky, figure out why", "this one keeps going red: test_{t}",
              "why does test_{t} only fail sometimes?", "triage the nondeterministic test_{t}",
              "intermittent failure in test_{t} again, dig in"]  # fmt: skip
PIN_WAYS = ["add a regression test for the {t} overflow", "lock in the fix for {t} rounding",
            "make sure {t} cannot come back broken"]  # fmt: skip


def _flaky(rng: random.Random, t: str) -> list[Call]:
    """Reproduce in a loop (three ways to), read and edit the test, run the loop again."""
    seed = rng.randint(1, 999)
    loop = rng.choice([f"pytest tests/test_{t}.py -x -q --count=30",
                       f"for i in $(seq 1 30); do pytest -q tests/test_{t}.py || break; done",
                       f"pytest -q -k {t} -p randomly --randomly-seed={seed}"])  # fmt: skip
    calls = [Call("bash", loop), Call("read", f"tests/test_{t}.py"), Call("grep", "time.sleep")]
    if rng.random() < 0.5:  # and perhaps the code under test
        calls.append(Call("read", f"src/shop/{rng.choice(MODULES)}.py"))
    return [*calls, Call("edit", f"tests/test_{t}.py"), Call("bash", loop)]


def _pin(rng: random.Random, t: str) -> list[Call]:
    """Find the function, read its module and tests, add a test, run it: the same tools."""
    return [Call("grep", f"def {t}"), Call("read", f"src/shop/{t}.py"),
            Call("read", f"tests/test_{t}.py"), Call("edit", f"tests/test_{t}.py"),
            Call("bash", rng.choice([f"pytest tests/test_{t}.py -k {t}_regression -q",
                                     f"pytest -q tests/test_{t}.py"]))]  # fmt: skip


@pytest.mark.parametrize("seed", range(4))
def test_a_kind_done_several_ways_and_asked_several_ways_is_one_cluster(
    tmp_path: Path, seed: int
) -> None:
    """Each way of asking about a flaky test makes a group of its own by the words; their
    work is varied (loop, repeat flag, seed option: alike at about 0.4 within a group and as
    much between groups), and alike only in part with adding a regression test (pytest and
    a tests/ file). The flaky groups are one kind, and the regression tests another."""
    rng = random.Random(seed)
    truth: dict[str, str] = {}
    for day in range(150):
        t = rng.choice(TESTS)
        if day % 3 == 2:
            text, kind = rng.choice(PIN_WAYS).format(t=t), "pin"
            calls = _pin(rng, t)
        else:
            text, kind = FLAKY_WAYS[day % 5].format(t=t), "flaky"
            calls = _flaky(rng, t)
        _session(tmp_path, rng, day % 25, [Turn(text, calls, "Fixed.")], codex=day % 7 == 0)
        truth[text] = kind
    _one_offs(tmp_path, rng)
    db = _mine(tmp_path)
    recurring = {c.id for c in load_clusters(db) if c.recurring}
    per: dict[str, Counter[str]] = {c: Counter() for c in recurring}
    for r in db.query("select cluster_id, intent from cluster_members"):
        if r["cluster_id"] in recurring:
            per[r["cluster_id"]][truth.get(r["intent"], "one-off")] += 1
    kinds = list(per.values())
    assert sorted(k.most_common(1)[0][0] for k in kinds) == ["flaky", "pin"]
    assert all(len(k) == 1 for k in kinds), kinds  # each cluster holds one kind only
    found = Counter({k: n for c in kinds for k, n in c.items()})
    assert found["flaky"] >= 0.9 * 100 and found["pin"] >= 0.9 * 50
