"""The held-out session generator writes logs the real ingest reads as the tools' own: every
session and request of its ground truth lands in the store, no record is malformed, and the
tool calls and skill invocations it wrote are there. Nothing here is about mining."""

from __future__ import annotations

import hashlib
import json
from collections import Counter, defaultdict
from pathlib import Path

import pytest
from ingest_helpers import query, run

from benchmarks.sessions.heldout import SKILLS, write
from benchmarks.sessions.heldout_text import ONE_OFFS
from benchmarks.sessions.heldout_world import PROJECTS

CLAUDE_TOOLS = {"Bash", "Read", "Edit", "Write", "Glob", "Grep", "Skill"}
CODEX_TOOLS = {"exec_command", "write_stdin", "shell_command", "apply_patch"}


def _calls_in_file(path: Path) -> int:
    """Tool calls as the file holds them (Claude ``tool_use`` blocks; Codex function and
    custom tool calls), counted without session_ingest."""
    n = 0
    for line in path.read_text().splitlines():
        rec = json.loads(line)
        if rec.get("type") == "assistant":
            n += sum(b.get("type") == "tool_use" for b in rec["message"]["content"])
        elif rec.get("type") == "response_item":
            n += rec["payload"]["type"] in ("function_call", "custom_tool_call")
    return n


def _session_files(root: Path) -> dict[str, tuple[str, Path]]:
    out = {p.stem: ("claude", p) for p in (root / "claude" / "projects").rglob("*.jsonl")}
    for p in (root / "codex" / "sessions").rglob("rollout-*.jsonl"):
        out[p.stem[-36:]] = ("codex", p)
    return out


@pytest.mark.parametrize("seed", range(2))
def test_ingest_reads_every_session_request_tool_call_and_skill(tmp_path: Path, seed: int):
    root = tmp_path / "logs"
    truth = write(root, seed, n_sessions=200)
    report = run(
        tmp_path,
        **{
            "sources.claude.roots": [str(root / "claude")],
            "sources.codex.roots": [str(root / "codex")],
        },
    )
    assert report.bad_lines == 0 and report.errors == []

    files = _session_files(root)
    by_session: dict[str, list[dict]] = defaultdict(list)
    for r in truth["requests"]:
        by_session[r["session_id"]].append(r)
    assert set(by_session) == set(files) and len(files) == 200

    rows = query(
        tmp_path, "SELECT id, source, kind, project, n_tool_calls, unknown_records FROM sessions"
    )
    assert {r[0] for r in rows} == set(files)
    cwds = {p.cwd for p in PROJECTS}
    for sid, source, kind, project, n_calls, unknown in rows:
        assert (source, kind, unknown) == (files[sid][0], "main", 0)
        assert project in cwds
        assert n_calls == _calls_in_file(files[sid][1])
        assert n_calls > 0 or by_session[sid][0]["kind"] is None  # only a chat has none
    assert Counter(r[1] for r in rows)["codex"] == 40  # a fifth of the sessions

    # Requests: the human and slash-command turns, in order, with the exact text.
    turns = query(
        tmp_path,
        "SELECT session_id, kind, user_text, command, skills FROM turns "
        "WHERE kind IN ('human', 'command') ORDER BY session_id, idx",
    )
    stored: dict[str, list[tuple[str, str, list[str]]]] = defaultdict(list)
    for sid, kind, text, command, skills in turns:
        stored[sid].append((kind, command if kind == "command" else text, json.loads(skills)))
    for sid, reqs in by_session.items():
        assert [t for _, t, _ in stored[sid]] == [r["text"] for r in reqs], sid
        for (kind, text, skills), r in zip(stored[sid], reqs, strict=True):
            if kind == "command":  # /name typed by the user: ingest keeps it as the command
                assert text.split()[0] == f"/{r['skill']}" and skills == []
            else:
                assert skills == ([r["skill"]] if r["skill"] else []), (sid, text)

    # Tool calls: every one is in tool_calls, named as each tool names them.
    names = query(
        tmp_path,
        "SELECT s.source, c.name, count(*) FROM tool_calls c "
        "JOIN sessions s ON s.id = c.session_id GROUP BY 1, 2",
    )
    seen = {(src, name) for src, name, _ in names}
    assert {n for src, n in seen if src == "claude"} == CLAUDE_TOOLS
    assert {n for src, n in seen if src == "codex"} <= CODEX_TOOLS
    assert {"exec_command", "apply_patch"} <= {n for src, n in seen if src == "codex"}
    assert sum(n for *_, n in names) == sum(r[4] for r in rows)

    # Every way of invoking a skill is exercised: the Skill tool, /name and $name.
    invoked = [r for r in truth["requests"] if r["skill"]]
    assert any(r["text"].startswith("/") for r in invoked)
    assert any(r["text"].startswith("$") or " $" in r["text"] for r in invoked)
    assert any(
        files[r["session_id"]][0] == "claude" and not r["text"].startswith("/") for r in invoked
    )


def test_ground_truth_has_the_promised_shape(tmp_path: Path):
    truth = write(tmp_path, seed=3, n_sessions=300)
    first = [r for r in truth["requests"] if not r["follow_up"]]
    sizes = Counter(r["kind"] for r in first)
    assert len(first) == 300 and set(truth["kinds"]) == set(sizes) - {None}
    assert all(15 <= sizes[k] <= 60 for k in truth["kinds"])
    assert sum(1 for k in truth["kinds"] if truth["kinds"][k]["skill"]) == 5
    templates = [r["one_off"] for r in first if r["kind"] is None]
    assert None not in templates and all(r["one_off"] is None for r in first if r["kind"])
    assert len(set(templates[: len(ONE_OFFS)])) == min(len(templates), len(ONE_OFFS))
    for kind in SKILLS:
        share = sum(r["skill"] is not None for r in first if r["kind"] == kind) / sizes[kind]
        assert 0.5 <= share <= 0.7, (kind, share)
    days = {p.parent.name for p in (tmp_path / "codex" / "sessions").rglob("*.jsonl")}
    days |= {
        json.loads(p.read_text().split("\n")[1])["timestamp"][:10]
        for p in (tmp_path / "claude" / "projects").rglob("*.jsonl")
    }
    assert len(days) >= 20
    assert len(list((tmp_path / "claude" / "projects").iterdir())) >= 4
    modes = {p.stat().st_mode & 0o777 for p in tmp_path.rglob("*.jsonl")}
    assert modes == {0o600}


def test_same_seed_same_bytes(tmp_path: Path):
    def digest(root: Path) -> str:
        h = hashlib.sha256()
        for p in sorted(root.rglob("*")):
            if p.is_file():
                h.update(str(p.relative_to(root)).encode() + p.read_bytes())
        return h.hexdigest()

    a, b, c = (write(tmp_path / name, seed, 40) for name, seed in (("a", 5), ("b", 5), ("c", 6)))
    assert a == b != c
    assert digest(tmp_path / "a") == digest(tmp_path / "b") != digest(tmp_path / "c")
