"""Ingest of every real fixture, laid out as Claude Code and Codex write them.

Expected numbers come from reading the fixture files (see PROVENANCE.md and the line-by-line
notes in the comments), not from the parser's output.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from ingest_helpers import lay_out, query, run

pytestmark = pytest.mark.needs_shared  # the real logs live in ../shared

C01 = "1af7fc5e-8455-4414-9ccd-011d40f70b2a"
C02 = "5c0375b4-57a5-4f26-b12d-d022ee4e51b7"
C04 = "4c2ddfdc-b619-4525-8d03-1950fb1b0257"
C05 = "9eda1058-9706-484a-b992-d03f9cfa2546"
C06 = "3fb74381-1bf4-475e-8c6f-442d872b1bcf"
C08 = "d6e0bada-1959-4eec-a9d2-0bfade768d8f"
C10 = "06090cb1-3e64-433a-bc7e-a621c0f596d2"
X01 = "019b64e5-57fa-7463-b644-fba7e456f905"
X02 = "019c8a70-dda7-7f33-98ea-f30553347322"
X03 = "019c8bfe-ec25-79e0-97d7-bda6a9c575ff"
X04 = "019c8a4d-8f45-7010-8b5d-7fad920aa6f9"
X06 = "019e1625-789d-76c0-80ab-3724b5ddb799"
X08 = "019e9625-802f-7e91-840a-cfe88d14117a"
X99 = "019fc8be-3658-7ca3-9e29-000000000000"

HARNESS_MARKERS = (
    "<command-", "<local-command", "Caveat:", "<system-reminder>", "[Request interrupted",
    "This session is being continued", "# AGENTS.md", "<environment_context>",
    "<INSTRUCTIONS>", "Base directory for this skill", "<permissions", "<turn_aborted>",
    "Please analyze this codebase", "Split complex tasks", "Warmup", "Examine the package.json",
)  # fmt: skip


@pytest.fixture(scope="module")
def home(tmp_path_factory: pytest.TempPathFactory) -> Path:
    home = tmp_path_factory.mktemp("real") / "home"
    lay_out(home)
    report = run(home)
    assert report.errors == []
    assert report.bad_lines == 0
    return home


def _session(home: Path, sid: str) -> dict:
    cols = ("id", "source", "parent_id", "kind", "project", "model", "cli_version", "title",
            "n_turns", "n_tool_calls", "n_signals", "input_tokens", "output_tokens",
            "unknown_records", "started_at", "ended_at", "branch")  # fmt: skip
    rows = query(home, f"SELECT {', '.join(cols)} FROM sessions WHERE id = ?", (sid,))
    assert rows, f"session {sid} missing"
    return dict(zip(cols, rows[0], strict=True))


def _turns(home: Path, sid: str) -> list[dict]:
    cols = ("idx", "kind", "command", "user_text", "assistant_text", "n_tool_calls", "n_errors",
            "finished", "skills")  # fmt: skip
    sql = f"SELECT {', '.join(cols)} FROM turns WHERE session_id = ? ORDER BY idx"
    return [dict(zip(cols, r, strict=True)) for r in query(home, sql, (sid,))]


def _signals(home: Path, sid: str) -> list[tuple[int, str]]:
    rows = query(home, "SELECT turn_id, kind FROM signals WHERE session_id = ?", (sid,))
    return sorted((int(t.rsplit(":", 1)[1]), k) for t, k in rows)


def test_totals(home: Path) -> None:
    # 18 real files (incl. turn-1 not laid out here: 17 files); summary-only file -> no session
    n_files = query(home, "SELECT count(*) FROM files")[0][0]
    assert n_files == 17
    ids = {r[0] for r in query(home, "SELECT id FROM sessions")}
    assert "4762e53b-7ca8-4464-9eac-d1816c343c50" not in ids  # 03: only a summary record
    for sid in (C01, C02, C04, C05, C06, C08, C10, X01, X02, X03, X04, X06, X08, X99):
        assert sid in ids


def test_claude_01_init_command(home: Path) -> None:
    # /init typed by the user, expanded by the harness (isMeta); 12 tool_use blocks, 1 error
    s = _session(home, C01)
    assert (s["kind"], s["n_turns"], s["n_tool_calls"]) == ("main", 1, 12)
    assert s["model"] == "claude-sonnet-4-20250514" and s["cli_version"] == "1.0.98"
    (t,) = _turns(home, C01)
    assert t["kind"] == "command" and t["command"] == "/init"
    assert t["user_text"] == ""  # the expansion text is harness, not the human's words
    assert t["n_errors"] == 1 and t["finished"] == 1
    assert _signals(home, C01) == [(0, "tool_failure")]
    # usage de-duplicated per message id: 7 distinct message ids, streaming-split into 12+ records
    rows = query(home, "SELECT data FROM events WHERE grp = ?", (C01,))
    mids = {json.loads(r[0]).get("mid") for r in rows} - {None}
    assert len(mids) == 7
    assert s["output_tokens"] < 2000


def test_claude_02_inline_sidechains_attach_to_parent(home: Path) -> None:
    s = _session(home, C02)
    assert (s["n_turns"], s["n_tool_calls"]) == (1, 13)
    subs = query(home, "SELECT id, kind, n_tool_calls FROM sessions WHERE parent_id = ? "
                       "ORDER BY started_at", (C02,))  # fmt: skip
    assert [(k, n) for _i, k, n in subs] == [("subagent", 2), ("subagent", 6)]
    errors = query(home, "SELECT count(*) FROM tool_calls WHERE is_error = 1 AND session_id "
                         "LIKE ?", (C02 + "%",))[0][0]  # fmt: skip
    assert errors == 3
    for sub_id, _k, _n in subs:
        for t in _turns(home, sub_id):
            assert t["kind"] == "subagent" and t["user_text"] == ""  # not human turns
    (t,) = _turns(home, C02)
    assert t["command"].startswith("/orchestrator")


def test_claude_04_project_level_agent_file(home: Path) -> None:
    s = _session(home, C04)
    turns = _turns(home, C04)
    assert [t["user_text"] for t in turns] == [
        "create hello.py, md and js",
        "update py with one liner comment",
        "delete js",
    ]
    assert [t["n_tool_calls"] for t in turns] == [3, 2, 1]
    assert s["n_tool_calls"] == 6 and s["project"] == "/tmp/private"
    sub = _session(home, f"{C04}:agent-36541525")
    assert (sub["kind"], sub["parent_id"], sub["title"]) == ("subagent", C04, "Warmup")
    assert all(t["kind"] == "subagent" for t in _turns(home, sub["id"]))


def test_claude_05_rejection_and_interrupt(home: Path) -> None:
    s = _session(home, C05)
    turns = _turns(home, C05)
    assert [t["user_text"] for t in turns] == [
        "show tools and store response in file",
        "explore more of current repo",
        "what else?",
    ]
    assert s["n_tool_calls"] == 3  # Write (rejected), Task, Task
    assert turns[0]["finished"] == 0 and turns[1]["finished"] == 1
    assert _signals(home, C05) == [(0, "interrupt"), (0, "tool_rejected")]


def test_claude_06_leading_summaries_are_not_turns(home: Path) -> None:
    turns = _turns(home, C06)
    assert [t["user_text"] for t in turns] == [
        "show tools", "hi", "expore current repo and provide highlevel information",
        "tell me more about agent module"]  # fmt: skip
    assert sum(t["n_tool_calls"] for t in turns) == 2  # two Task calls


def test_claude_08_interrupts_correction_abandonment(home: Path) -> None:
    turns = _turns(home, C08)
    # /mcp is a local command with no agent work: not a turn
    assert [t["kind"] for t in turns] == ["human", "human"]
    assert [t["n_tool_calls"] for t in turns] == [2, 4]
    assert _signals(home, C08) == [
        (0, "correction"),
        (0, "interrupt"),
        (1, "abandonment"),
        (1, "interrupt"),
    ]
    evidence = query(home, "SELECT evidence FROM signals WHERE session_id = ? AND kind = "
                           "'correction'", (C08,))[0][0]  # fmt: skip
    assert "still does not work" in evidence


def test_claude_10_sdk_cli_is_headless(home: Path) -> None:
    s = _session(home, C10)
    assert (s["kind"], s["n_turns"], s["model"]) == ("headless", 1, "claude-opus-4-7")


def test_claude_99_handmade_is_tolerated(home: Path) -> None:
    s = _session(home, "ses_stage0_small")
    assert s["title"] == "Stage0 small fixture"  # custom-title wins over ai-title and prompt


def test_codex_01_harness_messages_are_not_intent(home: Path) -> None:
    s = _session(home, X01)
    assert (s["model"], s["cli_version"], s["kind"]) == ("gpt-5.2-codex", "0.77.0", "main")
    (t,) = _turns(home, X01)
    assert t["user_text"].startswith("can you analyse the MD files")
    assert t["finished"] == 0  # the file stops before any answer


def test_codex_02_unfinished_turn(home: Path) -> None:
    s = _session(home, X02)
    (t,) = _turns(home, X02)
    assert (t["n_tool_calls"], t["finished"]) == (1, 0)  # exec_command without output
    assert (s["input_tokens"], s["output_tokens"]) == (34469, 431)
    assert _signals(home, X02) == []  # still running is not abandonment


def test_codex_03_mcp_tools_and_cumulative_tokens(home: Path) -> None:
    s = _session(home, X03)
    (t,) = _turns(home, X03)
    assert (t["n_tool_calls"], t["finished"]) == (5, 1)
    names = [r[0] for r in query(home, "SELECT name FROM tool_calls WHERE session_id = ? "
                                       "ORDER BY idx", (X03,))]  # fmt: skip
    assert sum(n.startswith("mcp__cloud-associates__") for n in names) == 4
    # the last cumulative total, not the sum of 14 token_count events
    assert (s["input_tokens"], s["output_tokens"]) == (298373, 1123)


def test_codex_04_exec_heavy(home: Path) -> None:
    s = _session(home, X04)
    assert (s["n_turns"], s["n_tool_calls"], s["model"]) == (1, 118, "gpt-5.3-codex")
    assert query(home, "SELECT count(*) FROM tool_calls WHERE session_id = ? AND name = "
                       "'write_stdin'", (X04,))[0][0] == 2  # fmt: skip


def test_codex_06_exec_command_end_and_write_stdin(home: Path) -> None:
    turns = _turns(home, X06)
    assert [t["user_text"] for t in turns] == [
        "show tools",
        "let's update the defailt context compart to 90 in env var",
    ]
    assert [t["n_tool_calls"] for t in turns] == [2, 16]
    assert [t["finished"] for t in turns] == [1, 0]  # excerpt ends inside turn 2
    # "Process running with session ID" output, exit code from exec_command_end (0)
    rows = query(home, "SELECT exit_code FROM tool_calls WHERE session_id = ? AND name = "
                       "'exec_command' ORDER BY idx", (X06,))  # fmt: skip
    assert rows[0][0] == 0
    assert query(home, "SELECT count(*) FROM tool_calls WHERE session_id = ? AND exit_code = 0",
                 (X06,))[0][0] >= 10  # fmt: skip


def test_codex_08_exec_is_headless(home: Path) -> None:
    s = _session(home, X08)
    assert (s["kind"], s["n_turns"]) == ("headless", 1)
    assert _turns(home, X08)[0]["finished"] == 1


def test_codex_99_handmade_unknown_kinds_counted(home: Path) -> None:
    s = _session(home, X99)
    assert s["unknown_records"] >= 3  # world_state, inter_agent_communication_metadata, ...
    assert (0, "interrupt") in _signals(home, X99)
    assert _turns(home, X99)[0]["user_text"] == "List the files"


def test_no_human_intent_from_harness_text(home: Path) -> None:
    texts = [r[0] for r in query(home, "SELECT user_text FROM turns WHERE user_text != ''")]
    assert texts
    for text in texts:
        assert not text.startswith(HARNESS_MARKERS), text[:80]
        assert "<system-reminder>" not in text
    kinds = {r[0] for r in query(home, "SELECT kind FROM turns WHERE user_text != ''")}
    assert kinds == {"human"}


def test_second_pass_changes_nothing(home: Path) -> None:
    before = query(home, "SELECT count(*) FROM events")[0][0]
    report = run(home)
    assert (report.files_scanned, report.files_changed) == (17, 0)
    assert (report.new_sessions, report.new_turns) == (0, 0)
    assert query(home, "SELECT count(*) FROM events")[0][0] == before
