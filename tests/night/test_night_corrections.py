"""Whole nights on a mined store (SIMULATION roles, the default simulated optimizer with its
harmful and neutral edits): the user's corrections are the night's first candidate, made of
the words of the *train* tasks' verified judges only, and an accepted one says where it came
from in report.json and the report.

The corpus (benchmarks/corpus.py) is sessions of users who correct the agent; mining turns
their corrections into judges verified against the sessions, the val and test tasks with
their own evidence (another correction may have been said only in a val or test session).
"""

from __future__ import annotations

import contextlib
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from skillopt_sleep.night.run import run_night
from tests.night_helpers import make_root
from trainer.backends.base import Roles
from trainer.corrections import lines, rule_judges
from trainer.edits import Edit, apply_edits
from trainer.sim import SimWorld
from trainer.skill import SkillDoc
from trainer.tasks import Task


@pytest.mark.parametrize("seed", [0, 1])
def test_the_night_tries_the_users_own_corrections_first_and_only_from_train(
    tmp_path: Path, seed: int
) -> None:
    worlds: list[SimWorld] = []  # the night's: around the tasks of all its skills

    @contextlib.contextmanager
    def roles(cfg: Any, tasks: list[Task]) -> Iterator[Roles]:
        worlds.append(SimWorld.for_tasks(tasks, seed=int(cfg["trainer"]["seed"])))
        yield worlds[-1].roles()  # the default OptimizerRates

    config = make_root(tmp_path, seed=seed, **{"trainer.seed": seed})
    night = run_night(config, progress=lambda m: None, roles_factory=roles)
    assert night.status == "done"
    summary = json.loads(night.reports["json"].read_text())
    md = night.reports["md"].read_text()
    carried = 0
    for skill in summary["skills"]:
        result = _step(night, f"train:{skill['name']}")
        (job,) = (j for j in _step(night, "plan")["jobs"] if j["skill"] == skill["name"])
        mine = [Task.from_dict(t) for t in job["tasks"]]
        train = [t for t in mine if t.split == "train"]
        said = lines(train)
        if not said:
            continue
        # what val and test sessions said is never carried (when they said something else)
        elsewhere = {q for t in mine if t.split != "train" for j in t.judges for q in j.quotes}
        elsewhere -= {q for j in rule_judges(train) for q in j.quotes}
        steps = result["history"] + result["rejected"] + result["pending"]
        ours = [s for s in steps if any(e.get("origin") == "corrections" for e in s["edits"])]
        assert ours, (skill["name"], skill["counters"])
        assert any(s["where"].startswith("epoch 0 step 0") for s in ours)  # the first one
        for step in ours:  # alone, or under a later step's edit that built on it
            (edit,) = (e for e in step["edits"] if e.get("origin") == "corrections")
            added = [ln.removeprefix("- ") for ln in edit["text"].splitlines()]
            assert set(added) <= set(said)
            for quote in elsewhere:
                assert not any(ln.rstrip(".").lower() in quote.lower() for ln in added), quote
        (world,) = worlds
        start = SkillDoc.parse(result["start_text"])
        for step in result["history"]:
            origins = [e.get("origin") for e in step["edits"]]
            # alone, or with an answer the user accepted as the skill's first example
            if origins not in (["corrections"], ["corrections", "accepted_answer"]):
                continue
            carried += 1
            new, _applied, failed = apply_edits(start, [Edit.from_dict(e) for e in step["edits"]])
            assert not failed
            # by the world's truth: the user's rules help, and teach nothing harmful
            taught = world.taught(world.target_text(new)) - world.taught(world.target_text(start))
            assert taught and not taught & {r.id for r in world.harmful}
            assert world.expected_pass_all(new, "test") > world.expected_pass_all(start, "test")
            listed = [a for a in skill["accepted"] if a["origin"] == "+".join(origins)]
            assert listed and listed[0]["edits"][0]["text"] == step["edits"][0]["text"]
            kinds = ",".join(e["kind"] for e in step["edits"])
            assert f"| accepted | {kinds} | {'+'.join(origins)} |" in md
    assert carried >= 1  # the corpus's users say rules a night can carry


def _step(night: Any, step: str) -> dict[str, Any]:
    import sqlite3

    from skillopt_sleep.store import db_path

    state = Path(night.reports["md"]).parents[2]
    conn = sqlite3.connect(f"file:{db_path(state)}?mode=ro", uri=True)
    try:
        (result,) = conn.execute(
            "SELECT result FROM night_steps WHERE night_id = ? AND step = ?",
            [night.night_id, step],
        ).fetchone()
    finally:
        conn.close()
    return json.loads(result)
