"""Follow-ups worded like requests: a later turn that makes the agent do nothing new is
about the answer, and a cluster of them is no recurring task (sessions written, ingested
and mined)."""

from __future__ import annotations

import random
from pathlib import Path

from benchmarks.sessions.tuning_logs import Call, Turn
from skillopt_sleep.mining import load_clusters
from tests.mining.test_mining_sessions import _mine, _one_offs, _session

CI = [Call("bash", "gh run list --limit 5"), Call("bash", "gh run view 123 --log-failed")]
NOTES = [Call("bash", "git log --oneline v1.2.0..HEAD"), Call("write", "docs/releases/next.md")]
REDO = [Call("edit", "docs/releases/next.md")]  # the last change again, reworded


def _corpus(home: Path, rng: random.Random) -> None:
    """Twelve sessions of each kind; after most, a follow-up asked alike every time."""
    for day in range(12):
        ci = [Turn(f"why is the build red on run {day}", CI, "The lint job failed.")]
        if day % 4:
            ci.append(Turn("which job exactly?", [], "lint, on step 3."))
        _session(home, rng, day, ci)
        notes = [Turn(f"draft the notes for 1.{day}.0", NOTES, "## 1.x\n- Added export")]
        if day % 4:
            notes.append(Turn("group it by features and fixes", REDO, "## Features\n- Export"))
        _session(home, rng, day, notes)
    _one_offs(home, rng)


def test_follow_ups_that_did_nothing_new_are_no_recurring_task(tmp_path: Path) -> None:
    """ "which job exactly?" (no work) and "group it by features and fixes" (the last edit
    redone) follow an answer in nine sessions each: neither is a recurring cluster; the
    two kinds they follow are, and the run reports the follow-up clusters it set aside."""
    _corpus(tmp_path, random.Random(5))
    db = _mine(tmp_path)
    recurring = [c for c in load_clusters(db) if c.recurring]
    texts = {
        c.id: {r["intent"] for r in db.query(
            "select intent from cluster_members where cluster_id = ?", [c.id])}
        for c in recurring
    }  # fmt: skip
    assert len(recurring) == 2
    assert all(c.n_turns == 12 for c in recurring)  # the kinds, without their follow-ups
    assert not any("which job" in t or "group it" in t for ts in texts.values() for t in ts)
    report = db.execute("select report from mining_runs order by id desc limit 1").fetchone()
    assert '"follow_up_clusters": 2' in report[0]


def test_a_later_request_that_does_new_work_stays_a_request(tmp_path: Path) -> None:
    """The same later turns, but each makes the agent run what the request before it did
    not (a kind asked second in its sessions): a recurring task, not an echo."""
    rng = random.Random(6)
    bump = [Call("bash", "uv version --bump minor"), Call("edit", "pyproject.toml")]
    for day in range(9):
        turns = [Turn(f"why is the build red on run {day}", CI, "The lint job failed."),
                 Turn("bump the minor version", bump, "Now 1.3.0.")]  # fmt: skip
        _session(tmp_path, rng, day, turns)
    _one_offs(tmp_path, rng)
    db = _mine(tmp_path)
    recurring = [c for c in load_clusters(db) if c.recurring]
    assert sorted(c.n_turns for c in recurring) == [9, 9]
