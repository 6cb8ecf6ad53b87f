"""Every failure is one line and a non-zero exit; with ``--json`` it is one JSON object on
stdout, ``{"version": …, "error": …, "code": …}``. Each fault is made for real on a copy
of a real store (tests/broken_state_helpers.py) and every command is run against it,
through CliRunner and as a real process.
"""

from __future__ import annotations

import ast
import json
import math
import os
import subprocess
from pathlib import Path
from typing import Any

import pytest
import sqlite_utils
import yaml

from skillopt_sleep.cli.failures import CODES, as_failure
from skillopt_sleep.running.lock import LOCK_NAME
from skillopt_sleep.settings import config as config_mod
from tests.broken_state_helpers import (
    FAULTS,
    JSON_COMMANDS,
    PLAIN_COMMANDS,
    another_users,
    bwrap_works,
    check,
    corpus,
    invoke,
    lock_is_a_directory,
    nights_is_a_file,
    sweep_in,
    with_state,
)
from tests.night_helpers import CLI, PROJECT, env
from tests.running.test_lock import _spawn_holder
from trainer.shapes import CURRENT, ERROR

__all__ = ["corpus"]  # the module-scoped fixture, imported for pytest


# -- every command against each broken state ---------------------------------------------
@pytest.mark.parametrize("fault", sorted(FAULTS))
def test_every_command_fails_cleanly_on_a_broken_state(
    fault: str, tmp_path: Path, corpus: tuple[dict[str, Any], bytes]
) -> None:
    config = with_state(tmp_path, corpus)
    FAULTS[fault](tmp_path / "state")
    codes = {}
    for args in [*JSON_COMMANDS, *PLAIN_COMMANDS]:
        codes[" ".join(args)] = check(invoke(config, *args), args)
    # the faults a night cannot get past are reported as the state directory or the store
    expected = {
        "lock-is-a-directory": "state_unwritable",
        "nights-is-a-file": "state_unwritable",
        "database-is-a-directory": "state_unwritable",
        "state-is-a-file": "state_unwritable",
        "pages-overwritten": "database_corrupt",  # checked before a night writes into it
    }[fault]
    assert codes["run --once --json -q"] == expected, codes
    if fault in ("database-is-a-directory", "state-is-a-file"):  # nothing can open the store
        assert codes["status --json"] == codes["tasks list --json"] == "state_unwritable"


def test_plain_errors_name_the_entry_of_the_state_directory(
    tmp_path: Path, corpus: tuple[dict[str, Any], bytes]
) -> None:
    config = with_state(tmp_path, corpus)
    state = tmp_path / "state"
    lock_is_a_directory(state)
    result = invoke(config, "run", "--once", "-q")
    assert result.exit_code == 1 and result.stdout == ""
    assert result.stderr == (
        f"Error: the state directory {state} cannot be used: {LOCK_NAME}: Is a directory\n"
    )
    (state / LOCK_NAME).rmdir()
    nights_is_a_file(state)
    result = invoke(config, "run", "--once", "-q")
    assert result.exit_code == 1
    assert result.stderr == (
        f"Error: the state directory {state} cannot be used: "
        "nights: a file where a directory should be\n"
    )
    (state / "nights").unlink()  # fixed: the night the failure left resumes and finishes
    result = invoke(config, "run", "--once", "--json", "-q")
    assert result.exit_code == 0, result.output
    assert json.loads(result.stdout)["status"] == "done"


def test_a_real_process_fails_in_one_line_and_in_one_json_line(
    tmp_path: Path, corpus: tuple[dict[str, Any], bytes]
) -> None:
    config = with_state(tmp_path, corpus)
    lock_is_a_directory(tmp_path / "state")
    plain = subprocess.run([*CLI, "--config", str(config), "run", "--once", "-q"],
                           capture_output=True, text=True, env=env(), timeout=300)  # fmt: skip
    assert plain.returncode == 1 and plain.stdout == ""
    assert plain.stderr.count("\n") == 1 and plain.stderr.startswith("Error: the state directory")
    as_json = subprocess.run([*CLI, "--config", str(config), "run", "--once", "-q", "--json"],
                             capture_output=True, text=True, env=env(), timeout=300)  # fmt: skip
    assert as_json.returncode == 1 and as_json.stderr == ""
    assert json.loads(as_json.stdout) == {
        "version": CURRENT[ERROR],
        "error": plain.stderr.removeprefix("Error: ").rstrip("\n"),
        "code": "state_unwritable",
    }
    assert as_json.stdout.count("\n") == 1


