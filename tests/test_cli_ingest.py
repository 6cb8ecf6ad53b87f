"""The ``ingest`` and ``sessions`` commands, through click's runner and one real process."""

from __future__ import annotations

import json
import os
import signal
import subprocess
from pathlib import Path

from click.testing import CliRunner
from ingest_helpers import lay_out_own

from skillopt_sleep.cli import main
from tests.cli_helpers import console_script

KEYS = {"files_scanned", "files_changed", "sessions", "turns", "tool_calls", "signals",
        "bad_lines", "errors", "new_sessions", "new_turns"}  # fmt: skip


def test_ingest_json_then_sessions(isolated_home: Path) -> None:
    lay_out_own(isolated_home)
    runner = CliRunner()
    first = runner.invoke(main, ["ingest", "--json"])
    assert first.exit_code == 0, first.output
    data = json.loads(first.output)
    assert set(data) >= KEYS
    # 11 Claude logs (one holds only a summary), 6 Codex rollouts; 17 sessions
    assert data["files_scanned"] == 17 and data["sessions"] == 17
    assert data["new_sessions"] == data["sessions"] and data["errors"] == []
    again = json.loads(runner.invoke(main, ["ingest", "--json"]).output)
    assert (again["files_changed"], again["new_sessions"], again["sessions"]) == (0, 0, 17)
    codex = json.loads(runner.invoke(main, ["ingest", "--source", "codex", "--json"]).output)
    assert codex["files_scanned"] == 6
    listing = runner.invoke(main, ["sessions", "--json"])
    rows = json.loads(listing.output)
    assert len(rows) == 17
    assert {"id", "source", "project", "started", "turns", "signals"} <= set(rows[0])
    text = runner.invoke(main, ["sessions", "--source", "claude"])
    assert text.exit_code == 0 and "e8b5f3d0-2c47-4a19-b6de-0a7c3e915f42" in text.output
    human = runner.invoke(main, ["ingest"])
    assert "sessions 17 (+0)" in human.output


def test_help_has_examples_and_bad_usage_exits_2(isolated_home: Path) -> None:
    runner = CliRunner()
    for cmd in ("ingest", "sessions"):
        res = runner.invoke(main, [cmd, "--help"])
        assert res.exit_code == 0 and "Example" in res.output
    assert runner.invoke(main, ["ingest", "--source", "gemini"]).exit_code == 2
    missing = runner.invoke(main, ["--config", str(isolated_home / "nope.yaml"), "ingest"])
    assert missing.exit_code == 2 and "does not exist" in missing.output


def test_bad_files_still_exit_0(isolated_home: Path) -> None:
    proj = isolated_home / ".claude" / "projects" / "-x"
    proj.mkdir(parents=True)
    (proj / "a.jsonl").write_bytes(b"{oops\n\xff\xfe\n")
    (proj / "b.jsonl").mkdir()
    res = CliRunner().invoke(main, ["ingest", "--json"])
    assert res.exit_code == 0
    data = json.loads(res.output)
    # one message per file, however many bad lines it has, each counted with its offset
    assert data["bad_lines"] == 2 and len(data["errors"]) == 2
    (bad,) = [e for e in data["errors"] if "a.jsonl" in e]
    assert "2 bad lines" in bad and "malformed JSON ×2 (byte 0, 6)" in bad


def test_real_process_with_private_home(tmp_path: Path) -> None:
    home = tmp_path / "h"
    lay_out_own(home)
    env = {k: v for k, v in os.environ.items()
           if not k.startswith(("SKILLOPT_SLEEP_", "CLAUDE_", "CODEX_", "XDG_"))}  # fmt: skip
    env.update(HOME=str(home), XDG_STATE_HOME=str(tmp_path / "state"),
               XDG_CONFIG_HOME=str(tmp_path / "cfg"))  # fmt: skip
    exe = console_script()
    out = subprocess.run([str(exe), "ingest", "--json"], env=env, capture_output=True,
                         text=True, timeout=120, check=False)  # fmt: skip
    assert out.returncode == 0, out.stderr
    data = json.loads(out.stdout)
    assert (data["sessions"], data["bad_lines"], data["errors"]) == (17, 0, [])
    assert (tmp_path / "state" / "skillopt-sleep" / "skillopt-sleep.db").exists()


def test_sessions_shows_ids_whole(isolated_home: Path) -> None:
    """Two subagents of one session showed the same cut id; every id is printed whole."""
    lay_out_own(isolated_home)
    runner = CliRunner()
    assert runner.invoke(main, ["ingest", "-q"]).exit_code == 0
    rows = json.loads(runner.invoke(main, ["sessions", "--json"]).output)
    lines = runner.invoke(main, ["sessions"]).output.splitlines()[1:]
    assert len(lines) == len(rows)
    assert all(line.startswith(f"{r['id']} ") for line, r in zip(lines, rows, strict=True))
    assert max(len(r["id"]) for r in rows) > 38  # the old column width cut these


def test_watch_stops_cleanly_on_sigterm(tmp_path: Path) -> None:
    """systemd and kill send SIGTERM: the watch ends its pass and exits 0 (not 143)."""
    home = tmp_path / "h"
    lay_out_own(home)
    env = {k: v for k, v in os.environ.items()
           if not k.startswith(("SKILLOPT_SLEEP_", "CLAUDE_", "CODEX_", "XDG_"))}  # fmt: skip
    env.update(HOME=str(home), XDG_STATE_HOME=str(tmp_path / "state"),
               XDG_CONFIG_HOME=str(tmp_path / "cfg"))  # fmt: skip
    exe = console_script()
    proc = subprocess.Popen([str(exe), "ingest", "--watch"], env=env, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)  # fmt: skip
    try:
        assert proc.stderr is not None
        line = proc.stderr.readline()  # printed once the SIGTERM handler is in place
        assert line.startswith("watching for changes"), line
        proc.send_signal(signal.SIGTERM)
        out, err = proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert proc.returncode == 0, err
    assert "Traceback" not in err and "sessions 17 (+17)" in out
    again = subprocess.run([str(exe), "ingest", "--json"], env=env, capture_output=True,
                           text=True, timeout=120, check=True)  # fmt: skip
    assert json.loads(again.stdout)["sessions"] == 17  # the store is whole after the stop
