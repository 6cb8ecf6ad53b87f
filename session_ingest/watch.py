"""Live ingest: a watchdog observer over the source directories, debounced.

API (used by ``skillopt-sleep ingest --watch`` and the daemon)::

    w = Watcher(db_factory, roots, debounce=2.0, rescan_every=600, on_report=None)
    w.start()        # returns at once; observer + one worker thread
    ...
    w.stop()         # stops both, closes the worker's database connection
    w.is_alive()     # False after stop or if the worker died
    w.last_report    # IngestReport of the most recent pass (or None)

``db_factory()`` must return a fresh ``sqlite_utils.Database`` (SQLite connections belong
to the thread that made them; the worker opens its own; its ingest tables must exist:
``schema.migrate``). ``roots`` is as for ``ingest``. A changed file is ingested once it has
been quiet for ``debounce`` seconds; every ``rescan_every`` seconds a full scan catches what
the observer missed (files created before a directory existed, events dropped under load).
One full scan runs at start.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from watchdog.events import FileSystemEvent, FileSystemEventHandler
from watchdog.observers import Observer

from session_ingest.discover import Roots, discover, log_dirs, stat_paths
from session_ingest.passes import MAX_TEXT_CHARS, IngestReport, ingest_files


class _Handler(FileSystemEventHandler):
    def __init__(self, watcher: Watcher) -> None:
        self.watcher = watcher

    def on_any_event(self, event: FileSystemEvent) -> None:
        if event.is_directory:
            return
        for p in (event.src_path, getattr(event, "dest_path", "")):
            p = p.decode() if isinstance(p, bytes) else p
            if p and p.endswith((".jsonl", ".json")):
                self.watcher.touch(p)


class Watcher:
    """Keeps the store current while agents write their logs; see the module docstring."""

    def __init__(
        self,
        db_factory: Callable[[], Any],
        roots: Roots,
        *,
        max_text_chars: int = MAX_TEXT_CHARS,
        debounce: float = 2.0,
        rescan_every: float = 600.0,
        on_report: Callable[[IngestReport], None] | None = None,
    ) -> None:
        self.debounce = float(debounce)
        self.rescan_every = float(rescan_every)
        self.db_factory = db_factory
        self.roots = {name: list(homes) for name, homes in roots.items()}
        self.max_text_chars = max_text_chars
        self.on_report = on_report
        self.last_report: IngestReport | None = None
        self.errors: list[str] = []
        self._pending: dict[str, float] = {}
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._observer: Any = None
        self._watched: set[str] = set()
        self._thread: threading.Thread | None = None

    def touch(self, path: str) -> None:
        """Note that ``path`` changed (called from the observer thread)."""
        with self._lock:
            self._pending[path] = time.monotonic()

    def start(self) -> Watcher:
        self._observer = Observer()
        self._schedule()
        self._observer.start()
        self._thread = threading.Thread(target=self._run, name="session-ingest-watch", daemon=True)
        self._thread.start()
        return self

    def stop(self, timeout: float = 10.0) -> None:
        self._stop.set()
        if self._observer is not None:
            self._observer.stop()
            self._observer.join(timeout)
        if self._thread is not None:
            self._thread.join(timeout)

    def is_alive(self) -> bool:
        return bool(self._thread and self._thread.is_alive())

    def _schedule(self) -> None:
        for _source, d in log_dirs(self.roots):
            key = str(d)
            if key not in self._watched and Path(d).is_dir():
                try:
                    self._observer.schedule(_Handler(self), key, recursive=True)
                    self._watched.add(key)
                except OSError as exc:  # e.g. inotify watch limit reached
                    self.errors.append(f"cannot watch {key}: {exc}")

    def _report(self, report: IngestReport) -> None:
        self.last_report = report
        if self.on_report and (report.files_changed or report.errors):
            self.on_report(report)

    def _run(self) -> None:
        db = self.db_factory()
        try:
            next_scan = 0.0  # full scan at start
            while not self._stop.is_set():
                now = time.monotonic()
                if now >= next_scan:
                    self._schedule()
                    report = IngestReport()
                    files = discover(self.roots, report.errors)
                    self._pass(db, files, report)
                    next_scan = now + self.rescan_every
                with self._lock:
                    ready = [p for p, t in self._pending.items() if now - t >= self.debounce]
                    for p in ready:
                        del self._pending[p]
                if ready:
                    report = IngestReport()
                    files = stat_paths(self.roots, ready, report.errors)
                    self._pass(db, files, report)
                self._stop.wait(min(0.2, self.debounce / 4 or 0.05))
        finally:
            db.close()

    def _pass(self, db: Any, files: list[Any], report: IngestReport) -> None:
        """One pass; a pass that fails (the store locked or full) rolled back whole, so the
        watcher notes it and goes on: the files are read again by the next pass."""
        try:
            self._report(ingest_files(db, files, max_text_chars=self.max_text_chars, report=report))
        except Exception as exc:  # noqa: BLE001 - live ingest outlives one failed pass
            if len(self.errors) < 100:
                self.errors.append(f"ingest pass failed: {type(exc).__name__}: {exc}")
