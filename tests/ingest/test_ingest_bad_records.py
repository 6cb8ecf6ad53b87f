# ruff: noqa: E501 - log records stay one per line, as in the real files
"""Records with wrongly typed fields (the causes a hostile review found) are skipped and
counted with their file and offset; the rest of the file, later passes and the CLI go on."""

from __future__ import annotations

import copy
import dataclasses
import importlib
import json
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner
from ingest_helpers import lay_out_own, query, run

from skillopt_sleep.cli import main

SID = "11111111-2222-3333-4444-555555555555"
XID = "019a0000-0000-7000-8000-0000000000c1"
CLAUDE_PATH = f".claude/projects/-w/{SID}.jsonl"
CODEX_PATH = f".codex/sessions/2026/03/01/rollout-2026-03-01T10-00-00-{XID}.jsonl"


def _claude(uuid: str, text: str) -> dict:
    return {"type": "user", "sessionId": SID, "uuid": uuid, "cwd": "/w",
            "timestamp": "2026-03-01T10:00:00Z", "message": {"role": "user", "content": text}}  # fmt: skip


CLAUDE_ASSISTANT = {
    "type": "assistant", "sessionId": SID, "uuid": "a1", "cwd": "/w", "timestamp": "2026-03-01T10:00:01Z",
    "message": {"id": "m1", "role": "assistant", "model": "m", "content": [{"type": "text", "text": "ok"}],
                "usage": {"input_tokens": 10, "output_tokens": 5}},
}  # fmt: skip


def _set(record: dict, path: tuple, value: Any) -> dict:
    out = copy.deepcopy(record)
    target = out
    for key in path[:-1]:
        target = target[key]
    target[path[-1]] = value
    return out


# (name, record with the bad field, path of the field as the message names it)
CLAUDE_CASES = [
    ("type is a list", _set(CLAUDE_ASSISTANT, ("type",), ["assistant"]), "type"),
    ("type is an object", _set(CLAUDE_ASSISTANT, ("type",), {"t": 1}), "type"),
    ("token count is a string", _set(CLAUDE_ASSISTANT, ("message", "usage", "input_tokens"), "12"), "message.usage.input_tokens"),
    ("token count is a list", _set(CLAUDE_ASSISTANT, ("message", "usage", "output_tokens"), [5]), "message.usage.output_tokens"),
    ("token count >= 2**63", _set(CLAUDE_ASSISTANT, ("message", "usage", "input_tokens"), 2**63), "message.usage.input_tokens"),
    ("cache breakdown >= 2**63", _set(CLAUDE_ASSISTANT, ("message", "usage", "cache_creation"), {"ephemeral_5m_input_tokens": 2**64}), "message.usage.cache_creation.ephemeral_5m_input_tokens"),
    ("model is a list", _set(CLAUDE_ASSISTANT, ("message", "model"), ["m"]), "message.model"),
    ("model is an object", _set(CLAUDE_ASSISTANT, ("message", "model"), {"name": "m"}), "message.model"),
    ("cwd is a list", _set(CLAUDE_ASSISTANT, ("cwd",), ["/w"]), "cwd"),
    ("cwd is an object", _set(CLAUDE_ASSISTANT, ("cwd",), {"p": "/w"}), "cwd"),
    ("timestamp is a list", _set(CLAUDE_ASSISTANT, ("timestamp",), ["2026"]), "timestamp"),
    ("timestamp is an object", _set(CLAUDE_ASSISTANT, ("timestamp",), {"s": 1}), "timestamp"),
    ("timestamp is a number", _set(CLAUDE_ASSISTANT, ("timestamp",), 1772359200000), "timestamp"),
    ("content block is a number", _set(CLAUDE_ASSISTANT, ("message", "content"), [7]), "message.content[0]"),
    ("skill name is an object", _set(CLAUDE_ASSISTANT, ("message", "content"), [{"type": "tool_use", "id": "t", "name": "Skill", "input": {"skill": {"n": 1}}}]), "message.content[0].input.skill"),
    ("sessionId is a number", _set(CLAUDE_ASSISTANT, ("sessionId",), 12), "sessionId"),
]  # fmt: skip


