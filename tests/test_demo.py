"""`skillopt-sleep demo` end to end: a real subprocess on the real embedded models (1.5B
optimizer, 0.5B target; servers started and stopped by the demo on 127.0.0.1), real model
calls, no simulation. The models are joined once into the shared model cache (conftest).

The night is the demo's own (`--minutes 10`, what a user runs): the whole path runs (ingest,
mining, the models, training, the report, stopping in time for the held-out test). How far
training gets in that time depends on the machine: on one about half as fast as a quiet
2-core box the deadline can come before the first proposal, and then the night must say
so. What a full demo night learns is measured by hand and by benchmarks/learning_local.py
(docs/models.md)."""

from __future__ import annotations

import json
import os
import re
import subprocess
import time
from pathlib import Path

import pytest

from tests.cli_helpers import console_script
from trainer.backends.models import QWEN_05B, QWEN_15B, installed

pytestmark = [pytest.mark.local_model, pytest.mark.slow, pytest.mark.timeout(2400)]

PROJECT = Path(__file__).resolve().parents[1]
CLI = [str(console_script())]


@pytest.mark.skipif(
    not (installed(QWEN_05B) and installed(QWEN_15B)), reason="local models not installed"
)
def test_demo_runs_a_real_night_and_reports_the_held_out_result(tmp_path: Path) -> None:
    env = {k: v for k, v in os.environ.items() if not k.startswith("SKILLOPT_SLEEP_")}
    env["PYTHONPATH"] = str(PROJECT)
    start = time.monotonic()
    proc = subprocess.run(
        [*CLI, "demo", "--dir", str(tmp_path / "demo"), "--minutes", "10"],
        cwd=PROJECT,
        env=env,
        capture_output=True,
        text=True,
        timeout=2300,
    )
    took = time.monotonic() - start
    assert proc.returncode == 0, proc.stderr[-3000:]
    report = re.search(r"^report: (\S+)$", proc.stdout, re.M)
    assert report and Path(report.group(1)).is_relative_to(tmp_path / "demo")
    summary = json.loads(Path(report.group(1)).with_name("report.json").read_text())
    assert summary["simulation"] is False
    models = summary["models"]
    assert (models["optimizer"]["model"], models["target"]["model"]) == (
        QWEN_15B.label,
        QWEN_05B.label,
    )
    assert {m["backend"] for m in models.values()} == {"local"}
    (skill,) = summary["skills"]  # night.max_skills: 1, the most valuable cluster
    assert skill["name"] == "commit-message" and not skill["managed"]
    assert skill["usage"]["live_calls"] > 0 and skill["usage"]["infra_errors"] == 0
    assert skill["n_tasks"]["val"] >= 12 and skill["n_tasks"]["test"] >= 12
    by_role = skill["usage"]["by_role"]
    assert "judge" not in by_role  # rule judges only
    # the optimizer proposed an edit (no candidate is read off the answers by fiat)
    optimizer_calls = by_role.get("optimizer", {}).get("calls", 0)
    if optimizer_calls == 0:
        # a slow machine: the time the held-out test needs was kept, so training stopped
        # after the first minibatch's rollouts, and the report and the summary say why
        assert skill["stopped_by"] == "budget: deadline", skill["stopped_by"]
        assert skill["outcome"] == "unchanged" and "deadline" in skill["reason"]
        assert skill["counters"]["calls_to_learn"] <= skill["n_tasks"]["train"]
        # said up front by the plan when it did not fit, else by the budget's stop
        plan = skill["plan"]
        said = plan["warning"] if plan["warning"] else "deadline came before an edit could pass"
        assert said in " ".join(proc.stdout.split()), proc.stdout
    if skill["outcome"] == "improved":  # an accepted edit is measured on the test split
        # (on the tasks both skills were scored on, when the deadline came during the test)
        cut = "budget deadline ran out" in skill["test"]["method"]
        assert skill["test"]["n_tasks"] == skill["n_tasks"]["test"] or cut, skill["test"]
        assert skill["test"]["ci_low"] is not None
        assert skill["promotion"]["status"] == "staged"  # the user's own skill: for review
    # progress: phases, then calls done of planned with an ETA (a line per tenth off a tty)
    for phase in ("ingesting session logs", "mining recurring tasks", "training commit-message"):
        assert phase in proc.stderr
    assert re.search(r"training commit-message: \d+ of about \d+ calls, ETA \d", proc.stderr)
    # the plan before the first call: what tonight can show, its calls and its time
    assert f"plan for commit-message: {skill['plan']['shows']}" in proc.stderr
    print(f"\ndemo: {took:.0f} s wall; {proc.stdout.splitlines()[-3:]}")
