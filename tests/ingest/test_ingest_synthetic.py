# ruff: noqa: E501 - log records stay one per line, as in the real files
"""Cases no real fixture covers: legacy Codex, compaction, API errors, images, 2.1.x
subagent files, and bad input of every kind. Records are modelled on session_formats.md."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from ingest_helpers import query, run

from session_ingest.signals import reaction
from skillopt_sleep.settings.logs import ingest_logs
from skillopt_sleep.store import open_store

SID = "11111111-2222-3333-4444-555555555555"


def _claude(rec_type: str, uuid: str, ts: str, **kw: object) -> dict:
    base = {"parentUuid": None, "isSidechain": False, "userType": "external", "cwd": "/w/app",
            "sessionId": SID, "version": "2.1.50", "gitBranch": "main", "type": rec_type,
            "uuid": uuid, "timestamp": ts}  # fmt: skip
    return {**base, **kw}


def _user(uuid: str, ts: str, content: object, **kw: object) -> dict:
    return _claude("user", uuid, ts, message={"role": "user", "content": content}, **kw)


def _asst(uuid: str, ts: str, mid: str, blocks: list, out: int = 10, **kw: object) -> dict:
    msg = {"id": mid, "type": "message", "role": "assistant", "model": kw.pop("model", "m1"),
           "content": blocks, "usage": {"input_tokens": 100, "output_tokens": out}}  # fmt: skip
    return _claude("assistant", uuid, ts, message=msg, **kw)


def _write(path: Path, records: list) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    lines = [r if isinstance(r, bytes) else json.dumps(r).encode() for r in records]
    path.write_bytes(b"\n".join(lines) + b"\n")


def _project(home: Path) -> Path:
    return home / ".claude" / "projects" / "-w-app"


def test_claude_compaction_summary_is_not_a_request(tmp_path: Path) -> None:
    home = tmp_path / "home"
    summary = "This session is being continued from a previous conversation that ran out of context. The summary below covers..."  # noqa: E501
    _write(_project(home) / f"{SID}.jsonl", [
        _user("u1", "2026-03-01T10:00:00Z", "refactor the parser module"),
        _asst("a1", "2026-03-01T10:00:01Z", "m-1", [{"type": "text", "text": "Working on it"}]),
        _claude("system", "cb", "2026-03-01T10:05:00Z", subtype="compact_boundary",
                logicalParentUuid="a1", content="Conversation compacted",
                compactMetadata={"trigger": "auto", "preTokens": 167094}),
        _user("u2", "2026-03-01T10:05:01Z", summary, isCompactSummary=True,
              isVisibleInTranscriptOnly=True),
        _asst("a2", "2026-03-01T10:05:02Z", "m-2", [{"type": "text", "text": "Done refactoring"}]),
        _user("u3", "2026-03-01T10:06:00Z", "thanks, perfect"),
    ])  # fmt: skip
    run(home)
    turns = query(home, "SELECT user_text, assistant_text FROM turns ORDER BY idx")
    assert [t[0] for t in turns] == ["refactor the parser module", "thanks, perfect"]
    assert "Done refactoring" in turns[0][1]
    assert query(home, "SELECT kind FROM signals") == [("positive",)]


def test_claude_usage_dedup_api_errors_and_images(tmp_path: Path) -> None:
    home = tmp_path / "home"
    img = {"type": "image", "source": {"type": "base64", "media_type": "image/png",
                                        "data": "iVBORw0KGgo" + "A" * 300_000}}  # fmt: skip
    _write(_project(home) / f"{SID}.jsonl", [
        _user("u1", "2026-03-01T10:00:00Z", [{"type": "text", "text": "what is in this screenshot"}, img]),
        # one API response streamed as 3 records sharing message.id; usage grows
        _asst("a1", "2026-03-01T10:00:01Z", "msg_A", [{"type": "thinking", "thinking": "hm"}], out=5),
        _asst("a2", "2026-03-01T10:00:02Z", "msg_A", [{"type": "text", "text": "A chart"}], out=20),
        _asst("a3", "2026-03-01T10:00:03Z", "msg_A",
              [{"type": "tool_use", "id": "t1", "name": "Skill", "input": {"skill": "charts"}}], out=30),
        _user("r1", "2026-03-01T10:00:04Z", [{"type": "tool_result", "tool_use_id": "t1", "content": "ok"}]),
        _user("u2", "2026-03-01T10:01:00Z", "and now export it"),
        _asst("e1", "2026-03-01T10:01:01Z", "msg_E", [{"type": "text", "text": "API Error: 529 Overloaded"}],
              model="<synthetic>", isApiErrorMessage=True),
    ])  # fmt: skip
    run(home)
    s = query(home, "SELECT input_tokens, output_tokens, model FROM sessions")[0]
    assert s == (200, 40, "m1")  # msg_A counted once (its last, 30) + msg_E (10)
    turns = query(home, "SELECT user_text, skills, assistant_text FROM turns ORDER BY idx")
    assert turns[0][0] == "what is in this screenshot\n[1 image(s)]"
    assert json.loads(turns[0][1]) == ["charts"]
    assert "API Error" not in turns[1][2]
    assert query(home, "SELECT kind, evidence FROM signals")[0][0] == "abandonment"
    raw = (home / "state" / "skillopt-sleep.db").read_bytes()
    assert b"A" * 1000 not in raw  # base64 image data is not stored


def test_claude_21x_subagent_directory_layout(tmp_path: Path) -> None:
    home = tmp_path / "home"
    _write(_project(home) / f"{SID}.jsonl", [
        _user("u1", "2026-03-01T10:00:00Z", "review the diff"),
        _asst("a1", "2026-03-01T10:00:01Z", "m1", [{"type": "tool_use", "id": "task1", "name": "Task",
              "input": {"description": "review", "prompt": "Review the diff carefully"}}]),
    ])  # fmt: skip
    _write(_project(home) / SID / "subagents" / "agent-a1b2c3d.jsonl", [
        _user("s1", "2026-03-01T10:00:02Z", "Review the diff carefully", isSidechain=True,
              agentId="a1b2c3d"),
        _asst("s2", "2026-03-01T10:00:03Z", "m2", [{"type": "tool_use", "id": "b1", "name": "Bash",
              "input": {"command": "pytest -q"}}], isSidechain=True, agentId="a1b2c3d"),
        _user("s3", "2026-03-01T10:00:04Z", [{"type": "tool_result", "tool_use_id": "b1",
              "content": "Exit code 1\n2 failed", "is_error": True}], isSidechain=True),
    ])  # fmt: skip
    run(home)
    rows = query(home, "SELECT id, kind, parent_id FROM sessions ORDER BY id")
    assert rows == [(SID, "main", None), (f"{SID}:agent-a1b2c3d", "subagent", SID)]
    assert query(
        home, "SELECT user_text FROM turns WHERE session_id = ?", (f"{SID}:agent-a1b2c3d",)
    ) == [("",)]
    assert query(home, "SELECT kind FROM signals WHERE session_id LIKE '%agent%'") == [
        ("test_failure",)
    ]
    assert query(home, "SELECT exit_code FROM tool_calls WHERE name = 'Bash'") == [(1,)]


def _codex_dir(home: Path) -> Path:
    return home / ".codex" / "sessions" / "2025" / "08" / "11"


def test_codex_legacy_pre_envelope(tmp_path: Path) -> None:
    home = tmp_path / "home"
    sid = "0198a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b"
    out = json.dumps(
        {
            "output": "FAILED tests/test_x.py::t - assert 1 == 2\n",
            "metadata": {"exit_code": 1, "duration_seconds": 0.4},
        }
    )  # noqa: E501
    _write(_codex_dir(home) / f"rollout-2025-08-11T10-00-00-{sid}.jsonl", [
        {"id": sid, "timestamp": "2025-08-11T08:00:00.000Z", "instructions": "be nice",
         "git": {"commit_hash": "abc", "branch": "dev"}},
        {"record_type": "state"},
        {"type": "message", "role": "user", "content": [{"type": "input_text", "text": "<environment_context>cwd</environment_context>"}]},
        {"type": "message", "role": "user", "content": [{"type": "input_text", "text": "run the tests"}]},
        {"type": "function_call", "name": "shell", "arguments": json.dumps({"command": ["pytest", "-q"]}), "call_id": "c1"},
        {"record_type": "state"},
        {"type": "function_call_output", "call_id": "c1", "output": out},
        {"type": "message", "role": "assistant", "content": [{"type": "output_text", "text": "One test fails."}]},
    ])  # fmt: skip
    run(home)
    assert query(home, "SELECT id, branch, kind FROM sessions") == [(sid, "dev", "main")]
    assert query(home, "SELECT user_text, finished FROM turns") == [("run the tests", 1)]
    assert query(home, "SELECT name, args_summary, exit_code, is_error FROM tool_calls") == [
        ("shell", "pytest -q", 1, 1)
    ]
    assert query(home, "SELECT kind FROM signals") == [("test_failure",)]


def test_codex_typescript_era_json(tmp_path: Path) -> None:
    home = tmp_path / "home"
    path = home / ".codex" / "sessions" / "rollout-2025-04-20-abc.json"
    path.parent.mkdir(parents=True)
    path.write_text(json.dumps({
        "session": {"id": "ts-session-1", "timestamp": "2025-04-20T10:00:00Z", "instructions": ""},
        "items": [
            {"type": "message", "role": "user", "content": [{"type": "input_text", "text": "list files"}]},
            {"type": "function_call", "name": "shell", "arguments": "{\"command\":[\"ls\"]}", "call_id": "c1"},
            {"type": "function_call_output", "call_id": "c1", "output": "{\"output\":\"a\\n\",\"metadata\":{\"exit_code\":0}}"},
            {"type": "message", "role": "assistant", "content": [{"type": "output_text", "text": "a"}]},
        ]}))  # fmt: skip
    run(home)
    run(home)
    assert query(home, "SELECT id, n_turns, n_tool_calls FROM sessions") == [("ts-session-1", 1, 1)]


def test_codex_compaction_errors_exit_codes_and_no_session_meta(tmp_path: Path) -> None:
    home = tmp_path / "home"
    sid = "019a0000-0000-7000-8000-000000000001"

    def env(kind: str, payload: dict, ts: str = "2026-01-01T10:00:00.000Z") -> dict:
        return {"timestamp": ts, "type": kind, "payload": payload}

    _write(_codex_dir(home) / f"rollout-2026-01-01T10-00-00-{sid}.jsonl", [
        env("turn_context", {"model": "gpt-5", "cwd": "/w"}),
        env("event_msg", {"type": "task_started"}),
        env("event_msg", {"type": "user_message", "message": "fix the build"}),
        env("response_item", {"type": "function_call", "name": "shell_command", "call_id": "a", "arguments": "{\"command\":\"cargo build\"}"}),
        env("response_item", {"type": "function_call_output", "call_id": "a", "output": "Exit code: 101\nWall time: 3 seconds\nOutput:\nerror[E0425]"}),
        env("response_item", {"type": "custom_tool_call", "name": "apply_patch", "call_id": "b", "input": "*** Begin Patch"}),
        env("response_item", {"type": "custom_tool_call_output", "call_id": "b", "output": "{\"output\":\"Success\",\"metadata\":{\"exit_code\":0}}"}),
        env("event_msg", {"type": "patch_apply_end", "call_id": "b", "success": False}),
        env("event_msg", {"type": "token_count", "info": {"total_token_usage": {"input_tokens": 1000, "output_tokens": 50}}}),
        env("compacted", {"message": "", "replacement_history": []}),
        env("event_msg", {"type": "context_compacted"}),
        env("event_msg", {"type": "token_count", "info": None, "rate_limits": {}}),
        env("event_msg", {"type": "token_count", "info": {"total_token_usage": {"input_tokens": 2500, "output_tokens": 90}}}),
        env("event_msg", {"type": "error", "message": "stream disconnected"}),
        env("event_msg", {"type": "brand_new_event", "x": 1}),
        env("event_msg", {"type": "task_complete"}),
        env("event_msg", {"type": "user_message", "message": "that's wrong, the build still fails"}),
    ])  # fmt: skip
    run(home)
    assert query(home, "SELECT id, model, input_tokens, output_tokens, unknown_records FROM sessions") == [
        (sid, "gpt-5", 2500, 90, 1)]  # fmt: skip
    assert query(home, "SELECT user_text FROM turns ORDER BY idx") == [
        ("fix the build",),
        ("that's wrong, the build still fails",),
    ]
    assert query(home, "SELECT name, exit_code, is_error FROM tool_calls ORDER BY idx") == [
        ("shell_command", 101, 1),
        ("apply_patch", 0, 1),
    ]
    kinds = sorted(r[0] for r in query(home, "SELECT kind FROM signals"))
    assert kinds == ["correction", "tool_failure", "tool_failure"]
    assert query(home, "SELECT input_tokens, output_tokens FROM turns WHERE idx = 0") == [
        (2500, 90)
    ]


def test_bad_input_is_counted_and_ingest_goes_on(tmp_path: Path) -> None:
    home = tmp_path / "home"
    proj = _project(home)
    good = [json.dumps(_user(f"g{i}", "2026-03-01T10:00:00Z", f"request number {i}")).encode()
            for i in range(3)]  # fmt: skip
    bad_utf8 = (
        json.dumps(_user("b1", "2026-03-01T10:00:00Z", "caf\u00e9 X"))
        .encode()
        .replace(b"X", b"\xff\xfe")
    )
    surrogate = (
        json.dumps(_user("b2", "2026-03-01T10:00:00Z", "emoji Y"))
        .encode()
        .replace(b"Y", b"\\ud83d")
    )
    huge = (
        b'{"type":"user","sessionId":"'
        + SID.encode()
        + b'","uuid":"h","message":{"content":"'
        + b"x" * (50 << 20)
        + b'"}}'
    )  # noqa: E501
    _write(proj / f"{SID}.jsonl",
           [good[0], b"{not json", bad_utf8, huge, good[1], surrogate, b"[1,2]", good[2]])  # fmt: skip
    (proj / "empty.jsonl").write_bytes(b"")
    (proj / "dir-session.jsonl").mkdir()
    locked = proj / "locked.jsonl"
    locked.write_bytes(good[0] + b"\n")
    locked.chmod(0)
    db = open_store(home / "state")
    from ingest_helpers import config

    report = ingest_logs(db, config(home))
    db.close()
    texts = [r[0] for r in query(home, "SELECT user_text FROM turns ORDER BY idx")]
    assert texts[0] == "request number 0" and texts[-1] == "request number 2"
    assert "request number 1" in texts
    assert any(t.startswith("caf\u00e9") for t in texts)  # repaired, kept, counted
    # malformed, bad utf-8, 50 MB line, lone surrogate, a JSON array: one message for them
    assert report.bad_lines == 5
    errs = "\n".join(report.errors)
    assert "malformed JSON" in errs and "longer than" in errs and "is a directory" in errs
    if os.geteuid() != 0:  # root can read a 0000 file
        assert "cannot open" in errs
    assert all(len(e) < 400 for e in report.errors), report.errors
    assert sum(f"{SID}.jsonl" in e for e in report.errors) == 1
    locked.chmod(0o600)


def test_file_vanishing_between_scan_and_read(tmp_path: Path) -> None:
    from session_ingest.discover import discover
    from session_ingest.passes import ingest_files

    home = tmp_path / "home"
    p = _project(home) / f"{SID}.jsonl"
    _write(p, [_user("u1", "2026-03-01T10:00:00Z", "hello there")])
    errors: list[str] = []
    files = discover({"claude": [home / ".claude"]}, errors)
    p.unlink()
    db = open_store(home / "state")
    report = ingest_files(db, files)
    db.close()
    assert report.files_scanned == 1 and any("cannot open" in e for e in report.errors)


@pytest.mark.parametrize(
    ("text", "kind"),
    [
        ("no, that's wrong. use the other file", "correction"),
        ("It still doesn't work after your change", "correction"),
        ("why did you delete the tests?", "correction"),
        ("no problem, now add a README", None),
        ("not bad! next, add logging", "positive"),
        ("thanks, perfect", "positive"),
        ("thanks but it is still broken", "correction"),
        ("that does not work. Thanks anyway", "correction"),
        ("now add a wrong-password test", None),
        ("great, but the output is not perfect", None),
        ("stop the server and restart it", None),
    ],
)
def test_reaction_is_position_aware_with_negation(text: str, kind: str | None) -> None:
    got = reaction(text)
    assert (got[0] if got else None) == kind


def test_codex_subagent_thread_attaches_to_parent(tmp_path: Path) -> None:
    home = tmp_path / "home"
    parent = "019a0000-0000-7000-8000-0000000000a1"
    child = "019a0000-0000-7000-8000-0000000000b1"
    meta = {"id": child, "cwd": "/w", "originator": "codex_cli_rs", "cli_version": "0.140.0",
            "source": {"subagent": {"thread_spawn": {"parent_thread_id": parent, "depth": 1}}}}  # fmt: skip
    lines = [{"timestamp": "2026-05-01T10:00:00Z", "type": "session_meta", "payload": meta},
             {"timestamp": "2026-05-01T10:00:01Z", "type": "response_item", "payload": {
                 "type": "message", "role": "assistant", "content": [{"type": "output_text", "text": "ok"}]}}]  # fmt: skip
    _write(_codex_dir(home) / f"rollout-2026-05-01T10-00-00-{child}.jsonl", lines)
    run(home)
    assert query(home, "SELECT id, kind, parent_id FROM sessions") == [(child, "subagent", parent)]
    assert query(home, "SELECT kind, user_text FROM turns") == [("continuation", "")]


def test_reask_of_a_near_identical_request(tmp_path: Path) -> None:
    home = tmp_path / "home"
    _write(_project(home) / f"{SID}.jsonl", [
        _user("u1", "2026-03-01T10:00:00Z", "add a dark mode toggle to the settings page"),
        _asst("a1", "2026-03-01T10:01:00Z", "m1", [{"type": "text", "text": "Added."}]),
        _user("u2", "2026-03-01T10:02:00Z", "add a dark mode toggle to the settings page please"),
        _asst("a2", "2026-03-01T10:03:00Z", "m2", [{"type": "text", "text": "Done now."}]),
    ])  # fmt: skip
    (_project(home) / SID / "subagents" / "workflows" / "r1").mkdir(parents=True)
    _write(_project(home) / SID / "subagents" / "workflows" / "r1" / "journal.jsonl",
           [{"type": "workflow-step", "step": 1}])  # fmt: skip
    run(home)
    assert query(home, "SELECT turn_id, kind FROM signals") == [(f"{SID}:0", "reask")]
    assert query(home, "SELECT count(*) FROM sessions")[0][0] == 1  # journal is not a session
