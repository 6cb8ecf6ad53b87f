"""init and doctor through click's runner and as a real subprocess."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

from click.testing import CliRunner

from skillopt_sleep import paths
from skillopt_sleep.cli import main
from tests.cli_helpers import console_script


def test_init_writes_private_starter_and_refuses_to_overwrite() -> None:
    runner = CliRunner()
    result = runner.invoke(main, ["init"])
    assert result.exit_code == 0, result.output
    path = paths.config_file()
    assert path.exists() and (path.stat().st_mode & 0o077) == 0
    again = runner.invoke(main, ["init"])
    assert again.exit_code == 2
    assert "already exists" in again.output
    assert runner.invoke(main, ["init", "--force"]).exit_code == 0


def test_init_show_defaults_prints_every_key() -> None:
    result = CliRunner().invoke(main, ["init", "--show-defaults"])
    assert result.exit_code == 0
    assert "max_text_chars" in result.output and "sources:" in result.output


def test_doctor_reports_sources_and_store(tmp_path: Path) -> None:
    proj = Path.home() / ".claude/projects/-home-u-p"
    proj.mkdir(parents=True)
    (proj / "a.jsonl").write_text("{}\n")
    result = CliRunner().invoke(main, ["doctor", "--json"])
    assert result.exit_code == 0, result.output
    checks = json.loads(result.output)["checks"]
    by_what = {c["what"]: c for c in checks}
    assert by_what["store"]["status"] == "ok"
    assert by_what["permissions"]["status"] == "ok"
    assert any(c["detail"].endswith(".claude: 1 session files") for c in checks)


def test_doctor_fails_on_a_config_typo_and_on_open_permissions(tmp_path: Path) -> None:
    cfg = tmp_path / "c.yaml"
    cfg.write_text("sourcez: {}\n")
    result = CliRunner().invoke(main, ["--config", str(cfg), "doctor"])
    assert result.exit_code == 1
    assert "unknown config key 'sourcez'" in result.output
    state = tmp_path / "state"
    assert CliRunner().invoke(main, ["--state-dir", str(state), "doctor"]).exit_code == 0
    os.chmod(state, 0o755)
    result = CliRunner().invoke(main, ["--state-dir", str(state), "doctor"])
    assert result.exit_code == 1
    assert "chmod 700" in result.output


def test_bad_flag_and_missing_config_are_one_line_exit_2(tmp_path: Path) -> None:
    exe = console_script()
    env = dict(os.environ)
    bad = subprocess.run([exe, "--no-such-flag"], capture_output=True, text=True, env=env)
    assert bad.returncode == 2
    missing = subprocess.run(
        [exe, "--config", str(tmp_path / "nope.yaml"), "doctor"],
        capture_output=True,
        text=True,
        env=env,
    )
    assert missing.returncode == 2
    assert missing.stderr.strip().splitlines()[-1].endswith("does not exist")
    assert "Traceback" not in missing.stderr


def test_doctor_refuses_a_bad_schedule_and_a_negative_budget(tmp_path: Path) -> None:
    cfg = tmp_path / "c.yaml"
    for text, message in [
        ("daemon:\n  schedule: '99 99 * * *'\n", "minute '99'"),
        ("budget:\n  max_cost_usd: -1\n", "must be a number >= 0 or null, got -1"),
    ]:
        cfg.write_text(text)
        result = CliRunner().invoke(main, ["--config", str(cfg), "doctor", "--json"])
        assert result.exit_code == 1, result.output
        checks = json.loads(result.output)["checks"]
        assert checks[0]["status"] == "fail" and message in checks[0]["detail"]