def _envelope(kind: str, payload: dict) -> dict:
    return {"timestamp": "2026-03-01T10:00:02Z", "type": kind, "payload": payload}


CODEX_CASES = [
    ("images is a string", _envelope("event_msg", {"type": "user_message", "message": "hi", "images": "a.png"}), "payload.images"),
    ("token usage is a string", _envelope("event_msg", {"type": "token_count", "info": {"total_token_usage": {"input_tokens": "12", "output_tokens": 1}}}), "payload.info.total_token_usage.input_tokens"),
    ("token usage >= 2**63", _envelope("event_msg", {"type": "token_count", "info": {"total_token_usage": {"input_tokens": 1, "output_tokens": 2**63}}}), "payload.info.total_token_usage.output_tokens"),
    ("exit code >= 2**63", _envelope("event_msg", {"type": "exec_command_end", "call_id": "c", "exit_code": 2**63}), "payload.exit_code"),
    ("payload is a list", {"timestamp": "2026-03-01T10:00:02Z", "type": "event_msg", "payload": [1]}, "payload"),
    ("type is a list", {"timestamp": "2026-03-01T10:00:02Z", "type": ["event_msg"], "payload": {}}, "type"),
    ("model is a list", _envelope("turn_context", {"model": ["gpt-5"], "cwd": "/w"}), "payload.model"),
    ("cwd is an object", _envelope("turn_context", {"model": "gpt-5", "cwd": {"p": "/w"}}), "payload.cwd"),
    ("timestamp is a number", {**_envelope("event_msg", {"type": "task_started"}), "timestamp": 1772359200}, "timestamp"),
    ("content item text is a number", _envelope("response_item", {"type": "message", "role": "assistant", "content": [{"type": "output_text", "text": 3}]}), "payload.content[0].text"),
]  # fmt: skip


def _codex_lines(bad: dict) -> list[dict]:
    meta = _envelope("session_meta", {"id": XID, "cwd": "/w", "originator": "codex_cli_rs"})
    first = _envelope("event_msg", {"type": "user_message", "message": "first request"})
    last = _envelope("event_msg", {"type": "user_message", "message": "second request"})
    return [meta, first, bad, last]


def _write(home: Path, rel: str, records: list[dict]) -> list[int]:
    """Write records one per line; return each line's byte offset."""
    lines = [json.dumps(r).encode() for r in records]
    (home / rel).parent.mkdir(parents=True, exist_ok=True)
    (home / rel).write_bytes(b"\n".join(lines) + b"\n")
    offsets, at = [], 0
    for line in lines:
        offsets.append(at)
        at += len(line) + 1
    return offsets


@pytest.mark.parametrize(("why", "bad", "field"), CLAUDE_CASES, ids=[c[0] for c in CLAUDE_CASES])
def test_claude_record_of_the_wrong_shape_is_counted(
    tmp_path: Path, why: str, bad: dict, field: str
) -> None:
    home = tmp_path / "home"
    offsets = _write(
        home, CLAUDE_PATH, [_claude("u1", "first request"), bad, _claude("u2", "second request")]
    )
    report = run(home)
    assert report.bad_lines == 1
    (message,) = report.errors
    assert (
        CLAUDE_PATH in message
        and f"(byte {offsets[1]})" in message
        and f"wrong type: {field} " in message
    )
    texts = [r[0] for r in query(home, "SELECT user_text FROM turns ORDER BY idx")]
    assert texts == ["first request", "second request"]
    assert run(home).errors == []  # the next pass: nothing new, nothing failing


@pytest.mark.parametrize(("why", "bad", "field"), CODEX_CASES, ids=[c[0] for c in CODEX_CASES])
def test_codex_record_of_the_wrong_shape_is_counted(
    tmp_path: Path, why: str, bad: dict, field: str
) -> None:
    home = tmp_path / "home"
    offsets = _write(home, CODEX_PATH, _codex_lines(bad))
    report = run(home)
    assert report.bad_lines == 1
    (message,) = report.errors
    assert (
        CODEX_PATH in message
        and f"(byte {offsets[2]})" in message
        and f"wrong type: {field} " in message
    )
    texts = [r[0] for r in query(home, "SELECT user_text FROM turns ORDER BY idx")]
    assert texts == ["first request", "second request"]
    assert query(home, "SELECT id FROM sessions") == [(XID,)]


