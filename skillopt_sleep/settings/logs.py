"""The agents' session logs as the configuration places them: what ``session_ingest`` reads.

``session_ingest`` is given roots (a source name → the tool's home directories) and the
text limit; this module resolves them from the config (``sources.*``, ``ingest.*``,
``$CLAUDE_CONFIG_DIR``, ``$CODEX_HOME``) for every command that ingests.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from session_ingest.passes import IngestReport, Progress, ingest
from skillopt_sleep.settings import config as config_mod
from trainer.shapes import INGEST, LISTED_SESSION, stamp, unstamped

ALL = ("claude", "codex")
_ROOTS: dict[str, Callable[[Mapping[str, Any]], list[Path]]] = {
    "claude": config_mod.claude_roots,
    "codex": config_mod.codex_roots,
}


def log_roots(config: Mapping[str, Any], sources: Iterable[str] = ALL) -> dict[str, list[Path]]:
    """The home directories of each wanted source that the config enables."""
    enabled = config.get("sources", {})
    return {
        name: _ROOTS[name](config) for name in sources if enabled.get(name, {}).get("enabled", True)
    }


def max_text_chars(config: Mapping[str, Any]) -> int:
    return int(config.get("ingest", {}).get("max_text_chars", 4000))


def ingest_logs(
    db: Any,
    config: Mapping[str, Any],
    sources: Iterable[str] = ALL,
    *,
    paths: Iterable[str | Path] | None = None,
    progress: Progress | None = None,
) -> IngestReport:
    """One ingest pass over the configured logs (or just ``paths`` among them)."""
    return ingest(
        db,
        log_roots(config, sources),
        paths=paths,
        max_text_chars=max_text_chars(config),
        progress=progress,
    )


def ingest_json(report: IngestReport) -> dict[str, Any]:
    """What ``ingest --json`` prints for one pass: the report, its time to the millisecond."""
    return stamp(INGEST, {**report.to_dict(), "seconds": round(report.seconds, 3)})


def ingest_from_json(stored: Any) -> IngestReport:
    """A printed pass of any version (``ShapeError`` for a newer release's)."""
    return IngestReport.from_dict(unstamped(INGEST, stored))


@dataclass(frozen=True)
class ListedSession:
    """One ingested session as ``sessions`` lists it (``session_ingest``'s row, its counts
    named for people)."""

    id: str
    source: str
    kind: str
    parent_id: str | None
    project: str | None
    started: str | None
    turns: int
    tool_calls: int
    signals: int
    title: str | None

    def to_json(self) -> dict[str, Any]:
        return stamp(LISTED_SESSION, asdict(self))

    @classmethod
    def from_json(cls, stored: Any) -> ListedSession:
        """A printed item of any version (``ShapeError`` for a newer release's)."""
        return cls(**unstamped(LISTED_SESSION, stored))


def listed_sessions(db: Any, source: str | None, limit: int) -> list[ListedSession]:
    """The newest ``limit`` ingested sessions (of one source, or all), newest first."""
    where, params = ("WHERE source = ?", [source]) if source else ("", [])
    return [
        ListedSession(*row)
        for row in db.execute(
            "SELECT id, source, kind, parent_id, project, started_at, n_turns, n_tool_calls,"
            f" n_signals, title FROM sessions {where}"
            " ORDER BY started_at DESC, id LIMIT ?",
            [*params, limit],
        ).fetchall()
    ]


def watcher(
    db_factory: Callable[[], Any],
    config: Mapping[str, Any],
    sources: Iterable[str] = ALL,
    on_report: Callable[[IngestReport], None] | None = None,
) -> Any:
    """A ``session_ingest.Watcher`` over the configured logs (not started)."""
    from session_ingest.watch import Watcher  # watchdog loads only for live ingest

    ing = config.get("ingest", {})
    return Watcher(
        db_factory,
        log_roots(config, sources),
        max_text_chars=max_text_chars(config),
        debounce=float(ing.get("watch_debounce_seconds", 2.0)),
        rescan_every=float(ing.get("rescan_interval_seconds", 600)),
        on_report=on_report,
    )
