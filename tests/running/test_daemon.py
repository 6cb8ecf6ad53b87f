"""The daemon on its own: a fake night injected, real scheduler, real signals."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import textwrap
import threading
import time
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any
from zoneinfo import ZoneInfo

import pytest

from skillopt_sleep.running import cron, lock, schedule
from skillopt_sleep.running import daemon as D
from skillopt_sleep.running.heartbeat import read_state, write_state
from skillopt_sleep.settings import config as config_mod
from skillopt_sleep.settings.config import ConfigError

EVERY_SECOND = "* * * * * *"


def _config(**daemon: Any) -> dict[str, Any]:
    return config_mod.merge(config_mod.defaults(), {"daemon": daemon})


def _wait(predicate: Any, timeout: float = 10.0) -> None:
    end = time.monotonic() + timeout
    while not predicate():
        assert time.monotonic() < end, "timed out"
        time.sleep(0.05)


class FakeLive:
    def __init__(self) -> None:
        self.events: list[str] = []

    def start(self) -> None:
        self.events.append("start")

    def stop(self) -> None:
        self.events.append("stop")


def test_cron_weekdays_follow_cron_not_apscheduler() -> None:
    utc = ZoneInfo("UTC")
    trigger = cron.build("0 2 * * 0", utc)  # cron 0 = Sunday
    fire = trigger.get_next_fire_time(None, datetime(2025, 1, 1, tzinfo=utc))  # a Wednesday
    assert fire == datetime(2025, 1, 5, 2, 0, tzinfo=utc) and fire.strftime("%a") == "Sun"
    assert cron.cron_weekdays("1-5") == "mon,tue,wed,thu,fri"
    assert cron.cron_weekdays("7") == "sun"


@pytest.mark.parametrize(
    ("key", "value", "message"),
    [
        ("schedule", "0 2 * *", "expected 5 fields"),
        ("schedule", "0 25 * * *", "higher than the maximum value"),
        ("timezone", "Mars/Olympus", "no such IANA zone"),
        ("deadline", "7am", "must be a time HH:MM"),
    ],
)
def test_bad_schedule_config_is_one_line(key: str, value: str, message: str) -> None:
    with pytest.raises(ConfigError, match=message):
        config_mod.load(overrides={f"daemon.{key}": value}, environ={})


def test_deadline_and_missed_runs() -> None:
    tz = ZoneInfo("Europe/Paris")
    start = datetime(2025, 3, 1, 2, 0, tzinfo=tz)
    assert schedule.next_deadline(start, schedule.time(7, 0), tz) == start.replace(hour=7)
    late = start.replace(hour=10)
    assert schedule.next_deadline(late, schedule.time(7, 0), tz).day == 2
    trigger = cron.build("0 2 * * *", tz)
    yesterday = start - timedelta(days=1)
    assert schedule.missed_run(trigger, yesterday, late) == start
    assert schedule.missed_run(trigger, start, late) is None
    assert schedule.missed_run(trigger, None, late) is None


def test_journal_format_has_priority_and_no_timestamp() -> None:
    fmt = D.JournalFormatter("%(message)s")
    record = D.logging.LogRecord("x", D.logging.ERROR, __file__, 1, "boom\nline 2", None, None)
    assert fmt.format(record) == "<3>boom\n<3>line 2"


_running: list[tuple[D.Daemon, threading.Thread]] = []


@pytest.fixture(autouse=True)
def _stop_leftover_daemons() -> Any:
    """A failing test must not leave a scheduler thread running into the next one."""
    yield
    while _running:
        daemon, thread = _running.pop()
        if thread.is_alive():
            daemon.request_stop()
            thread.join(10)


def _start(daemon: D.Daemon) -> tuple[threading.Thread, list[int]]:
    codes: list[int] = []
    thread = threading.Thread(target=lambda: codes.append(daemon.run()), daemon=True)
    thread.start()
    _running.append((daemon, thread))
    return thread, codes


def test_scheduled_night_fires_and_stop_is_clean(tmp_path: Path) -> None:
    calls: list[D.NightRequest] = []
    live = FakeLive()

    def night(request: D.NightRequest) -> str:
        calls.append(request)
        return "ok"

    daemon = D.Daemon(
        tmp_path, _config(schedule=EVERY_SECOND), night, live_ingest=live, heartbeat_seconds=0.5
    )
    thread, codes = _start(daemon)
    _wait(lambda: len(calls) >= 1)
    status = D.daemon_status(tmp_path)
    assert status["alive"] and status["pid"] == os.getpid() and status["next_run"]
    assert f"daemon pid {os.getpid()}" in _other_process_lock(tmp_path)
    daemon.request_stop()
    thread.join(10)
    assert codes == [0] and not thread.is_alive()
    assert calls[0].reason == "schedule" and calls[0].deadline > calls[0].started_at
    assert live.events[:3] == ["start", "stop", "start"] and live.events[-1] == "stop"
    assert not D.daemon_status(tmp_path)["alive"]
    assert read_state(tmp_path)["last_night_result"] == "ok"
    assert lock.current_holder(tmp_path) is None


def _other_process_lock(state_dir: Path) -> str:
    """Try the lock from another process: the daemon's hold must refuse it."""
    code = (
        "import sys; from pathlib import Path; from skillopt_sleep.running import lock\n"
        "try:\n    lock.InstanceLock(Path(sys.argv[1]), 'night').acquire()\n"
        "except lock.LockedError as e:\n    print(e); sys.exit(3)\n"
    )
    proc = subprocess.run(
        [sys.executable, "-c", code, str(state_dir)], capture_output=True, text=True, timeout=30
    )
    assert proc.returncode == 3
    return proc.stdout


