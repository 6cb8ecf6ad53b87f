"""The daemon: a cron-scheduled night, live ingest by day, and a heartbeat for ``status``.

Built around APScheduler 3.x's ``BlockingScheduler``. The night job and live ingest are
injected (:class:`NightRequest` callables, :class:`LiveIngest` objects), so the daemon is
tested on its own and the CLI wires the real pipeline.

Signals: SIGTERM/SIGINT set a cooperative stop event the running night watches, so it
stops at its next checkpoint; the scheduler is shut down from a helper thread (never from
inside the signal handler, which could interrupt the scheduler holding its own locks) and
the daemon exits 0 once the night has returned. A second signal exits at once (the night
resumes from its checkpoints next time). SIGHUP reloads the config and reschedules.

Logs go to stderr with ``<N>`` syslog priority prefixes and no timestamps: journald adds
its own and turns the prefix into the record's priority.
"""

from __future__ import annotations

import contextlib
import logging
import os
import signal
import socket
import sys
import threading
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import IO, Any, Protocol

from apscheduler.schedulers import SchedulerNotRunningError
from apscheduler.schedulers.base import STATE_RUNNING
from apscheduler.schedulers.blocking import BlockingScheduler

from skillopt_sleep import lock
from skillopt_sleep.heartbeat import (
    HEARTBEAT_SECONDS,
    StateFile,
    daemon_status,
    iso,
    parse_time,
    read_state,
)
from skillopt_sleep.schedule import Schedule, missed_run, next_deadline, parse_schedule

log = logging.getLogger("skillopt_sleep.daemon")
_PRIORITY = {logging.DEBUG: 7, logging.INFO: 6, logging.WARNING: 4, logging.ERROR: 3}


class JournalFormatter(logging.Formatter):
    """``<6>message``: the syslog priority journald understands, one prefix per line."""

    def format(self, record: logging.LogRecord) -> str:
        prio = _PRIORITY.get(record.levelno, 2 if record.levelno > logging.ERROR else 6)
        text = super().format(record)
        return "\n".join(f"<{prio}>{line}" for line in text.splitlines() or [""])


def setup_logging(stream: IO[str] | None = None, level: int = logging.INFO) -> logging.Handler:
    """Send the daemon's (and APScheduler's warnings) to stderr in journald format."""
    handler = logging.StreamHandler(stream or sys.stderr)
    handler.setFormatter(JournalFormatter("%(message)s"))
    for name, lvl in (("skillopt_sleep", level), ("apscheduler", logging.WARNING)):
        logger = logging.getLogger(name)
        logger.addHandler(handler)
        logger.setLevel(lvl)
        logger.propagate = False
    return handler


@dataclass
class NightRequest:
    """What the night callable gets: watch ``stop`` and checkpoint+return when it is set."""

    stop: threading.Event
    deadline: datetime
    reason: str  # "schedule" | "missed"
    config: Mapping[str, Any]
    started_at: datetime = field(default_factory=lambda: datetime.now().astimezone())


class LiveIngest(Protocol):
    def start(self) -> None: ...
    def stop(self) -> None: ...


NightFn = Callable[[NightRequest], object]


