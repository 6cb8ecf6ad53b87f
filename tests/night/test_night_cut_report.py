"""A night the call budget ends mid-comparison, through the CLI (click's runner) on the
simulated world and a generated corpus: its report says what was kept for the next night,
and the next night goes on with those samples. The trainer's side: test_night_kept_evidence.py."""

from __future__ import annotations

import json
from pathlib import Path

from click.testing import CliRunner

from skillopt_sleep.cli import main
from tests.night_helpers import make_root, write_yaml


def test_a_night_cut_by_the_budget_reports_the_samples_kept_and_the_next_resumes(
    tmp_path: Path,
) -> None:
    # one skill, and too few calls for its first comparison to decide in one night
    config = make_root(tmp_path, **{"night.max_skills": 1, "budget.max_calls": 300})
    cfg = write_yaml(tmp_path, config)
    nights = []
    for _ in (1, 2):
        out = CliRunner().invoke(main, ["--config", str(cfg), "run", "--once", "--json", "-q"])
        assert out.exit_code == 0, out.output
        nights.append(json.loads(out.output))
    first, second = ((n["skills"][0], n) for n in nights)
    skill, night = first
    assert skill["stopped_by"] == "budget: calls"
    (held,) = skill["pending"]
    pairs = held["pairs"]
    assert pairs and held["cut_by"] == "calls" and held["nights"] == 1
    kept = f"still undecided: {pairs} paired samples kept for the next night"
    assert held["kept"] == kept
    report = ["--config", str(cfg), "report", night["night"]]
    md = CliRunner().invoke(main, report).output
    assert f"{kept}; the calls budget ended tonight's sweeps" in md
    written = Path(config["state_dir"], "nights", night["night"], "report.json").read_text()
    shown = CliRunner().invoke(main, [*report, "--format", "json"]).output
    for text in (written, shown):
        assert json.loads(text)["skills"][0]["pending"][0]["kept"] == kept
    # the next night goes on from those samples: more of them, over two nights
    skill, night = second
    assert skill["counters"]["pending_continued"] == 1
    (row,) = [e for e in skill["edits"] if e["summary"] == held["summary"]]
    assert row["gate"]["pairs"] > pairs and row["gate"]["sweeps"] > held["sweeps"]
    # a small effect on this corpus: still undecided, now with two nights' samples
    (again,) = [p for p in skill["pending"] if p["summary"] == held["summary"]]
    assert again["nights"] == 2 and again["pairs"] == row["gate"]["pairs"]