def test_the_issue_repro_through_the_cli(isolated_home: Path) -> None:
    """A record with a string token count, appended to a session file: ingest says so in
    one line per file and exits 0, and every later ingest goes on."""
    lay_out_own(isolated_home)
    runner = CliRunner()
    assert runner.invoke(main, ["ingest", "--json"]).exit_code == 0
    sid = "e8b5f3d0-2c47-4a19-b6de-0a7c3e915f42"
    path = isolated_home / ".claude/projects/-home-ana-src-pyrate" / f"{sid}.jsonl"
    offset = path.stat().st_size
    bad = {
        "type": "assistant",
        "sessionId": sid,
        "uuid": "p2",
        "message": {"content": [], "usage": {"input_tokens": "12"}},
    }
    with open(path, "a") as fh:
        fh.write(json.dumps(bad) + "\n")
    res = runner.invoke(main, ["ingest", "--json"])
    assert res.exit_code == 0, res.output
    data = json.loads(res.output)
    assert data["bad_lines"] == 1 and len(data["errors"]) == 1
    assert (
        f"(byte {offset})" in data["errors"][0]
        and "message.usage.input_tokens" in data["errors"][0]
    )
    with open(path, "a") as fh:
        fh.write(json.dumps(_claude("p3", "one more request") | {"sessionId": sid}) + "\n")
    res = runner.invoke(main, ["ingest", "--json"])
    assert res.exit_code == 0 and json.loads(res.output)["new_turns"] == 1
    text = runner.invoke(main, ["ingest"])
    assert text.exit_code == 0 and "bad lines 1" in text.output


def test_an_exception_in_a_parser_is_counted_not_fatal(tmp_path: Path, monkeypatch) -> None:
    """Whatever a parser raises on a record it did not expect costs that record only."""
    claude = importlib.import_module("session_ingest.claude")
    real_event = claude.event

    def fragile(obj: dict, ctx: Any) -> Any:
        if obj.get("uuid") == "u2":
            raise ZeroDivisionError("a parser bug")
        return real_event(obj, ctx)

    monkeypatch.setattr(claude, "event", fragile)
    home = tmp_path / "home"
    offsets = _write(home, CLAUDE_PATH, [_claude(f"u{i}", f"request {i}") for i in range(1, 4)])
    report = run(home)
    assert report.bad_lines == 1
    assert f"record not understood (ZeroDivisionError) ×1 (byte {offsets[1]})" in report.errors[0]
    assert [r[0] for r in query(home, "SELECT user_text FROM turns ORDER BY idx")] == [
        "request 1",
        "request 3",
    ]


def test_a_session_that_cannot_be_rebuilt_costs_only_itself(tmp_path: Path, monkeypatch) -> None:
    registry = importlib.import_module("session_ingest.registry")
    real = registry.SOURCES["codex"]

    def broken(group: str, events: Any) -> Any:
        if group == XID:
            raise RecursionError("a build bug")
        return real.build(group, events)

    monkeypatch.setitem(registry.SOURCES, "codex", dataclasses.replace(real, build=broken))
    home = tmp_path / "home"
    lay_out_own(home)
    _write(home, CODEX_PATH, _codex_lines(_envelope("event_msg", {"type": "task_started"})))
    report = run(home)
    assert any(e.startswith(f"session {XID}: not rebuilt (RecursionError") for e in report.errors)
    assert query(home, "SELECT count(*) FROM sessions WHERE source = 'claude'")[0][0] == 11
    assert query(home, "SELECT count(*) FROM events WHERE grp = ?", (XID,))[0][0] == 4
    monkeypatch.setitem(registry.SOURCES, "codex", real)
    with open(home / CODEX_PATH, "a") as fh:  # the next pass that touches it rebuilds it
        fh.write(json.dumps(_envelope("event_msg", {"type": "task_complete"})) + "\n")
    run(home)
    assert query(home, "SELECT n_turns FROM sessions WHERE id = ?", (XID,)) == [(2,)]
