"""Where roles run (`models.<role>.backend`), how tasks are routed, and what a template home
may carry: the wiring between the config and the harness adapters."""

from __future__ import annotations

import os
import stat
from dataclasses import replace
from pathlib import Path

import pytest
from harness_helpers import agent_cli, make_repo

from benchmarks.scripted_endpoint import ScriptedEndpoint
from skillopt_sleep.replay import Routed, cli_backend, routing, where, with_clis
from skillopt_sleep.replay.settings import cli_settings, endpoint_mode
from skillopt_sleep.report.words import replay_line
from skillopt_sleep.settings import config as config_mod
from trainer.backends.base import Completion, InfraError, Roles
from trainer.harness import CLAUDE_CODE, CODEX, make_harness
from trainer.harness.chat import CliChat
from trainer.rollout import ChatRollout
from trainer.skill import SkillDoc
from trainer.tasks import Task, TaskWorkspace


class Echo:
    identity, concurrency = "echo", 1

    def complete(self, messages, **kw) -> Completion:
        return Completion("chat answer", 1, 1)


def config(tmp_path: Path, **overrides: object) -> dict:
    return config_mod.load(overrides={"state_dir": str(tmp_path / "state"), **overrides},
                           environ={})  # fmt: skip


def test_a_role_runs_in_a_cli_only_when_configured(tmp_path: Path) -> None:
    cfg = config(tmp_path, **{"models.backend": "sim"})
    assert [cli_backend(cfg, r) for r in ("optimizer", "target", "judge")] == [None] * 3
    cfg["models"]["target"]["backend"] = "codex"
    assert cli_backend(cfg, "target") == CODEX
    assert cli_backend(cfg, "judge") is None
    # a role runs in a CLI or on models.backend: the config takes nothing else
    with pytest.raises(config_mod.ConfigError, match="claude-code, codex or null"):
        config(tmp_path, **{"models.judge.backend": "openai"})
    with pytest.raises(config_mod.ConfigError, match="did you mean 'claude-code'"):
        config(tmp_path, **{"models.judge.backend": "claude_code"})


def test_endpoint_order_url_then_login_then_key_then_embedded(tmp_path: Path) -> None:
    cfg = config(tmp_path)
    assert endpoint_mode(cfg, CLAUDE_CODE, {}) == "local"
    assert endpoint_mode(cfg, CLAUDE_CODE, {"ANTHROPIC_API_KEY": "k"}) == "key"
    cfg["harness"]["claude_code"]["login_file"] = "~/.claude/.credentials.json"
    assert endpoint_mode(cfg, CLAUDE_CODE, {"ANTHROPIC_API_KEY": "k"}) == "login"
    cfg["harness"]["claude_code"]["base_url"] = "https://gateway.example"
    assert endpoint_mode(cfg, CLAUDE_CODE, {}) == "url"
    local = cli_settings(config(tmp_path), CODEX, {}, local_url="http://127.0.0.1:5/v1")
    assert local.base_url == "http://127.0.0.1:5/v1" and local.endpoint.startswith("local:")
    claude = cli_settings(config(tmp_path), CLAUDE_CODE, {}, local_url="http://127.0.0.1:5/v1")
    assert claude.base_url == "http://127.0.0.1:5"  # Anthropic clients add /v1 themselves
    assert claude.price_in_per_mtok == 0.0 and claude.work_dir == tmp_path / "state" / "harness"