class JobsAtStart(FakeLive):
    """Live ingest that notes the daemon's jobs when it is first started: the daemon starts
    it in its own thread just before the scheduler, so what it sees is everything the daemon
    scheduled at start, before any job could fire."""

    def __init__(self) -> None:
        super().__init__()
        self.daemon: D.Daemon | None = None
        self.jobs: list[str] = []
        self.seen = threading.Event()

    def start(self) -> None:
        super().start()
        if not self.seen.is_set():
            assert self.daemon is not None and self.daemon._scheduler is not None
            self.jobs = sorted(job.id for job in self.daemon._scheduler.get_jobs())
            self.seen.set()


def _start_missed(tmp_path: Path, **daemon: Any) -> tuple[D.Daemon, JobsAtStart, list[str]]:
    calls: list[str] = []
    two_days_ago = (datetime.now().astimezone() - timedelta(days=2)).isoformat()
    write_state(tmp_path, last_night_started_at=two_days_ago)
    live = JobsAtStart()
    live.daemon = D.Daemon(
        tmp_path, _config(**daemon), lambda r: calls.append(r.reason), live_ingest=live
    )
    return live.daemon, live, calls


def test_missed_night_runs_at_start(tmp_path: Path) -> None:
    daemon, live, calls = _start_missed(tmp_path)
    thread, _ = _start(daemon)
    _wait(lambda: calls == ["missed"])
    daemon.request_stop()
    thread.join(10)
    assert live.jobs == ["heartbeat", "missed-night", "night"]


def test_missed_night_is_not_run_when_run_missed_is_off(tmp_path: Path) -> None:
    daemon, live, calls = _start_missed(tmp_path, run_missed=False)
    thread, _ = _start(daemon)
    assert live.seen.wait(10)
    daemon.request_stop()
    thread.join(10)
    assert live.jobs == ["heartbeat", "night"]  # the scheduled night only, at its hour
    assert calls == []


