"""Shared fixtures: every test runs with HOME and the XDG/tool variables pointed at tmp dirs."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

PROJECT_ROOT = Path(__file__).resolve().parents[1]
REAL_FIXTURES = PROJECT_ROOT.parent / "shared" / "fixtures" / "real"


@pytest.fixture(autouse=True)
def isolated_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A private HOME: no test ever reads or writes the real user's config, state or skills."""
    home = tmp_path / "home"
    home.mkdir()
    monkeypatch.setenv("HOME", str(home))
    for var in ("XDG_CONFIG_HOME", "XDG_STATE_HOME", "CLAUDE_CONFIG_DIR", "CODEX_HOME"):
        monkeypatch.delenv(var, raising=False)
    for var in list(os.environ):
        if var.startswith(("SKILLOPT_SLEEP_", "OPENAI_", "OPTIMIZER_", "TARGET_", "JUDGE_")):
            monkeypatch.delenv(var, raising=False)
    return home
