"""One night or daemon per state directory, enforced with ``flock`` on a lock file.

Why ``flock``: the kernel drops the lock when its holder dies (``kill -9`` included), so a
lock file left behind by a dead process never blocks anyone; only a live holder does. The
file's content (pid, host, start time, holder kind) exists solely to tell the second
comer *who* holds it.

The lock is re-entrant within one process: the daemon holds it as ``"daemon"`` and the
night it runs in-process takes it again as ``"night"`` without deadlocking itself, while
a ``skillopt-sleep run --once`` started by a timer in another process is refused.
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import os
import socket
import threading
from collections.abc import Iterator
from dataclasses import asdict, dataclass
from datetime import UTC, datetime
from pathlib import Path

from skillopt_sleep.settings import paths

LOCK_NAME = "skillopt-sleep.lock"
EXIT_LOCKED = 3  # the exit status of a night or daemon refused because the lock is held
HOLDERS = ("night", "daemon")


@dataclass(frozen=True)
class LockInfo:
    """Who holds (or last held) the lock, as written in the lock file."""

    pid: int
    hostname: str
    started_at: str
    holder: str

    def describe(self) -> str:
        return f"{self.holder} pid {self.pid} on {self.hostname} since {self.started_at}"


class LockedError(Exception):
    """Another live process holds the lock; ``info`` says who, when the file tells."""

    exit_code = EXIT_LOCKED

    def __init__(self, path: Path, info: LockInfo | None) -> None:
        self.path = path
        self.info = info
        who = info.describe() if info else "another process (details not written yet)"
        super().__init__(f"skillopt-sleep is already running: {who} holds {path}")


def lock_path(state_dir: Path) -> Path:
    return state_dir / LOCK_NAME


def read_info(state_dir: Path) -> LockInfo | None:
    """The lock file's content (may describe a dead process: check ``holder_alive``)."""
    try:
        data = json.loads(lock_path(state_dir).read_text() or "null")
        return LockInfo(**data) if isinstance(data, dict) else None
    except (OSError, ValueError, TypeError):
        return None


def pid_alive(pid: int) -> bool:
    """True when a process with ``pid`` exists on this host."""
    if pid <= 0:
        return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def holder_alive(info: LockInfo | None) -> bool:
    """Best-effort liveness of the recorded holder, without touching the lock itself.

    Probing with ``flock`` would briefly take the lock and could refuse a night starting
    at that very moment, so status checks read the file and the process table instead.
    """
    return bool(info and info.hostname == socket.gethostname() and pid_alive(info.pid))


class _Held:
    """One process's hold on one lock file: the open descriptor and a nesting count."""

    def __init__(self, fd: int, info: LockInfo) -> None:
        self.fd = fd
        self.info = info
        self.depth = 1


_registry: dict[str, _Held] = {}
_registry_lock = threading.Lock()


class InstanceLock:
    """The lock for one state directory; use :func:`hold` as a context manager."""

    def __init__(self, state_dir: Path, holder: str) -> None:
        if holder not in HOLDERS:
            raise ValueError(f"lock holder must be one of {HOLDERS}, not {holder!r}")
        self.state_dir = state_dir
        self.holder = holder
        self.path = lock_path(state_dir)
        self._key = ""
        self._acquired = False

    def acquire(self) -> LockInfo:
        """Take the lock or raise :class:`LockedError`; never blocks."""
        paths.ensure_private_dir(self.state_dir)
        self._key = f"{os.getpid()}:{os.path.realpath(self.path)}"
        with _registry_lock:
            held = _registry.get(self._key)
            if held is not None:  # re-entry from this process (the daemon's own night)
                held.depth += 1
                self._acquired = True
                return held.info
            fd = os.open(self.path, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o600)
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                os.close(fd)
                raise LockedError(self.path, read_info(self.state_dir)) from None
            except BaseException:
                os.close(fd)
                raise
            info = LockInfo(
                pid=os.getpid(),
                hostname=socket.gethostname(),
                started_at=datetime.now(UTC).astimezone().isoformat(timespec="seconds"),
                holder=self.holder,
            )
            os.ftruncate(fd, 0)
            os.pwrite(fd, json.dumps(asdict(info)).encode(), 0)
            os.fsync(fd)
            _registry[self._key] = _Held(fd, info)
            self._acquired = True
            return info

    def release(self) -> None:
        """Drop this hold; the file stays (unlinking would race with a new holder)."""
        if not self._acquired:
            return
        self._acquired = False
        with _registry_lock:
            held = _registry.get(self._key)
            if held is None:
                return
            held.depth -= 1
            if held.depth > 0:
                return
            del _registry[self._key]
            with contextlib.suppress(OSError):
                os.ftruncate(held.fd, 0)  # a reader now sees "nobody", not a dead pid
            fcntl.flock(held.fd, fcntl.LOCK_UN)
            os.close(held.fd)

    def __enter__(self) -> InstanceLock:
        self.acquire()
        return self

    def __exit__(self, *exc: object) -> None:
        self.release()


@contextlib.contextmanager
def hold(state_dir: Path, holder: str) -> Iterator[InstanceLock]:
    """``with hold(state_dir, "night"):`` — raises :class:`LockedError` when taken."""
    lock = InstanceLock(state_dir, holder)
    lock.acquire()
    try:
        yield lock
    finally:
        lock.release()


def current_holder(state_dir: Path) -> LockInfo | None:
    """Who holds the lock now, or None when nobody alive does."""
    info = read_info(state_dir)
    return info if holder_alive(info) else None
