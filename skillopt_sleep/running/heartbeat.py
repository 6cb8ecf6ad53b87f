"""The daemon's heartbeat file, and the answer to "is the daemon alive, what runs next?".

A JSON file (``<state_dir>/daemon.json``) rather than a table: the daemon writes it from
scheduler threads, and ``status`` reads it without opening (and migrating) the store.
"""

from __future__ import annotations

import json
import os
import threading
from datetime import datetime
from pathlib import Path
from typing import Any

from skillopt_sleep.running import lock

STATE_FILE = "daemon.json"
HEARTBEAT_SECONDS = 30.0


def state_path(state_dir: Path) -> Path:
    return state_dir / STATE_FILE


def read_state(state_dir: Path) -> dict[str, Any]:
    try:
        data = json.loads(state_path(state_dir).read_text())
        return data if isinstance(data, dict) else {}
    except (OSError, ValueError):
        return {}


def write_state(state_dir: Path, **fields: Any) -> dict[str, Any]:
    """Merge ``fields`` into the state file atomically (a reader never sees half a file)."""
    data = {**read_state(state_dir), **fields}
    tmp = state_path(state_dir).with_suffix(f".{os.getpid()}.{threading.get_ident()}.tmp")
    tmp.write_text(json.dumps(data, indent=1, default=str))
    os.chmod(tmp, 0o600)
    os.replace(tmp, state_path(state_dir))
    return data


class StateFile:
    """The daemon's only writer of its state file: every write (a read-modify-write) holds
    one lock, and once :meth:`close` wrote the final state no later write lands, so a
    heartbeat still running on a scheduler thread cannot overwrite "stopped"."""

    def __init__(self, state_dir: Path) -> None:
        self.state_dir = state_dir
        self._lock = threading.Lock()
        self._closed = False

    def update(self, **fields: Any) -> bool:
        """Merge ``fields`` into the file; False (nothing written) after :meth:`close`."""
        with self._lock:
            if self._closed:
                return False
            write_state(self.state_dir, **fields)
            return True

    def close(self, **fields: Any) -> None:
        """Write the final fields and refuse every write after them."""
        with self._lock:
            if not self._closed:
                write_state(self.state_dir, **fields)
                self._closed = True


def iso(moment: datetime | None) -> str | None:
    return moment.isoformat(timespec="seconds") if moment else None


def parse_time(value: Any) -> datetime | None:
    try:
        moment = datetime.fromisoformat(str(value).replace("Z", "+00:00"))
    except ValueError:
        return None
    return moment if moment.tzinfo else moment.astimezone()


def daemon_status(state_dir: Path, *, now: datetime | None = None) -> dict[str, Any]:
    """Is a daemon alive for ``state_dir``, and when is the next night?

    Alive = the recorded pid runs on this host, holds the lock as ``daemon``, and its
    heartbeat is fresh (a hung process is reported as not alive).
    """
    state = read_state(state_dir)
    now = now or datetime.now().astimezone()
    holder = lock.current_holder(state_dir)
    beat = parse_time(state.get("heartbeat_at")) if state.get("heartbeat_at") else None
    fresh = (
        beat is not None
        and (now - beat).total_seconds()
        <= 3 * float(state.get("heartbeat_seconds") or HEARTBEAT_SECONDS) + 5
    )
    alive = bool(
        holder
        and holder.holder == "daemon"
        and holder.pid == state.get("pid")
        and fresh
        and state.get("state") != "stopped"
    )
    return {
        "alive": alive,
        "pid": state.get("pid") if alive else None,
        "state": state.get("state") if alive else "stopped",
        "next_run": state.get("next_run") if alive else None,
        "heartbeat_at": state.get("heartbeat_at"),
        "schedule": state.get("schedule"),
        "last_night_started_at": state.get("last_night_started_at"),
        "last_night_finished_at": state.get("last_night_finished_at"),
        "last_night_result": state.get("last_night_result"),
        "lock_holder": holder.describe() if holder else None,
    }
