"""The agent plugins: the hook commands they install really ingest the finished session
(run as the agents run them: a shell command with the hook JSON on stdin), the rendered
plugins pass the agents' own validation, and install/uninstall go through the real
`claude plugin` / `codex plugin` commands when those CLIs are installed."""

from __future__ import annotations

import json
import os
import shutil
import sqlite3
import subprocess
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from skillopt_sleep import agent_plugins
from skillopt_sleep.cli import main
from skillopt_sleep.store import db_path
from tests.cli_helpers import console_script

SAMPLES = Path(__file__).resolve().parents[1] / "skillopt_sleep" / "data" / "samples"
CLAUDE_SAMPLES = sorted((SAMPLES / "claude" / "projects" / "-home-dev-tidepool").glob("*.jsonl"))
CODEX_SAMPLES = sorted((SAMPLES / "codex" / "sessions").rglob("rollout-*.jsonl"))
EXE = console_script()


def _env(home: Path) -> dict[str, str]:
    keep = {k: v for k, v in os.environ.items() if not k.startswith("SKILLOPT_SLEEP_")}
    return {**keep, "HOME": str(home), "PATH": f"{EXE.parent}{os.pathsep}{keep['PATH']}"}


def _hook_command(root: Path, event: str) -> str:
    hooks = json.loads((root / "plugins" / "skillopt-sleep" / "hooks" / "hooks.json").read_text())
    (group,) = hooks["hooks"][event]
    (hook,) = group["hooks"]
    assert hook["type"] == "command" and hook["timeout"] >= 30
    return hook["command"]


def _run_hook(command: str, payload: Any, home: Path) -> subprocess.CompletedProcess[str]:
    """As the agent does: the command through a shell, the event's JSON on stdin."""
    text = payload if isinstance(payload, str) else json.dumps(payload)
    return subprocess.run(
        ["/bin/sh", "-c", command], input=text, capture_output=True, text=True,
        env=_env(home), timeout=120,
    )  # fmt: skip


def _sessions(home: Path) -> dict[str, int]:
    conn = sqlite3.connect(db_path(home / ".local" / "state" / "skillopt-sleep"))
    try:
        return dict(conn.execute("SELECT id, n_turns FROM sessions WHERE kind = 'main'"))
    finally:
        conn.close()


