"""Throwaway copies of a repository at a commit, where one harness rollout works.

The user's repository is only ever read, and only by `git clone` before anything untrusted
has run. It is cloned once into a *mirror* under the harness's work directory (fetched
again when a task's commit is missing); each copy is a `git clone --shared` of the mirror,
checked out (detached) at the task's commit, with no remote. So the copy's object store
points at the mirror, never at the user's repository, and the sandbox binds the mirror
read-only: nothing the agent does can write into either. Every rollout in a slot uses the
same path: the agent CLIs put the working directory early in their prompts, and an
identical prompt prefix is what lets llama.cpp reuse its cached prefill.

Once the copy exists, every command in it runs through the slot's `Jail` (`sandbox.py`):
setup, the skill's installation check, the git calls that measure changes and the task's
checks. An agent can rewrite `.git/config` (an fsmonitor or a clean filter is a command
git runs) or turn `.git/objects` into a symlink; confined, that reaches nothing.

Changes are measured as the difference between two git trees written with a private index
(`.git/skillopt-index`): one after setup and skill installation, one after the agent. So
what `setup` creates is not counted as the agent's work, `.gitignore`d files are ignored,
and commits, deletions and untracked files all show up.
"""

from __future__ import annotations

import contextlib
import fcntl
import hashlib
import os
import shutil
import stat
import subprocess
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING

from trainer.backends.base import InfraError
from trainer.harness.procs import kill_group
from trainer.harness.sandbox import Jail, Network

if TYPE_CHECKING:
    from trainer.tasks import TaskWorkspace

GIT_TIMEOUT_S = 120.0
CHECK_TIMEOUT_EXIT = 124  # what `timeout(1)` reports; a check that hangs fails
_DIR_FLAGS = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC

# One sandboxed call: the tree of the copy as the agent left it (through the private index,
# seeded from the copy's own for its stat data: only changed files are hashed), and, given a
# base tree, the paths that differ from it.
_TREE_SCRIPT = """set -e
export GIT_INDEX_FILE=.git/skillopt-index
if [ -f .git/index ] && [ ! -L .git/index ]; then cp .git/index "$GIT_INDEX_FILE"
else rm -f "$GIT_INDEX_FILE"; git read-tree HEAD; fi
git add --all -- .
tree=$(git write-tree)
echo "$tree"
if [ -n "$1" ]; then git diff-tree -r -z --name-only --no-renames "$1" "$tree"; fi
"""


NO_WORKSPACE = "no workspace"
REPO_GONE = "repository not on disk"


class WorkspaceError(InfraError):
    """The copy could not be made or inspected: the rollout cannot be attempted."""


def workspace_problem(workspace: TaskWorkspace | None) -> str | None:
    """Why a task's workspace cannot be replayed in an agent CLI, or None when it can: it
    names a repository and a commit, and the repository is a git repository on disk. The
    one answer the router (harness or chat) and the harness itself both use."""
    if not workspace or not workspace.repo or not workspace.commit:
        return NO_WORKSPACE
    if not is_git_repository(Path(workspace.repo).expanduser()):
        return REPO_GONE
    return None


def is_git_repository(path: Path) -> bool:
    """A work tree (``.git`` inside) or a bare repository (``HEAD`` at the top)."""
    return (path / ".git").exists() or (path / "HEAD").is_file()


def git_env() -> dict[str, str]:
    """A git environment that ignores the user's global and system git config (hooks,
    aliases, credential helpers), so the copy behaves the same for everyone."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("GIT_")}
    env.update(GIT_CONFIG_NOSYSTEM="1", GIT_CONFIG_GLOBAL=os.devnull, GIT_TERMINAL_PROMPT="0")
    return env


def _git(args: list[str], cwd: Path) -> str:
    """git outside any sandbox: only on the user's repository and our mirror, read first."""
    try:
        done = subprocess.run(
            ["git", *args], cwd=cwd, env=git_env(), stdin=subprocess.DEVNULL,
            capture_output=True, text=True, timeout=GIT_TIMEOUT_S,
        )  # fmt: skip
    except (OSError, subprocess.TimeoutExpired) as exc:
        raise WorkspaceError(f"git {args[0]}: {exc}") from exc
    if done.returncode != 0:
        msg = (done.stderr or done.stdout).strip().splitlines()
        raise WorkspaceError(f"git {args[0]} failed: {msg[-1] if msg else done.returncode}")
    return done.stdout


