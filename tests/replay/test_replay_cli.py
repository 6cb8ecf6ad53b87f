"""`tasks replay` and `doctor` through the real CLI (click's CliRunner), with the REAL agent
CLIs against a scripted provider."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml
from click.testing import CliRunner
from harness_helpers import SKILL, agent_cli, make_repo
from mining_helpers import CONFIG, seed, store

from benchmarks.scripted_endpoint import ScriptedEndpoint
from skillopt_sleep.cli import main
from skillopt_sleep.mining import load_tasks, mine
from skillopt_sleep.mining.taskfile import export, import_file
from skillopt_sleep.replay.one import ReplayReport
from trainer.harness import CLAUDE_CODE, CODEX
from trainer.shapes import CURRENT, REPLAY, ShapeError

pytestmark = [pytest.mark.harness, pytest.mark.timeout(300)]

KEYS = {"backend", "cli_version", "answer", "tool_calls", "files_changed", "exit_status",
        "skill_injected", "judges", "score", "tokens", "seconds", "workspace"}  # fmt: skip


def write_config(tmp_path: Path, kind: str, url: str, **extra: object) -> Path:
    section = "claude_code" if kind == CLAUDE_CODE else "codex"
    cfg = {
        "state_dir": str(tmp_path / "state"),
        "models": {"backend": "sim", "target": {"backend": kind}},
        "harness": {section: {"path": agent_cli(kind).path, "api_key_env": "SCRIPTED_KEY",
                              "base_url": url + ("/v1" if kind == CODEX else "")}},
        **extra,
    }  # fmt: skip
    path = tmp_path / "config.yaml"
    path.write_text(yaml.safe_dump(cfg))
    return path


def reviewed_task(tmp_path: Path) -> str:
    """Mine a small seeded store, give one task a workspace and outcome judges."""
    db = store(tmp_path)
    seed(db)
    mine(db, CONFIG)
    task = load_tasks(db)[0]
    repo, commit = make_repo(tmp_path / "user-repo")
    doc_path = tmp_path / "t.yaml"
    export([task], doc_path)
    doc = yaml.safe_load(doc_path.read_text())
    doc["tasks"][0]["workspace"] = {"repo": str(repo), "commit": commit}
    doc["tasks"][0]["judges"] = [
        {"kind": "command_ran", "value": r"^git status"},
        {"kind": "file_changed", "value": "CHANGES.md"},
        {"kind": "contains", "value": "DONE"},
    ]
    doc_path.write_text(yaml.safe_dump(doc))
    import_file(db, doc_path)
    db.close()
    return task.id


@pytest.mark.parametrize("kind", [CLAUDE_CODE, CODEX])
def test_tasks_replay_prints_the_outcome_and_judges(
    kind: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("SCRIPTED_KEY", "k")
    script = [{"bash": "git status --short"}, {"bash": "echo x >> CHANGES.md"}, {"text": "DONE"}]
    skill = tmp_path / "SKILL.md"
    skill.write_text(SKILL)
    with ScriptedEndpoint(script) as ep:
        cfg = write_config(tmp_path, kind, ep.base_url, mining=CONFIG["mining"])
        task_id = reviewed_task(tmp_path)
        args = ["--config", str(cfg), "--state-dir", str(tmp_path / "state"), "tasks",
                "replay", task_id, "--skill", str(skill), "--json"]  # fmt: skip
        result = CliRunner().invoke(main, args, catch_exceptions=False)
    assert result.exit_code == 0, result.output
    out = json.loads(result.output)
    assert set(out) >= KEYS and out["version"] == CURRENT[REPLAY]
    read = ReplayReport.from_json(out)
    assert read.to_json() == out and ReplayReport.from_json(read.to_json()) == read
    with pytest.raises(ShapeError, match="newer than this release reads"):
        ReplayReport.from_json({**out, "version": CURRENT[REPLAY] + 1})
    assert out["backend"] == kind and out["skill_injected"] is True
    assert out["cli_version"] == agent_cli(kind).version
    assert [c["command"] for c in out["tool_calls"]] == [
        "git status --short",
        "echo x >> CHANGES.md",
    ]
    assert out["files_changed"] == ["CHANGES.md"] and out["exit_status"] == 0
    assert [(j["kind"], j["pass"]) for j in out["judges"]] == [
        ("command_ran", True), ("file_changed", True), ("contains", True)
    ]  # fmt: skip
    assert out["score"] == 1.0 and out["tokens"]["input"] == 300

    # the same task as a chat: outcome judges do not apply there
    args[-3:-3] = ["--backend", "chat"]
    chat = json.loads(CliRunner().invoke(main, args, catch_exceptions=False).output)
    assert chat["backend"] == "chat" and chat["skill_injected"] is None
    assert [j["applies"] for j in chat["judges"]] == [False, False, True]


def test_tasks_replay_refuses_a_harness_for_a_task_without_workspace(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    cfg = write_config(tmp_path, CLAUDE_CODE, "http://127.0.0.1:9", mining=CONFIG["mining"])
    db = store(tmp_path)
    seed(db)
    mine(db, CONFIG)
    task_id = load_tasks(db)[0].id
    db.close()
    skill = tmp_path / "SKILL.md"
    skill.write_text(SKILL)
    args = ["--config", str(cfg), "--state-dir", str(tmp_path / "state"), "tasks", "replay",
            task_id, "--backend", "claude-code", "--skill", str(skill)]  # fmt: skip
    result = CliRunner().invoke(main, args)
    assert result.exit_code == 2
    assert "has no workspace on disk; use --backend chat" in result.output
    missing = CliRunner().invoke(main, [*args[:6], "t-nope"])
    assert missing.exit_code == 2 and "no task 't-nope'" in missing.output


def test_doctor_reports_the_clis_and_runs_one_harness_rollout(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("SCRIPTED_KEY", "k")
    with ScriptedEndpoint([{"text": "READY"}]) as ep:
        cfg = write_config(tmp_path, CLAUDE_CODE, ep.base_url)
        result = CliRunner().invoke(main, ["--config", str(cfg), "doctor", "--json"])
    checks = {c["what"]: c for c in json.loads(result.output)["checks"]}
    cli = agent_cli(CLAUDE_CODE)
    assert checks["harness claude-code"]["status"] == "ok"
    assert (
        f"{cli.path} (version {cli.version}); runs target"
        in checks["harness claude-code"]["detail"]
    )
    rollout = checks[f"harness rollout (claude-code {cli.version})"]
    assert rollout["status"] == "ok" and "skill injected" in rollout["detail"]
    assert "'READY'" in rollout["detail"]


def test_doctor_fails_when_the_endpoint_is_down(tmp_path: Path) -> None:
    cfg = write_config(tmp_path, CLAUDE_CODE, "http://127.0.0.1:9")
    result = CliRunner().invoke(main, ["--config", str(cfg), "doctor", "--json"])
    assert result.exit_code == 1
    checks = {c["what"]: c for c in json.loads(result.output)["checks"]}
    assert checks["harness rollout (claude-code)"]["status"] == "fail"
    assert "endpoint" in checks["harness rollout (claude-code)"]["detail"]


def test_tasks_replay_without_bubblewrap_says_so_in_one_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from trainer.harness import sandbox

    task_id = reviewed_task(tmp_path)
    cfg = write_config(tmp_path, CLAUDE_CODE, "http://127.0.0.1:9")
    skill = tmp_path / "SKILL.md"
    skill.write_text(SKILL)
    monkeypatch.setenv("PATH", str(tmp_path / "empty"))
    sandbox.unavailable.cache_clear()
    try:
        args = ["--config", str(cfg), "tasks", "replay", task_id, "--skill", str(skill)]
        result = CliRunner().invoke(main, [*args, "--json"])
    finally:
        sandbox.unavailable.cache_clear()
    assert result.exit_code == 2, result.output
    (line,) = result.stdout.strip().splitlines()
    assert json.loads(line)["code"] == "sandbox_unavailable"
    assert "bubblewrap" in json.loads(line)["error"]
