"""Recovering JSON answers, checking their shape, and counting what cannot be used."""

from __future__ import annotations

import json
from concurrent.futures import ThreadPoolExecutor

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from trainer.backends.jsonio import JsonStats, parse_json_answer, schema_problem

SCHEMA = {
    "type": "object",
    "properties": {
        "verdict": {"type": "string", "enum": ["pass", "fail"]},
        "score": {"type": "number"},
        "notes": {"type": "array", "items": {"type": "string"}},
    },
    "required": ["verdict"],
}


def test_clean_json_is_not_marked_recovered() -> None:
    assert parse_json_answer('{"verdict": "pass", "score": 1}', SCHEMA) == (
        {"verdict": "pass", "score": 1},
        False,
    )


@pytest.mark.parametrize(
    "text",
    [
        '```json\n{"verdict": "pass"}\n```',
        'Sure! Here it is: {"verdict": "pass"} Hope that helps.',
        "{'verdict': 'pass'}",
        '{"verdict": "pass",}',
        '{"verdict": "pass", "notes": ["a", "b',  # truncated mid-string
        '[{"verdict": "maybe"}, {"verdict": "pass"}]',  # a list: first fitting object
    ],
)
def test_malformed_json_is_recovered(text: str) -> None:
    value, recovered = parse_json_answer(text, SCHEMA)
    assert recovered is True and value["verdict"] == "pass"


@pytest.mark.parametrize(
    "text",
    [
        "",
        "   ",
        None,
        "I think the answer passes.",
        '{"score": 1}',  # required key missing
        '{"verdict": "maybe"}',  # not in the enum
        '{"verdict": "pass", "score": "high"}',  # wrong type
        '{"verdict": true}',
        '["pass"]',
    ],
)
def test_unusable_answers_are_none(text: str | None) -> None:
    assert parse_json_answer(text, SCHEMA) == (None, False)


def test_without_schema_any_json_value_is_accepted() -> None:
    assert parse_json_answer("[1, 2") == ([1, 2], True)
    assert parse_json_answer("42") == (42, False)


def test_schema_problem_paths_and_bool_vs_int() -> None:
    assert schema_problem({"verdict": "pass", "notes": ["a", 3]}, SCHEMA) == (
        "$.notes[1]: expected string, got int"
    )
    assert schema_problem(True, {"type": "integer"}) is not None
    assert schema_problem(3, {"type": "number"}) is None
    assert schema_problem(None, {"type": ["string", "null"]}) is None
    assert schema_problem({"x": 1}, None) is None


def test_stats_count_every_answer() -> None:
    stats = JsonStats()
    assert stats.parse('{"verdict": "fail"}', SCHEMA) == {"verdict": "fail"}
    assert stats.parse('```{"verdict": "pass"}```', SCHEMA) == {"verdict": "pass"}
    assert stats.parse("no json here", SCHEMA) is None
    assert stats.parse("null", {"type": ["object", "null"]}) is None  # valid null
    assert stats.as_dict() == {"parsed": 2, "repaired": 1, "unparseable": 1}
    assert stats.total == 4 and stats.examples == ["no json here"]
    other = JsonStats()
    other.record(False, False, "x" * 500)
    stats.merge(other)
    assert stats.unparseable == 2 and len(stats.examples[1]) == 200


def test_stats_are_thread_safe() -> None:
    stats = JsonStats()
    texts = ['{"verdict": "pass"}', "{'verdict': 'fail'}", "nope"] * 200
    with ThreadPoolExecutor(4) as pool:
        list(pool.map(lambda t: stats.parse(t, SCHEMA), texts))
    assert stats.as_dict() == {"parsed": 200, "repaired": 200, "unparseable": 200}


json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(max_size=10),
    lambda children: (
        st.lists(children, max_size=3) | st.dictionaries(st.text(max_size=5), children, max_size=3)
    ),
    max_leaves=10,
)


@settings(max_examples=150, deadline=None)
@given(st.text(max_size=200))
def test_never_raises_on_arbitrary_text(text: str) -> None:
    value, recovered = parse_json_answer(text, SCHEMA)
    assert value is None or schema_problem(value, SCHEMA) is None
    parse_json_answer(text)


@settings(max_examples=100, deadline=None)
@given(json_values)
def test_valid_json_round_trips_unrecovered(value: object) -> None:
    assert parse_json_answer(json.dumps(value)) == (value, False) or value is None
