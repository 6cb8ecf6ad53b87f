"""The shared write helpers: every file skillopt-sleep writes goes through one of these, so
its mode does not depend on the umask the daemon happened to start with.

Two kinds of file: *private* ones hold session text (the store, reports, night outputs,
task exports, skill versions) and are 0600, in 0700 directories where we create them;
*skill* files are read by the agents, so they may be world-readable but are never group- or
world-writable: 0644 in 0755 directories at most (promotion/dirs.py writes them).

Both are written atomically through a temp file ``.<name>.<pid>.tmp`` beside the file. A
process killed between creating it and renaming it (kill -9 runs no cleanup) leaves it
behind, so every write of a file first removes the stale temp files of that name
(``clear_stale_temps``): the next write, or the resume of the killed one, leaves none.
"""

from __future__ import annotations

import contextlib
import os
from pathlib import Path

PRIVATE_FILE, PRIVATE_DIR = 0o600, 0o700
SKILL_FILE, SKILL_DIR = 0o644, 0o755


def make_dirs(path: Path, mode: int) -> Path:
    """Create ``path`` and its missing parents with at most ``mode`` each (the umask can
    only remove bits); existing directories are left as they are."""
    for p in reversed([p for p in (path, *path.parents) if not p.is_dir()]):
        with contextlib.suppress(FileExistsError):
            os.mkdir(p, mode)
    return path


def write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view) :]


def temp_name(name: str) -> str:
    """The temp file this process writes ``name`` through, in the same directory."""
    return f".{name}.{os.getpid()}.tmp"


def clear_stale_temps(dir_fd: int, name: str) -> None:
    """Remove the temp files of ``name`` (``temp_name``) that no running process is
    writing: the process in the name is gone, or is this one (then an earlier process had
    this pid, as this one writes a file of a name one at a time). A temp file whose pid now
    belongs to an unrelated process stays until that process ends. Best effort: a temp file
    that cannot be removed never fails the write."""
    prefix = f".{name}."
    for entry in os.listdir(dir_fd):
        pid = entry.removeprefix(prefix).removesuffix(".tmp")
        if not entry.startswith(prefix) or not entry.endswith(".tmp") or not pid.isdigit():
            continue
        if int(pid) == os.getpid() or not _running(int(pid)):
            with contextlib.suppress(OSError):
                os.unlink(entry, dir_fd=dir_fd)


def _running(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except (ProcessLookupError, OverflowError):  # gone, or no pid at all
        return False
    except PermissionError:  # another user's process
        return True
    return True


def write_private(path: Path, text: str) -> Path:
    """Atomically write ``text`` to ``path`` as a 0600 file (missing directories 0700; an
    existing one, e.g. where the user exports tasks, is left as it is): a temp file in the
    same directory, fsynced, then renamed over the old one."""
    make_dirs(path.parent, PRIVATE_DIR)
    dir_fd = os.open(path.parent, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
    try:
        clear_stale_temps(dir_fd, path.name)
    finally:
        os.close(dir_fd)
    tmp = path.with_name(temp_name(path.name))
    try:
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_CLOEXEC, PRIVATE_FILE)
        try:
            os.fchmod(fd, PRIVATE_FILE)  # a stale temp file may have had another mode
            write_all(fd, text.encode("utf-8"))
            os.fsync(fd)
        finally:
            os.close(fd)
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            tmp.unlink()
        raise
    return path
