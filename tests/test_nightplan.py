"""Planning a night: which skills train, and why the others do not."""

from __future__ import annotations

from pathlib import Path

from mining_helpers import add_turn, store

from skillopt_sleep import config as config_mod
from skillopt_sleep.mining import mine
from skillopt_sleep.night import Skip
from skillopt_sleep.night.plan import plan_night


def test_a_missing_user_skill_is_reported_once_for_all_its_clusters(tmp_path: Path) -> None:
    db = store(tmp_path)
    for i in range(6):
        add_turn(db, f"a{i}", 0, f"bump the numpy dependency to 2.{i} in pyproject", 1 + i,
                 skills=["release-helper"])  # fmt: skip
        add_turn(db, f"b{i}", 0, f"write the changelog entry for release 3.{i}", 1 + i,
                 skills=["release-helper"])  # fmt: skip
    config = config_mod.load(overrides={"promotion.targets": [str(tmp_path / "skills")]})
    mine(db, config)
    plan = plan_night(db, config)
    assert plan.jobs == ()
    skips = [s for s in plan.skipped if s.skill == "release-helper"]
    assert skips == [Skip("release-helper", "its SKILL.md is in no skill target")]
