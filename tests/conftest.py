"""Shared fixtures: every test runs with HOME and the XDG/tool variables pointed at tmp dirs.

Tests that read the real session logs in ``../shared/fixtures/real`` (beside the project,
not in it: a user's clone has none) use ``real_fixtures`` — the fixture, the
``needs_shared`` marker, or ``require_real_fixtures()`` in helpers — and are skipped with
the reason when the folder is absent. With ``SKILLOPT_REQUIRE_SHARED=1`` (set by
``.ci/run``) its absence fails them instead, so CI never silently skips them. Parameter
lists built from the folder at collection time use ``real_fixture_params``, which never
touches a missing folder.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

import pytest
from hypothesis import settings

# ``pytest --hypothesis-profile=fuzz``: a deep run of the property tests (the type-mutation
# fuzz of ingest among them); the default profile keeps the suite's run time.
settings.register_profile("fuzz", max_examples=3000)

PROJECT_ROOT = Path(__file__).resolve().parents[1]
REAL_FIXTURES = PROJECT_ROOT.parent / "shared" / "fixtures" / "real"
REQUIRE_SHARED = "SKILLOPT_REQUIRE_SHARED"


def require_real_fixtures() -> Path:
    """The real fixtures folder; skip the calling test when it is absent (fail under
    ``SKILLOPT_REQUIRE_SHARED=1``)."""
    if REAL_FIXTURES.is_dir():
        return REAL_FIXTURES
    why = f"real session logs not found at {REAL_FIXTURES} (../shared is not part of a clone)"
    if os.environ.get(REQUIRE_SHARED) == "1":
        pytest.fail(f"{why}; {REQUIRE_SHARED}=1 requires them", pytrace=False)
    pytest.skip(why)


def real_fixture_params(make: Callable[[Path], Iterable[Any]]) -> list[Any]:
    """``pytest.param``s from ``make(REAL_FIXTURES)``, each marked ``needs_shared``; when
    the folder is absent, one placeholder the marker skips (or fails), so collection
    never reads a missing folder."""
    mark = pytest.mark.needs_shared
    if not REAL_FIXTURES.is_dir():
        return [pytest.param(None, id="shared-absent", marks=mark)]
    out = []
    for value in make(REAL_FIXTURES):
        param = value if hasattr(value, "marks") else pytest.param(value)
        out.append(pytest.param(*param.values, id=param.id, marks=[*param.marks, mark]))
    return out


@pytest.fixture
def real_fixtures() -> Path:
    """``../shared/fixtures/real``, or a skip (a failure under SKILLOPT_REQUIRE_SHARED=1)."""
    return require_real_fixtures()


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line(
        "markers", "needs_shared: reads ../shared/fixtures/real (skipped when absent)"
    )


def pytest_runtest_setup(item: pytest.Item) -> None:
    if item.get_closest_marker("needs_shared") is not None:
        require_real_fixtures()


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
    that need a model; started and stopped by PID here, on 127.0.0.1. Two threads when both
    cores are idle now (CI: twice as fast), else one, which never falls off the cliff next to
    a busy process (trainer.backends.threads); skips when the 'local' extra is missing."""
    from embedded_helpers import threads_now

    from trainer.backends.local import LocalModelUnavailable, LocalServer

    try:
        server = LocalServer.for_model("qwen2.5-coder-0.5b", threads=threads_now(), parallel=2)
        server.start()
    except LocalModelUnavailable as exc:
        pytest.skip(f"local model not available: {exc}")
    yield server
    server.stop()


@pytest.fixture
def competent_optimizer(monkeypatch: pytest.MonkeyPatch) -> None:
    """`run --once` through the CLI with the competent simulated optimizer of
    tests/sim_helpers.py (a night that accepts an edit, whatever the seed)."""
    import functools

    from skillopt_sleep.night import run as night_run  # `run` imports run_night from here
    from tests.sim_helpers import competent_roles

    night = functools.partial(night_run.run_night, roles_factory=competent_roles)
    monkeypatch.setattr(night_run, "run_night", night)
