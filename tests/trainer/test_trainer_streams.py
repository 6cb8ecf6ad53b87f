"""The incumbent's val sweeps across runs: carried when valid, never paired twice."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

from scripted_helpers import Repeating

from trainer import JsonLedger, TrainSettings, optimize
from trainer.backends.base import Roles
from trainer.gate import Decision, decide
from trainer.sim import SimWorld

WORLD = SimWorld.generate(2, n_rules=4, n_harmful=2, n_train=12, n_val=30, n_test=20)
N_VAL = sum(t.split == "val" for t in WORLD.tasks)
# one sweep per comparison: a line that changes nothing stays pending night after night
ONE_SWEEP = TrainSettings(
    epochs=1, steps_per_epoch=1, minibatch=6, seed=1, screen=False, max_samples=1
)
NEUTRAL = json.dumps({"edits": [{"kind": "add", "text": "- Be kind to reviewers."}]})


def night(skill, path: Path, run_id: str, proposal: str = NEUTRAL, gate=decide, **settings):
    roles = WORLD.roles()
    return optimize(
        skill,
        WORLD.tasks,
        Roles(Repeating(proposal), roles.target, roles.judge),
        settings=replace(ONE_SWEEP, run_id=run_id, **settings),
        ledger=JsonLedger(path),
        gate=gate,
    )


def kept(path: Path, skill) -> dict | None:
    """The sweeps the ledger file keeps for `skill` (keys: skill hash, then the val set)."""
    streams = json.loads(path.read_text())["streams"]
    return next((r for k, r in streams.items() if k.startswith(f"{skill.hash}:")), None)


def always_pending(candidate, incumbent, **kw) -> Decision:
    """The gate's verdict, held undecided and one sweep from deciding: the loop goes on
    with it at its next idle step."""
    return replace(decide(candidate, incumbent, **kw), verdict="pending", more_sweeps=1.0)


def test_a_later_night_pairs_with_the_kept_sweeps_and_draws_only_new_ones(
    tmp_path: Path,
) -> None:
    path = tmp_path / "ledger.json"
    first = night(WORLD.start_skill, path, "night-1")
    assert first.counters["incumbent_sweeps"] == 1 and first.accepted == 0
    stream = kept(path, WORLD.start_skill)
    assert stream is not None and len(stream["sweeps"]) == 1 and stream["beaten"] is None

    second = night(WORLD.start_skill, path, "night-2")
    # the pending line goes on: its second pair uses incumbent sweep 1, drawn tonight;
    # sweep 0 came from the first night and is not paid for again
    assert second.counters["incumbent_sweeps_carried"] == 1
    assert second.counters["incumbent_sweeps"] == 1 and second.counters["pending_continued"] == 1
    sweeps = kept(path, WORLD.start_skill)["sweeps"]
    assert len(sweeps) == 2 and sweeps[0] == stream["sweeps"][0] and len(sweeps[0]) == N_VAL
    (held,) = JsonLedger(path).pending()
    incumbent = held.comparison["scores"]["incumbent"]  # task-major: one column per sweep
    assert [[row[s] for row in incumbent] for s in range(2)] == sweeps
    assert held.comparison["stream_at"][1] == 2


def test_a_candidate_continued_in_the_same_run_gets_fresh_samples(tmp_path: Path) -> None:
    # step 1 leaves the line undecided; step 2 has nothing new and goes on with it. Its
    # second sweep must be new samples on both sides, not step 1's again (which the cache
    # would hand back, and which would count the same evidence twice)
    path = tmp_path / "ledger.json"
    r = night(WORLD.start_skill, path, "night-1", gate=always_pending, steps_per_epoch=2)
    assert r.counters["pending_continued"] == 1
    assert r.counters["incumbent_sweeps"] == 2 and r.counters["candidate_sweeps"] == 2
    (held,) = JsonLedger(path).pending()
    assert held.comparison["evidence"]["sweeps"] == 2 and held.comparison["stream_at"][1] == 2
    inc = [[row[s] for row in held.comparison["scores"]["incumbent"]] for s in range(2)]
    assert inc == kept(path, WORLD.start_skill)["sweeps"]


def test_a_skill_accepted_away_is_never_paired_with_its_old_sweeps_again(
    tmp_path: Path,
) -> None:
    taught = WORLD.taught(WORLD.start_skill.render())
    val = [t for t in WORLD.tasks if t.split == "val"]
    rule = max(
        (r for r in WORLD.rules if r.id not in taught),
        key=lambda r: (sum(r.id in WORLD.needs[t.id] for t in val), r.id),
    )
    teach = json.dumps({"edits": [{"kind": "add", "text": f"- {rule.paraphrases[0]}"}]})
    path = tmp_path / "ledger.json"
    first = night(WORLD.start_skill, path, "night-1", teach, max_samples=40)
    assert first.accepted == 1
    start, best = kept(path, WORLD.start_skill), kept(path, first.best_skill)
    assert start["beaten"] == "night-1" and best["beaten"] is None
    # its samples are the accepted candidate's: what the next night pairs with
    assert len(best["sweeps"]) == first.history[0].evidence["sweeps"]

    # a rerun of that night (killed after the ledger was written) may still use them: it
    # makes the same decision on the same samples, and pays for none of them
    rerun = night(WORLD.start_skill, path, "night-1", teach, max_samples=40)
    assert rerun.counters["incumbent_sweeps_carried"] == len(start["sweeps"])
    assert rerun.counters["incumbent_sweeps"] == 0
    assert rerun.history == first.history

    # the edit was not promoted: the next night starts from the old skill, afresh
    again = night(WORLD.start_skill, path, "night-2")
    assert "incumbent_sweeps_carried" not in again.counters
    assert again.counters["incumbent_sweeps"] == 1
    # it was promoted: the next night pairs with the accepted candidate's samples (its one
    # comparison of one sweep uses the first of them, and pays for no incumbent call)
    assert len(best["sweeps"]) > 1
    on = night(first.best_skill, path, "night-3")
    assert on.counters["incumbent_sweeps_carried"] == 1
    assert on.counters["incumbent_sweeps"] == 0


def test_a_ledger_file_of_edits_only_is_still_read(tmp_path: Path) -> None:
    path = tmp_path / "ledger.json"
    path.write_text(json.dumps([{"edit_hash": "h1", "status": "rejected", "text": "x"}]))
    ledger = JsonLedger(path)
    assert "h1" in ledger and ledger.stream("any") is None
    ledger.keep_stream("k", {"sweeps": [[1.0, None]]})
    assert JsonLedger(path).stream("k") == {"sweeps": [[1.0, None]]}
    assert "h1" in JsonLedger(path)
