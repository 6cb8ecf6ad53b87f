"""A night whose target runs in the REAL Claude Code CLI (scripted provider, simulated
optimizer and judge): tasks with a workspace run in the harness, the rest as a chat, the
report says which ran where, and a night killed with SIGKILL mid-training resumes
without repeating a rollout.
"""

from __future__ import annotations

import json
import os
import signal
from dataclasses import replace
from pathlib import Path

import pytest
from harness_helpers import agent_cli, make_repo, tree_digest

from benchmarks.scripted_endpoint import ScriptedEndpoint
from skillopt_sleep.mining import load_tasks, mine
from skillopt_sleep.mining.taskfile import export, import_file
from skillopt_sleep.replay.settings import work_dir
from skillopt_sleep.settings.logs import ingest_logs
from skillopt_sleep.store import open_store
from tests.night_helpers import Child, make_root, query
from trainer.harness import CLAUDE_CODE
from trainer.harness.procs import reap
from trainer.tasks import TaskWorkspace

pytestmark = [pytest.mark.harness, pytest.mark.timeout(600)]

KEY_VAR = "SKILLOPT_TEST_HARNESS_KEY"


def harness_rows(state: Path) -> set[str]:
    rows = query(state, "SELECT key, value FROM rollouts")
    return {k for k, v in rows if json.loads(v).get("where") == CLAUDE_CODE}


def give_workspaces(config: dict, repo: Path, commit: str, out: Path) -> dict[str, int]:
    """Mine, then review the tasks: every task but the first of each cluster gets the
    fixture repository as its workspace (imported as a reviewed task file)."""
    db = open_store(Path(config["state_dir"]))
    try:
        ingest_logs(db, config)
        mine(db, config)
        tasks, seen = [], set()
        for task in load_tasks(db):
            cluster = task.meta.get("cluster_id")
            if cluster in seen:
                task = replace(task, workspace=TaskWorkspace(str(repo), commit))
            seen.add(cluster)
            tasks.append(task)
        export(tasks, out)
        import_file(db, out)
    finally:
        db.close()
    return {"harness": sum(t.workspace is not None for t in tasks), "all": len(tasks)}


def test_a_killed_harness_night_resumes_without_repeating_a_rollout(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    cli = agent_cli(CLAUDE_CODE)
    repo, commit = make_repo(tmp_path / "user-repo")
    before = tree_digest(repo)
    monkeypatch.setenv(KEY_VAR, "scripted-key")  # the child night inherits it
    with ScriptedEndpoint([{"bash": "git status --short"}, {"text": "DONE"}]) as ep:
        config = make_root(
            tmp_path,
            **{
                "models.target.backend": CLAUDE_CODE,
                "harness.claude_code.path": cli.path,
                "harness.claude_code.base_url": ep.base_url,
                "harness.claude_code.api_key_env": KEY_VAR,
                "night.max_skills": 1,
                "trainer.steps_per_epoch": 2,
                "trainer.minibatch": 2,
                "trainer.train_samples": 1,
            },
        )
        counts = give_workspaces(config, repo, commit, tmp_path / "tasks.yaml")
        assert 0 < counts["harness"] < counts["all"]
        state = Path(config["state_dir"])

        child = Child(tmp_path, config, 1)
        assert ep.wait_for_first_requests(2, timeout=240), "the night made no rollouts"
        child.proc.send_signal(signal.SIGKILL)
        child.proc.wait(timeout=30)
        # the killed night's CLI is in a session of its own: end it, as the next night does
        for slot in (work_dir(config) / "slots").iterdir():
            reap(f"{slot}#")
        cached_before = harness_rows(state)
        launched_before = ep.first_requests()
        assert cached_before, "no rollout finished before the kill"

        out = Child(tmp_path, config, 2).wait(timeout=480)
        launched = ep.first_requests() - launched_before
        cached_after = harness_rows(state)

    assert out["status"] == "done"
    assert cached_before < cached_after
    # the resumed night used every finished rollout from the cache and ran only the rest
    used = out["summary"]["skills"][0]["replay"]["rollouts"][CLAUDE_CODE]
    assert used == len(cached_after) == len(cached_before) + launched
    (skill,) = out["summary"]["skills"]
    replay = skill["replay"]
    assert replay["tasks"].get(CLAUDE_CODE, 0) > 0
    assert replay["chat_reasons"] == {"no workspace": replay["tasks"]["chat"]}
    report = Path(out["reports"]["md"]).read_text()
    assert f"in {CLAUDE_CODE}" in report and "as a chat (no workspace:" in report
    assert tree_digest(repo) == before
    # copies and homes are gone; only the slot's lock file stays
    assert set(os.listdir(work_dir(config) / "slots" / f"{CLAUDE_CODE}-0")) == {"slot.lock"}
