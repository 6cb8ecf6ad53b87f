"""Helpers for the harness tests: the real agent CLIs, a fixture repository, tree hashes.

The CLIs come from `SKILLOPT_AGENT_CLI_DIR` (CI installs the pinned versions from npm
there, see .ci/run) or PATH. Without them the harness tests skip with the reason; CI sets
`SKILLOPT_REQUIRE_HARNESS=1`, which turns that skip into a failure.
"""

from __future__ import annotations

import hashlib
import os
import subprocess
from pathlib import Path

import pytest

from trainer.harness import CliInfo, CliNotFound, find_cli
from trainer.harness.cli import COMMANDS

SKILL = """\
---
name: changelog-entry
description: Add a changelog entry for a change in this repository.
---
# Changelog entry

When asked to record a change:

1. Run `git status` first.
2. Append one line `- <summary>` to CHANGES.md (create it when missing).
3. Answer with the word DONE.
"""


def agent_cli(kind: str) -> CliInfo:
    """The installed CLI, or a skip (a failure under SKILLOPT_REQUIRE_HARNESS=1)."""
    folder = os.environ.get("SKILLOPT_AGENT_CLI_DIR")
    path = str(Path(folder) / COMMANDS[kind]) if folder else None
    try:
        return find_cli(kind, path)
    except CliNotFound as exc:
        reason = f"{exc} (set SKILLOPT_AGENT_CLI_DIR; CI installs the pinned CLIs)"
        if os.environ.get("SKILLOPT_REQUIRE_HARNESS") == "1":
            pytest.fail(reason)
        pytest.skip(reason)


def git(repo: Path, *args: str) -> str:
    env = {"PATH": os.environ["PATH"], "HOME": str(repo), "GIT_CONFIG_NOSYSTEM": "1"}
    env |= {"GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@example.com"}
    env |= {"GIT_COMMITTER_NAME": "t", "GIT_COMMITTER_EMAIL": "t@example.com"}
    done = subprocess.run(
        ["git", *args], cwd=repo, env=env, capture_output=True, text=True, check=True
    )
    return done.stdout.strip()


def make_repo(path: Path) -> tuple[Path, str]:
    """A small Python project with one commit, plus uncommitted work the copies must not
    see. Returns (repo, commit)."""
    path.mkdir(parents=True)
    git(path, "init", "-q", "-b", "main")
    (path / "calc.py").write_text("def add(a, b):\n    return a + b\n")
    (path / "test_calc.py").write_text(
        "from calc import add\n\n\ndef test_add():\n    assert add(2, 3) == 5\n"
    )
    (path / "README.md").write_text("# calc\n")
    (path / ".gitignore").write_text("__pycache__/\n")
    git(path, "add", "-A")
    git(path, "commit", "-q", "-m", "init")
    commit = git(path, "rev-parse", "HEAD")
    (path / "WIP.txt").write_text("the user's uncommitted work\n")
    return path, commit


def tree_digest(root: Path) -> dict[str, str]:
    """sha256 of every file under `root` (dot-dirs like .git included) and its mode."""
    out: dict[str, str] = {}
    for dirpath, _dirs, files in os.walk(root):
        for name in files:
            p = Path(dirpath) / name
            if p.is_symlink():
                out[str(p.relative_to(root))] = "link:" + os.readlink(p)
                continue
            h = hashlib.sha256(p.read_bytes()).hexdigest()
            out[str(p.relative_to(root))] = f"{h}:{oct(p.stat().st_mode)}"
    return out


def user_agent_homes(home: Path) -> Path:
    """The user's own agent homes, with a skill and instructions that must stay invisible."""
    (home / ".claude" / "skills" / "private-user-skill").mkdir(parents=True)
    (home / ".claude" / "skills" / "private-user-skill" / "SKILL.md").write_text(
        "---\nname: private-user-skill\ndescription: USER-PRIVATE-MARKER skill\n---\nbody\n"
    )
    (home / ".claude" / "CLAUDE.md").write_text("USER-PRIVATE-MARKER claude memory\n")
    (home / ".codex").mkdir()
    (home / ".codex" / "AGENTS.md").write_text("USER-PRIVATE-MARKER codex instructions\n")
    (home / ".codex" / "config.toml").write_text('model = "user-model"\n')
    (home / ".agents" / "skills" / "private-user-skill").mkdir(parents=True)
    (home / ".agents" / "skills" / "private-user-skill" / "SKILL.md").write_text(
        "---\nname: private-user-skill\ndescription: USER-PRIVATE-MARKER skill\n---\nbody\n"
    )
    return home


def command_lines() -> list[str]:
    """The command line of every process on the machine (what `ps` shows any user)."""
    out = []
    for pid in os.listdir("/proc"):
        try:
            out.append(Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode())
        except (OSError, ValueError):
            continue
    return out
