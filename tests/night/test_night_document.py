"""The night's summary is a typed object (report/document.py) whose JSON is the stored shape:
a real simulated night's stored summary and report.json read back and write out unchanged,
and the same summary as release 1 wrote it (no version, ``n_nonzero``) reads as today's."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from skillopt_sleep.night.model import NightOutcome, TrainedSkill
from skillopt_sleep.night.run import run_night
from skillopt_sleep.report.document import NightSummary, SkillReport
from tests.ingest_helpers import query
from tests.night_helpers import make_root
from tests.sim_helpers import competent_roles
from trainer.budget import Usage
from trainer.edits import Edit
from trainer.ledger import LedgerRecord
from trainer.result import TestLift as Lift
from trainer.shapes import CHECKPOINT, CURRENT, SUMMARY, ShapeError, unstamped


@pytest.fixture(scope="module")
def night_root(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, NightOutcome]:
    """A simulated night's folder and outcome."""
    root = tmp_path_factory.mktemp("night")
    outcome = run_night(make_root(root), progress=lambda _m: None, roles_factory=competent_roles)
    assert outcome.status == "done"
    return root, outcome


@pytest.fixture(scope="module")
def night(night_root: tuple[Path, NightOutcome]) -> tuple[dict[str, Any], dict[str, Any]]:
    """A simulated night's summary as the store holds it, and its report.json."""
    root, outcome = night_root
    ((text,),) = query(root, "SELECT summary FROM nights WHERE status = 'done'")
    return json.loads(text), json.loads(outcome.reports["json"].read_text())


def test_a_trained_skill_stays_typed_through_its_checkpoint(
    night_root: tuple[Path, NightOutcome],
) -> None:
    """What training did is checkpointed as JSON and read back as the same typed object:
    the held-out test a `Lift`, each accepted step's edits `Edit`s whose hashes are the
    ones promotion recorded (no dict is re-parsed into an edit to get its hash)."""
    root, _ = night_root
    rows = query(root, "SELECT result FROM night_steps WHERE step LIKE 'train:%'")
    stored = [unstamped(CHECKPOINT, json.loads(r)) for (r,) in rows]
    trained = [TrainedSkill.from_dict(d) for d in stored]
    assert [t.to_dict() for t in trained] == stored  # the checkpoint's JSON, unchanged
    steps = [h for t in trained for h in t.history]
    assert steps and all(isinstance(e, Edit) for h in steps for e in h.edits)
    assert all(isinstance(t.test, Lift) and isinstance(t.usage, Usage) for t in trained)
    records = [r for t in trained for r in (*t.rejected, *t.pending)]
    assert records and all(isinstance(r, LedgerRecord) for r in records)
    recorded = {
        e["hash"]
        for (evidence,) in query(root, "SELECT evidence FROM promotions")
        for e in json.loads(evidence)["edits"]
    }
    assert {e.hash for h in steps for e in h.edits} <= recorded


def _renamed(data: Any) -> Any:
    """A gate's differing tasks as release 1 called them: ``n_nonzero``."""
    if isinstance(data, dict):
        return {("n_nonzero" if k == "n_differ" else k): _renamed(v) for k, v in data.items()}
    if isinstance(data, list):
        return [_renamed(v) for v in data]
    return data


def _as_release_1(summary: dict[str, Any]) -> dict[str, Any]:
    """What release 1 wrote: no version, ``n_nonzero`` in every gate result."""
    return {k: v for k, v in _renamed(summary).items() if k != "version"}


def test_a_real_night_s_summary_reads_back_and_writes_out_unchanged(
    night: tuple[dict[str, Any], dict[str, Any]],
) -> None:
    stored, report = night
    assert stored["version"] == CURRENT[SUMMARY]
    assert stored == report  # the store and report.json hold the same document
    summary = NightSummary.from_json(stored)
    assert summary.to_json() == stored
    assert json.dumps(summary.to_json()) == json.dumps(stored)  # the same keys, in order
    # the night had something in each part the typed objects carry
    assert summary.skills and summary.models and summary.gate and summary.history
    skill = next(s for s in summary.skills if s.edits and s.test and s.promotion)
    assert skill.promotion is not None and skill.promotion.status
    assert {e.status for s in summary.skills for e in s.edits} >= {"accepted"}
    assert SkillReport.from_json(skill.to_json()) == skill


def test_the_same_summary_as_release_1_wrote_it_reads_as_today_s(
    night: tuple[dict[str, Any], dict[str, Any]],
) -> None:
    stored, _ = night
    old = _as_release_1(stored)
    assert "version" not in old and "n_nonzero" in json.dumps(old)  # the rename is exercised
    assert NightSummary.from_json(old).to_json() == stored
    with pytest.raises(ShapeError, match="upgrade skillopt-sleep"):
        NightSummary.from_json({**stored, "version": CURRENT[SUMMARY] + 1})


def test_a_summary_an_older_release_wrote_without_some_fields_still_reads(tmp_path: Path) -> None:
    old = {"night": "n1", "skills": [{"name": "s", "outcome": "unchanged",
           "promotion": {"status": "promoted", "path": "/x/SKILL.md"}}]}  # fmt: skip
    summary = NightSummary.from_json(old)
    (skill,) = summary.skills
    assert skill.test is None and skill.edits == () and skill.promotion is not None
    assert skill.promotion.paths == ("/x/SKILL.md",)  # one path, before there were targets
    assert summary.to_json()["version"] == CURRENT[SUMMARY]