@pytest.mark.parametrize("mode", [0o700, 0o755], ids=["private", "readable"])
def test_another_users_state_directory_fails_every_command_cleanly(
    mode: int, tmp_path: Path, corpus: tuple[dict[str, Any], bytes]
) -> None:
    config = with_state(tmp_path, corpus)
    config.chmod(0o644)
    state = tmp_path / "state"
    prefix = another_users(state, mode, tmp_path)
    codes = sweep_in(prefix, config)
    for command in ("status --json", "nights --json", "sessions --json", "run --once --json -q"):
        assert codes[command] == "state_unwritable", codes
    assert codes["doctor --no-rollout --json"] is None  # its checks say it: below


@pytest.mark.skipif(not bwrap_works(), reason="bubblewrap cannot make a read-only bind here")
def test_a_read_only_file_system_fails_every_command_cleanly(
    tmp_path: Path, corpus: tuple[dict[str, Any], bytes]
) -> None:
    config = with_state(tmp_path, corpus)
    state = str(tmp_path / "state")
    read_only = ["bwrap", "--bind", "/", "/", "--ro-bind", state, state, "--dev", "/dev",
                 "--proc", "/proc", "--"]  # fmt: skip
    codes = sweep_in(read_only, config)
    for command in ("status --json", "nights --json", "ingest --json", "run --once --json -q"):
        assert codes[command] == "state_unwritable", codes
    proc = subprocess.run([*read_only, *CLI, "--config", str(config), "doctor", "--no-rollout"],
                          capture_output=True, text=True, env=env(), timeout=120)  # fmt: skip
    assert proc.returncode == 1
    assert f"fail  state directory: {state} is on a read-only file system" in proc.stdout


# -- the other inputs the review found ---------------------------------------------------
@pytest.mark.parametrize("as_json", [False, True], ids=["plain", "json"])
def test_a_5000_character_transcript_path_to_the_hook(
    as_json: bool, tmp_path: Path, corpus: tuple[dict[str, Any], bytes]
) -> None:
    config = with_state(tmp_path, corpus)
    hook = json.dumps({"transcript_path": str(tmp_path / ("a" * 5000)) + ".jsonl"})
    for agent in ("claude", "codex"):  # the same input, the same answer from both hooks
        args = ["ingest", "--hook", agent, *(["--json"] if as_json else [])]
        result = invoke(config, *args, input=hook)
        assert result.exit_code == 2
        assert check(result, args) == ("invalid_input" if as_json else None)
        line = json.loads(result.stdout)["error"] if as_json else result.stderr.strip()
        assert "File name too long" in line and len(line) < 300


def test_openai_without_a_key_at_run(
    tmp_path: Path, corpus: tuple[dict[str, Any], bytes], monkeypatch: pytest.MonkeyPatch
) -> None:
    for name in list(os.environ):
        if name.endswith(("_API_KEY", "_BASE_URL")):
            monkeypatch.delenv(name)
    config = with_state(tmp_path, corpus)
    cfg = yaml.safe_load(config.read_text())
    cfg["models"]["backend"] = "openai"
    config.write_text(yaml.safe_dump(cfg))
    result = invoke(config, "run", "--once", "-q")
    assert result.exit_code == 2 and check(result, ["run", "--once"]) is None
    assert result.stderr.startswith("Error: no API key for model") and "OPENAI_API_KEY" in (
        result.stderr
    )
    result = invoke(config, "run", "--once", "-q", "--json")
    assert check(result, ["run", "--once", "--json"]) == "model_unavailable"
    # found before the night's ingest and mining: no night was started, none waits to resume
    db = sqlite_utils.Database(tmp_path / "state" / "skillopt-sleep.db")
    assert not db["nights"].exists() or db["nights"].count == 0


def _numeric_keys() -> list[str]:
    """Every key that takes a number: a ``valid:`` line with ``number``, or a float default."""
    rules = config_mod.default_rules()
    keys = {k for k, r in rules.items() if any(a.kind == "number" for a in r.alts)}

    def floats(node: Any, where: str) -> None:
        for key, value in node.items():
            if isinstance(value, dict):
                floats(value, f"{where}{key}.")
            elif isinstance(value, float) and f"{where}{key}" not in rules:
                keys.add(f"{where}{key}")

    floats(config_mod.defaults(), "")
    return sorted(keys)


