# ruff: noqa: E501 - expected texts stay whole, as in the fixture files
"""Every parser path on the project's own fixtures (``tests/fixtures/home``), so a clone
without ``../shared`` still covers them. The fixtures were written for this project in the
real formats; ``tests/fixtures/README.md`` says what each file holds. Expected values come
from reading those files."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from ingest_helpers import lay_out_own, query, run

L10 = "7d1c9a52-3b8e-4f61-9c2a-5e0b7f4d1a10"  # Claude 1.0.x: /init, inline sidechain
N20 = "c3a07e19-54d2-4b8f-a6e1-9f2d0c8b7a31"  # Claude 2.0.x: project-level agent files
P21 = "e8b5f3d0-2c47-4a19-b6de-0a7c3e915f42"  # Claude 2.1.x: subagents dir, compaction …
H21 = "5a9d2e61-0f3b-4c7a-8e14-b2c6d9f0a173"  # Claude 2.1.x sdk-cli (headless)
XLEG = "0198b2c4-1d3e-7f50-8a61-2b3c4d5e6f70"  # Codex pre-envelope (Aug 2025)
XENV = "0199a7d0-4c2b-7e11-9f3a-6b5c4d3e2f10"  # Codex early envelope (Sep 2025)
XTUI = "019d3e5f-7a8b-7c9d-8e0f-1a2b3c4d5e6f"  # Codex 2026 TUI
XEXEC = "019d4a10-2b3c-7d4e-9f50-6a7b8c9d0e1f"  # codex exec, archived
XSUB = "019d4b20-3c4d-7e5f-8a60-7b8c9d0e1f20"  # Codex sub-agent thread

HARNESS = ("<", "# AGENTS.md", "Caveat:", "[Request interrupted", "This session is being",
           "Base directory for this skill", "Please analyze this codebase", "Warmup",
           "Stop hook feedback", "Your task is to create")  # fmt: skip


@pytest.fixture(scope="module")
def home(tmp_path_factory: pytest.TempPathFactory) -> Path:
    home = tmp_path_factory.mktemp("own") / "home"
    lay_out_own(home)
    report = run(home)
    assert (report.errors, report.bad_lines) == ([], 0)
    return home


def _session(home: Path, sid: str) -> dict:
    cols = ("kind", "parent_id", "project", "branch", "model", "cli_version", "title", "n_turns",
            "n_tool_calls", "input_tokens", "output_tokens", "unknown_records")  # fmt: skip
    (row,) = query(home, f"SELECT {', '.join(cols)} FROM sessions WHERE id = ?", (sid,))
    return dict(zip(cols, row, strict=True))


def _turns(home: Path, sid: str, *cols: str) -> list[tuple]:
    sql = f"SELECT {', '.join(cols)} FROM turns WHERE session_id = ? ORDER BY idx"
    return query(home, sql, (sid,))


def _calls(home: Path, sid: str) -> list[tuple]:
    sql = "SELECT name, exit_code, is_error FROM tool_calls WHERE session_id = ? ORDER BY idx"
    return query(home, sql, (sid,))


def _signals(home: Path, sid: str) -> list[tuple[int, str]]:
    rows = query(home, "SELECT turn_id, kind FROM signals WHERE session_id = ?", (sid,))
    return sorted((int(t.rsplit(":", 1)[1]), k) for t, k in rows)


def test_sessions_found_and_a_summary_only_file_is_none(home: Path) -> None:
    ids = {r[0] for r in query(home, "SELECT id FROM sessions")}
    assert len(ids) == 17
    assert "0b6e2f44-9d1a-4c3e-8f70-21d5a6c9e3b8" not in ids  # only a summary record


def test_claude_10_init_command_and_inline_sidechain(home: Path) -> None:
    s = _session(home, L10)
    assert (s["kind"], s["cli_version"], s["n_turns"], s["n_tool_calls"]) == (
        "main",
        "1.0.96",
        1,
        4,
    )
    # five API messages, one streamed as two records: usage counted once per message id
    assert (s["input_tokens"], s["output_tokens"]) == (5 * 16609, 61 + 55 + 90 + 120 + 25)
    assert _turns(home, L10, "kind", "command", "user_text", "finished") == [
        ("command", "/init", "", 1)  # the /init expansion is harness text
    ]
    assert _calls(home, L10) == [("LS", None, 0), ("Read", None, 1), ("Task", None, 0),
                                 ("Write", None, 0)]  # fmt: skip
    assert _signals(home, L10) == [(0, "tool_failure")]
    (side,) = query(home, "SELECT id, kind, title FROM sessions WHERE parent_id = ?", (L10,))
    assert side[1:] == (
        "subagent",
        "List the test files under tests/ and say what each one checks.",
    )
    assert _turns(home, side[0], "kind", "user_text", "n_tool_calls") == [("subagent", "", 1)]


def test_claude_20_project_level_agent_files_and_warmup(home: Path) -> None:
    s = _session(home, N20)
    assert (s["project"], s["branch"], s["n_turns"]) == ("/srv/notes", None, 3)
    assert [t[0] for t in _turns(home, N20, "user_text")] == [
        "rename notes.txt to notes.md", "also add a title line at the top", "great, thanks"]  # fmt: skip
    assert _signals(home, N20) == [(1, "positive")]
    subs = query(home, "SELECT id, title, n_tool_calls FROM sessions WHERE parent_id = ? "
                       "ORDER BY id", (N20,))  # fmt: skip
    assert subs == [
        (f"{N20}:agent-5f0c2a9e", "Warmup", 0),
        (f"{N20}:agent-8d41b7c3", "Check notes.md for broken markdown links and report them.", 1),
    ]


def test_claude_21_skill_rejection_interrupt_correction(home: Path) -> None:
    s = _session(home, P21)
    assert (s["title"], s["model"], s["branch"]) == ("UTC cache timestamps", "claude-opus-4-6",
                                                      "feature/rates")  # fmt: skip
    turns = _turns(home, P21, "kind", "user_text", "skills", "n_tool_calls", "n_errors", "finished")
    assert [t[1] for t in turns] == [
        "the rate cache ignores the TTL, fix it",
        "no, the bug is that the timestamp is stored in local time, not UTC. convert it when writing",
        "what does this chart show?\n[1 image(s)]",  # an image block, its data not stored
        "commit it with a short message",  # <system-reminder> cut off
    ]  # the compaction summary, /cost and the !git status escape are no requests
    assert {t[0] for t in turns} == {"human"}
    assert json.loads(turns[0][2]) == ["python-testing"]  # the Skill tool call
    assert turns[0][3:] == (3, 2, 0)  # Skill, failing pytest, rejected Edit; interrupted
    assert _calls(home, P21)[:3] == [("Skill", None, 0), ("Bash", 1, 1), ("Edit", None, 1)]
    assert _signals(home, P21) == [(0, "correction"), (0, "interrupt"), (0, "test_failure"),
                                   (0, "tool_rejected")]  # fmt: skip
    text = query(home, "SELECT assistant_text FROM turns WHERE session_id = ? AND idx = 2", (P21,))
    assert "API Error" not in text[0][0] and "stale window" in text[0][0]


def test_claude_21_subagents_directory_and_compaction_agent(home: Path) -> None:
    subs = query(home, "SELECT id, kind FROM sessions WHERE parent_id = ? ORDER BY id", (P21,))
    assert subs == [
        (f"{P21}:agent-a3f9c1d", "subagent"),
        (f"{P21}:agent-acompact-4e2b91", "subagent"),
    ]
    assert _calls(home, f"{P21}:agent-a3f9c1d") == [("Grep", None, 0), ("Read", None, 1)]
    assert _signals(home, f"{P21}:agent-a3f9c1d") == [(0, "tool_failure")]


def test_claude_sdk_cli_is_headless(home: Path) -> None:
    assert _session(home, H21)["kind"] == "headless"


def test_codex_legacy_pre_envelope(home: Path) -> None:
    s = _session(home, XLEG)
    assert (s["kind"], s["branch"], s["n_turns"]) == ("main", "lint-fixes", 1)
    assert _turns(home, XLEG, "user_text", "finished") == [("run ruff and fix what it reports", 1)]
    # function calls and a local_shell_call, exit codes from the JSON output convention
    assert _calls(home, XLEG) == [("shell", 1, 1), ("shell", 0, 0), ("shell", 0, 0)]
    assert _signals(home, XLEG) == [(0, "tool_failure")]


def test_codex_typescript_era_json(home: Path) -> None:
    assert _turns(home, "ts-7f3e21", "user_text", "n_tool_calls") == [
        ("count the lines in main.go", 1)
    ]
    assert _calls(home, "ts-7f3e21") == [("shell", 0, 0)]


def test_codex_early_envelope(home: Path) -> None:
    s = _session(home, XENV)
    assert (s["cli_version"], s["model"], s["project"]) == ("0.36.0", None, "/home/li/site")
    assert (s["input_tokens"], s["output_tokens"]) == (17020, 410)  # cumulative: the last
    turns = _turns(home, XENV, "user_text", "input_tokens", "output_tokens")
    assert turns == [("build the site and tell me if it fails", 8210, 240),
                     ("still broken after my change, look again", 17020 - 8210, 410 - 240)]  # fmt: skip
    assert _signals(home, XENV) == [(0, "correction"), (0, "tool_failure")]


def test_codex_2026_skill_unified_exec_abort_compaction(home: Path) -> None:
    s = _session(home, XTUI)
    assert (s["model"], s["branch"], s["n_turns"]) == ("gpt-5.4-codex", "fix/pagination", 3)
    assert s["unknown_records"] == 2  # world_state, inter_agent_communication_metadata
    turns = _turns(home, XTUI, "user_text", "skills", "n_tool_calls", "finished")
    assert turns[0] == ("$go-review the pagination handler returns duplicates on page 2",
                        '["go-review"]', 4, 0)  # fmt: skip
    assert turns[1][0].endswith("fix the test instead\n[1 image(s)]") and turns[1][2:] == (4, 1)
    assert turns[2][:2] == ("thanks, perfect", "[]")
    assert _calls(home, XTUI) == [
        ("exec_command", 0, 0), ("apply_patch", 0, 0), ("exec_command", 1, 1),  # exec_command_end
        ("write_stdin", 1, 1), ("shell_command", 0, 0), ("mcp__tracker__get_issue", None, 0),
        ("web_search_call", None, 0), ("exec_command", 0, 0),
    ]  # fmt: skip
    assert _signals(home, XTUI) == [(0, "correction"), (0, "interrupt"), (0, "test_failure"),
                                    (0, "tool_failure"), (1, "positive")]  # fmt: skip


def test_codex_exec_is_headless_and_sub_agent_attaches(home: Path) -> None:
    assert _session(home, XEXEC)["kind"] == "headless"
    sub = _session(home, XSUB)
    assert (sub["kind"], sub["parent_id"]) == ("subagent", XTUI)
    # the sub-agent's request was written by the parent thread's model: not a human turn
    assert _turns(home, XSUB, "kind", "user_text") == [("subagent", "")]


def test_no_human_intent_from_harness_text(home: Path) -> None:
    rows = query(home, "SELECT kind, user_text FROM turns WHERE user_text != ''")
    assert len(rows) == 20
    for kind, text in rows:
        assert kind == "human" and not text.startswith(HARNESS), text[:80]
        assert "<system-reminder>" not in text and "<skill>" not in text
