"""Task files carry the reviewable `workspace:` block and outcome judges."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml
from mining_helpers import CONFIG, seed, store

from skillopt_sleep.mining import load_tasks, mine
from skillopt_sleep.mining.query import all_tasks
from skillopt_sleep.mining.taskfile import TaskFileError, export, import_file, parse
from trainer.tasks import TaskWorkspace

WS = {"repo": "/home/u/proj", "commit": "8b0cd0300c403eeaa153be0c92c7fd06b8c0fd06",
      "setup": ["pip install -e ."]}  # fmt: skip


@pytest.fixture()
def exported(tmp_path: Path):
    db = store(tmp_path)
    seed(db)
    mine(db, CONFIG)
    path = tmp_path / "tasks.yaml"
    export(load_tasks(db), path)
    return db, path, yaml.safe_load(path.read_text())


def _write(path: Path, doc: dict) -> Path:
    path.write_text(yaml.safe_dump(doc, sort_keys=False))
    return path


def test_a_workspace_and_outcome_judges_round_trip(exported) -> None:
    db, path, doc = exported
    first = doc["tasks"][0]
    first["workspace"] = WS
    first["judges"] += [
        {"kind": "command_ran", "value": r"^pytest\b"},
        {"kind": "exit_ok", "value": ""},
        {"kind": "check", "value": "pytest -q tests/test_calc.py"},
    ]
    import_file(db, _write(path, doc))
    task = all_tasks(db)[first["id"]][0]
    assert task.workspace == TaskWorkspace.from_dict(WS)
    assert task.to_dict()["workspace"] == WS
    assert [j.kind for j in task.judges[-3:]] == ["command_ran", "exit_ok", "check"]
    export([task], path)  # and back out, unchanged
    assert "workspace:" in path.read_text() and parse(path)[0].workspace == task.workspace


@pytest.mark.parametrize(
    ("workspace", "error"),
    [
        ({"repo": "/r"}, "workspace is missing 'commit'"),
        ({"repo": "/r", "commit": "not-a-sha"}, "commit must be a hex sha"),
        ({"repo": "/r", "commit": "abcdef1", "setup": "make"}, "setup must be a list"),
        ({"repo": "/r", "commit": "abcdef1", "branch": "main"}, "unknown workspace key"),
        ("/r", "workspace must be a mapping"),
    ],
)
def test_a_bad_workspace_is_refused_with_its_line(exported, workspace, error) -> None:
    db, path, doc = exported
    doc["tasks"][-1]["workspace"] = workspace
    with pytest.raises(TaskFileError, match=error) as exc:
        import_file(db, _write(path, doc))
    assert str(exc.value).startswith(f"{path}:")
    assert not any(reviewed for _t, reviewed in all_tasks(db).values())  # nothing written


def test_a_command_ran_judge_must_be_a_regex(exported) -> None:
    db, path, doc = exported
    doc["tasks"][0]["judges"].append({"kind": "command_ran", "value": "pytest ("})
    with pytest.raises(TaskFileError, match="invalid regex"):
        import_file(db, _write(path, doc))
