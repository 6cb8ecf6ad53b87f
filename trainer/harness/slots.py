"""Slots and template homes: where a harness rollout runs, at paths that stay the same.

A slot is a directory `<work_dir>/slots/<kind>-<n>/` holding the copy (`repo/`), the CLI's
fresh home (`home/`), its TMPDIR (`tmp/`) and the CLI's output. Rollouts reuse a slot's
paths, so the prompt the CLI builds (which names its working directory and home) starts
the same every time and the model server's prefix cache hits. A slot is held with an
exclusive `flock` on `slot.lock`, so two processes (a night and `tasks replay`) never share
one; a holder that died releases it with its file descriptor.

A template home is prepared once per CLI settings (`templates/<kind>-<hash>/`) and copied
into the slot before every rollout: the CLI finds a configured, quiet home (no onboarding,
no update checks) and nothing of the user's own home.
"""

from __future__ import annotations

import fcntl
import os
import shutil
import threading
import uuid
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

from trainer.harness.procs import reap
from trainer.harness.workspace import Workspace, WorkspaceError


class Slot:
    def __init__(self, root: Path, mirrors: Path) -> None:
        self.root = root
        self.repo = Workspace(root / "repo", mirrors)
        self.home = root / "home"
        self.tmp = root / "tmp"
        self.session = ""  # the CLI's session id, when the harness chooses it
        self.token = ""  # marks every process of the rollout in progress (procs.reap)

    @property
    def run_prefix(self) -> str:
        return f"{self.root}#"

    def new_token(self) -> str:
        self.token = f"{self.run_prefix}{uuid.uuid4().hex}"
        return self.token

    @property
    def stdout(self) -> Path:
        return self.root / "stdout.jsonl"

    @property
    def stderr(self) -> Path:
        return self.root / "stderr.txt"

    def fresh_home(self, template: Path) -> None:
        """Replace the home with a copy of the template, and empty TMPDIR."""
        for d in (self.home, self.tmp):
            if d.exists():
                shutil.rmtree(d, ignore_errors=True)
            if d.exists():
                raise WorkspaceError(f"could not clear {d}")
        shutil.copytree(template, self.home, symlinks=True)
        self.tmp.mkdir(mode=0o700)

    def clear(self) -> None:
        """After a rollout: the copy and the home go (they may hold the session text)."""
        self.repo.remove()
        for d in (self.home, self.tmp):
            shutil.rmtree(d, ignore_errors=True)
        for f in (self.stdout, self.stderr):
            f.unlink(missing_ok=True)


class SlotPool:
    """At most `size` slots in use by this process; each also locked against others."""

    def __init__(self, work_dir: Path, kind: str, size: int) -> None:
        self.base = Path(work_dir) / "slots"
        self.kind = kind
        self._sem = threading.BoundedSemaphore(size)
        self._held: set[int] = set()
        self._lock = threading.Lock()

    @contextmanager
    def slot(self) -> Iterator[Slot]:
        with self._sem:
            fd, n = self._acquire()
            try:
                slot = Slot(self.base / f"{self.kind}-{n}", self.base.parent / "mirrors")
                reap(slot.run_prefix)  # what an earlier, killed holder left running
                yield slot
            finally:
                with self._lock:
                    self._held.discard(n)
                os.close(fd)  # releases the flock

    def _acquire(self) -> tuple[int, int]:
        self.base.mkdir(parents=True, exist_ok=True, mode=0o700)
        n = 0
        while True:
            with self._lock:
                if n not in self._held:
                    root = self.base / f"{self.kind}-{n}"
                    root.mkdir(exist_ok=True, mode=0o700)
                    fd = os.open(root / "slot.lock", os.O_RDWR | os.O_CREAT, 0o600)
                    try:
                        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                    except BlockingIOError:
                        os.close(fd)
                    else:
                        self._held.add(n)
                        return fd, n
            n += 1


def template_home(work_dir: Path, name: str, build: Callable[[Path], None]) -> Path:
    """`<work_dir>/templates/<name>`, built by `build(dir)` the first time (into a
    temporary directory renamed into place, so a half-built template is never used)."""
    path = Path(work_dir) / "templates" / name
    if path.is_dir():
        return path
    path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
    tmp = path.with_name(f".{name}.{os.getpid()}.{threading.get_ident()}")
    shutil.rmtree(tmp, ignore_errors=True)
    tmp.mkdir(mode=0o700)
    try:
        build(tmp)
        os.rename(tmp, path)
    except OSError:
        shutil.rmtree(tmp, ignore_errors=True)
        if not path.is_dir():  # not a lost race with another builder
            raise
    return path
