"""`skillopt-sleep tasks check`: an answer scored with a task's judges as a night scores it,
through click's CliRunner and as a subprocess."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
import yaml
from click.testing import CliRunner
from mining_helpers import seed, store

from skillopt_sleep.cli import main

EXE = Path(sys.executable).parent / "skillopt-sleep"
SAID = "keep the subject under 50 chars and no unittest"
TASK = {
    "id": "t-check",
    "prompt": "write the commit message for the staged change",
    "split": "train",
    "judges": [
        {"kind": "max_chars", "value": "50", "scope": "first_line",
         "source": f'turn x:0: user correction: the user said "{SAID}"', "quotes": [SAID]},
        {"kind": "not_contains", "value": "unittest", "source": "me", "quotes": [SAID]},
        {"kind": "command_ran", "value": "git diff", "source": "tool calls"},
        {"kind": "rubric", "value": "Score 1.0 when it is a commit message.", "source": "me"},
    ],
}  # fmt: skip


@pytest.fixture()
def state(tmp_path: Path) -> Path:
    db = store(tmp_path)
    seed(db)
    db.close()
    path = tmp_path / "t.yaml"
    path.write_text(yaml.safe_dump({"tasks": [TASK]}))
    res = CliRunner().invoke(main, ["--state-dir", str(tmp_path / "state"), "tasks", "import",
                                    str(path)])  # fmt: skip
    assert res.exit_code == 0, res.output
    return tmp_path / "state"


def check(state: Path, *args: str) -> tuple[int, str]:
    res = CliRunner().invoke(main, ["--state-dir", str(state), "tasks", "check", *args])
    return res.exit_code, res.output


def test_a_passing_and_a_failing_answer(state: Path, tmp_path: Path) -> None:
    code, out = check(state, "t-check", "--answer-text", "Move parser tests to pytest", "--json")
    assert code == 0, out
    doc = json.loads(out)
    assert set(doc) == {"version", "task", "pass_all", "score", "judges"}
    assert doc["task"] == "t-check" and doc["pass_all"] is True and doc["score"] == 1.0
    rows = {j["kind"]: j for j in doc["judges"]}
    assert set(rows["max_chars"]) == {"kind", "value", "scope", "pass", "score", "source",
                                      "quotes"}  # fmt: skip
    assert rows["max_chars"] == {**rows["max_chars"], "scope": "first_line", "pass": True,
                                 "score": 1.0, "quotes": [SAID]}  # fmt: skip
    assert rows["command_ran"]["pass"] is None  # needs a harness run: not scored
    assert rows["rubric"]["pass"] is None  # needs --rubric
    answer = tmp_path / "msg.txt"
    answer.write_text("Move the parser tests from unittest to the new harness and more\n\nbody")
    code, out = check(state, "t-check", "--answer", str(answer), "--json")
    assert code == 1
    doc = json.loads(out)
    assert doc["pass_all"] is False and doc["score"] == 0.0
    assert [j["pass"] for j in doc["judges"]] == [False, False, None, None]
    code, out = check(state, "t-check", "--answer", str(answer))
    assert code == 1 and "FAIL max_chars 50 (first_line)" in out and "score 0.00; fails" in out
    code, out = check(state, "t-check", "--answer-text", "")  # no answer fails its task
    assert code == 1 and "score 0.00; fails: " in out


def test_bad_input_is_one_line_and_exit_2(state: Path, tmp_path: Path) -> None:
    for args, said in [
        (("t-check",), "give the answer to score"),
        (("t-check", "--answer-text", "a", "--answer", "f"), "give the answer to score"),
        (("t-nope", "--answer-text", "a"), "no task 't-nope'"),
        (("t-check", "--answer", str(tmp_path / "missing.txt")), "cannot read"),
    ]:
        code, out = check(state, *args)
        assert code == 2 and said in out and "Traceback" not in out, (args, out)


def test_rubric_needs_a_judge_model(state: Path, tmp_path: Path) -> None:
    config = tmp_path / "sim.yaml"
    config.write_text(f"state_dir: {state}\nmodels:\n  backend: sim\n")
    res = CliRunner().invoke(main, ["--config", str(config), "tasks", "check", "t-check",
                                    "--answer-text", "Fix it", "--rubric"])  # fmt: skip
    assert res.exit_code == 2 and "--rubric needs a judge model" in res.output


def test_as_a_subprocess(state: Path) -> None:
    env = {**os.environ, "PYTHONPATH": os.environ.get("PYTHONPATH", "")}
    base = [str(EXE), "--state-dir", str(state), "tasks", "check", "t-check", "--answer", "-"]
    ok = subprocess.run(base, input="Fix parser crash", capture_output=True, text=True, env=env)
    assert ok.returncode == 0, ok.stderr
    assert "passes every judge scored" in ok.stdout
    bad = subprocess.run([*base, "--json"], input="Port to unittest", capture_output=True,
                         text=True, env=env)  # fmt: skip
    assert bad.returncode == 1 and json.loads(bad.stdout)["pass_all"] is False
