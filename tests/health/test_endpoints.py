"""A broken endpoint is named with its real error: by `doctor` (one real call per role) and
by the night (its first failed call, in one line, in the progress and the report). The
provider is the edge we do not own, so a local fake server plays it
(tests/fake_openai_server.py): 401, 404 model not found, a closed connection."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import yaml
from click.testing import CliRunner

from skillopt_sleep.cli import main

SERVER = Path(__file__).resolve().parent.parent / "fake_openai_server.py"


@pytest.fixture
def fake_openai(tmp_path: Path) -> Iterator[str]:
    """``http://127.0.0.1:PORT``: the fake provider, started here and stopped by PID; it
    logs each request to ``tmp_path/fake-openai.log``."""
    env = {**os.environ, "FAKE_OPENAI_LOG": str(tmp_path / "fake-openai.log")}
    proc = subprocess.Popen(
        [sys.executable, str(SERVER)], stdout=subprocess.PIPE, text=True, env=env
    )
    try:
        assert proc.stdout is not None
        port = int(proc.stdout.readline())
        yield f"http://127.0.0.1:{port}"
    finally:
        proc.kill()
        proc.wait(timeout=10)


def _closed_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _config(tmp_path: Path, urls: dict[str, str], model: str | None = None) -> Path:
    models: dict[str, Any] = {"backend": "openai"}
    for role, url in urls.items():
        models[role] = {"base_url": url, "model": model or f"{role}-model"}
    path = tmp_path / "config.yaml"
    path.write_text(yaml.safe_dump({"models": models}))
    return path


def _doctor(cfg: Path, tmp_path: Path) -> tuple[int, dict[str, dict[str, str]]]:
    result = CliRunner().invoke(
        main, ["--config", str(cfg), "--state-dir", str(tmp_path / "s"), "doctor", "--json"]
    )
    checks = json.loads(result.stdout)["checks"]
    return result.exit_code, {c["what"]: c for c in checks if c["what"].startswith("model ")}


def test_doctor_calls_each_role_and_names_the_real_error(
    tmp_path: Path, fake_openai: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-" + "x" * 8)
    urls = {
        "optimizer": f"{fake_openai}/ok/v1",
        "target": f"{fake_openai}/unauthorized/v1",
        "judge": f"{fake_openai}/no-model/v1",
    }
    code, models = _doctor(_config(tmp_path, urls), tmp_path)
    assert code == 1
    assert models["model optimizer"]["status"] == "ok"
    assert "answered in" in models["model optimizer"]["detail"]
    target, judge = models["model target"], models["model judge"]
    assert target["status"] == "fail" and judge["status"] == "fail"
    assert urls["target"] in target["detail"] and "target-model" in target["detail"]
    assert "HTTP 401: Incorrect API key provided" in target["detail"]
    assert "OPENAI_API_KEY was refused" in target["detail"]
    assert "HTTP 404: The model `no-such-model` does not exist" in judge["detail"]

    refused = f"http://127.0.0.1:{_closed_port()}/v1"
    urls = {"optimizer": f"{fake_openai}/hang-up/v1", "target": refused, "judge": refused}
    code, models = _doctor(_config(tmp_path, urls, model="m"), tmp_path)
    assert code == 1
    assert "connection failed: Server disconnected" in models["model optimizer"]["detail"]
    assert models["model target"]["detail"].endswith("connection failed: Connection refused")
    assert models["model judge"]["detail"].endswith("(as target)")  # one call per endpoint


def test_doctor_all_ok_against_a_working_endpoint(
    tmp_path: Path, fake_openai: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-" + "x" * 8)
    urls = {role: f"{fake_openai}/ok/v1" for role in ("optimizer", "target", "judge")}
    code, models = _doctor(_config(tmp_path, urls), tmp_path)
    assert {m["status"] for m in models.values()} == {"ok"}, models
    calls = (tmp_path / "fake-openai.log").read_text().splitlines()
    assert sorted(calls) == sorted(f"/ok/v1/chat/completions {r}-model" for r in urls)
    assert code == 0


def test_the_nights_first_failure_is_one_line_with_role_url_and_error(
    tmp_path: Path, fake_openai: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    from tests.night_helpers import make_root

    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-" + "x" * 8)
    url = f"{fake_openai}/unauthorized/v1"
    overrides: dict[str, Any] = {"models.backend": "openai", "night.max_skills": 1}
    for role in ("optimizer", "target", "judge"):
        overrides[f"models.{role}.base_url"] = url
    config = make_root(tmp_path, user_skill=False, **overrides)
    cfg = tmp_path / "config.yaml"
    cfg.write_text(yaml.safe_dump(config))
    result = CliRunner().invoke(main, ["--config", str(cfg), "run", "--once"])
    assert result.exit_code == 1, result.output
    failed = [ln for ln in result.stderr.splitlines() if "model call failed" in ln]
    assert len(failed) == 1, result.stderr  # the first failure, once
    assert "target model gpt-4o-mini at " + url in failed[0]
    assert "HTTP 401: Incorrect API key provided" in failed[0]
    summary = json.loads(
        CliRunner().invoke(main, ["--config", str(cfg), "report", "--format", "json"]).stdout
    )
    assert summary["model_failure"] in failed[0]
    assert summary["problems"][0] == f"first failed model call: {summary['model_failure']}"
    report = CliRunner().invoke(main, ["--config", str(cfg), "report"]).stdout
    assert url in report and "HTTP 401" in report


def test_a_password_in_the_url_is_never_shown(
    tmp_path: Path, fake_openai: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-" + "x" * 8)
    secret = "pw-" + "s3cr3t" * 3
    url = fake_openai.replace("http://", f"http://user:{secret}@") + "/unauthorized/v1"
    urls = {role: url for role in ("optimizer", "target", "judge")}
    result = CliRunner().invoke(
        main, ["--config", str(_config(tmp_path, urls, model="m")), "--state-dir",
               str(tmp_path / "s"), "doctor"],
    )  # fmt: skip
    assert "HTTP 401" in result.output and "http://***@127.0.0.1:" in result.output
    assert secret not in result.output
