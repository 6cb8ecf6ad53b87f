"""The harness adapters with the REAL Claude Code and Codex CLIs against a scripted model
provider (the provider is the one edge we do not own; see benchmarks/scripted_endpoint.py).

The script makes the agent run `git status`, append to CHANGES.md and run a failing
command, so what the harness captures can be checked exactly: tool calls with commands
and exit statuses, changed files against the commit, the CLI's exit status, check
commands, and outcome judges scored on all that. The same code paths against the
embedded model are in test_harness_embedded.py.
"""

from __future__ import annotations

import json
import os
import time
from dataclasses import replace
from pathlib import Path

import pytest
from harness_helpers import (
    SKILL,
    agent_cli,
    command_lines,
    git,
    make_repo,
    tree_digest,
    user_agent_homes,
)

from benchmarks.scripted_endpoint import ScriptedEndpoint
from trainer import MemoryCache
from trainer.backends.base import InfraError
from trainer.budget import Budget
from trainer.calls import Caller, RolloutJob
from trainer.harness import CLAUDE_CODE, CODEX, HarnessSettings, make_harness
from trainer.harness.cli import CliInfo
from trainer.scoring import rule_score
from trainer.skill import SkillDoc
from trainer.tasks import Judge, Task, TaskWorkspace

pytestmark = [pytest.mark.harness, pytest.mark.timeout(300)]

KINDS = (CLAUDE_CODE, CODEX)
SCRIPT = [
    {"bash": "git status --short"},
    {"bash": "echo '- add() exists' >> CHANGES.md"},
    {"bash": "exit 3"},
    {"text": "DONE"},
]
JUDGES = (
    Judge("command_ran", r"^git status\b"),
    Judge("command_ran", r"\bpytest\b"),
    Judge("file_changed", "CHANGES.md"),
    Judge("file_unchanged", "*.py"),
    Judge("exit_ok", ""),
    Judge("check", "grep -q 'add() exists' CHANGES.md"),
    Judge("check", "test -f WIP.txt"),
)


@pytest.fixture(params=KINDS)
def cli(request: pytest.FixtureRequest) -> CliInfo:
    return agent_cli(request.param)


@pytest.fixture
def repo(tmp_path: Path) -> tuple[Path, str]:
    return make_repo(tmp_path / "user-repo")


def harness(cli: CliInfo, work: Path, url: str, **kw: object):
    base = url + "/v1" if cli.kind == CODEX else url
    settings = HarnessSettings(
        work_dir=work, cli_path=cli.path, base_url=base, endpoint="scripted", api_key="k",
        model="scripted-model", **kw,
    )  # fmt: skip
    return make_harness(cli.kind, settings)


def task_for(repo: tuple[Path, str], **kw: object) -> Task:
    return Task(
        "t-changelog", "record that add() exists", "train", JUDGES,
        workspace=TaskWorkspace(str(repo[0]), repo[1]), **kw,
    )  # fmt: skip


def test_outcome_captures_what_the_agent_did(cli: CliInfo, repo, tmp_path: Path) -> None:
    skill = SkillDoc.parse(SKILL)
    with ScriptedEndpoint(SCRIPT) as ep:
        outcome = harness(cli, tmp_path / "work", ep.base_url).rollout(
            skill, task_for(repo), max_tokens=None
        )
        requests = [json.dumps(body) for _path, body in ep.requests]
    assert outcome.where == cli.kind and outcome.skill_injected is True
    assert [(c.command, c.exit_status) for c in outcome.tool_calls] == [
        ("git status --short", 0),
        ("echo '- add() exists' >> CHANGES.md", 0),
        ("exit 3", 3),
    ]
    assert outcome.files_changed == ("CHANGES.md",)  # the installed skill is not the agent's
    assert outcome.exit_status == 0 and outcome.answer == "DONE"
    # WIP.txt is the user's uncommitted work: the copy is at the commit, without it
    assert outcome.checks == {"grep -q 'add() exists' CHANGES.md": 0, "test -f WIP.txt": 1}
    assert outcome.input_tokens == 4 * 100 and outcome.output_tokens == 4 * 10
    assert outcome.detail["cli_version"] == cli.version
    scores = [rule_score(j, outcome) for j in JUDGES]
    assert scores == [1.0, 0.0, 1.0, 1.0, 1.0, 1.0, 0.0]
    # the model really received the body (the transcript said so; the wire agrees)
    assert "Append one line" in requests[0]
    assert not (tmp_path / "work" / "slots" / f"{cli.kind}-0" / "repo").exists()


