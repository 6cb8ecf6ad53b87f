"""The REAL Claude Code and Codex CLIs against the embedded llama.cpp server (Qwen2.5-Coder
0.5B), offline, on a small fixture repository.

One server for the module, one slot per CLI, two rollouts per CLI: the first pays the
prefill of the CLI's ~3.5-6k-token prompt (Claude Code with only its Bash tool), the second
must find it in llama.cpp's prefix cache (the slot's paths are the same, so the prompt
starts the same). The 0.5B model does
not call tools through llama.cpp's parser (it writes tool-call-shaped JSON as text), so
tool capture is covered by test_harness.py with a scripted provider; here the transcript
must show the skill's body reaching the real model, and the user's repository and agent
homes must be untouched.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest
from harness_helpers import SKILL, agent_cli, make_repo, tree_digest, user_agent_homes

from trainer.harness import CLAUDE_CODE, CODEX, HarnessSettings, make_harness
from trainer.skill import SkillDoc
from trainer.tasks import Judge, Task, TaskWorkspace

pytestmark = [pytest.mark.harness, pytest.mark.local_model, pytest.mark.timeout(5400)]

TARGET_MODEL = "qwen2.5-coder-0.5b"
MAX_OUTPUT = 128  # per request: Claude Code is told, the server cuts Codex's


@pytest.fixture(scope="module")
def server() -> Iterator[object]:
    from embedded_helpers import embedded_server

    with embedded_server(TARGET_MODEL, n_ctx=16384, max_tokens=MAX_OUTPUT) as srv:
        yield srv


@pytest.fixture(scope="module")
def work(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("harness-work")


@pytest.mark.parametrize("kind", [CLAUDE_CODE, CODEX])
def test_skill_reaches_the_embedded_model_and_the_prefix_is_cached(
    kind: str, server, work: Path, tmp_path: Path
) -> None:
    cli = agent_cli(kind)
    repo, commit = make_repo(tmp_path / "user-repo")
    home = user_agent_homes(Path(os.environ["HOME"]))
    before = (tree_digest(repo), tree_digest(home))
    base = server.base_url if kind == CODEX else server.base_url.removesuffix("/v1")
    settings = HarnessSettings(
        work_dir=work, cli_path=cli.path, model=TARGET_MODEL, base_url=base,
        endpoint=f"local:{TARGET_MODEL}", api_key="local", max_output_tokens=MAX_OUTPUT,
        context_window=16384, timeout_s=2400, max_turns=3, tools=("Bash",),
    )  # fmt: skip
    adapter = make_harness(kind, settings)
    task = Task(
        "t-embedded", "record that add() exists", "val",
        (Judge("file_unchanged", "*.py"), Judge("exit_ok", "")),
        workspace=TaskWorkspace(str(repo), commit),
    )  # fmt: skip
    skill = SkillDoc.parse(SKILL)
    first = adapter.rollout(skill, task, max_tokens=None)
    second = adapter.rollout(skill, task, max_tokens=None)
    for outcome in (first, second):
        assert outcome.where == kind and outcome.skill_injected is True
        # the CLI ended on its own (what the 0.5B wrote, and whether it ran past the output
        # cap, is the model's business: test_harness.py covers both ends exactly)
        assert outcome.exit_status is not None and outcome.detail["timed_out"] is False
        assert outcome.detail["cli_version"] == cli.version
        assert outcome.input_tokens > 3000  # the CLI's whole prompt, skill and request
    # the same prompt prefix: llama.cpp served (nearly) all of it from its cache
    assert second.detail["cached_input_tokens"] >= 0.9 * second.input_tokens
    assert (tree_digest(repo), tree_digest(home)) == before
