"""End-to-end nights with the default simulated optimizer (SIMULATION): a third of its
proposals are harmful (a shortcut that undermines a rule the tasks need, or one that lowers
every rule), most of the rest neutral, some cut off or unparseable — not the near-oracle of
tests/sim_helpers.py. What the product promises must hold there too, and the simulated world
knows the truth to check it by: no accepted step teaches a harmful rule, no skill ends below
where it started on the held-out tasks, a skill is written only when the night's verdict
allows it (the gate accepted and the measured held-out lift did not go down), and the
report says what happened without contradicting itself.

Three nights, on the generated corpus's seeds 0, 1 and 2 (each night's trainer seed the
same), so the promises are checked on more than one draw.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from skillopt_sleep.night.run import run_night
from tests.night_helpers import make_root
from trainer.backends.base import Roles
from trainer.edits import Edit, apply_edits
from trainer.sim import SimWorld
from trainer.skill import SkillDoc
from trainer.tasks import Task


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_a_night_with_harmful_and_neutral_proposals_keeps_the_product_s_promises(
    tmp_path: Path, seed: int
) -> None:
    worlds: list[SimWorld] = []

    @contextlib.contextmanager
    def default_optimizer(cfg: Any, tasks: list[Task]) -> Iterator[Roles]:
        worlds.append(SimWorld.for_tasks(tasks, seed=int(cfg["trainer"]["seed"])))
        yield worlds[-1].roles()  # the default OptimizerRates

    config = make_root(tmp_path, seed=seed, **{"trainer.seed": seed})
    night = run_night(config, progress=lambda m: None, roles_factory=default_optimizer)
    assert night.status == "done"
    (world,) = worlds
    assert world.harmful  # the optimizer has harmful rules to propose
    skills = night.summary.to_json()["skills"]
    assert skills
    md = night.reports["md"].read_text()
    proposed = sum(s["counters"].get("proposed_edits", 0) for s in skills)
    assert proposed > 0
    for s in skills:
        start = SkillDoc.parse(_text(night, s, "start"))
        best = SkillDoc.parse(_text(night, s, "best"))
        # no accepted step teaches a harmful rule (the world's truth, not the gate's)
        doc = start
        harmful = {r.id for r in world.harmful}
        for step in _history(night, s):
            new, _applied, failed = apply_edits(doc, [Edit.from_dict(e) for e in step["edits"]])
            assert not failed
            taught = world.taught(world.target_text(new)) - world.taught(world.target_text(doc))
            assert not taught & harmful, (s["name"], step["edits"])
            doc = new
        assert doc.hash == best.hash
        # never below the start on the held-out tasks (the exact expectation)
        assert world.expected_score(best, "test") >= world.expected_score(start, "test") - 1e-9
        # written only as the verdict allows: never after the held-out test went down
        written = s["promotion"]["status"] in ("promoted", "staged")
        assert written == (s["action"] != "keep"), (s["outcome"], s["promotion"])
        if written:
            lead = s["test"]["pass_all"] if s["metric"] == "pass-all" else s["test"]
            assert lead["lift"] >= 0 and best.hash != start.hash
            assert s["outcome"] in {"improved", "unconfirmed"}
            assert (s["outcome"] == "improved") == (lead["ci_low"] > 0)
        # the report never says a written skill was not written
        line = next(ln for ln in md.splitlines() if ln.startswith(f"- {s['name']}: "))
        if written:
            assert "not written" not in line and "not promoted" not in line, line
    assert md.split("\n## ")[1].startswith("Did my skills get better?")
    assert all(f"- {s['name']}: " in md.split("## What to do")[0] for s in skills)


def _trained(night: Any, skill: dict[str, Any]) -> dict[str, Any]:
    import json
    import sqlite3

    from skillopt_sleep.store import db_path

    state = Path(night.reports["md"]).parents[2]
    conn = sqlite3.connect(f"file:{db_path(state)}?mode=ro", uri=True)
    try:
        (result,) = conn.execute(
            "SELECT result FROM night_steps WHERE night_id = ? AND step = ?",
            [night.night_id, f"train:{skill['name']}"],
        ).fetchone()
    finally:
        conn.close()
    return json.loads(result)


def _text(night: Any, skill: dict[str, Any], which: str) -> str:
    return _trained(night, skill)[f"{which}_text"]


def _history(night: Any, skill: dict[str, Any]) -> list[dict[str, Any]]:
    return _trained(night, skill)["history"]