def test_user_repo_and_agent_homes_are_untouched(cli: CliInfo, repo, tmp_path: Path) -> None:
    home = user_agent_homes(Path(os.environ["HOME"]))
    before = (tree_digest(repo[0]), tree_digest(home))
    script = [{"bash": "git push origin HEAD:main"}, {"bash": "echo x > calc.py"}]
    with ScriptedEndpoint([*script, {"text": "DONE"}]) as ep:
        outcome = harness(cli, tmp_path / "work", ep.base_url).rollout(
            SkillDoc.parse(SKILL), task_for(repo), max_tokens=None
        )
        wire = "".join(json.dumps(body) for _path, body in ep.requests)
    assert outcome.files_changed == ("calc.py",)
    assert outcome.tool_calls[0].exit_status != 0  # no remote to push to
    assert (tree_digest(repo[0]), tree_digest(home)) == before
    assert git(repo[0], "log", "--oneline").count("\n") == 0  # still the one commit
    assert "USER-PRIVATE-MARKER" not in wire and "private-user-skill" not in wire


def test_a_skill_that_was_not_injected_is_an_infrastructure_error(
    cli: CliInfo, repo, tmp_path: Path
) -> None:
    doc = SkillDoc.parse(SKILL)
    if cli.kind == CLAUDE_CODE:  # the user may not invoke it: `/name` loads nothing
        doc = SkillDoc(doc.name, doc.description, doc.body, {"user-invocable": False})
    else:  # Codex refuses a SKILL.md without frontmatter
        doc = SkillDoc(body=doc.body)
    with ScriptedEndpoint([{"text": "DONE"}]) as ep:
        adapter = harness(cli, tmp_path / "work", ep.base_url)
        with pytest.raises(InfraError, match="not show the skill's body"):
            adapter.rollout(doc, task_for(repo), max_tokens=None)


def test_an_unreachable_endpoint_is_an_infrastructure_error(
    cli: CliInfo, repo, tmp_path: Path
) -> None:
    adapter = harness(cli, tmp_path / "work", "http://127.0.0.1:9")
    started = time.monotonic()
    with pytest.raises(InfraError, match="endpoint"):
        adapter.rollout(SkillDoc.parse(SKILL), task_for(repo), max_tokens=None)
    assert time.monotonic() - started < 120  # Codex alone would retry forever


def test_the_wall_clock_limit_kills_the_agent(cli: CliInfo, repo, tmp_path: Path) -> None:
    marker = tmp_path / "still-running"
    sleeper = f"python3 -c 'import time; time.sleep(60)'; touch {marker}"
    script = [{"bash": sleeper}, {"text": "DONE"}]
    with ScriptedEndpoint(script) as ep:
        adapter = harness(cli, tmp_path / "work", ep.base_url, timeout_s=10.0)
        outcome = adapter.rollout(SkillDoc.parse(SKILL), task_for(repo), max_tokens=None)
    assert outcome.detail["timed_out"] is True and outcome.exit_status != 0
    assert rule_score(Judge("exit_ok", ""), outcome) == 0.0
    assert outcome.seconds < 40
    # the whole process group is gone: nothing is left to touch the marker later
    assert not [cmd for cmd in command_lines() if str(marker) in cmd]


