"""What a script needs from the CLI: --json on every listing, `nights`, a hint for a wrong
night id, --version, and shell completion through click's _SKILLOPT_SLEEP_COMPLETE."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest
from click.testing import CliRunner

from skillopt_sleep import __version__
from skillopt_sleep.cli import main
from skillopt_sleep.night.run import run_night
from skillopt_sleep.report.document import NightSummary
from skillopt_sleep.report.words import headline, skill_sentence
from tests.cli_helpers import console_script
from tests.night_helpers import make_root, write_yaml
from tests.sim_helpers import competent_roles

EXE = console_script()


@pytest.fixture(scope="module")
def after_a_night(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, str, NightSummary]:
    """A night that accepted an edit (the competent simulated optimizer): its config, id
    and summary, which the listings must repeat."""
    root = tmp_path_factory.mktemp("night")
    config = make_root(root, user_skill=False, **{"night.max_skills": 1})
    outcome = run_night(config, progress=lambda _m: None, roles_factory=competent_roles)
    assert outcome.status == "done"
    assert outcome.summary.skills[0].promotion.status == "promoted"
    return write_yaml(root, config), outcome.night_id, outcome.summary


def _json(cfg: Path, *args: str) -> object:
    result = CliRunner().invoke(main, ["--config", str(cfg), *args])
    assert result.exit_code == 0, (args, result.output)
    return json.loads(result.stdout)


def test_every_listing_speaks_json(after_a_night: tuple[Path, str, NightSummary]) -> None:
    cfg, night, summary = after_a_night
    status = _json(cfg, "status", "--json")
    assert status["last_night"]["id"] == night and status["last_night"]["status"] == "done"
    listed = _json(cfg, "nights", "--json")
    assert [n["id"] for n in listed] == [night] and listed[0]["headline"] == headline(summary)
    assert _json(cfg, "report", "--list", "--json") == listed
    assert _json(cfg, "report", night, "--json")["night"] == night
    sessions = _json(cfg, "sessions", "--json")
    assert len(sessions) == 30 and {"id", "turns"} <= set(sessions[0])
    clusters = _json(cfg, "tasks", "list", "--json")["clusters"]
    recurring = next(c for c in clusters if c["recurring"])
    assert _json(cfg, "tasks", "show", recurring["id"], "--json")["id"] == recurring["id"]
    task = recurring["tasks"][0]["id"]
    assert _json(cfg, "tasks", "show", task, "--json")["id"] == task
    history = _json(cfg, "history", "--json")["events"]
    assert history and history[0]["night_id"] == night
    checks = _json(cfg, "doctor", "--json")["checks"]
    assert {c["what"] for c in checks} >= {"config", "store", "permissions"}


def test_a_wrong_night_id_gets_a_hint(after_a_night: tuple[Path, str, NightSummary]) -> None:
    cfg, night, _ = after_a_night
    typo = night[:-3] + "9Z"
    result = CliRunner().invoke(main, ["--config", str(cfg), "report", typo])
    assert result.exit_code == 2
    (line,) = result.output.strip().splitlines()
    assert f"no night '{typo}'; did you mean {night}?" in line and "skillopt-sleep nights" in line
    result = CliRunner().invoke(main, ["--config", str(cfg), "report", "yesterday"])
    assert result.exit_code == 2 and "`skillopt-sleep nights` lists them" in result.output


def test_version_and_shell_completion(tmp_path: Path) -> None:
    env = {**os.environ, "HOME": str(tmp_path)}
    version = subprocess.run([EXE, "--version"], capture_output=True, text=True, env=env)
    assert (
        version.returncode == 0
        and version.stdout.strip() == f"skillopt-sleep, version {__version__}"
    )
    script = subprocess.run([EXE], capture_output=True, text=True,
                            env={**env, "_SKILLOPT_SLEEP_COMPLETE": "bash_source"})  # fmt: skip
    assert "complete -o nosort -F _skillopt_sleep_completion skillopt-sleep" in script.stdout
    words = {**env, "_SKILLOPT_SLEEP_COMPLETE": "bash_complete",
             "COMP_WORDS": "skillopt-sleep nig", "COMP_CWORD": "1"}  # fmt: skip
    done = subprocess.run([EXE], capture_output=True, text=True, env=words)
    assert done.stdout.split() == ["plain,nights"]
    words["COMP_WORDS"], words["COMP_CWORD"] = "skillopt-sleep install cl", "2"
    done = subprocess.run([EXE], capture_output=True, text=True, env=words)
    assert done.stdout.split() == ["plain,claude-plugin"]


def test_status_brief_is_a_few_lines_for_the_agent(
    after_a_night: tuple[Path, str, NightSummary],
) -> None:
    cfg, night, summary = after_a_night
    result = CliRunner().invoke(main, ["--config", str(cfg), "status", "--brief"])
    assert result.exit_code == 0, result.output
    lines = result.output.strip().splitlines()
    assert lines[0] == f"skillopt-sleep, night {night} (done): {headline(summary)}"
    (skill,) = summary.skills
    assert lines[1] == f"- {skill_sentence(skill, summary)}"
    assert len(lines) <= 5
