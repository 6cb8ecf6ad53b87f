"""Type mutations of real records: one wrongly typed field never stops a pass.

Each example takes one record of a fixture log, sets one field at any depth (or one list
item) to null, a number, 2**63, a list, an object or a string, and ingests the file.
Then: the pass completes; the record is either skipped and counted as one bad line
(named with the file and its byte offset, by the shape check, not by a parser tripping
over it), with every other table exactly as if the line were not there; or it is stored,
and the store holds nothing of a wrong type. Runs on the project's own fixtures and on
the real logs in ``../shared``. More examples: ``pytest --hypothesis-profile=fuzz``; the
count run: ``--hypothesis-show-statistics``.
"""

from __future__ import annotations

import copy
import json
import shutil
import tempfile
from functools import cache
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from ingest_helpers import all_fixture_files, own_fixture_files, query, run

MUTATIONS = [None, 7, 2**63, [1, "x"], {"x": 1}, "mutated"]
FILE_SETS = {
    "own": lambda: [f for f in own_fixture_files() if f[1].endswith(".jsonl")],
    "real": all_fixture_files,
}
TABLES = {
    "events": "SELECT grp, source, data FROM events",
    "sessions": "SELECT * FROM sessions",
    "turns": "SELECT * FROM turns",
    "tool_calls": "SELECT * FROM tool_calls",
    "signals": "SELECT * FROM signals",
    "files": "SELECT path, source, session_id FROM files",
}


@cache
def _records(which: str) -> list[tuple[int, int]]:
    """(file index, line index) of every JSON-object line of the chosen fixtures."""
    out = []
    for fi, (src, _rel) in enumerate(FILE_SETS[which]()):
        for li, line in enumerate(src.read_bytes().split(b"\n")):
            try:
                if isinstance(json.loads(line), dict):
                    out.append((fi, li))
            except ValueError:
                continue
    return out


def _paths(value: Any, prefix: tuple = ()) -> list[tuple]:
    """Every field (at any depth) and list item of a record, as a key/index path."""
    out = []
    items = value.items() if isinstance(value, dict) else enumerate(value)
    for key, sub in items:
        out.append((*prefix, key))
        if isinstance(sub, dict | list):
            out.extend(_paths(sub, (*prefix, key)))
    return out


def _content(home: Path) -> dict[str, list]:
    """The ingest tables as sorted rows (offsets left out: a line's length may change)."""

    def norm(v: Any) -> Any:
        return v.replace(str(home), "HOME") if isinstance(v, str) else v

    return {
        t: sorted(tuple(norm(v) for v in r) for r in query(home, sql)) for t, sql in TABLES.items()
    }


_WORK = tempfile.TemporaryDirectory(prefix="ingest-fuzz-")  # removed at exit


def _ingest(rel: str, data: bytes) -> tuple[Any, dict[str, list], str]:
    """Ingest one file, always at the same place: a rollout named by no uuid is grouped by
    its path, which must not differ between the runs compared."""
    home = Path(_WORK.name) / "home"
    shutil.rmtree(home, ignore_errors=True)
    (home / rel).parent.mkdir(parents=True)
    (home / rel).write_bytes(data)
    report = run(home)
    return report, _content(home), str(home / rel)


@cache
def _without(which: str, fi: int, li: int) -> dict[str, list]:
    src, rel = FILE_SETS[which]()[fi]
    lines = src.read_bytes().split(b"\n")
    return _ingest(rel, b"\n".join(lines[:li] + lines[li + 1 :]))[1]


def _mutate(data: st.DataObject, which: str) -> None:
    fi, li = data.draw(st.sampled_from(_records(which)), label="record")
    src, rel = FILE_SETS[which]()[fi]
    lines = src.read_bytes().split(b"\n")
    record = json.loads(lines[li])
    path = data.draw(st.sampled_from(_paths(record)), label="field")
    new = data.draw(st.sampled_from(MUTATIONS), label="value")
    mutated = copy.deepcopy(record)
    target = mutated
    for key in path[:-1]:
        target = target[key]
    target[path[-1]] = new
    lines[li] = json.dumps(mutated).encode()
    offset = sum(len(line) + 1 for line in lines[:li])
    report, content, full = _ingest(rel, b"\n".join(lines))  # must not raise
    if report.bad_lines:
        (message,) = report.errors  # one message, naming the file and the offset
        assert message.startswith(f"{full}: 1 bad line") and f"(byte {offset})" in message
        assert "wrong type" in message, message  # the shape check caught it, not a crash
        without = _without(which, fi, li)
        for table in TABLES:
            assert content[table] == without[table], table
    else:
        assert report.errors == []
        for table, rows in content.items():
            for row in rows:
                assert not any(isinstance(v, float | list | dict) for v in row), (table, row)


@settings(deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_a_wrongly_typed_field_is_counted_or_harmless(data: st.DataObject) -> None:
    _mutate(data, "own")


@pytest.mark.needs_shared
@settings(deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_a_wrongly_typed_field_is_counted_or_harmless_real(data: st.DataObject) -> None:
    _mutate(data, "real")
