"""Shared fixtures: every test runs with HOME and the XDG/tool variables pointed at tmp dirs."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

PROJECT_ROOT = Path(__file__).resolve().parents[1]
REAL_FIXTURES = PROJECT_ROOT.parent / "shared" / "fixtures" / "real"
# The embedded models are joined once into the real cache (1.6 GB) and shared by every test:
# the cache holds no user data, only the verified GGUF files (trainer/backends/models.py).
MODEL_CACHE_ROOT = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")


@pytest.fixture(autouse=True)
def isolated_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A private HOME: no test ever reads or writes the real user's config, state or skills."""
    home = tmp_path / "home"
    home.mkdir()
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("XDG_CACHE_HOME", MODEL_CACHE_ROOT)
    for var in ("XDG_CONFIG_HOME", "XDG_STATE_HOME", "CLAUDE_CONFIG_DIR", "CODEX_HOME"):
        monkeypatch.delenv(var, raising=False)
    for var in list(os.environ):
        if var.startswith(("SKILLOPT_SLEEP_", "OPENAI_", "OPTIMIZER_", "TARGET_", "JUDGE_")):
            monkeypatch.delenv(var, raising=False)
    return home


@pytest.fixture(scope="session")
def local_server():  # noqa: ANN201 - a LocalServer; imported lazily (extra 'local')
    """One real llama.cpp server on the embedded target model (0.5B), shared by the tests
    that need a model; started and stopped by PID here, on 127.0.0.1. One thread, so the
    tests stay frugal on a shared machine; skips when the 'local' extra is missing."""
    from trainer.backends.local import LocalModelUnavailable, LocalServer

    try:
        server = LocalServer.for_model("qwen2.5-coder-0.5b", threads=1, parallel=2).start()
    except LocalModelUnavailable as exc:
        pytest.skip(f"local model not available: {exc}")
    yield server
    server.stop()
