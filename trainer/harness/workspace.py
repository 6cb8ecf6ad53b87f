"""Throwaway copies of a repository at a commit, where one harness rollout works.

A copy is a `git clone --shared --no-checkout` of the user's repository checked out
(detached) at the task's commit: the user's working tree, index and refs are only read,
and new objects the agent writes stay in the copy. The copy has no remote, so nothing the
agent does (`git push`) can reach the user's repository. Every rollout in a slot uses the
same path: the agent CLIs put the working directory early in their prompts, and an
identical prompt prefix is what lets llama.cpp reuse its cached prefill.

Changes are measured as the difference between two git trees written with a private index
(`.git/skillopt-index`): one after setup and skill installation, one after the agent. So
what `setup` creates is not counted as the agent's work, `.gitignore`d files are ignored,
and commits, deletions and untracked files all show up.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from collections.abc import Mapping
from pathlib import Path

from trainer.backends.base import InfraError
from trainer.harness.procs import kill_group

GIT_TIMEOUT_S = 120.0
CHECK_TIMEOUT_EXIT = 124  # what `timeout(1)` reports; a check that hangs fails


class WorkspaceError(InfraError):
    """The copy could not be made or inspected: the rollout cannot be attempted."""


def _git(args: list[str], cwd: Path, env: Mapping[str, str] | None = None) -> str:
    try:
        done = subprocess.run(
            ["git", *args],
            cwd=cwd,
            env=dict(env) if env is not None else None,
            stdin=subprocess.DEVNULL,
            capture_output=True,
            text=True,
            timeout=GIT_TIMEOUT_S,
        )
    except (OSError, subprocess.TimeoutExpired) as exc:
        raise WorkspaceError(f"git {args[0]}: {exc}") from exc
    if done.returncode != 0:
        msg = (done.stderr or done.stdout).strip().splitlines()
        raise WorkspaceError(f"git {args[0]} failed: {msg[-1] if msg else done.returncode}")
    return done.stdout


def git_env() -> dict[str, str]:
    """A git environment that ignores the user's global and system git config (hooks,
    aliases, credential helpers), so the copy behaves the same for everyone."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("GIT_")}
    env.update(GIT_CONFIG_NOSYSTEM="1", GIT_CONFIG_GLOBAL=os.devnull, GIT_TERMINAL_PROMPT="0")
    return env


class Workspace:
    """One slot's copy. `create` (re)makes it, `remove` deletes it; the path is fixed."""

    def __init__(self, path: Path) -> None:
        self.path = Path(path)
        self._baseline: str | None = None
        self._env = git_env()

    def create(self, repo: str | Path, commit: str) -> None:
        repo = Path(repo).expanduser()
        if not (repo / ".git").exists() and not (repo / "HEAD").is_file():
            raise WorkspaceError(f"{repo} is not a git repository (or is gone)")
        self.remove()
        self.path.parent.mkdir(parents=True, exist_ok=True)
        _git(
            ["clone", "--quiet", "--shared", "--no-checkout", str(repo), str(self.path)],
            self.path.parent,
            self._env,
        )
        _git(["remote", "remove", "origin"], self.path, self._env)
        _git(["checkout", "--quiet", "--detach", commit], self.path, self._env)
        self._baseline = None

    def run_setup(self, commands: list[str], env: Mapping[str, str], timeout_s: float) -> None:
        """Run the task's setup commands in the copy; any failure makes the task
        unattemptable (an infrastructure error, not the skill's fault)."""
        for cmd in commands:
            status = run_shell(cmd, self.path, env, timeout_s)
            if status != 0:
                raise WorkspaceError(f"setup command failed with exit {status}: {cmd}")

    def install(self, rel_path: str, text: str) -> Path:
        """Write a file (the candidate skill) into the copy, replacing what is there."""
        dest = self.path / rel_path
        dest.parent.mkdir(parents=True, exist_ok=True)
        dest.write_text(text, encoding="utf-8")
        return dest

    def mark_baseline(self) -> None:
        """Remember the tree as the agent finds it; `changed_files` is relative to it."""
        self._baseline = self._tree()

    def changed_files(self) -> tuple[str, ...]:
        if self._baseline is None:
            raise WorkspaceError("changed_files before mark_baseline")
        after = self._tree()
        out = _git(
            ["diff-tree", "-r", "-z", "--name-only", "--no-renames", self._baseline, after],
            self.path,
            self._env,
        )
        return tuple(sorted(p for p in out.split("\0") if p))

    def _tree(self) -> str:
        """The working tree (tracked, untracked, not ignored) as a git tree id, written
        through a private index so the copy's own index stays what the agent left. The
        private index starts as a copy of the copy's own (its stat data lets `git add`
        hash only files that changed: seconds saved on a large repository)."""
        private = self.path / ".git" / "skillopt-index"
        env = dict(self._env, GIT_INDEX_FILE=str(private))
        own = self.path / ".git" / "index"
        if own.is_file():
            shutil.copyfile(own, private)
        else:
            _git(["read-tree", "HEAD"], self.path, env)
        _git(["add", "--all", "--", "."], self.path, env)
        return _git(["write-tree"], self.path, env).strip()

    def run_checks(
        self, commands: list[str], env: Mapping[str, str], timeout_s: float
    ) -> dict[str, int]:
        return {cmd: run_shell(cmd, self.path, env, timeout_s) for cmd in commands}

    def remove(self) -> None:
        if self.path.exists() or self.path.is_symlink():
            _make_writable(self.path)
            shutil.rmtree(self.path, ignore_errors=True)
        if self.path.exists():
            raise WorkspaceError(f"could not remove the old copy at {self.path}")


def _make_writable(root: Path) -> None:
    """Agents and tools (e.g. Go's module cache) leave read-only directories behind."""
    for dirpath, dirnames, _files in os.walk(root):
        for d in dirnames:
            p = Path(dirpath) / d
            try:
                if not p.is_symlink():
                    p.chmod(0o700)
            except OSError:
                pass


def run_shell(cmd: str, cwd: Path, env: Mapping[str, str], timeout_s: float) -> int:
    """Exit status of `bash -c cmd` in `cwd`; a command that runs out of time is killed
    with its process group and reported as 124."""
    try:
        proc = subprocess.Popen(
            ["bash", "-c", cmd],
            cwd=cwd,
            env=dict(env),
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            start_new_session=True,
        )
    except OSError as exc:
        raise WorkspaceError(f"cannot run {cmd!r}: {exc}") from exc
    try:
        return proc.wait(timeout_s)
    except subprocess.TimeoutExpired:
        kill_group(proc)
        return CHECK_TIMEOUT_EXIT