def test_non_finite_numbers_are_refused_for_every_numeric_key(tmp_path: Path) -> None:
    keys = _numeric_keys()
    assert "trainer.alpha" in keys and len(keys) > 20
    path = tmp_path / "c.yaml"
    for key in keys:
        for value in (math.nan, math.inf, -math.inf):
            tree: dict[str, Any] = {}
            config_mod.set_dotted(tree, key, value)
            path.write_text(yaml.safe_dump(tree))  # .nan, .inf, -.inf
            with pytest.raises(config_mod.ConfigError, match=f"'{key}'"):
                config_mod.load(path, environ={})


def test_nan_alpha_stops_every_command_at_load(
    tmp_path: Path, corpus: tuple[dict[str, Any], bytes], monkeypatch: pytest.MonkeyPatch
) -> None:
    config = with_state(tmp_path, corpus)
    cfg = yaml.safe_load(config.read_text())
    cfg["trainer"]["alpha"] = math.nan
    config.write_text(yaml.safe_dump(cfg))
    assert "alpha: .nan" in config.read_text()
    result = invoke(config, "run", "--once", "--json")
    assert check(result, ["run", "--once", "--json"]) == "config_invalid"
    assert "'trainer.alpha'" in json.loads(result.stdout)["error"]
    cfg["trainer"]["alpha"] = 0.05
    config.write_text(yaml.safe_dump(cfg))
    monkeypatch.setenv("SKILLOPT_SLEEP_TRAINER__ALPHA", ".inf")
    result = invoke(config, "status")
    assert result.exit_code == 2
    assert result.stderr == (
        "Error: config key 'trainer.alpha' (from SKILLOPT_SLEEP_TRAINER__ALPHA) must be a "
        "number in (0, 1), got inf\n"
    )


def test_a_held_lock_is_json_with_exit_3(
    tmp_path: Path, corpus: tuple[dict[str, Any], bytes]
) -> None:
    config = with_state(tmp_path, corpus)
    holder = _spawn_holder(tmp_path / "state")
    try:
        result = invoke(config, "run", "--once", "--json", "-q")
    finally:
        holder.kill()
        holder.wait()
    assert check(result, ["run", "--once", "--json"]) == "locked"
    assert f"night pid {holder.pid}" in json.loads(result.stdout)["error"]


def test_usage_errors_are_json_too(tmp_path: Path) -> None:
    config = tmp_path / "c.yaml"
    config.write_text(f"state_dir: {tmp_path / 'state'}\nmodels: {{backend: sim}}\n")
    for args, code in [
        (["status", "--json", "--bogus"], "usage"),
        (["tasks", "show", "--json"], "usage"),  # no TASK_ID
        (["run", "--json"], "invalid_input"),  # neither --once nor --dry-run
    ]:
        assert check(invoke(config, *args), args) == code
    result = invoke(tmp_path / "missing.yaml", "status", "--json")
    assert check(result, ["status", "--json"]) == "config_invalid"
    plain = invoke(config, "status", "--bogus")  # without --json: click's usage text
    assert plain.exit_code == 2 and "Usage:" in plain.stderr and plain.stdout == ""


# -- the one place ------------------------------------------------------------------------
def test_an_unknown_exception_is_one_line_with_where_it_happened() -> None:
    def buggy() -> None:
        {}["missing\nkey"]  # noqa: B018 - the bug

    try:
        buggy()
    except KeyError as exc:
        failure = as_failure(exc, None)
    assert failure.exit_code == 1 and failure.code == "internal_error"
    message = failure.format_message()
    assert "\n" not in message
    assert message.startswith("internal error, please report it: KeyError:")
    assert message.endswith(f"({Path(__file__).name}:{buggy.__code__.co_firstlineno + 1})")


def test_every_code_raised_is_documented() -> None:
    """Codes given to CliError/UserError/StoreError and the tables of failures.py and
    store.py: each is in CODES (whence docs/cli.md's table)."""
    used: set[str] = set()
    for path in (PROJECT / "skillopt_sleep").rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Call) and getattr(node.func, "id", "") in (
                "CliError",
                "UserError",
                "StoreError",
            ):
                args = [*node.args[1:2], *(k.value for k in node.keywords if k.arg == "code")]
                used |= {a.value for a in args if isinstance(a, ast.Constant)}
    from skillopt_sleep.cli import failures
    from skillopt_sleep.store import _SQLITE_CODES

    used |= set(_SQLITE_CODES.values()) | {code for _, _, code in failures._KNOWN}
    assert {"state_unwritable", "model_unavailable", "rollout_failed"} <= used
    assert used <= set(CODES)
    reference = (PROJECT / "docs" / "cli.md").read_text()
    assert all(f"| `{code}` | {exit_} |" in reference for code, (exit_, _) in CODES.items())