def test_claude_session_end_hook_ingests_only_that_session(isolated_home: Path) -> None:
    project = isolated_home / ".claude" / "projects" / "-home-dev-tidepool"
    project.mkdir(parents=True)
    longest = max(CLAUDE_SAMPLES, key=lambda p: len(p.read_text().splitlines()))
    neighbour = next(p for p in CLAUDE_SAMPLES if p != longest)
    ended, other = project / longest.name, project / neighbour.name
    lines = longest.read_text().splitlines(keepends=True)
    ended.write_text("".join(lines[: len(lines) // 2]))  # the session so far
    shutil.copy(neighbour, other)
    root = agent_plugins.render("claude", EXE)
    command = _hook_command(root, "SessionEnd")
    payload = {
        "session_id": ended.stem,
        "transcript_path": str(ended),
        "cwd": "/home/dev/tidepool",
        "permission_mode": "default",
        "hook_event_name": "SessionEnd",
        "reason": "prompt_input_exit",
    }
    proc = _run_hook(command, payload, isolated_home)
    assert proc.returncode == 0 and proc.stdout == "" and proc.stderr == "", proc.stderr
    first = _sessions(isolated_home)
    assert list(first) == [ended.stem]  # the other session's file was not read

    with ended.open("a") as f:  # the session went on (resumed) and ended again
        f.write("".join(lines[len(lines) // 2 :]))
    assert _run_hook(command, payload, isolated_home).returncode == 0
    turns = _sessions(isolated_home)[ended.stem]
    assert turns > first[ended.stem]
    assert _run_hook(command, payload, isolated_home).returncode == 0  # nothing new
    assert _sessions(isolated_home)[ended.stem] == turns  # no double counting


def test_codex_stop_hook_ingests_that_rollout(isolated_home: Path) -> None:
    rollout = CODEX_SAMPLES[0]
    dest = isolated_home / ".codex" / rollout.relative_to(SAMPLES / "codex")
    dest.parent.mkdir(parents=True)
    shutil.copy(rollout, dest)
    shutil.copy(CODEX_SAMPLES[1], dest.parent / CODEX_SAMPLES[1].name)
    root = agent_plugins.render("codex", EXE)
    payload = {
        "session_id": "019c0657-749b-5424-9e8f-d2ba165436f3",
        "turn_id": "t-1",
        "transcript_path": str(dest),
        "cwd": "/home/dev/tidepool",
        "hook_event_name": "Stop",
        "model": "gpt-5",
        "permission_mode": "default",
        "stop_hook_active": False,
        "last_assistant_message": "done",
    }
    proc = _run_hook(_hook_command(root, "Stop"), payload, isolated_home)
    assert proc.returncode == 0, proc.stderr
    assert len(_sessions(isolated_home)) == 1  # that rollout, not its neighbour
    none = _run_hook(_hook_command(root, "Stop"), {**payload, "transcript_path": None},
                     isolated_home)  # fmt: skip
    assert none.returncode == 0 and none.stderr == ""


def test_hook_with_bad_input_is_one_line_exit_2(isolated_home: Path) -> None:
    command = _hook_command(agent_plugins.render("claude", EXE), "SessionEnd")
    for payload in ("not json", "[1, 2]", {"transcript_path": 7}):
        proc = _run_hook(command, payload, isolated_home)
        assert proc.returncode == 2, proc.stderr
        assert len(proc.stderr.strip().splitlines()) == 1 and "Traceback" not in proc.stderr


def test_last_night_command_and_skill_run_status_brief(isolated_home: Path) -> None:
    """The command line the plugins show the agent is the real one and answers."""
    claude = agent_plugins.render("claude", EXE)
    md = (claude / "plugins/skillopt-sleep/commands/last-night.md").read_text()
    line = next(ln for ln in md.splitlines() if ln.startswith("!`"))
    assert f"allowed-tools: Bash({line[2:-1]})" in md
    codex = agent_plugins.render("codex", EXE)
    skill = (codex / "plugins/skillopt-sleep/skills/last-night/SKILL.md").read_text()
    assert skill.startswith("---\nname: last-night\ndescription: ")
    assert line[2:-1] in skill
    proc = subprocess.run(["/bin/sh", "-c", line[2:-1]], capture_output=True, text=True,
                          env=_env(isolated_home), timeout=120)  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.startswith("skillopt-sleep: no night has run yet")


def _cli(name: str) -> str:
    found = shutil.which(name)
    if found is None:
        pytest.skip(f"`{name}` is not installed (npm install -g @anthropic-ai/claude-code "
                    "@openai/codex)")  # fmt: skip
    return found


def test_install_claude_plugin_with_the_real_cli(isolated_home: Path) -> None:
    claude = _cli("claude")
    out = CliRunner().invoke(main, ["install", "claude-plugin", "--exe", str(EXE)])
    assert out.exit_code == 0, out.output
    root = agent_plugins.plugin_home() / "claude"
    for path in (root, root / "plugins" / "skillopt-sleep"):
        check = subprocess.run([claude, "plugin", "validate", str(path)], capture_output=True,
                               text=True, env=_env(isolated_home), timeout=120)  # fmt: skip
        assert check.returncode == 0 and "Validation passed" in check.stdout, check.stdout
    listed = subprocess.run([claude, "plugin", "details", "skillopt-sleep@skillopt-sleep"],
                            capture_output=True, text=True, env=_env(isolated_home),
                            timeout=120).stdout  # fmt: skip
    assert "SessionEnd" in listed and "last-night" in listed
    settings = json.loads((isolated_home / ".claude" / "settings.json").read_text())
    assert settings["enabledPlugins"] == {"skillopt-sleep@skillopt-sleep": True}
    again = CliRunner().invoke(main, ["install", "claude-plugin", "--exe", str(EXE)])
    assert again.exit_code == 0, again.output  # a re-install replaces
    out = CliRunner().invoke(main, ["uninstall", "claude-plugin"])
    assert out.exit_code == 0 and "removed the skillopt-sleep plugin" in out.output
    settings = json.loads((isolated_home / ".claude" / "settings.json").read_text())
    assert settings["enabledPlugins"] == {} and not root.exists()


def test_install_codex_plugin_with_the_real_cli(isolated_home: Path, tmp_path: Path) -> None:
    codex = _cli("codex")
    out = CliRunner().invoke(main, ["install", "codex-plugin", "--exe", str(EXE)])
    assert out.exit_code == 0, out.output
    env = _env(isolated_home)
    listed = subprocess.run([codex, "plugin", "list"], capture_output=True, text=True, env=env,
                            timeout=120).stdout  # fmt: skip
    assert "skillopt-sleep@skillopt-sleep  installed, enabled" in listed
    prompt = subprocess.run([codex, "debug", "prompt-input", "hi"], capture_output=True,
                            text=True, env=env, timeout=120, cwd=tmp_path).stdout  # fmt: skip
    assert "last-night: Show what skillopt-sleep did last night" in prompt  # the model sees it
    out = CliRunner().invoke(main, ["uninstall"])
    assert out.exit_code == 0 and "removed the skillopt-sleep plugin from codex" in out.output
    listed = subprocess.run([codex, "plugin", "list"], capture_output=True, text=True, env=env,
                            timeout=120).stdout  # fmt: skip
    assert "skillopt-sleep@" not in listed


def test_without_the_agent_cli_install_prints_the_commands(
    isolated_home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PATH", "/nonexistent")
    out = CliRunner().invoke(main, ["install", "codex-plugin", "--exe", str(EXE)])
    assert out.exit_code == 0, out.output
    root = agent_plugins.plugin_home() / "codex"
    assert f"codex plugin marketplace add {root}" in out.output
    assert "codex plugin add skillopt-sleep@skillopt-sleep" in out.output
    assert (root / ".agents" / "plugins" / "marketplace.json").is_file()