def test_reload_reschedules_and_survives_a_bad_config(tmp_path: Path) -> None:
    configs = [_config(schedule="0 3 * * *"), {"daemon": {"schedule": "nonsense"}}]
    daemon = D.Daemon(tmp_path, _config(), lambda r: None, reload_config=lambda: configs.pop(0))
    thread, _ = _start(daemon)
    _wait(lambda: read_state(tmp_path).get("next_run"))
    assert "T02:00:00" in read_state(tmp_path)["next_run"]
    daemon.reload()
    assert "T03:00:00" in read_state(tmp_path)["next_run"]
    daemon.reload()  # bad config: logged, previous schedule kept
    assert daemon.schedule.expression == "0 3 * * *"
    daemon.request_stop()
    thread.join(10)


DRIVER = textwrap.dedent(
    """
    import json, sys, time
    from pathlib import Path
    from skillopt_sleep.settings import config as C
    from skillopt_sleep.running import daemon as D
    state, out, cfg_file = Path(sys.argv[1]), Path(sys.argv[2]), Path(sys.argv[3])

    def load():
        return C.merge(C.defaults(), {"daemon": json.loads(cfg_file.read_text())})

    def night(request):
        with out.open("a") as f:
            f.write("started\\n")
        request.stop.wait(30)  # a long night, until asked to stop
        time.sleep(0.3)  # ... then its checkpoint
        with out.open("a") as f:
            f.write("checkpointed\\n")
        return "stopped"

    D.setup_logging()
    sys.exit(D.Daemon(state, load(), night, reload_config=load, heartbeat_seconds=0.5).run())
    """
)


