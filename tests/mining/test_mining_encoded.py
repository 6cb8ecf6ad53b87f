"""A task row's JSON written from its kind's rows encoded once is ``json.dumps``'s text."""

from __future__ import annotations

import json
from typing import Any

import pytest

from skillopt_sleep.mining.encoded import EncodedRow, dumps

ROW = EncodedRow({"kind": "not_contains", "value": 'é "x"\n', "weight": 1.5, "scope": None})
OTHER = EncodedRow({"kind": "max_words", "value": "50", "reason": "the accepted answer fails it"})


@pytest.mark.parametrize(
    "value",
    [
        [],
        {},
        [ROW],
        [ROW, OTHER, {"kind": "rubric", "value": "ü"}, ROW],
        [{"a": 1}, {"b": [1, 2]}, ROW, 3, "x", None],
        {"cluster_id": "c-1", "signals": {"correction": 2}, "dropped_judges": [OTHER, ROW]},
        {"dropped_judges": [ROW, {"kind": "contains", "value": "ok"}], "workspace": {"repo": "r"}},
        {"a": [], "b": [1.0, float("nan")], "c": "\u2603", "d": [ROW]},
    ],
)
def test_dumps_writes_what_json_dumps_writes(value: Any) -> None:
    assert dumps(value) == json.dumps(value)


def test_an_encoded_row_reads_as_its_dict() -> None:
    assert json.loads(dumps({"judges": [ROW, OTHER]})) == {"judges": [dict(ROW), dict(OTHER)]}
    assert ROW["kind"] == "not_contains" and ROW.json == json.dumps(dict(ROW))
