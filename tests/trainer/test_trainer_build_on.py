"""A step builds on the previous step's undecided but promising candidate, and the samples
that made it look promising are never paired again in that epoch."""

from __future__ import annotations

import json
import math
from dataclasses import replace
from pathlib import Path

from trainer import JsonLedger, TrainSettings, optimize
from trainer.backends.base import Completion, Roles
from trainer.edits import Edit, apply_edits
from trainer.gate import FUTILITY_PAIRS, Decision, Evidence, decide
from trainer.ledger import LedgerRecord
from trainer.sim import SimWorld
from trainer.stream import Stream

WORLD = SimWorld.generate(2, n_rules=4, n_harmful=2, n_train=12, n_val=30, n_test=20)
N_VAL = sum(t.split == "val" for t in WORLD.tasks)
SWEEPS = -(-FUTILITY_PAIRS // N_VAL)  # the sweeps that hold the futility look's samples
SETTINGS = TrainSettings(
    epochs=1, steps_per_epoch=3, minibatch=6, seed=1, screen=False, max_samples=SWEEPS
)


class Scripted:
    """An optimizer that proposes the given lines in turn, one per request for edits (and
    has no worked example to offer)."""

    simulation = False
    concurrency = 1
    identity = "scripted"

    def __init__(self, *texts: str) -> None:
        self.texts = list(texts)

    def complete(self, messages, *, json_schema=None, max_tokens=None) -> Completion:
        if (json_schema or {}).get("title") != "skill_edits":
            return Completion("{}", 10, 10)
        text = self.texts.pop(0)
        return Completion(json.dumps({"edits": [{"kind": "add", "text": text}]}), 10, 10)


def undecided(candidate, incumbent, **kw) -> Decision:
    """The gate's verdict held undecided, and not worth an idle step's time."""
    return replace(decide(candidate, incumbent, **kw), verdict="pending", more_sweeps=None)


def lines(kind: str) -> list[str]:
    """One line per simulated rule that helps the val tasks most ("helpful") or hurts them
    most ("harmful"), by the simulation's truth, strongest first."""
    start = WORLD.expected_score(WORLD.start_skill, "val")
    gain = {}
    for rule in [*WORLD.rules, *WORLD.harmful]:
        line = f"- {rule.paraphrases[0]}"
        doc, _applied, _failed = apply_edits(WORLD.start_skill, [Edit("add", line)])
        gain[line] = WORLD.expected_score(doc, "val") - start
    ranked = sorted(gain, key=lambda line: (-gain[line], line))
    return ranked if kind == "helpful" else ranked[::-1]


def night(path: Path, *texts: str, run_id: str = "night-1"):
    roles = WORLD.roles()
    return optimize(
        WORLD.start_skill,
        WORLD.tasks,
        Roles(Scripted(*texts), roles.target, roles.judge),
        settings=replace(SETTINGS, run_id=run_id),
        ledger=JsonLedger(path),
        gate=undecided,
    )


def held(path: Path) -> dict[str, LedgerRecord]:
    """Pending records by the step that proposed them."""
    return {r.where.split(" (")[0]: r for r in JsonLedger(path).pending()}


def incumbent_sweeps(record: LedgerRecord) -> list[list[float]]:
    rows = record.comparison["scores"]["incumbent"]  # task-major
    return [[row[s] for row in rows] for s in range(len(rows[0]))]


def test_the_next_step_builds_on_a_promising_candidate_with_samples_it_did_not_see(
    tmp_path: Path,
) -> None:
    path = tmp_path / "ledger.json"
    first, second, third = lines("helpful")[:3]
    r = night(path, first, second, third)
    assert r.counters["built_on_pending"] == 1
    steps = held(path)
    a, b, c = steps["epoch 0 step 0"], steps["epoch 0 step 1"], steps["epoch 0 step 2"]
    assert Evidence.from_dict(a.comparison["scores"]).promising()
    # step 1's candidate carries both steps' edits, and is compared with the start skill
    assert [e["text"] for e in b.edits] == [first, second]
    assert b.where == "epoch 0 step 1 (on top of epoch 0 step 0)"
    assert b.comparison["from_hash"] == WORLD.start_skill.hash
    # it pairs with the incumbent sweeps after the ones that made its base look promising,
    # and so does every later comparison of the epoch (step 2 is not built on step 1's);
    # the stream is kept for the skill on these val tasks as they are judged
    measured = a.comparison
    key = f"{WORLD.start_skill.hash}:{measured['val_digest']}:{measured['judges_digest']}"
    stream = JsonLedger(path).stream(key)
    # then step 2's is a base too
    promising = Evidence.from_dict(c.comparison["scores"]).promising()
    assert stream["floor"] == (2 if promising else 1) * SWEEPS
    assert incumbent_sweeps(a) == stream["sweeps"][:SWEEPS]
    assert incumbent_sweeps(b) == stream["sweeps"][SWEEPS : 2 * SWEEPS]
    assert b.comparison["stream_at"][1] == 2 * SWEEPS
    assert [e["text"] for e in c.edits] == [third]
    assert incumbent_sweeps(c) == stream["sweeps"][SWEEPS : 2 * SWEEPS]

    # the floor outlives the night: the next one goes on with all three past it
    again = night(path, first, first, first, run_id="night-2")
    assert again.counters["pending_continued"] == 3
    kept = JsonLedger(path).stream(key)
    floor = stream["floor"]
    assert kept["floor"] == floor and kept["sweeps"][:floor] == stream["sweeps"][:floor]
    for record in JsonLedger(path).pending():
        assert record.comparison["stream_at"][1] == floor + 1
        assert incumbent_sweeps(record)[-1] == kept["sweeps"][floor]


def test_a_candidate_that_looks_no_better_is_not_built_on(tmp_path: Path) -> None:
    path = tmp_path / "ledger.json"
    harmful, (helpful, other) = lines("harmful")[0], lines("helpful")[:2]
    night(path, harmful, helpful, other)
    steps = held(path)
    assert not Evidence.from_dict(steps["epoch 0 step 0"].comparison["scores"]).promising()
    b = steps["epoch 0 step 1"]
    assert b.where == "epoch 0 step 1" and [e["text"] for e in b.edits] == [helpful]
    assert b.comparison["stream_at"][1] == SWEEPS  # from sweep 0: nothing raised the floor
    # step 1's candidate looks promising: step 2 builds on it
    assert Evidence.from_dict(b.comparison["scores"]).promising()
    c = steps["epoch 0 step 2"]
    assert [e["text"] for e in c.edits] == [helpful, other]
    assert c.comparison["stream_at"][1] == 2 * SWEEPS


def test_promising_reads_only_the_futility_looks_samples() -> None:
    n = 10
    per_look = -(-FUTILITY_PAIRS // n)
    ev = Evidence.empty(n)
    ev.extend([[0.5] * per_look] * n, [[0.0] * per_look] * n)
    assert ev.promising(min_effect=0.09)
    ev.extend([[0.0] * 5] * n, [[1.0] * 5] * n)  # later sweeps against it change nothing
    assert ev.promising()
    even = Evidence.empty(n)
    even.extend([[0.5] * per_look] * n, [[0.5] * per_look] * n)
    assert not even.promising()  # no better is not promising
    short = Evidence.empty(n)
    short.extend([[1.0] * (per_look - 1)] * n, [[0.0] * (per_look - 1)] * n)
    assert not short.promising()  # the futility look not reached yet
    gaps = Evidence.empty(n)  # a missing score is not a pair: the look comes a sweep later
    gaps.extend([[math.nan] + [0.0] * per_look] * n, [[0.0] * (per_look + 1)] * n)
    assert not gaps.promising()
    assert not Evidence.empty(0).promising()


def test_the_floor_is_kept_with_the_stream() -> None:
    stream = Stream("night-1:0", [[1.0, math.nan], [0.0, 1.0]])
    stream.raise_floor(1)
    stream.raise_floor(0)  # never lowered
    rec = stream.record("night-1")
    assert rec["floor"] == 1 and rec["sweeps"][0] == [1.0, None]
    back = Stream.carried_from(rec, 2, "night-2")
    assert back is not None and back.floor == 1 and back.carried == 2
    assert Stream.carried_from({**rec, "floor": None} | {"sweeps": [[1.0]]}, 2, "n") is None
    assert Stream.carried_from(stream.record("night-1", beaten=True), 2, "night-2") is None
    old = {k: v for k, v in rec.items() if k != "floor"}  # kept before floors existed
    assert Stream.carried_from(old, 2, "night-2").floor == 0


def test_a_base_continued_and_rejected_is_not_built_on(tmp_path: Path) -> None:
    # step 1 has nothing new (its line is step 0's), so it goes on with step 0's candidate,
    # which the gate then rejects: step 2 starts afresh from the incumbent, and pairs past
    # the samples that decided step 0's fate
    def pending_then_reject(candidate, incumbent, **kw) -> Decision:
        verdict = "reject" if len(candidate[0]) > SWEEPS else "pending"
        return replace(decide(candidate, incumbent, **kw), verdict=verdict, more_sweeps=1.0)

    path = tmp_path / "ledger.json"
    first, second = lines("helpful")[:2]
    roles = WORLD.roles()
    r = optimize(
        WORLD.start_skill,
        WORLD.tasks,
        Roles(Scripted(first, first, second), roles.target, roles.judge),
        settings=SETTINGS,
        ledger=JsonLedger(path),
        gate=pending_then_reject,
    )
    assert r.counters["pending_continued"] == 1 and "built_on_pending" not in r.counters
    (rejected,) = [x for x in r.rejected if x.reason.startswith("gate")]
    assert [e["text"] for e in rejected.edits] == [first]
    (c,) = JsonLedger(path).pending()
    assert [e["text"] for e in c.edits] == [second] and c.where == "epoch 0 step 2"
    # past step 0's sweeps and its continuation
    assert c.comparison["stream_at"][1] == 2 * SWEEPS + 1
