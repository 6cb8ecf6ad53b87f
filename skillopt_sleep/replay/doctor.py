"""`doctor`'s harness checks: which agent CLIs are installed, and one real rollout.

The rollout runs the configured target harness on a throwaway one-commit repository with
a one-line skill, end to end: copy, skill installed and invoked, the CLI against its
endpoint (the embedded server when none is configured), the transcript read back.
"""

from __future__ import annotations

import os
import subprocess
import tempfile
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from skillopt_sleep.replay.settings import CLI_BACKENDS, SECTION, cli_backend
from trainer.harness import CliNotFound, find_cli

DOCTOR_SKILL = """\
---
name: skillopt-doctor
description: Health check of skillopt-sleep's agent harness.
---
Answer with the single word READY.
"""


def check_clis(config: Mapping[str, Any]) -> list[tuple[str, str, str]]:
    """(status, what, detail) per CLI: ok with path and version; fail when a role is
    configured to run in it and it is missing, else warn. Then the sandbox."""
    used = {cli_backend(config, role) for role in ("optimizer", "target", "judge")}
    out = [*_check_sandbox(config, sorted(k for k in used if k))]
    for kind in CLI_BACKENDS:
        path = config["harness"][SECTION[kind]]["path"]
        try:
            cli = find_cli(kind, str(Path(path).expanduser()) if path else None)
        except CliNotFound as exc:
            status = "fail" if kind in used else "warn"
            note = "" if kind in used else " (only needed with models.<role>.backend: " + kind + ")"
            out.append((status, f"harness {kind}", f"{exc}{note}"))
            continue
        role = [r for r in ("optimizer", "target", "judge") if cli_backend(config, r) == kind]
        where = f"; runs {', '.join(role)}" if role else ""
        out.append(("ok", f"harness {kind}", f"{cli.path} (version {cli.version}){where}"))
    return out


def _check_sandbox(config: Mapping[str, Any], used: list[str]) -> list[tuple[str, str, str]]:
    """Whether replayed agents are confined: the one line an operator must not miss."""
    from trainer.harness import sandbox

    if not config["harness"]["sandbox"]:
        why = (
            "harness.sandbox is false: replayed agents run unconfined, as you, your files in reach"
        )
        return [("warn", "harness sandbox", why)]
    if not used:
        return []
    missing = sandbox.unavailable()
    if missing:
        where = ", ".join(used)
        refuse = f"{missing}; replay in {where} refuses to run (harness.sandbox: false opts out)"
        return [("fail", "harness sandbox", refuse)]
    return [("ok", "harness sandbox", "bubblewrap confines replayed agents, setup and checks")]


def doctor_rollout(config: Mapping[str, Any], environ: Mapping[str, str] = os.environ) -> dict:
    """One rollout of the target harness on a throwaway repository; raises InfraError
    (with the reason) when it cannot be made."""
    from skillopt_sleep.replay.one import replay
    from trainer.tasks import Judge, Task, TaskWorkspace

    kind = cli_backend(config, "target")
    if kind is None:
        raise ValueError("models.target.backend is not claude-code or codex")
    with tempfile.TemporaryDirectory(prefix="skillopt-doctor-") as tmp:
        repo = Path(tmp) / "repo"
        commit = _one_commit_repo(repo)
        task = Task(
            "doctor", "Are you ready?", "val", (Judge("contains", "READY"), Judge("exit_ok", "")),
            workspace=TaskWorkspace(str(repo), commit),
        )  # fmt: skip
        return replay(config, task, DOCTOR_SKILL, backend=kind, environ=environ)


def _one_commit_repo(repo: Path) -> str:
    repo.mkdir()
    (repo / "README.md").write_text("skillopt-sleep doctor\n")
    env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": str(repo),
           "GIT_CONFIG_NOSYSTEM": "1", "GIT_AUTHOR_NAME": "doctor",
           "GIT_AUTHOR_EMAIL": "doctor@localhost", "GIT_COMMITTER_NAME": "doctor",
           "GIT_COMMITTER_EMAIL": "doctor@localhost"}  # fmt: skip
    for args in (["init", "-q"], ["add", "-A"], ["commit", "-q", "-m", "doctor"]):
        subprocess.run(["git", *args], cwd=repo, env=env, check=True, capture_output=True)
    done = subprocess.run(
        ["git", "rev-parse", "HEAD"], cwd=repo, env=env, check=True, capture_output=True,
        text=True,
    )  # fmt: skip
    return done.stdout.strip()
