"""``skillopt-sleep ingest`` and ``skillopt-sleep sessions``: read logs now, list what was read."""

from __future__ import annotations

import contextlib
import signal
import sys
import threading
import time
from collections.abc import Iterator
from typing import Any

import click

from session_ingest.discover import discover
from session_ingest.ingest import IngestReport, ingest_files
from skillopt_sleep.cli.context import App, echo_json
from skillopt_sleep.cli.root import main
from skillopt_sleep.logs import log_roots, max_text_chars, watcher

SOURCES = {"claude": ("claude",), "codex": ("codex",), "all": ("claude", "codex")}


def _summary(r: IngestReport) -> str:
    lines = [
        f"scanned {r.files_scanned} files, {r.files_changed} changed, "
        f"{r.bytes_read / 1e6:.1f} MB in {r.seconds:.1f} s",
        f"sessions {r.sessions} (+{r.new_sessions}), turns {r.turns} (+{r.new_turns}), "
        f"tool calls {r.tool_calls}, signals {r.signals}, bad lines {r.bad_lines}",
    ]
    if r.errors:
        lines.append(f"{len(r.errors)} problem(s):")
        lines += [f"  {e}" for e in r.errors[:20]]
    return "\n".join(lines)


def _run_once(app: App, sources: tuple[str, ...], show_progress: bool) -> IngestReport:
    report = IngestReport()
    t0 = time.perf_counter()
    files = discover(log_roots(app.config, sources), report.errors)
    report.seconds = time.perf_counter() - t0
    limit = max_text_chars(app.config)
    if not show_progress:
        return ingest_files(app.db, files, max_text_chars=limit, report=report)
    total = sum(f.st.st_size for f in files) or 1
    with click.progressbar(length=total, label="ingest", file=sys.stderr) as bar:
        return ingest_files(
            app.db, files, max_text_chars=limit, report=report,
            progress=lambda n, _p: bar.update(n),
        )  # fmt: skip


@main.command()
@click.option(
    "--source",
    type=click.Choice(sorted(SOURCES)),
    default="all",
    show_default=True,
    help="Which agent's logs to read.",
)
@click.option("--watch", is_flag=True, help="Keep running: ingest files as they change.")
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object (per pass).")
@click.pass_obj
def ingest(app: App, source: str, watch: bool, as_json: bool) -> None:
    """Read Claude Code and Codex session logs into the store (incremental, redacted).

    Only new bytes are read: a re-run over unchanged logs costs one stat per file.
    Bad lines and unreadable files are counted and reported; they never stop ingest.

    \b
    Examples:
      skillopt-sleep ingest
      skillopt-sleep ingest --source codex --json
      skillopt-sleep ingest --watch        # live, until Ctrl-C or SIGTERM
    """
    sources = SOURCES[source]
    show = not as_json and sys.stderr.isatty()
    report = _run_once(app, sources, show)
    _emit(report, as_json)
    if not watch:
        return
    state_dir = app.state_dir

    def open_db() -> Any:
        from skillopt_sleep.store import open_store

        return open_store(state_dir)

    live = watcher(open_db, app.config, sources, on_report=lambda r: _emit(r, as_json))
    live.start()
    with _stop_on_sigterm() as stop:
        if not as_json:
            click.echo("watching for changes (Ctrl-C or SIGTERM to stop)", err=True)
        try:
            while live.is_alive() and not stop.wait(0.5):
                pass
        except KeyboardInterrupt:
            pass
        finally:
            live.stop()  # the pass under way ends first: its transaction is whole
    for problem in live.errors:
        click.echo(f"ingest --watch: {problem}", err=True)


@contextlib.contextmanager
def _stop_on_sigterm() -> Iterator[threading.Event]:
    """SIGTERM (systemd, kill) stops the watch like Ctrl-C does: cleanly, exit status 0."""
    stop = threading.Event()
    if threading.current_thread() is not threading.main_thread():
        yield stop
        return
    previous = signal.signal(signal.SIGTERM, lambda _signum, _frame: stop.set())
    try:
        yield stop
    finally:
        signal.signal(signal.SIGTERM, previous)


def _emit(report: IngestReport, as_json: bool) -> None:
    if as_json:
        data = report.to_dict()
        data["seconds"] = round(data["seconds"], 3)
        click.echo(__import__("json").dumps(data))
    else:
        click.echo(_summary(report))


@main.command()
@click.option("--json", "as_json", is_flag=True, help="Print a JSON list.")
@click.option("--limit", type=int, default=200, show_default=True, help="Newest N sessions.")
@click.option(
    "--source", type=click.Choice(sorted(SOURCES)), default="all", show_default=True,
    help="Only this agent's sessions.",
)  # fmt: skip
@click.pass_obj
def sessions(app: App, as_json: bool, limit: int, source: str) -> None:
    """List ingested sessions, newest first: id, source, project, started, turns, signals.

    \b
    Examples:
      skillopt-sleep sessions
      skillopt-sleep sessions --json --limit 10
    """
    where = "" if source == "all" else "WHERE source = ?"
    params: list[Any] = [] if source == "all" else [source]
    rows = [
        dict(
            zip(
                (
                    "id",
                    "source",
                    "kind",
                    "parent_id",
                    "project",
                    "started",
                    "turns",
                    "tool_calls",
                    "signals",
                    "title",
                ),
                r,
                strict=True,
            )
        )  # fmt: skip
        for r in app.db.execute(
            "SELECT id, source, kind, parent_id, project, started_at, n_turns, n_tool_calls,"
            f" n_signals, title FROM sessions {where}"
            " ORDER BY started_at DESC, id LIMIT ?",
            [*params, limit],
        ).fetchall()
    ]
    if as_json:
        echo_json(rows)
        return
    if not rows:
        click.echo("no sessions yet: run `skillopt-sleep ingest`")
        return
    click.echo(f"{'id':38} {'source':6} {'kind':9} {'started':20} {'turns':>5} {'sig':>4}  project")
    for r in rows:
        started = (r["started"] or "")[:19]
        click.echo(
            f"{r['id'][:38]:38} {r['source']:6} {r['kind']:9} {started:20} "
            f"{r['turns']:>5} {r['signals']:>4}  {r['project'] or ''}"
        )
