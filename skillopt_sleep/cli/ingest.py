"""``skillopt-sleep ingest`` and ``skillopt-sleep sessions``: read logs now, list what was read."""

from __future__ import annotations

import contextlib
import signal
import sys
import threading
import time
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

import click

from skillopt_sleep.cli.context import App, UserError, echo_json

if TYPE_CHECKING:
    from session_ingest.passes import IngestReport

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
    from session_ingest.discover import discover
    from session_ingest.passes import IngestReport, ingest_files
    from skillopt_sleep.settings.logs import log_roots, max_text_chars

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


@click.command()
@click.option(
    "--source",
    type=click.Choice(sorted(SOURCES)),
    default="all",
    show_default=True,
    help="Which agent's logs to read.",
)
@click.option("--watch", is_flag=True, help="Keep running: ingest files as they change.")
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object (per pass).")
@click.option(
    "--hook",
    type=click.Choice(["claude", "codex"]),
    help="Run as the agent's session-end hook: read its JSON on stdin, ingest only that "
    "session's files.",
)
@click.option("-q", "--quiet", is_flag=True, help="Print nothing unless something failed.")
@click.pass_obj
def ingest(
    app: App, source: str, watch: bool, as_json: bool, hook: str | None, quiet: bool
) -> None:
    """Read Claude Code and Codex session logs into the store (incremental, redacted).

    Only new bytes are read: a re-run over unchanged logs costs one stat per file.
    Bad lines and unreadable files are counted and reported; they never stop ingest.
    With --hook (what the plugins run, see `install claude-plugin`) only the session the
    agent just finished is read; a file outside the configured roots is not read.

    \b
    Examples:
      skillopt-sleep ingest
      skillopt-sleep ingest --source codex --json
      skillopt-sleep ingest --watch        # live, until Ctrl-C or SIGTERM
      echo '{"transcript_path": "..."}' | skillopt-sleep ingest --hook claude
    """
    if hook is not None:
        if watch:
            raise UserError("--hook ingests one session; it cannot --watch")
        _emit_hook(_run_hook(app, hook), as_json, quiet)
        return
    sources = SOURCES[source]
    show = not as_json and sys.stderr.isatty()
    report = _run_once(app, sources, show)
    _emit(report, as_json)
    if not watch:
        return
    from skillopt_sleep.settings.logs import watcher

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


def _run_hook(app: App, agent: str) -> IngestReport:
    import json

    from session_ingest.passes import IngestReport
    from skillopt_sleep.running.agent_plugins import hook_paths
    from skillopt_sleep.settings.logs import ingest_logs

    try:
        files = hook_paths(agent, json.loads(sys.stdin.read(1_000_000) or "null"))
    except ValueError as exc:  # json.JSONDecodeError is a ValueError
        raise UserError(f"--hook {agent}: {exc}") from exc
    if not files:
        return IngestReport()
    return ingest_logs(app.db, app.config, paths=files)


def _emit_hook(report: IngestReport, as_json: bool, quiet: bool) -> None:
    if as_json:
        _emit(report, as_json=True)
    elif report.errors:
        click.echo(f"skillopt-sleep ingest: {report.errors[0]}", err=True)
    elif not quiet:
        click.echo(_summary(report))


def _emit(report: IngestReport, as_json: bool) -> None:
    if as_json:
        import json

        from skillopt_sleep.settings.logs import ingest_json

        click.echo(json.dumps(ingest_json(report)))
    else:
        click.echo(_summary(report))


@click.command()
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
    from skillopt_sleep.settings.logs import listed_sessions

    rows = listed_sessions(app.db, None if source == "all" else source, limit)
    if as_json:
        echo_json([r.to_json() for r in rows])
        return
    if not rows:
        click.echo("no sessions yet: run `skillopt-sleep ingest`")
        return
    width = max(len("id"), *(len(r.id) for r in rows))  # ids whole: subagents share prefixes
    click.echo(
        f"{'id':{width}} {'source':6} {'kind':9} {'started':20} {'turns':>5} {'sig':>4}  project"
    )
    for r in rows:
        started = (r.started or "")[:19]
        click.echo(
            f"{r.id:{width}} {r.source:6} {r.kind:9} {started:20} "
            f"{r.turns:>5} {r.signals:>4}  {r.project or ''}"
        )