def test_tasks_without_a_workspace_on_disk_run_as_a_chat(tmp_path: Path) -> None:
    repo, commit = make_repo(tmp_path / "repo")
    tasks = [
        Task("a", "p", "val", workspace=TaskWorkspace(str(repo), commit)),
        Task("b", "p", "val"),
        Task("c", "p", "val", workspace=TaskWorkspace(str(tmp_path / "gone"), commit)),
        # a folder, but no git repository: the router sent it to the harness, which failed
        Task("d", "p", "val", workspace=TaskWorkspace(str(tmp_path), commit)),
    ]
    assert [where(t, CODEX) for t in tasks] == [
        (CODEX, ""), ("chat", "no workspace"), ("chat", "repository not on disk"),
        ("chat", "repository not on disk"),
    ]  # fmt: skip
    assert routing(tasks, CODEX) == {
        "tasks": {CODEX: 1, "chat": 3},
        "chat_reasons": {"no workspace": 1, "repository not on disk": 2},
        "confined": True,
    }
    assert routing(tasks, None) == {"tasks": {"chat": 4}, "chat_reasons": {}}
    unconfined = replay_line(routing(tasks, CODEX, confined=False))
    assert "UNCONFINED" in unconfined and "UNCONFINED" not in replay_line(routing(tasks, CODEX))
    # a chat task's cache key does not depend on the harness's identity
    cfg = config(tmp_path)
    cfg["harness"]["codex"]["path"] = agent_cli(CODEX).path
    settings = cli_settings(cfg, CODEX, {}, local_url="http://127.0.0.1:5/v1")
    chat = ChatRollout(Echo())
    one = Routed(make_harness(CODEX, settings), CODEX, chat)
    other = Routed(make_harness(CODEX, replace(settings, max_turns=2)), CODEX, chat)
    skill = SkillDoc.parse("---\nname: s\ndescription: d\n---\nbody\n")
    assert one.fingerprint(skill, tasks[1], 10) == other.fingerprint(skill, tasks[1], 10)
    # the harness asks the router's question, and refuses before starting anything
    for task in tasks[1:]:
        with pytest.raises(InfraError, match=f"cannot run in codex: {where(task, CODEX)[1]}"):
            one.harness.rollout(skill, task, max_tokens=None)
    assert one.rollout(skill, tasks[1], max_tokens=10).answer == "chat answer"


def test_with_clis_puts_the_judge_in_the_cli_without_tools(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    cli = agent_cli(CLAUDE_CODE)
    with ScriptedEndpoint([{"text": '{"grade": 9, "reason": "ok"}'}]) as ep:
        cfg = config(tmp_path, **{
            "models.backend": "sim", "models.judge.backend": CLAUDE_CODE,
            "harness.claude_code.path": cli.path, "harness.claude_code.base_url": ep.base_url,
        })  # fmt: skip
        chat_roles = Roles(Echo(), Echo(), Echo())
        with with_clis(cfg, chat_roles, {"ANTHROPIC_API_KEY": "k"}) as (roles, rollout):
            assert isinstance(roles.judge, CliChat) and roles.optimizer is chat_roles.optimizer
            assert isinstance(rollout, ChatRollout)  # the target stays a chat
            text = roles.judge.complete([{"role": "user", "content": "grade it"}]).text
        assert text == '{"grade": 9, "reason": "ok"}'
        assert ep.requests[0][1].get("tools") in (None, [])


def test_a_login_file_reaches_a_rollout_home_only_as_placeholders(tmp_path: Path) -> None:
    """The user's login is read, never copied: the template holds none, a rollout's home
    gets the file with placeholders for its tokens, and the relay holds the real ones."""
    from trainer.harness.slots import Slot

    home = Path(os.environ["HOME"])
    (home / ".claude").mkdir()
    login = home / ".claude" / ".credentials.json"
    login.write_text('{"claudeAiOauth": {"accessToken": "real-token-for-test", "expiresAt": 1}}')
    before = login.stat()
    cfg = config(tmp_path)
    cfg["harness"]["claude_code"].update(path=agent_cli(CLAUDE_CODE).path, login_file=str(login))
    settings = cli_settings(cfg, CLAUDE_CODE, {})
    assert settings.endpoint == "login" and settings.base_url is None
    harness = make_harness(CLAUDE_CODE, settings)
    assert not (harness.template() / ".claude" / ".credentials.json").exists()
    slot = Slot(tmp_path / "slot", tmp_path / "mirrors")
    harness.fresh_home(slot)
    inside = slot.home / ".claude" / ".credentials.json"
    assert "real-token-for-test" not in inside.read_text()
    assert "skillopt-sandbox-login-claudeAiOauth-accessToken" in inside.read_text()
    assert stat.S_IMODE(inside.stat().st_mode) == 0o600
    assert "real-token-for-test" in harness.credentials.real().values()
    assert login.stat().st_mtime_ns == before.st_mtime_ns  # the user's file is only read
