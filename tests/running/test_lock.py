"""The single-instance lock: refused with who holds it, free again when the holder dies."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from skillopt_sleep.running import lock

HOLDER = textwrap.dedent(
    """
    import sys, time
    from pathlib import Path
    from skillopt_sleep.running import lock
    with lock.hold(Path(sys.argv[1]), sys.argv[2]):
        print("held", flush=True)
        time.sleep(60)
    """
)


def _spawn_holder(state_dir: Path, holder: str = "night") -> subprocess.Popen[str]:
    proc = subprocess.Popen(
        [sys.executable, "-c", HOLDER, str(state_dir), holder],
        stdout=subprocess.PIPE,
        text=True,
    )
    assert proc.stdout is not None
    assert proc.stdout.readline().strip() == "held"
    return proc


def test_exit_code_is_three() -> None:
    assert lock.EXIT_LOCKED == 3 == lock.LockedError(Path("x"), None).exit_code


def test_second_holder_in_another_process_is_refused_with_pid(tmp_path: Path) -> None:
    proc = _spawn_holder(tmp_path, "daemon")
    try:
        with pytest.raises(lock.LockedError) as caught:
            lock.InstanceLock(tmp_path, "night").acquire()
        message = str(caught.value)
        assert f"pid {proc.pid}" in message and "daemon" in message and "since" in message
        assert caught.value.info is not None and caught.value.info.pid == proc.pid
        assert lock.current_holder(tmp_path).pid == proc.pid
    finally:
        proc.kill()
        proc.wait()


def test_dead_holder_does_not_block(tmp_path: Path) -> None:
    proc = _spawn_holder(tmp_path)
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait()
    assert lock.read_info(tmp_path).pid == proc.pid  # the stale file is still there
    assert lock.current_holder(tmp_path) is None
    with lock.hold(tmp_path, "night"):
        assert lock.read_info(tmp_path).pid == os.getpid()


def test_reentrant_within_a_process_and_released(tmp_path: Path) -> None:
    with lock.hold(tmp_path, "daemon"):
        with lock.hold(tmp_path, "night"):  # the daemon's own night
            pass
        assert lock.current_holder(tmp_path).holder == "daemon"
    assert lock.current_holder(tmp_path) is None
    assert (tmp_path / lock.LOCK_NAME).stat().st_mode & 0o077 == 0


def test_unknown_holder_kind_is_a_bug(tmp_path: Path) -> None:
    with pytest.raises(ValueError):
        lock.InstanceLock(tmp_path, "cron")
