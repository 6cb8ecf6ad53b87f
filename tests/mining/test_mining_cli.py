"""`skillopt-sleep tasks …` through click's CliRunner, on a real store."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml
from click.testing import CliRunner
from mining_helpers import seed, store

from skillopt_sleep.cli import main


@pytest.fixture()
def state(tmp_path: Path) -> Path:
    db = store(tmp_path)
    seed(db)
    db.close()
    return tmp_path / "state"


def run(state: Path, *args: str) -> tuple[int, str]:
    res = CliRunner().invoke(main, ["--state-dir", str(state), "tasks", *args])
    return res.exit_code, res.output


def test_list_json_mines_on_demand_and_has_the_contract(state: Path) -> None:
    code, out = run(state, "list", "--json")
    assert code == 0, out
    doc = json.loads(out)
    assert set(doc) == {"version", "clusters"}
    recurring = [c for c in doc["clusters"] if c["recurring"]]
    assert len(recurring) == 2
    for c in doc["clusters"]:
        for key in ("id", "skill", "recurring", "n_turns", "n_sessions", "n_days",
                    "failure_rate", "members", "sample_intents", "tasks"):  # fmt: skip
            assert key in c
        for t in c["tasks"]:
            assert {"id", "split", "intent", "judges"} <= set(t)


def test_list_show_export_import(state: Path, tmp_path: Path) -> None:
    code, out = run(state, "list")
    assert code == 0 and "regression-tests" in out and "one-off cluster(s) hidden" in out
    cid = out.split()[1]
    code, out = run(state, "show", cid)
    assert code == 0 and f"cluster {cid}" in out
    tid = next(w for w in out.split() if w.startswith("t-"))
    code, out = run(state, "show", tid)
    assert code == 0 and "judges:" in out and "rubric" in out
    code, out = run(state, "show", "c-nope")
    assert code == 2 and "no cluster or task 'c-nope'" in out
    path = tmp_path / "t.yaml"
    code, out = run(state, "export", str(path))
    assert code == 0 and "wrote" in out
    doc = yaml.safe_load(path.read_text())
    doc["tasks"][0]["judges"][0]["kind"] = "containz"
    path.write_text(yaml.safe_dump(doc, sort_keys=False))
    code, out = run(state, "import", str(path))
    assert code == 2 and "t.yaml:" in out and "unknown judge kind 'containz'" in out
    assert len(out.strip().splitlines()) == 1
    doc["tasks"][0]["judges"][0]["kind"] = "contains"
    path.write_text(yaml.safe_dump(doc, sort_keys=False))
    code, out = run(state, "import", str(path))
    assert code == 0 and "imported" in out
    code, out = run(state, "show", doc["tasks"][0]["id"], "--json")
    assert json.loads(out)["reviewed"] is True
    code, out = run(state, "import", str(tmp_path / "missing.yaml"))
    assert code == 2


def test_mine_and_help(state: Path) -> None:
    code, out = run(state, "mine", "--json")
    assert code == 0 and json.loads(out)["recurring"] == 2
    for sub in ("list", "show", "export", "import", "mine"):
        code, out = run(state, sub, "--help")
        assert code == 0 and "Example:" in out
    code, out = run(state, "--help")
    assert code == 0 and "Example:" in out
