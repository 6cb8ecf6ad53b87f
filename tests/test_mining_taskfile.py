"""Task files: export -> edit -> import round-trips; mistakes are refused whole."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml
from mining_helpers import CONFIG, seed, store

from skillopt_sleep.mining import load_tasks, mine
from skillopt_sleep.mining.query import all_tasks
from skillopt_sleep.mining.taskfile import TaskFileError, export, import_file, parse


@pytest.fixture()
def mined(tmp_path: Path):
    db = store(tmp_path)
    seed(db)
    mine(db, CONFIG)
    return db


@pytest.mark.parametrize("ext", ["yaml", "json"])
def test_export_edit_import_round_trip(mined, tmp_path: Path, ext: str) -> None:
    path = tmp_path / f"tasks.{ext}"
    tasks = load_tasks(mined)
    assert export(tasks, path) == len(tasks) > 0
    assert [t.to_dict() for t in parse(path)] == [t.to_dict() for t in tasks]
    doc = yaml.safe_load(path.read_text()) if ext == "yaml" else json.loads(path.read_text())
    first = doc["tasks"][0]
    first["judges"].append({"kind": "max_words", "value": "60", "weight": 2, "source": "me"})
    first["prompt"] = "edited prompt"
    text = yaml.safe_dump(doc) if ext == "yaml" else json.dumps(doc)
    path.write_text(text)
    assert import_file(mined, path) == len(tasks)
    got = all_tasks(mined)[first["id"]]
    assert got[1] is True and got[0].prompt == "edited prompt"
    assert got[0].judges[-1].kind == "max_words" and got[0].judges[-1].weight == 2.0
    mine(mined, CONFIG)  # re-mining never overwrites a reviewed task
    assert all_tasks(mined)[first["id"]][0].prompt == "edited prompt"


BAD = [
    ("  - kind: rubric\n", "  - kind: rubirc\n", "unknown judge kind 'rubirc'"),
    ("  split: train\n", "  split: dev\n", "split must be one of"),
    (
        "  - kind: rubric\n",
        "  - knd: rubric\n",
        "unknown judge key 'knd' (did you mean 'kind'?)",
    ),
    ("  prompt: ", "  promt: ", "unknown task key 'promt'"),
]


@pytest.mark.parametrize(("old", "new", "reason"), BAD)
def test_bad_file_refused_with_line_and_store_unchanged(
    mined, tmp_path: Path, old: str, new: str, reason: str
) -> None:
    path = tmp_path / "tasks.yaml"
    export(load_tasks(mined), path)
    text = path.read_text()
    assert old in text
    bad = text.replace(old, new, 1)
    line = text[: text.index(old)].count("\n") + 1
    path.write_text(bad)
    before = list(mined.query("select * from reviewed_tasks"))
    with pytest.raises(TaskFileError) as err:
        import_file(mined, path)
    assert reason in str(err.value)
    assert f"{path}:{line}:" in str(err.value) or f"{path}:{line + 1}:" in str(err.value)
    assert list(mined.query("select * from reviewed_tasks")) == before


def test_bad_regex_yaml_syntax_json_syntax_and_leaks(mined, tmp_path: Path) -> None:
    path = tmp_path / "t.yaml"
    path.write_text("tasks:\n- id: a\n  prompt: p\n  split: train\n  judges:\n"
                    "  - kind: regex\n    value: '(unclosed'\n")  # fmt: skip
    with pytest.raises(TaskFileError, match=r"t.yaml:7: invalid regex"):
        import_file(mined, path)
    path.write_text("tasks:\n- id: a\n  prompt: [unclosed\n")
    with pytest.raises(TaskFileError, match=r"t.yaml:\d+: not valid YAML"):
        import_file(mined, path)
    jpath = tmp_path / "t.json"
    jpath.write_text('{"tasks": [\n{"id": "a",}\n]}')
    with pytest.raises(TaskFileError, match=r"t.json:2: not valid JSON"):
        import_file(mined, jpath)
    path.write_text("tasks:\n- id: a\n  prompt: p\n  split: val\n")
    with pytest.raises(TaskFileError, match=r"t.yaml:4: val takes only tasks from real turns"):
        import_file(mined, path)
    path.write_text(
        "tasks:\n- {id: a, prompt: p, split: train, group: g1}\n"
        "- {id: b, prompt: q, split: test, group: g1, meta: {turn_id: x}}\n"
    )
    with pytest.raises(TaskFileError, match=r"t.yaml:3: group g1 is in train"):
        import_file(mined, path)
    # a group that straddles against tasks already in the store
    task = load_tasks(mined)[0]
    other = "train" if task.split != "train" else "test"
    path.write_text(yaml.safe_dump({"tasks": [{"id": "new", "prompt": "p", "split": other,
                    "group": task.group, "meta": {"turn_id": "t"}}]}))  # fmt: skip
    with pytest.raises(TaskFileError, match="never straddles"):
        import_file(mined, path)
    assert list(mined.query("select * from reviewed_tasks")) == []
    with pytest.raises(TaskFileError, match="unknown extension"):
        export([], tmp_path / "t.txt")
