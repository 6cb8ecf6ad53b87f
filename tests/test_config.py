"""Configuration layering: defaults < user file < environment < CLI flags; typos are errors."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from skillopt_sleep import config, paths


def test_defaults_document_every_section() -> None:
    cfg = config.load()
    assert cfg["sources"]["claude"]["enabled"] is True
    assert cfg["state_dir"] is None
    assert config.state_dir(cfg) == Path.home() / ".local/state/skillopt-sleep"


def test_user_file_env_and_flags_override_in_order(monkeypatch: pytest.MonkeyPatch) -> None:
    path = paths.config_file()
    path.parent.mkdir(parents=True)
    path.write_text(
        yaml.safe_dump({"ingest": {"max_text_chars": 100, "watch_debounce_seconds": 5}})
    )
    monkeypatch.setenv("SKILLOPT_SLEEP_INGEST__MAX_TEXT_CHARS", "200")
    cfg = config.load(overrides={"ingest.watch_debounce_seconds": 0.5})
    assert cfg["ingest"]["max_text_chars"] == 200  # env beats file
    assert cfg["ingest"]["watch_debounce_seconds"] == 0.5  # flag beats file
    assert (
        cfg["ingest"]["rescan_interval_seconds"]
        == config.defaults()["ingest"]["rescan_interval_seconds"]
    )


def test_xdg_config_home_is_honoured(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "cfg"))
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "st"))
    assert paths.config_file() == tmp_path / "cfg/skillopt-sleep/config.yaml"
    assert paths.default_state_dir() == tmp_path / "st/skillopt-sleep"


def test_typo_is_reported_with_suggestion(tmp_path: Path) -> None:
    path = tmp_path / "c.yaml"
    path.write_text("ingest:\n  max_text_char: 10\n")
    with pytest.raises(
        config.ConfigError,
        match=r"unknown config key 'ingest.max_text_char'.*"
        r"did you mean 'ingest.max_text_chars'",
    ):
        config.load(path)


def test_wrong_type_and_bad_yaml_are_one_line_errors(tmp_path: Path) -> None:
    path = tmp_path / "c.yaml"
    path.write_text("sources:\n  claude:\n    enabled: 'yes'\n")
    with pytest.raises(config.ConfigError, match="must be a bool"):
        config.load(path)
    path.write_text("sources: [\n")
    with pytest.raises(config.ConfigError, match="not valid YAML"):
        config.load(path)


def test_explicit_missing_file_is_an_error(tmp_path: Path) -> None:
    with pytest.raises(config.ConfigError, match="does not exist"):
        config.load(tmp_path / "missing.yaml")


def test_source_roots_follow_tool_conventions(monkeypatch: pytest.MonkeyPatch) -> None:
    home = Path.home()
    cfg = config.load()
    assert config.claude_roots(cfg) == [home / ".claude", home / ".config/claude"]
    assert config.codex_roots(cfg) == [home / ".codex"]
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", "/a/one, /b/two")
    monkeypatch.setenv("CODEX_HOME", "/c/codex")
    assert config.claude_roots(cfg) == [Path("/a/one"), Path("/b/two")]
    assert config.codex_roots(cfg) == [Path("/c/codex")]
    cfg = config.load(overrides={"sources.claude.roots": ["/x"]})
    assert config.claude_roots(cfg) == [Path("/x")]


def _leaves(node: dict, prefix: str = "") -> list[tuple[str, object]]:
    out: list[tuple[str, object]] = []
    for key, value in node.items():
        if isinstance(value, dict) and value:
            out += _leaves(value, f"{prefix}{key}.")
        else:
            out.append((f"{prefix}{key}", value))
    return out


def test_the_defaults_file_is_one_schema_every_key_commented() -> None:
    """Constraints sit next to the defaults: each valid: line belongs to a real key, the
    defaults pass their own rules, and a key whose default is null says what it takes."""
    rules = config.default_rules()
    leaves = dict(_leaves(config.defaults()))
    assert set(rules) <= set(leaves)
    assert [k for k, v in leaves.items() if k in rules and rules[k].problem(v)] == []
    assert [k for k, v in leaves.items() if v is None and k not in rules] == []
    lines = config.default_text().splitlines()
    for i, line in enumerate(lines):
        if line.strip() and not line.lstrip().startswith("#") and ":" in line:
            above = [x for x in lines[max(0, i - 8) : i] if x.strip()]
            described = [x for x in above[-3:] if x.lstrip().startswith("#") and "valid:" not in x]
            assert described, f"line {i + 1} has no comment: {line}"


@pytest.mark.parametrize(
    ("yaml_text", "message"),
    [
        ("models:\n  backend: openia\n", "one of auto, openai, local, sim, got 'openia' "
         "(did you mean 'openai'?)"),
        ("daemon:\n  schedule: '99 99 * * *'\n", "minute '99'"),
        ("budget:\n  max_calls: -1\n", "must be an integer >= 0 or null, got -1"),
        ("budget:\n  max_cost_usd: -0.5\n", "must be a number >= 0 or null"),
        ("trainer:\n  alpha: 1.5\n", "number in (0, 1)"),
        ("trainer:\n  epochs: null\n", "must be an integer >= 1, got None"),
        ("trainer:\n  lr_schedule: cosin\n", "did you mean 'cosine'"),
        ("models:\n  judge:\n    concurrency: 0\n", "integer >= 1"),
        ("models:\n  judge:\n    base_url: localhost:8080\n", "a URL or null"),
        ("daemon:\n  deadline: 7:30\n", 'write it in quotes, e.g. "07:00"'),
        ("promotion:\n  targets: [claude_usr]\n", "did you mean 'claude_user'"),
    ],
)  # fmt: skip
def test_constrained_values_fail_at_load_in_one_line(
    tmp_path: Path, yaml_text: str, message: str
) -> None:
    path = tmp_path / "c.yaml"
    path.write_text(yaml_text)
    with pytest.raises(config.ConfigError) as caught:
        config.load(path)
    assert message in str(caught.value) and "\n" not in str(caught.value)
    assert str(path) in str(caught.value)


def test_env_values_are_read_by_the_keys_type(monkeypatch: pytest.MonkeyPatch) -> None:
    """`*/5 * * * *` is a schedule, not a YAML alias; `07:00` a time, not the number 420."""
    monkeypatch.setenv("SKILLOPT_SLEEP_DAEMON__SCHEDULE", "*/5 * * * *")
    monkeypatch.setenv("SKILLOPT_SLEEP_DAEMON__DEADLINE", "07:00")
    monkeypatch.setenv("SKILLOPT_SLEEP_BUDGET__DEADLINE", "null")
    monkeypatch.setenv("SKILLOPT_SLEEP_MODELS__OPTIMIZER__MODEL", "*star-model")
    monkeypatch.setenv("SKILLOPT_SLEEP_BUDGET__MAX_CALLS", "12")
    monkeypatch.setenv("SKILLOPT_SLEEP_PROMOTION__TARGETS", "[claude_user, codex_user]")
    cfg = config.load()
    assert cfg["daemon"]["schedule"] == "*/5 * * * *" and cfg["daemon"]["deadline"] == "07:00"
    assert cfg["budget"]["deadline"] is None and cfg["budget"]["max_calls"] == 12
    assert cfg["models"]["optimizer"]["model"] == "*star-model"
    assert cfg["promotion"]["targets"] == ["claude_user", "codex_user"]
    monkeypatch.setenv("SKILLOPT_SLEEP_BUDGET__MAX_CALLS", "*lots")
    with pytest.raises(config.ConfigError, match=r"SKILLOPT_SLEEP_BUDGET__MAX_CALLS='\*lots'"):
        config.load()
    monkeypatch.setenv("SKILLOPT_SLEEP_BUDGET__MAX_CALLS", "-3")
    with pytest.raises(config.ConfigError, match=r"\(from SKILLOPT_SLEEP_BUDGET__MAX_CALLS\)"):
        config.load()


@pytest.mark.parametrize(
    "argv", [["doctor"], ["run", "--once", "--dry-run"], ["run", "--once"], ["status"]]
)
def test_a_bad_value_stops_every_command_with_one_line(tmp_path: Path, argv: list[str]) -> None:
    """`models.backend: openia` passed doctor and --dry-run and died in `run --once` with
    a 17-frame traceback; a `*` in an override crashed every command with a YAML error."""
    import os
    import subprocess

    from tests.cli_helpers import console_script

    exe = console_script()
    cfg = tmp_path / "c.yaml"
    cfg.write_text("models:\n  backend: openia\n")
    env = {**os.environ, "SKILLOPT_SLEEP_DAEMON__SCHEDULE": "*/5 * * * *"}
    proc = subprocess.run(
        [exe, "--config", str(cfg), "--state-dir", str(tmp_path / "s"), *argv],
        capture_output=True, text=True, env=env, timeout=120,
    )  # fmt: skip
    err = proc.stderr.strip() + proc.stdout.strip()
    assert "Traceback" not in err and "did you mean 'openai'" in err, err
    assert proc.returncode == (1 if argv == ["doctor"] else 2), err
    if argv != ["doctor"]:
        assert len(proc.stderr.strip().splitlines()) == 1, proc.stderr
