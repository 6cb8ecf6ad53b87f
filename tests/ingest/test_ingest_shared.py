"""A clone without ``../shared``: tests that read the real logs skip with the reason, the
suite still collects, and ``SKILLOPT_REQUIRE_SHARED=1`` (CI) turns the skips into failures.

Checked for real: the tests folder is copied where nothing lies beside it and pytest runs
there as a user (or CI) would run it."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

from conftest import PROJECT_ROOT, REQUIRE_SHARED

SELECTED = [
    "tests/ingest/test_ingest_real.py",
    "tests/ingest/test_ingest_fuzz.py",
    "tests/mining/test_mining_samples.py",
]


def _clone(tmp_path: Path) -> Path:
    """The project's files (not its venv or caches) where nothing lies beside them."""
    clone = tmp_path / "lonely" / "skillopt-sleep"
    skip = shutil.ignore_patterns(".venv", ".git", "__pycache__", ".*_cache", ".hypothesis")
    shutil.copytree(PROJECT_ROOT, clone, ignore=skip)
    return clone


def _pytest(clone: Path, *args: str, require: bool) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k != REQUIRE_SHARED}
    if require:
        env[REQUIRE_SHARED] = "1"
    cmd = [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-q", "-rs", *args]
    return subprocess.run(
        cmd, cwd=clone, env=env, capture_output=True, text=True, timeout=600, check=False
    )


def test_without_shared_the_real_log_tests_skip_with_the_reason(tmp_path: Path) -> None:
    clone = _clone(tmp_path)
    out = _pytest(clone, *SELECTED, "-k", "real", require=False)
    assert out.returncode == 0, out.stdout + out.stderr
    assert (
        "real session logs not found" in out.stdout
        and "../shared is not part of a clone" in out.stdout
    )
    last = out.stdout.splitlines()[-1]
    assert " skipped" in last and "failed" not in last and "error" not in last


def test_ci_fails_them_instead(tmp_path: Path) -> None:
    clone = _clone(tmp_path)
    out = _pytest(clone, "tests/ingest/test_ingest_real.py", require=True)
    assert out.returncode == 1, out.stdout + out.stderr
    assert f"{REQUIRE_SHARED}=1 requires them" in out.stdout
    assert "skipped" not in out.stdout.splitlines()[-1]


def test_the_whole_suite_collects_without_shared(tmp_path: Path) -> None:
    clone = _clone(tmp_path)
    out = _pytest(clone, "--collect-only", require=False)
    assert out.returncode == 0, out.stdout[-3000:] + out.stderr[-3000:]
    assert "error" not in out.stdout.splitlines()[-1]
