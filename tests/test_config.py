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
