"""Ending everything a rollout started.

Killing the CLI's process group is not enough: Claude Code starts each Bash command in a
session of its own, so `sleep 600 &` (or a hung test) would outlive the rollout. Every
process of a rollout inherits `SKILLOPT_HARNESS_RUN=<slot path>#<run id>` in its
environment; `reap` finds them in /proc and kills them, whatever group, session or parent
they ended up with. Reaping by the slot's prefix when a slot is taken also ends what a
killed night left running there (its CLI is in a session of its own and outlives it).
"""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
from pathlib import Path

RUN_VAR = "SKILLOPT_HARNESS_RUN"
PROC = Path("/proc")


def kill_group(proc: subprocess.Popen) -> None:
    """Kill a child started with start_new_session=True and its process group."""
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(proc.pid, signal.SIGKILL)
    proc.wait()


def reap(token: str, rounds: int = 10) -> int:
    """SIGKILL every process whose environment carries RUN_VAR=<token…> (a whole run id,
    or a slot's prefix); returns how many.
    Repeats until none is left (a process may fork while we scan). Linux only: without
    /proc there is nothing to scan and process groups are all that is killed."""
    needle = f"{RUN_VAR}={token}".encode()
    killed = 0
    for _ in range(rounds):
        found = [pid for pid in _pids() if needle in _environ(pid)]
        if not found:
            break
        for pid in found:
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.kill(pid, signal.SIGKILL)
        killed += len(found)
    return killed


def _pids() -> list[int]:
    try:
        return [int(p) for p in os.listdir(PROC) if p.isdigit() and int(p) != os.getpid()]
    except OSError:
        return []


def _environ(pid: int) -> bytes:
    try:
        return (PROC / str(pid) / "environ").read_bytes()  # empty for zombies
    except OSError:
        return b""
