"""``skillopt-sleep daemon``: wire the real night and live ingest into the daemon.

The daemon itself (``skillopt_sleep.running.daemon``) takes injected callables; this module is the
only place that knows the real ones:

* the night: ``skillopt_sleep.night.run_night(config, *, stop, deadline)`` — ``stop`` is a
  ``threading.Event`` to watch between checkpoints, ``deadline`` an aware datetime;
* live ingest: ``skillopt_sleep.settings.logs.watcher(open_db, config)`` with ``start()`` and
  ``stop()``; ``open_db()`` opens a fresh store connection for the watcher's thread. A
  stopped Watcher cannot restart, so each day gets a new one.

Either missing in this build → one clear line and exit 1, before anything starts.
"""

from __future__ import annotations

import importlib
import logging
import sys
from collections.abc import Callable, Mapping
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

from skillopt_sleep.cli.context import App
from skillopt_sleep.store import open_store

if TYPE_CHECKING:
    from skillopt_sleep.night import NightOutcome
    from skillopt_sleep.running.daemon import NightFn, NightRequest

log = logging.getLogger("skillopt_sleep.running.daemon")


def _need(module: str, attr: str, what: str) -> Callable[..., Any]:
    try:
        return getattr(importlib.import_module(module), attr)
    except ModuleNotFoundError as exc:
        if exc.name != module:  # the module exists but is broken: show the real error
            raise
    except AttributeError:
        pass
    raise click.ClickException(f"{what} ({module}.{attr}) is not available in this build")


def night_line(outcome: NightOutcome) -> str:
    """One journal line per night: id, status, the answer per skill, cost, the report.
    (The night's full summary is in the store and the report, not in the log.)"""
    from skillopt_sleep.report import headline
    from skillopt_sleep.report.document import NightUsage

    summary = outcome.summary
    if outcome.status != "done" or summary is None:
        return f"night {outcome.night_id} {outcome.status}; the next run resumes it"
    skills = "; ".join(
        f"{s.name} {s.outcome}"
        + (f" {s.test.lift:+.2f}" if s.test and s.test.lift is not None else "")
        for s in summary.skills
    )
    usage = summary.usage or NightUsage()
    problems = len(summary.problems)
    return (
        f"night {outcome.night_id} done: {headline(summary)}"
        + (f" ({skills})" if skills else "")
        + f"; {usage.calls} calls, ${usage.cost_usd:.2f}"
        + (f"; {problems} problem(s)" if problems else "")
        + f"; report {outcome.reports.get('html', '-')}"
    )


def night_callable(state_dir: Path) -> NightFn:
    run_night = _need("skillopt_sleep.night.run", "run_night", "the night pipeline")

    def night(request: NightRequest) -> object:
        outcome = run_night(dict(request.config), stop=request.stop, deadline=request.deadline)
        return night_line(outcome)

    return night


class StoreLiveIngest:
    """Adapts ``session_ingest.watch.Watcher`` (``logs.watcher``) to the daemon's start()/stop()."""

    def __init__(self, watcher_cls: Callable[..., Any], state_dir: Path, config: Mapping[str, Any]):
        self._watcher_cls = watcher_cls
        self._state_dir = state_dir
        self.config = config
        self._watcher: Any = None

    def _report(self, report: Any) -> None:
        for error in report.errors:
            log.warning("live ingest: %s", error)
        if report.files_changed:
            log.debug("live ingest: %d files, %d new turns", report.files_changed, report.new_turns)

    def start(self) -> None:
        watcher = self._watcher_cls(
            lambda: open_store(self._state_dir), dict(self.config), on_report=self._report
        )
        self._watcher = watcher.start()

    def stop(self) -> None:
        watcher, self._watcher = self._watcher, None
        if watcher is not None:
            watcher.stop()


def last_night_in_store(state_dir: Path) -> datetime | None:
    """When the last real night (daemon or ``run --once``) started, from the store."""
    from skillopt_sleep.running.heartbeat import parse_time

    db = open_store(state_dir)
    try:
        if not db["nights"].exists():
            return None
        row = db.execute("SELECT MAX(started_at) FROM nights WHERE NOT dry_run").fetchone()
        return parse_time(row[0]) if row and row[0] else None
    finally:
        db.close()


@click.command()
@click.option("--no-live-ingest", is_flag=True, help="Do not watch session logs by day.")
@click.pass_context
def daemon(ctx: click.Context, no_live_ingest: bool) -> None:
    """Run nights on the configured schedule; ingest live during the day.

    Runs in the foreground (systemd or a terminal). SIGTERM/Ctrl-C let a running night
    reach its checkpoint and exit 0; SIGHUP re-reads the config. Exits 3 when another
    daemon or night holds the state directory.

    \b
    Example:
      skillopt-sleep daemon
      SKILLOPT_SLEEP_DAEMON__SCHEDULE="30 1 * * *" skillopt-sleep daemon --no-live-ingest
    """
    from skillopt_sleep.running.daemon import Daemon, setup_logging  # the scheduler: only here
    from skillopt_sleep.settings import config as config_mod

    app: App = ctx.obj
    config, state_dir = app.config, app.state_dir
    night = night_callable(state_dir)
    live = None
    if config["daemon"]["live_ingest"] and not no_live_ingest:
        watcher_cls = _need("skillopt_sleep.settings.logs", "watcher", "live ingest")
        live = StoreLiveIngest(watcher_cls, state_dir, config)

    def reload() -> Mapping[str, Any]:
        fresh = config_mod.load(app.config_path, overrides={"state_dir": str(state_dir)})
        if live is not None:
            live.config = fresh
        return fresh

    last = last_night_in_store(state_dir)
    runner = Daemon(
        state_dir, config, night, live_ingest=live, reload_config=reload, last_night=lambda: last
    )
    setup_logging(sys.stderr)
    ctx.exit(runner.run())  # another daemon or night: LockedError, exit 3 (cli/failures.py)
