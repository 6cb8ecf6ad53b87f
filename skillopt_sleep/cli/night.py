"""``run``, ``demo``: one night now, on your logs or on the bundled samples."""

from __future__ import annotations

import contextlib
import signal
import sys
import threading
import time
from collections.abc import Iterator
from typing import TYPE_CHECKING

import click

from skillopt_sleep.cli.context import App, UserError, echo_json

if TYPE_CHECKING:
    from skillopt_sleep.night import NightOutcome


class _Progress:
    """Night progress on stderr: a line per phase with the time since the start. On a
    terminal the call count (phase, calls done of planned, ETA) is one line redrawn in
    place (``status``, see night.progress.CallMeter); elsewhere the meter says a line at
    every tenth of the plan."""

    def __init__(self, quiet: bool) -> None:
        self.quiet = quiet
        self.stream = sys.stderr
        self.start = time.monotonic()
        self.live = False  # a status line is on screen
        if self.stream.isatty():
            self.status = self._status

    def _stamp(self) -> str:
        return f"[{time.monotonic() - self.start:6.1f}s]"

    def __call__(self, msg: str) -> None:
        if self.quiet:
            return
        if self.live:
            self.stream.write("\r\033[K")
            self.live = False
        click.echo(f"{self._stamp()} {msg}", err=True)

    def _status(self, text: str) -> None:
        if not self.quiet:
            self.stream.write(f"\r\033[K{self._stamp()} {text}")
            self.stream.flush()
            self.live = True


def _progress(quiet: bool) -> _Progress:
    return _Progress(quiet)


@contextlib.contextmanager
def _stop_on_signals() -> Iterator[threading.Event]:
    """SIGTERM/SIGINT ask the night to stop at its next checkpoint (then exit 0), as the
    daemon does; a second signal is not caught again, so it ends the process at once."""
    stop = threading.Event()

    def handler(signum: int, _frame: object) -> None:
        stop.set()
        signal.signal(signum, previous[signal.Signals(signum)])

    previous = {s: signal.getsignal(s) for s in (signal.SIGTERM, signal.SIGINT)}
    if threading.current_thread() is not threading.main_thread():
        yield stop
        return
    for signum in previous:
        signal.signal(signum, handler)
    try:
        yield stop
    finally:
        for signum, old in previous.items():
            signal.signal(signum, old)


def _finish(outcome: NightOutcome, as_json: bool) -> None:
    if as_json:
        echo_json(outcome.to_json())
    elif outcome.summary is not None:
        from skillopt_sleep.report import headline, skill_sentence

        summary = outcome.summary
        click.echo(headline(summary))
        for skill in summary.skills:
            click.echo(f"  {skill_sentence(skill, summary)}")
        click.echo(f"report: {outcome.reports['html']}")
        for problem in summary.problems if outcome.exit_code else []:
            click.echo(f"problem: {problem}", err=True)
    if outcome.exit_code:
        sys.exit(outcome.exit_code)


@click.command()
@click.option("--once", is_flag=True, help="Run one night now (required; the daemon runs nightly).")
@click.option(
    "--dry-run", is_flag=True, help="Say what a night would do; spend and change nothing."
)
@click.option("--json", "as_json", is_flag=True, help="Print the night's summary as JSON.")
@click.option("-q", "--quiet", is_flag=True, help="No progress lines on stderr.")
@click.pass_obj
def run(app: App, once: bool, dry_run: bool, as_json: bool, quiet: bool) -> None:
    """Run one night: ingest, mine, train, test, promote, report.

    A night that was interrupted (even by kill -9) resumes where it stopped. Exits 3 when
    another night or the daemon holds the lock, 1 when something needs your action.

    \b
    Example:
      skillopt-sleep run --once --dry-run
      skillopt-sleep run --once
    """
    if not once and not dry_run:
        raise UserError("say --once to run a night now (or run `skillopt-sleep daemon`)")
    from skillopt_sleep.night.run import run_night  # the whole training stack: only here

    with _stop_on_signals() as stop:
        outcome = run_night(app.config, stop=stop, dry_run=dry_run, progress=_progress(quiet))
    _finish(outcome, as_json)


@click.command()
@click.option("--dir", "workdir", type=click.Path(file_okay=False), help="Scratch directory.")
@click.option(
    "--minutes",
    type=click.IntRange(min=1),
    default=10,
    show_default=True,
    help="Training stops in time for the night to end within this many minutes.",
)
@click.option("-q", "--quiet", is_flag=True, help="No progress lines on stderr.")
def demo(workdir: str | None, minutes: int, quiet: bool) -> None:
    """Run a whole night on bundled sample sessions with the embedded local models.

    Needs no API key and no network. Everything goes to a temporary directory; your own
    config, state and skills are not touched. SIGTERM/Ctrl-C stop it cleanly.

    \b
    Example:
      skillopt-sleep demo
      skillopt-sleep demo --minutes 20  # a longer night on a slow machine
    """
    from pathlib import Path

    from skillopt_sleep.demo import run_demo

    say = _progress(quiet)
    say("demo: sample sessions, the embedded local models (Qwen2.5-Coder), a scratch directory")
    with _stop_on_signals() as stop:
        scratch, outcome = run_demo(
            Path(workdir) if workdir else None, progress=say, stop=stop, minutes=minutes
        )
    click.echo(f"demo directory: {scratch}")
    _finish(outcome, as_json=False)
