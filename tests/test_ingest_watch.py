"""Live ingest: the watcher picks up new and growing files after the debounce."""

from __future__ import annotations

import json
import time
from pathlib import Path

from ingest_helpers import config, query

from session_ingest import Watcher
from skillopt_sleep.store import open_store


def _wait(pred, timeout: float = 10.0) -> bool:
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        if pred():
            return True
        time.sleep(0.05)
    return False


def test_watcher_ingests_changes_and_stops(tmp_path: Path) -> None:
    home = tmp_path / "home"
    proj = home / ".claude" / "projects" / "-w"
    proj.mkdir(parents=True)
    cfg = config(home, **{"ingest.watch_debounce_seconds": 0.1})
    open_store(home / "state").close()
    reports = []
    w = Watcher(lambda: open_store(home / "state"), cfg, on_report=reports.append).start()
    try:
        sid = "abcdabcd-0000-4000-8000-000000000001"
        msg = {"role": "user", "content": "hi"}
        rec = {"type": "user", "sessionId": sid, "uuid": "u1", "cwd": "/w",
               "timestamp": "2026-03-01T10:00:00Z", "message": msg}  # fmt: skip
        path = proj / f"{sid}.jsonl"
        path.write_text(json.dumps(rec) + "\n")
        assert _wait(lambda: query(home, "SELECT count(*) FROM turns")[0][0] == 1)
        rec2 = {**rec, "uuid": "u2", "message": {"role": "user", "content": "and again"}}
        with open(path, "a") as fh:
            fh.write(json.dumps(rec2) + "\n")
        assert _wait(lambda: query(home, "SELECT count(*) FROM turns")[0][0] == 2)
        assert w.is_alive() and reports
    finally:
        w.stop()
    assert not w.is_alive()