def mirror_of(repo: Path, mirrors: Path, commit: str) -> Path:
    """`mirrors/<hash of the path>.git`, a bare mirror of `repo` holding `commit`: made on
    first use (into a temporary name, renamed into place), fetched again when the commit is
    missing. A file lock keeps two processes from building one mirror at once."""
    mirrors.mkdir(parents=True, exist_ok=True, mode=0o700)
    key = hashlib.sha256(str(repo.resolve()).encode()).hexdigest()[:16]
    path = mirrors / f"{key}.git"
    with open(mirrors / f"{key}.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if not path.is_dir():
            tmp = mirrors / f".{key}.{os.getpid()}.tmp"
            shutil.rmtree(tmp, ignore_errors=True)
            _git(["clone", "--quiet", "--mirror", str(repo), str(tmp)], mirrors)
            os.rename(tmp, path)
        elif not _has_commit(path, commit):
            _git(["fetch", "--quiet", "--prune", "origin"], path)
    if not _has_commit(path, commit):
        raise WorkspaceError(f"commit {commit} is not in {repo}")
    return path


def _has_commit(mirror: Path, commit: str) -> bool:
    try:
        _git(["cat-file", "-e", f"{commit}^{{commit}}"], mirror)
    except WorkspaceError:
        return False
    return True


class Workspace:
    """One slot's copy. `create` (re)makes it, `remove` deletes it; the path is fixed."""

    def __init__(self, path: Path, mirrors: Path) -> None:
        self.path = Path(path)
        self.mirrors = Path(mirrors)
        self.mirror: Path | None = None  # the copy's object store, bound read-only inside
        self._baseline: str | None = None

    def create(self, repo: str | Path, commit: str) -> None:
        repo = Path(repo).expanduser()
        if not is_git_repository(repo):
            raise WorkspaceError(f"{repo} is not a git repository (or is gone)")
        self.remove()
        self.mirror = mirror_of(repo, self.mirrors, commit)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        clone = ["clone", "--quiet", "--shared", "--no-checkout", str(self.mirror), str(self.path)]
        _git(clone, self.path.parent)
        _git(["remote", "remove", "origin"], self.path)
        _git(["checkout", "--quiet", "--detach", commit], self.path)
        self._baseline = None

    def run_setup(
        self, commands: list[str], env: Mapping[str, str], timeout_s: float, jail: Jail
    ) -> None:
        """Run the task's setup commands in the copy (with the network: they install
        dependencies); any failure makes the task unattemptable (an infrastructure error,
        not the skill's fault)."""
        for cmd in commands:
            status = run_shell(cmd, self.path, env, timeout_s, jail, Network.HOST)
            if status != 0:
                raise WorkspaceError(f"setup command failed with exit {status}: {cmd}")

    def install(self, rel_path: str, text: str) -> Path:
        """Write a file (the candidate skill) into the copy, replacing what is there, without
        following a symlink: a component that is one (a repository may commit `.claude ->
        ~/.claude`) is replaced by a real directory of the copy, so the file lands in the
        copy whatever the repository holds."""
        parts = Path(rel_path).parts
        fd = os.open(self.path, _DIR_FLAGS)
        try:
            for name in parts[:-1]:
                with contextlib.suppress(FileNotFoundError):
                    if not stat.S_ISDIR(os.lstat(name, dir_fd=fd).st_mode):
                        os.unlink(name, dir_fd=fd)
                with contextlib.suppress(FileExistsError):
                    os.mkdir(name, 0o755, dir_fd=fd)
                sub = os.open(name, _DIR_FLAGS, dir_fd=fd)
                os.close(fd)
                fd = sub
            with contextlib.suppress(FileNotFoundError):
                os.unlink(parts[-1], dir_fd=fd)
            out = os.open(
                parts[-1], os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC,
                0o644, dir_fd=fd,
            )  # fmt: skip
            with os.fdopen(out, "w", encoding="utf-8") as fh:
                fh.write(text)
        except OSError as exc:
            raise WorkspaceError(f"cannot install {rel_path} in the copy: {exc}") from exc
        finally:
            os.close(fd)
        return self.path / rel_path

    def mark_baseline(self, jail: Jail) -> None:
        """Remember the tree as the agent finds it; `changed_files` is relative to it."""
        self._baseline = self._tree(jail, "")[0]

    def changed_files(self, jail: Jail) -> tuple[str, ...]:
        if self._baseline is None:
            raise WorkspaceError("changed_files before mark_baseline")
        return self._tree(jail, self._baseline)[1]

    def _tree(self, jail: Jail, base: str) -> tuple[str, tuple[str, ...]]:
        """(tree id of the copy, paths that differ from `base`), in one confined call."""
        env = {
            "PATH": "/usr/local/bin:/usr/bin:/bin", "HOME": str(self.path), "LC_ALL": "C.UTF-8",
            "GIT_CONFIG_NOSYSTEM": "1", "GIT_CONFIG_GLOBAL": os.devnull,
        }  # fmt: skip
        argv, popen_env = jail.command(
            ["sh", "-c", _TREE_SCRIPT, "tree", base], cwd=self.path, env=env,
            network=Network.NONE,
        )  # fmt: skip
        try:
            done = subprocess.run(
                argv, cwd=self.path, env=popen_env, stdin=subprocess.DEVNULL,
                capture_output=True, timeout=GIT_TIMEOUT_S,
            )  # fmt: skip
        except (OSError, subprocess.TimeoutExpired) as exc:
            raise WorkspaceError(f"git write-tree: {exc}") from exc
        if done.returncode != 0:
            msg = done.stderr.decode("utf-8", "replace").strip().splitlines()
            raise WorkspaceError(f"git write-tree failed: {msg[-1] if msg else done.returncode}")
        tree, _, rest = done.stdout.decode("utf-8", "replace").partition("\n")
        return tree.strip(), tuple(sorted(p for p in rest.split("\0") if p))

    def run_checks(
        self, commands: list[str], env: Mapping[str, str], timeout_s: float, jail: Jail
    ) -> dict[str, int]:
        return {
            cmd: run_shell(cmd, self.path, env, timeout_s, jail, Network.NONE) for cmd in commands
        }

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


def run_shell(
    cmd: str, cwd: Path, env: Mapping[str, str], timeout_s: float, jail: Jail, network: Network
) -> int:
    """Exit status of `bash -c cmd` in `cwd`, in the jail; a command that runs out of time
    is killed with everything it started and reported as 124."""
    argv, popen_env = jail.command(["bash", "-c", cmd], cwd=cwd, env=env, network=network)
    try:
        proc = subprocess.Popen(
            argv, cwd=cwd, env=popen_env, stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True,
        )  # fmt: skip
    except OSError as exc:
        raise WorkspaceError(f"cannot run {cmd!r}: {exc}") from exc
    try:
        return proc.wait(timeout_s)
    except subprocess.TimeoutExpired:
        kill_group(proc)
        return CHECK_TIMEOUT_EXIT
