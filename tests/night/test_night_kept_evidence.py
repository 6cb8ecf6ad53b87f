"""A comparison the budget cuts short keeps its paired samples for the next night, which
resumes it (trainer.resume), on the simulated world with the ledger and cache on SQLite:
the next night decides with fewer calls than one that starts it anew, a changed skill, val
set or judges discards the samples with the reason, and a night killed while it resumes the
comparison ends as an uninterrupted one. The night and its report: test_night_cut_report.py."""

from __future__ import annotations

import contextlib
import json
import shutil
import threading
from dataclasses import replace
from pathlib import Path

import pytest
from scripted_helpers import Repeating

from benchmarks.kept_evidence import SETTINGS, helpful_rule, proposal
from skillopt_sleep.night.store import SqliteCache, SqliteLedger
from skillopt_sleep.store import db_path, open_store
from tests.sim_helpers import Killed, Wrap
from trainer import optimize
from trainer.backends.base import Roles
from trainer.budget import BudgetLimits
from trainer.result import RunResult
from trainer.sim import SimWorld
from trainer.skill import SkillDoc
from trainer.tasks import Judge, Task

# the benchmark's scenario (benchmarks/kept_evidence.py), one of its worlds, on SQLite
WORLD = SimWorld.generate(3, n_rules=4, n_harmful=2, n_train=12, n_val=30, n_test=20)
SHORT = BudgetLimits(max_calls=480)  # 160 of them kept for the held-out test
SKILL = "conventions"
PROPOSAL = proposal(helpful_rule(WORLD))


def night(
    state: Path,
    run_id: str,
    *,
    limits: BudgetLimits | None = None,
    skill: SkillDoc = WORLD.start_skill,
    tasks: list[Task] = WORLD.tasks,
    wrap: dict | None = None,
) -> RunResult:
    """One night's training of the skill: the store's ledger and call cache, an optimizer
    that proposes the helpful rule; `wrap` counts (and may kill) the target's calls."""
    world = SimWorld.for_tasks(tasks, seed=WORLD.seed) if tasks is not WORLD.tasks else WORLD
    roles = world.roles()
    target = Wrap(roles.target, wrap) if wrap is not None else roles.target
    db = open_store(state)
    try:
        with contextlib.closing(SqliteCache(db)) as cache:
            return optimize(
                skill,
                tasks,
                Roles(Repeating(PROPOSAL), target, roles.judge),
                settings=replace(SETTINGS, run_id=run_id, budget=limits or BudgetLimits()),
                cache=cache,
                ledger=SqliteLedger(db, SKILL, run_id),
            )
    finally:
        db.close()


def kept(state: Path) -> list[dict]:
    """The pending records of the store's ledger, as stored."""
    db = open_store(state)
    try:
        return [p.to_dict() for p in SqliteLedger(db, SKILL, "-").pending()]
    finally:
        db.close()


@pytest.fixture(scope="module")
def cut(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, RunResult]:
    """A first night whose small call budget ends the comparison undecided."""
    state = tmp_path_factory.mktemp("cut") / "state"
    return state, night(state, "night-1", limits=SHORT)


def copy_of(state: Path, to: Path) -> Path:
    to.mkdir(parents=True)
    shutil.copy(db_path(state), db_path(to))
    return to


def test_a_comparison_the_budget_cuts_keeps_its_samples(cut) -> None:
    state, first = cut
    assert first.stop_reason == "budget: calls" and first.accepted == 0
    sweeps = first.counters["candidate_sweeps"]
    assert sweeps >= 2  # the night had drawn samples when the budget ended it
    (held,) = first.pending
    assert held.comparison["cut_by"] == "calls" and held.gate["verdict"] == "pending"
    assert held.gate["sweeps"] == sweeps and held.gate["pairs"] == sweeps * 30
    (stored,) = kept(state)  # in the store, with every paired sample
    assert stored["runs"] == ["night-1"] and stored["judges_digest"]
    assert [len(row) for row in stored["scores"]["candidate"]] == [sweeps] * 30
    assert [len(row) for row in stored["scores"]["incumbent"]] == [sweeps] * 30


def test_the_next_night_resumes_it_and_decides_with_fewer_calls(cut, tmp_path: Path) -> None:
    state, first = cut
    before = first.counters["candidate_sweeps"]
    resumed = night(copy_of(state, tmp_path / "resumed"), "night-2")
    # the samples lost, as before: the same night compares the edit anew
    scratch_state = copy_of(state, tmp_path / "scratch")
    db = open_store(scratch_state)
    SqliteLedger(db, SKILL, "-").forget(first.pending[0].edit_hash)
    db.close()
    scratch = night(scratch_state, "night-2")
    for result in (resumed, scratch):
        assert result.accepted == 1 and result.stop_reason == "completed"
    (step,) = resumed.history
    assert resumed.counters["pending_continued"] == 1 and "comparisons" not in resumed.counters
    assert step.runs == ("night-1", "night-2")
    assert step.evidence["sweeps"] == before + resumed.counters["candidate_sweeps"]
    assert step.evidence["alpha"] == first.pending[0].comparison["alpha"]
    assert scratch.counters["comparisons"] == 1 and scratch.history[0].runs == ("night-2",)
    # SIMULATION: fewer sweeps, and fewer calls, to the same decision
    assert resumed.counters["candidate_sweeps"] < scratch.counters["candidate_sweeps"]
    assert resumed.usage.calls < scratch.usage.calls