def test_setup_runs_in_the_copy_and_is_not_the_agents_work(
    cli: CliInfo, repo, tmp_path: Path
) -> None:
    task = task_for(repo)
    # (that setup keeps the network and the agent has none: test_harness_sandbox.py)
    assert task.workspace is not None
    ws = replace(task.workspace, setup=("echo generated > build.txt",))
    task = Task(task.id, task.prompt, task.split, (Judge("check", "test -f build.txt"),),
                workspace=ws)  # fmt: skip
    with ScriptedEndpoint([{"bash": "cat build.txt"}, {"text": "DONE"}]) as ep:
        outcome = harness(cli, tmp_path / "work", ep.base_url).rollout(
            SkillDoc.parse(SKILL), task, max_tokens=None
        )
    assert outcome.tool_calls[0].exit_status == 0
    assert outcome.files_changed == () and outcome.checks == {"test -f build.txt": 0}
    bad = Task(task.id, task.prompt, task.split, workspace=replace(ws, setup=("exit 7",)))
    with (
        ScriptedEndpoint([{"text": "DONE"}]) as ep,
        pytest.raises(InfraError, match="setup command failed with exit 7"),
    ):
        harness(cli, tmp_path / "work", ep.base_url).rollout(
            SkillDoc.parse(SKILL), bad, max_tokens=None
        )


def test_outcomes_are_cached_by_cli_version_and_flags(cli: CliInfo, repo, tmp_path: Path) -> None:
    """A resumed run replays rollouts from the cache: no CLI run, no model request."""
    skill, task = SkillDoc.parse(SKILL), task_for(repo)
    cache = MemoryCache()
    jobs = [RolloutJob(skill, task, 0), RolloutJob(skill, task, 1)]
    with ScriptedEndpoint(SCRIPT) as ep:
        adapter = harness(cli, tmp_path / "work", ep.base_url)
        first = Caller(None, cache, Budget()).rollouts(adapter, jobs, None)  # type: ignore[arg-type]
        n_requests = len(ep.requests)
        again = Caller(None, cache, Budget()).rollouts(adapter, jobs, None)  # type: ignore[arg-type]
        assert len(ep.requests) == n_requests == 2 * len(SCRIPT)
        other = harness(cli, tmp_path / "work", ep.base_url, max_turns=3)
    assert again == first and all(o is not None and o.skill_injected for o in first)
    assert other.identity != adapter.identity  # flags are part of the key
    assert cli.version in adapter.identity


def test_a_cli_serves_a_chat_role_without_tools(cli: CliInfo, tmp_path: Path) -> None:
    """Subscription use: the optimizer and judge roles through the CLI, no tools offered."""
    from trainer.harness.chat import CliChat

    with ScriptedEndpoint([{"text": '{"grade": 7, "reason": "fine"}'}]) as ep:
        base = ep.base_url + "/v1" if cli.kind == CODEX else ep.base_url
        settings = HarnessSettings(
            work_dir=tmp_path / "work", cli_path=cli.path, base_url=base, endpoint="scripted",
            api_key="k", model="scripted-model",
        )  # fmt: skip
        chat = CliChat(cli.kind, settings)
        comp = chat.complete(
            [{"role": "system", "content": "You grade SYSTEM-MARKER answers."},
             {"role": "user", "content": "Grade this: 42"}],
            json_schema={"title": "verdict", "type": "object"},
        )  # fmt: skip
        (_path, body), *_ = ep.requests
    assert comp.text == '{"grade": 7, "reason": "fine"}'
    assert comp.input_tokens == 100 and comp.output_tokens == 10
    wire = json.dumps(body)
    assert "SYSTEM-MARKER" in wire and "Grade this: 42" in wire and '\\"verdict\\"' in wire
    tools = [t.get("name") for t in body.get("tools") or []]
    if cli.kind == CLAUDE_CODE:
        assert tools == []
    else:  # Codex cannot drop its shell; its sandbox is read-only
        assert "exec_command" in tools and "view_image" not in tools


def test_an_answer_past_the_output_cap_is_a_failed_attempt_not_an_endpoint_failure(
    cli: CliInfo, repo, tmp_path: Path
) -> None:
    """A model that keeps writing past the per-request output cap (the embedded 0.5B does)
    is the attempt's fault: the outcome says so and the judges score it; raising an
    infrastructure error would drop the sample, hiding a skill that makes the agent ramble."""
    with ScriptedEndpoint([{"cut": "I will now explain at length"}]) as ep:
        outcome = harness(cli, tmp_path / "work", ep.base_url).rollout(
            SkillDoc.parse(SKILL), task_for(repo), max_tokens=None
        )
    assert outcome.skill_injected is True and outcome.detail["output_capped"] is True
    assert outcome.answer.startswith("I will now explain")
    assert rule_score(Judge("file_changed", "CHANGES.md"), outcome) == 0.0