def test_real_process_sigterm_and_sighup(tmp_path: Path) -> None:
    out, cfg = tmp_path / "night.log", tmp_path / "daemon.json5"
    cfg.write_text(json.dumps({"schedule": EVERY_SECOND, "live_ingest": False}))
    state = tmp_path / "state"
    proc = subprocess.Popen(
        [sys.executable, "-c", DRIVER, str(state), str(out), str(cfg)],
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        _wait(lambda: out.exists() and "started" in out.read_text(), timeout=20)
        cfg.write_text(json.dumps({"schedule": "0 4 * * *", "live_ingest": False}))
        proc.send_signal(signal.SIGHUP)
        _wait(lambda: "T04:00:00" in (read_state(state).get("next_run") or ""), timeout=10)
        proc.send_signal(signal.SIGTERM)
        _, err = proc.communicate(timeout=20)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert proc.returncode == 0, err
    assert out.read_text().splitlines() == ["started", "checkpointed"]
    lines = err.splitlines()
    assert all(line.startswith(("<6>", "<4>", "<3>")) for line in lines), err
    assert "<6>config reloaded" in err and "<6>SIGTERM received: stopping" in err
    assert "<6>daemon stopped" in lines[-1]
    assert read_state(state)["state"] == "stopped"


def test_cli_daemon_locked_exits_3_and_bad_config_exits_2(tmp_path: Path) -> None:
    from click.testing import CliRunner

    from skillopt_sleep.cli import main

    state = tmp_path / "state"
    holder = subprocess.Popen(
        [
            sys.executable,
            "-c",
            "import sys,time; from pathlib import Path; "
            "from skillopt_sleep.running import lock\nwith lock.hold(Path(sys.argv[1]), 'night'):\n"
            "    print('held', flush=True); time.sleep(60)",
            str(state),
        ],
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert holder.stdout is not None and holder.stdout.readline().strip() == "held"
        out = CliRunner().invoke(main, ["--state-dir", str(state), "daemon", "--no-live-ingest"])
        assert out.exit_code == 3, out.output
        assert f"night pid {holder.pid}" in out.output and "Traceback" not in out.output
    finally:
        holder.kill()
        holder.wait()
    out = CliRunner().invoke(
        main,
        ["--state-dir", str(state), "daemon"],
        env={"SKILLOPT_SLEEP_DAEMON__DEADLINE": "late"},
    )
    assert out.exit_code == 2 and "HH:MM" in out.output
    assert len(out.output.strip().splitlines()) == 1


def test_nothing_overwrites_the_final_stopped_state(tmp_path: Path) -> None:
    """A heartbeat or reload still running on another thread when the daemon stops must
    not write over "stopped" (it did: the final write was outside the heartbeat's lock)."""
    started = threading.Event()

    def night(request: D.NightRequest) -> str:
        started.set()
        request.stop.wait(30)
        return "stopped"

    daemon = D.Daemon(
        tmp_path,
        _config(schedule=EVERY_SECOND, live_ingest=False),
        night,
        reload_config=lambda: _config(schedule="0 4 * * *"),
    )
    thread, codes = _start(daemon)
    assert started.wait(20)
    daemon.request_stop()
    thread.join(10)
    assert codes == [0]
    final = (tmp_path / "daemon.json").read_bytes()
    assert json.loads(final)["state"] == "stopped" and json.loads(final)["next_run"] is None
    daemon._heartbeat()  # what a heartbeat job still on a scheduler thread does
    daemon.reload()  # what a SIGHUP's reload thread does
    assert (tmp_path / "daemon.json").read_bytes() == final


class _Blocking:
    """A field value whose serialisation waits: a write caught half-way, holding its lock."""

    def __init__(self) -> None:
        self.entered, self.release = threading.Event(), threading.Event()

    def __str__(self) -> str:
        self.entered.set()
        assert self.release.wait(20)
        return "late"


def test_close_waits_for_a_write_in_progress_and_wins(tmp_path: Path) -> None:
    from skillopt_sleep.running.heartbeat import StateFile

    state = StateFile(tmp_path)
    state.update(state="idle")
    blocking = _Blocking()
    beat = threading.Thread(target=lambda: state.update(next_run=blocking))
    beat.start()
    assert blocking.entered.wait(20)  # the heartbeat has read the file and holds the lock
    closer = threading.Thread(target=lambda: state.close(state="stopped", next_run=None))
    closer.start()
    blocking.release.set()
    beat.join(20)
    closer.join(20)
    assert read_state(tmp_path)["state"] == "stopped" and read_state(tmp_path)["next_run"] is None
    assert state.update(state="idle") is False and read_state(tmp_path)["state"] == "stopped"


def test_the_daemon_logs_one_short_line_per_night(tmp_path: Path) -> None:
    """The journal gets one readable line per night, not the night's object dumped."""
    import io
    import logging

    from skillopt_sleep.cli.daemon import night_callable
    from tests.night_helpers import make_root

    config = make_root(tmp_path, user_skill=False, **{"night.max_skills": 1})
    config = config_mod.merge(config, {"daemon": {"live_ingest": False}})
    state = Path(config["state_dir"])
    two_days_ago = (datetime.now().astimezone() - timedelta(days=2)).isoformat()
    state.mkdir(mode=0o700)
    write_state(state, last_night_started_at=two_days_ago)  # so one (missed) night runs now
    stream = io.StringIO()
    handler = D.setup_logging(stream)
    try:
        daemon = D.Daemon(state, config, night_callable(state))
        thread, codes = _start(daemon)
        _wait(lambda: read_state(state).get("last_night_result"), timeout=180)
        daemon.request_stop()
        thread.join(30)
    finally:
        for name in ("skillopt_sleep", "apscheduler"):
            logging.getLogger(name).removeHandler(handler)
    assert codes == [0]
    finished = [ln for ln in stream.getvalue().splitlines() if "night finished" in ln]
    assert len(finished) == 1, stream.getvalue()
    line = finished[0]
    assert len(line) < 400 and "NightOutcome" not in line and "{" not in line, line
    assert line.startswith("<6>night finished: night ") and " done: " in line
    assert "report " in line and line.endswith("report.html")
    assert read_state(state)["last_night_result"] == line.removeprefix("<6>night finished: ")