def _other_judges(tasks: list[Task]) -> list[Task]:
    """The same tasks, one val task's judges recompiled (a weight changed)."""
    i = next(i for i, t in enumerate(tasks) if t.split == "val" and t.judges)
    judge = tasks[i].judges[0]
    changed = Judge.from_dict({**judge.to_dict(), "weight": judge.weight + 1.0})
    return [*tasks[:i], replace(tasks[i], judges=(changed, *tasks[i].judges[1:])), *tasks[i + 1 :]]


def _one_val_task_fewer(tasks: list[Task]) -> list[Task]:
    i = next(i for i, t in enumerate(tasks) if t.split == "val")
    return [*tasks[:i], *tasks[i + 1 :]]


CHANGES = {
    "the skill it was measured against has changed": {
        "skill": WORLD.start_skill.with_body(WORLD.start_skill.body + "\n- Keep a changelog.\n")
    },
    "the val tasks it was measured on have changed": {"tasks": _one_val_task_fewer(WORLD.tasks)},
    "the judges of its val tasks have changed": {"tasks": _other_judges(WORLD.tasks)},
}


@pytest.mark.parametrize("why", list(CHANGES))
def test_a_changed_skill_or_task_set_discards_the_kept_samples(
    cut, tmp_path: Path, why: str
) -> None:
    state, first = cut
    later = night(copy_of(state, tmp_path / "later"), "night-2", **CHANGES[why])
    (gone,) = [r for r in later.rejected if r.status == "dropped"]
    assert gone.edit_hash == first.pending[0].edit_hash
    assert gone.reason == f"kept evidence discarded: {why}"
    assert later.counters["pending_discarded"] == 1 and later.counters["comparisons"] == 1
    assert "pending_continued" not in later.counters
    # nor are the incumbent's kept sweeps paired with anything: they were of another skill,
    # or scored on other tasks or by other judges
    assert "incumbent_sweeps_carried" not in later.counters
    # compared afresh tonight: whatever it holds now, none of it is night-1's
    for rec in kept(tmp_path / "later"):
        assert rec["runs"] == ["night-2"]


def test_a_night_killed_while_it_resumes_ends_as_an_uninterrupted_one(cut, tmp_path: Path) -> None:
    state, _first = cut
    whole: dict = {"lock": threading.Lock(), "count": 0, "keys": []}
    uninterrupted = night(copy_of(state, tmp_path / "whole"), "night-2", wrap=whole)
    killed = copy_of(state, tmp_path / "killed")
    dying = {**whole, "count": 0, "keys": [], "kill_after": whole["count"] // 3}
    with pytest.raises(Killed):
        night(killed, "night-2", wrap=dying)
    # it died within the resumed comparison, the night's first calls (60 a sweep)
    assert dying["count"] < 60 * uninterrupted.counters["candidate_sweeps"]
    assert len(kept(killed)) == 1  # nothing written by the killed night: the record holds
    rest = {**whole, "count": 0, "keys": []}
    again = night(killed, "night-2", wrap=rest)
    assert not set(dying["keys"]) & set(rest["keys"])  # no call paid twice
    assert dying["count"] + rest["count"] == whole["count"]
    assert [h.to_dict() for h in again.history] == [h.to_dict() for h in uninterrupted.history]
    assert again.counters == uninterrupted.counters and again.best_skill == uninterrupted.best_skill


def test_a_record_an_older_release_kept_is_read_and_discarded_not_resumed(
    cut, tmp_path: Path
) -> None:
    """A version-2 ledger record names no judges: its samples may have been scored by other
    judges, so they are let go (once), with the reason."""
    state = copy_of(cut[0], tmp_path / "older")
    db = open_store(state)
    ((edit_hash, text),) = db.execute("SELECT hash, record FROM edits WHERE kind = 'pending'")
    record = json.loads(text)
    del record["judges_digest"], record["cut_by"]
    with db.conn:
        db.execute("UPDATE edits SET record = ? WHERE hash = ?",
                   [json.dumps({**record, "version": 2}), edit_hash])  # fmt: skip
    db.close()
    later = night(state, "night-2")
    (gone,) = [r for r in later.rejected if r.status == "dropped"]
    assert gone.edit_hash == edit_hash
    assert gone.reason == (
        "kept evidence discarded: it was kept without its judges named (an older release)"
    )
    assert later.counters["comparisons"] == 1 and "pending_continued" not in later.counters
