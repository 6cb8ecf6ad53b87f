"""The shared write helpers: every file skillopt-sleep writes goes through one of these, so
its mode does not depend on the umask the daemon happened to start with.

Two kinds of file: *private* ones hold session text (the store, reports, night outputs,
task exports, skill versions) and are 0600, in 0700 directories where we create them;
*skill* files are read by the agents, so they may be world-readable but are never group- or
world-writable: 0644 in 0755 directories at most (promotion/dirs.py writes them).
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


def write_private(path: Path, text: str) -> Path:
    """Atomically write ``text`` to ``path`` as a 0600 file (missing directories 0700; an
    existing one, e.g. where the user exports tasks, is left as it is): a temp file in the
    same directory, fsynced, then renamed over the old one."""
    make_dirs(path.parent, PRIVATE_DIR)
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
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