class Daemon:
    """One daemon per state directory; :meth:`run` blocks until stopped and returns 0."""

    def __init__(
        self,
        state_dir: Path,
        config: Mapping[str, Any],
        night: NightFn,
        *,
        live_ingest: LiveIngest | None = None,
        reload_config: Callable[[], Mapping[str, Any]] | None = None,
        last_night: Callable[[], datetime | None] | None = None,
        heartbeat_seconds: float = HEARTBEAT_SECONDS,
    ) -> None:
        self.state_dir = state_dir
        self.config = config
        self.schedule = parse_schedule(config)  # fail before taking the lock
        self._night = night
        self._live = live_ingest
        self._live_running = False
        self._reload_config = reload_config
        self._last_night = last_night
        self._heartbeat_seconds = heartbeat_seconds
        self.stop_event = threading.Event()
        self._night_lock = threading.Lock()
        self._night_idle = threading.Event()
        self._night_idle.set()
        self._state = StateFile(state_dir)
        self._scheduler: BlockingScheduler | None = None
        self._done = False

    # -- lifecycle

    def run(self) -> int:
        """Take the lock ("daemon"), schedule, block until SIGTERM/SIGINT; return 0.

        Raises lock.LockedError when another night or daemon holds the state directory.
        """
        with lock.hold(self.state_dir, "daemon"):
            previous = self._install_signals()
            try:
                return self._run_locked()
            finally:
                self._done = True
                for signum, handler in previous.items():
                    signal.signal(signum, handler)

    def _run_locked(self) -> int:
        sched = self.schedule
        scheduler = BlockingScheduler(timezone=sched.timezone)
        self._scheduler = scheduler
        scheduler.add_job(
            self._night_job, sched.trigger, args=["schedule"], id="night", **self._misfire(sched)
        )
        scheduler.add_job(
            self._heartbeat,
            "interval",
            seconds=self._heartbeat_seconds,
            id="heartbeat",
            coalesce=True,
            misfire_grace_time=None,
            next_run_time=datetime.now().astimezone(),  # status knows next_run at once
        )
        now = datetime.now().astimezone()
        state = read_state(self.state_dir)
        due = missed_run(sched.trigger, self._reference_time(state, now), now)
        if due is not None and not sched.run_missed:
            log.info(
                "missed the night scheduled for %s; not running it (daemon.run_missed is off)",
                iso(due),
            )
        elif due is not None:
            log.info("missed the night scheduled for %s; running it now", iso(due))
            scheduler.add_job(
                self._night_job,
                "date",
                run_date=now,
                args=["missed"],
                id="missed-night",
                misfire_grace_time=None,
            )
        self._state.update(
            pid=os.getpid(),
            hostname=socket.gethostname(),
            started_at=iso(now),
            first_started_at=state.get("first_started_at") or iso(now),
            state="idle",
            schedule=sched.expression,
            heartbeat_seconds=self._heartbeat_seconds,
            heartbeat_at=iso(now),
            next_run=None,
        )
        self._set_live(sched.live_ingest)
        log.info(
            "daemon started (pid %d): schedule %r, deadline %s",
            os.getpid(),
            sched.expression,
            sched.deadline.strftime("%H:%M"),
        )
        if not self.stop_event.is_set():
            scheduler.start()  # blocks until shutdown
        if not self._night_idle.is_set():
            log.info("waiting for the running night to reach its checkpoint")
        self._night_idle.wait()
        self._set_live(False)
        # Under the state file's lock, and final: a heartbeat still running on a
        # scheduler thread either finished before this or writes nothing.
        self._state.close(
            state="stopped",
            next_run=None,
            heartbeat_at=iso(datetime.now().astimezone()),
        )
        log.info("daemon stopped")
        return 0

    @staticmethod
    def _misfire(sched: Schedule) -> dict[str, Any]:
        # A night that fell due while the machine slept still runs on wake (once) when
        # run_missed is on; otherwise only within a minute of its time.
        return {
            "coalesce": True,
            "max_instances": 1,
            "misfire_grace_time": None if sched.run_missed else 60,
        }

    def _reference_time(self, state: Mapping[str, Any], now: datetime) -> datetime | None:
        """The last time a night ran or the daemon was first seen: a scheduled time after
        it that already passed is a missed night. Nothing known → nothing missed."""
        candidates = [
            parse_time(state.get(key))
            for key in ("last_night_started_at", "first_started_at")
            if state.get(key)
        ]
        if self._last_night is not None:
            with contextlib.suppress(Exception):
                candidates.append(self._last_night())
        known = [c for c in candidates if c is not None]
        return max(known) if known else None

    # -- signals

    def _install_signals(self) -> dict[int, Any]:
        previous: dict[int, Any] = {}
        if threading.current_thread() is not threading.main_thread():
            return previous  # signals only reach the main thread; tests call request_*()
        for signum, handler in (
            (signal.SIGTERM, self._on_stop),
            (signal.SIGINT, self._on_stop),
            (signal.SIGHUP, self._on_hup),
        ):
            previous[signum] = signal.signal(signum, handler)
        return previous

    def _on_stop(self, signum: int, _frame: object) -> None:
        if self.stop_event.is_set():
            log.warning(
                "second %s: exiting now; the night resumes from its checkpoint",
                signal.Signals(signum).name,
            )
            os._exit(128 + signum)
        log.info("%s received: stopping", signal.Signals(signum).name)
        self.request_stop()

    def _on_hup(self, _signum: int, _frame: object) -> None:
        threading.Thread(target=self.reload, name="daemon-reload", daemon=True).start()

    def request_stop(self) -> None:
        """Ask the night to checkpoint and the scheduler to stop (safe from any thread)."""
        self.stop_event.set()
        threading.Thread(target=self._shutdown, name="daemon-stop", daemon=True).start()

    def _shutdown(self) -> None:
        # Waits for the scheduler to be running: a stop that lands during start-up must
        # still stop it. If it never starts (stopped before), run() sets _done.
        while not self._done:
            scheduler = self._scheduler
            if scheduler is not None and scheduler.state == STATE_RUNNING:
                with contextlib.suppress(SchedulerNotRunningError):
                    scheduler.shutdown(wait=False)
                return
            threading.Event().wait(0.05)

    def reload(self) -> None:
        """Re-read the config; reschedule and toggle live ingest. A bad config is logged
        and the old one kept, so a typo never takes the daemon down."""
        if self._reload_config is None:
            log.warning("SIGHUP: no config loader; nothing to reload")
            return
        try:
            config = self._reload_config()
            sched = parse_schedule(config)
        except Exception as exc:  # noqa: BLE001 - any failure keeps the running config
            log.error("config reload failed, keeping the previous config: %s", exc)
            return
        self.config, self.schedule = config, sched
        scheduler = self._scheduler
        if scheduler is not None and scheduler.state == STATE_RUNNING:
            scheduler.reschedule_job("night", trigger=sched.trigger)
            scheduler.modify_job("night", **self._misfire(sched))
        if self._night_idle.is_set():
            self._set_live(sched.live_ingest)
        self._heartbeat()
        log.info(
            "config reloaded: schedule %r, deadline %s, next night %s",
            sched.expression,
            sched.deadline.strftime("%H:%M"),
            read_state(self.state_dir).get("next_run"),
        )

    # -- jobs

    def _heartbeat(self) -> None:
        nxt = None
        scheduler = self._scheduler
        if scheduler is not None:
            job = scheduler.get_job("night")
            nxt = getattr(job, "next_run_time", None) if job else None
        self._state.update(
            heartbeat_at=iso(datetime.now().astimezone()),
            next_run=iso(nxt),
            schedule=self.schedule.expression,
        )

    def _set_live(self, on: bool) -> None:
        if self._live is None or on == self._live_running:
            return
        try:
            (self._live.start if on else self._live.stop)()
            self._live_running = on
            log.info("live ingest %s", "started" if on else "stopped")
        except Exception as exc:  # noqa: BLE001 - the night's full scan still catches up
            log.error("live ingest could not be %s: %s", "started" if on else "stopped", exc)

    def _night_job(self, reason: str) -> None:
        if self.stop_event.is_set():
            return
        if not self._night_lock.acquire(blocking=False):
            log.warning("a night is already running; skipping the %s one", reason)
            return
        self._night_idle.clear()
        try:
            self._set_live(False)  # the night ingests everything itself; no double writers
            start = datetime.now().astimezone()
            request = NightRequest(
                self.stop_event,
                next_deadline(start, self.schedule.deadline, self.schedule.timezone),
                reason,
                self.config,
                start,
            )
            self._state.update(state="night", last_night_started_at=iso(start))
            log.info("night started (%s), deadline %s", reason, iso(request.deadline))
            result: object = None
            try:
                result = self._night(request)
            except Exception as exc:  # noqa: BLE001 - a failed night must not kill the daemon
                log.error("night failed: %s", exc, exc_info=True)
                result = f"failed: {exc}"
            if self.stop_event.is_set():
                log.info("night stopped for shutdown; it resumes from its checkpoint")
            else:
                log.info("night finished: %s", result)
            self._state.update(
                state="idle",
                last_night_result=str(result)[:500],
                last_night_finished_at=iso(datetime.now().astimezone()),
            )
            self._heartbeat()  # next_run moved on; before idle, so before the final write
        finally:
            if not self.stop_event.is_set():
                self._set_live(self.schedule.live_ingest)
            self._night_lock.release()
            self._night_idle.set()


__all__ = ["Daemon", "LiveIngest", "NightRequest", "daemon_status", "setup_logging"]
