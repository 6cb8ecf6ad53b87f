"""Live ingest: the watcher picks up new and growing files after the debounce."""

from __future__ import annotations

import json
import time
from pathlib import Path

from ingest_helpers import query, roots

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
    open_store(home / "state").close()
    reports = []
    w = Watcher(
        lambda: open_store(home / "state"), roots(home), debounce=0.1, on_report=reports.append
    ).start()
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


def test_a_failed_pass_does_not_stop_the_watcher(tmp_path: Path, monkeypatch) -> None:
    """A pass that raises (the store locked or full) rolls back; the watcher says so and
    the next pass reads the files again."""
    import importlib

    watch = importlib.import_module("session_ingest.watch")
    real, calls = watch.ingest_files, []

    def fails_first(*args, **kwargs):
        calls.append(1)
        if len(calls) == 1:
            raise OSError(28, "No space left on device")
        return real(*args, **kwargs)

    monkeypatch.setattr(watch, "ingest_files", fails_first)
    home = tmp_path / "home"
    proj = home / ".claude" / "projects" / "-w"
    proj.mkdir(parents=True)
    sid = "abcdabcd-0000-4000-8000-000000000002"
    msg = {"role": "user", "content": "hi"}
    rec = {"type": "user", "sessionId": sid, "uuid": "u1", "cwd": "/w",
           "timestamp": "2026-03-01T10:00:00Z", "message": msg}  # fmt: skip
    (proj / f"{sid}.jsonl").write_text(json.dumps(rec) + "\n")
    open_store(home / "state").close()
    w = Watcher(lambda: open_store(home / "state"), roots(home), debounce=0.1).start()
    try:
        assert _wait(lambda: w.errors)  # the first pass (the start scan) failed
        with open(proj / f"{sid}.jsonl", "a") as fh:  # the next change is read, with the rest
            fh.write(
                json.dumps(
                    {**rec, "uuid": "u2", "message": {"role": "user", "content": "and more"}}
                )
                + "\n"
            )
        assert _wait(lambda: query(home, "SELECT count(*) FROM turns")[0][0] == 2)
        assert w.is_alive()
    finally:
        w.stop()
    assert w.errors == ["ingest pass failed: OSError: [Errno 28] No space left on device"]
