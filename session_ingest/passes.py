"""Incremental ingest: log files → events → session rows, safe to run any number of times.

Per file we remember (dev, inode, size, mtime, byte offset past the last complete line,
a fingerprint of the bytes before that offset). An unchanged file costs one ``stat``. A
grown file is read from its offset when the bytes before it are still those read
(``prefix.py``); a partial last line waits for the next pass. A file that shrank, changed
inode or was rewritten (same size, or grown with other bytes before the offset) is read
again from 0; its records are de-duplicated by id, so totals never double.

Each line becomes at most one small normalized event, stored under its session and a
hash of its record id (``records.py``); of two copies the first in (path, offset) order is
kept. A line or record that cannot be read is counted, never fatal. After new events are
stored, the sessions they belong to are rebuilt from *all* their stored events. So the
database content is a function of the set of lines seen, whatever the split points of
the passes that read them.
"""

from __future__ import annotations

import gc
import operator
import os
import stat as stat_mod
import time
from collections.abc import Callable, Iterable, Mapping
from dataclasses import asdict, dataclass, field, fields
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import orjson
import sqlite_utils

from session_ingest import registry, schema
from session_ingest.checkpoint import PASS_AUTOCHECKPOINT, Checkpointer
from session_ingest.discover import Found, Roots, discover, short, stat_paths
from session_ingest.lines import BIG_LINE, FileProblems, parse_careful
from session_ingest.prefix import fingerprint
from session_ingest.records import BadRecord, to_event
from session_ingest.rows import groups_with_events, rebuild, store_sessions, totals
from session_ingest.source import Source

CHUNK = 4 << 20  # read size
MAX_LINE_BYTES = 16 << 20  # longer lines are skipped and counted, never held in memory
BATCH_BYTES = 16 << 20  # flush (write events + rebuild sessions) after this much input …
BATCH_FILES = 500  # … or this many changed files
COMMIT_BYTES = 128 << 20  # commit after this much input (and at the end of the pass)
MAX_ERRORS = 200
MAX_TEXT_CHARS = 4000  # turns.user_text / assistant_text are cut to this many characters
TOO_LONG = f"line longer than {MAX_LINE_BYTES >> 20} MB"
NOT_OBJECT = "not a JSON object"
# A file as the last pass left it: (dev, inode, size, mtime_ns, offset, bad_lines,
# session_id, prefix fingerprint), the row as SQLite returns it (10k files: no dict per
# file on a re-scan).
Known = tuple[int, int, int, int, int, int, "str | None", "int | None"]

Progress = Callable[[int, str], None]  # (bytes just processed, path)


@dataclass
class IngestReport:
    """What one pass did (``files_*``, ``new_*``, ``errors``) and database totals after it."""

    files_scanned: int = 0
    files_changed: int = 0
    sessions: int = 0
    turns: int = 0
    tool_calls: int = 0
    signals: int = 0
    bad_lines: int = 0
    errors: list[str] = field(default_factory=list)
    new_sessions: int = 0
    new_turns: int = 0
    bytes_read: int = 0
    seconds: float = 0.0

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> IngestReport:
        """A report as ``to_dict`` wrote it; a count it lacks reads as 0."""
        return cls(**{f.name: data[f.name] for f in fields(cls) if f.name in data})


class _Pass:
    """One ingest pass over a set of files: flushes batches, commits every ``COMMIT_BYTES``."""

    def __init__(self, db: sqlite_utils.Database, max_chars: int, report: IngestReport):
        self.db = db
        self.conn = db.conn
        self.max_chars = max_chars
        self.report = report
        self.rows: list[tuple[Any, ...]] = []
        self.file_rows: list[tuple[Any, ...]] = []
        # events of this batch per (source, group): (path, offset, id, data)
        self.groups: dict[tuple[str, str], list[tuple[str, int, int, dict[str, Any]]]] = {}
        self.batch_bytes = 0
        self.batch_files = 0
        self.uncommitted = 0  # input bytes flushed since the last commit
        self.checkpointer: Checkpointer | None = None
        self.buffer = bytearray()  # read buffer, reused from file to file

    def error(self, msg: str) -> None:
        if len(self.report.errors) < MAX_ERRORS:
            self.report.errors.append(msg)

    # ------------------------------------------------------------------ reading

    def read_file(self, f: Found, known: Known | None) -> None:
        st = f.st
        start, bad, group, prefix = 0, 0, None, None
        n_errors = len(self.report.errors)
        try:
            fh = open(f.path, "rb")  # noqa: SIM115 - closed below, errors handled per case
        except OSError as exc:
            self.error(f"{short(f.path)}: cannot open ({exc.strerror})")
            return
        problems = FileProblems()
        src = registry.get(f.source)
        with fh:
            if src.whole_file(f.path):
                end, group = self._read_whole(fh, f, src, problems)
                bad = 0  # re-read whole each time: its count replaces the old one
            else:
                if known:
                    start, bad, group = _resume(fh.fileno(), st, known)
                end, group = self._read_jsonl(fh, f, src, start, group, problems)
                prefix = fingerprint(fh.fileno(), end)
        if problems.count:
            bad += problems.count
            self.error(problems.summary(short(f.path)))
        self.report.bytes_read += max(0, end - start)
        self.batch_bytes += max(0, end - start)
        self.batch_files += 1
        self.report.files_changed += 1
        last_error = self.report.errors[-1] if len(self.report.errors) > n_errors else None
        self.file_rows.append(
            (f.path, f.source, st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns, end, bad,
             last_error, datetime.now(UTC).isoformat(timespec="seconds"), group, prefix)
        )  # fmt: skip

    def _take(
        self, obj: Any, line: Any, off: int, f: Found, src: Source, ctx: Any,
        group: str | None, problems: FileProblems,
    ) -> str | None:  # fmt: skip
        """Store one parsed record's event; a bad one is counted. Returns the file's group."""
        if type(obj) is not dict:
            problems.add(NOT_OBJECT, off)
            return group
        try:
            grp, ident, data = to_event(src, obj, line, ctx, group)
        except BadRecord as exc:
            problems.add(str(exc), off)
            return group
        except Exception as exc:  # noqa: BLE001 - one record never stops a pass
            problems.add(f"record not understood ({type(exc).__name__})", off)
            return group
        if group is None and src.file_is_session:
            group = grp  # the file's first good record names its session
        if data is not None:
            self.rows.append((ident, grp, f.source, f.path, off, data))
            g = (f.source, grp)
            bucket = self.groups.get(g)
            if bucket is None:
                bucket = self.groups[g] = []
            bucket.append((f.path, off, ident, data))
        return group

    def _read_jsonl(
        self, fh: Any, f: Found, src: Source, start: int, group: str | None,
        problems: FileProblems,
    ) -> tuple[int, str | None]:  # fmt: skip
        path = f.path
        ctx = src.context(path, self.max_chars)
        skip = src.skip_line
        loads, decode_error = orjson.loads, orjson.JSONDecodeError
        take = self._take
        fh.seek(start)
        if self.progress and start:
            self.progress(start, path)
        pos = consumed = start
        buf = b""
        skipping = False
        # Chunks are read into one buffer kept for the pass (a fresh multi-MB bytes object
        # per read costs page faults), sized to the largest file read so far, up to CHUNK.
        want = min(CHUNK, max(1 << 16, f.st.st_size - start))
        if len(self.buffer) < want:
            self.buffer = bytearray(want)
        chunk = self.buffer
        view = memoryview(chunk)
        find = chunk.find
        while True:
            try:
                k = fh.readinto(chunk)
            except OSError as exc:
                self.error(f"{short(path)}: read failed ({exc.strerror})")
                break
            if not k:
                break
            lo = 0
            if skipping:
                nl = find(b"\n", 0, k)
                if nl < 0:
                    pos += k
                    continue
                problems.add(TOO_LONG, consumed)
                pos += nl + 1
                consumed = pos
                skipping = False
                lo = nl + 1
            # Lines are cut with find (memchr) rather than bytes.split, which scans byte by
            # byte, as zero-copy views of the buffer, each used up before the next read;
            # the partial last line waits in buf (a copy).
            nl = find(b"\n", lo, k)
            if nl < 0:
                buf += view[lo:k]
            else:
                i = lo
                off = pos
                while nl >= 0:
                    line: bytes | memoryview
                    if buf:
                        line = buf + view[i:nl]
                        buf = b""
                    else:
                        line = view[i:nl]
                    n = len(line)
                    if n and not (n < 3 and not bytes(line).strip()) and not skip(line):
                        if n > MAX_LINE_BYTES:
                            problems.add(TOO_LONG, off)
                        else:
                            try:  # the common case, inlined: a valid JSON line
                                obj = loads(line) if n <= BIG_LINE else None
                            except decode_error:
                                obj = None
                            if obj is not None:
                                group = take(obj, line, off, f, src, ctx, group, problems)
                            else:  # big, bad, glued to a fragment, or "null"
                                found, err = parse_careful(line)
                                if err:
                                    problems.add(err, off)
                                for at, rec in found:
                                    rec_line = line[at:] if at else line
                                    group = take(
                                        rec, rec_line, off + at, f, src, ctx, group, problems
                                    )
                    off += n + 1
                    i = nl + 1
                    nl = find(b"\n", i, k)
                pos = consumed = off
                buf = bytes(view[i:k])
            if len(buf) > MAX_LINE_BYTES:
                pos += len(buf)
                buf = b""
                skipping = True
            if self.progress:
                self.progress(k - lo, path)
        return consumed, group  # a group still None is decided by a later first line

    def _read_whole(
        self, fh: Any, f: Found, src: Source, problems: FileProblems
    ) -> tuple[int, str | None]:
        """A file that is one JSON object (TypeScript-era Codex): re-read whole when it changes."""
        path, size = f.path, f.st.st_size
        if size > 4 * MAX_LINE_BYTES:
            problems.add("JSON session file too large", 0)
            return size, None
        raw = fh.read()
        found, err = parse_careful(raw)
        obj = found[0][1] if len(found) == 1 else None
        if err:
            problems.add(err, 0)
        if not isinstance(obj, dict) or src.whole_records is None:
            if not err:
                problems.add("not a session object", 0)
            return len(raw), None
        group, records = src.whole_records(obj, path)
        ctx = src.context(path, self.max_chars)
        for i, rec in enumerate(records):
            # an item has no line of its own: it is keyed by its JSON
            self._take(rec, orjson.dumps(rec), i, f, src, ctx, group, problems)
        return len(raw), group

    progress: Progress | None = None

    # ------------------------------------------------------------------ writing

    def flush(self, commit: bool = False) -> None:
        """Store events and file positions and rebuild touched sessions; commit every
        ``COMMIT_BYTES`` of input (and when ``commit``). Events, file positions and the
        rows rebuilt from them always land in the same transaction. On error the open
        transaction is rolled back by ``ingest_files``."""
        conn = self.conn
        if self.checkpointer is not None and not conn.in_transaction:
            self.checkpointer.wait()  # done: this transaction restarts the WAL
        seen = groups_with_events(conn, self.groups)
        if self.rows:
            # Sorted by key: the unique index is then filled in key order. Of two copies
            # of a record (same group and id), the one first in (path, offset) order is
            # kept, whichever pass read it first.
            self.rows.sort(key=_key)
            conn.executemany(
                "INSERT INTO events (id, grp, source, path, offset, data)"
                " VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT (grp, id) DO UPDATE SET"
                " path = excluded.path, offset = excluded.offset, data = excluded.data"
                " WHERE (excluded.path, excluded.offset) < (events.path, events.offset)",
                # A generator, not a list: each row is bound and dropped in turn. orjson
                # gives every result a 4 KB buffer shrunk in place, and thousands of them
                # alive at once left holes no next buffer fits (+120 MB on Codex batches).
                ((i, g, s, p, o, orjson.dumps(d)) for i, g, s, p, o, d in self.rows),
            )
        if self.file_rows:
            conn.executemany(
                "INSERT OR REPLACE INTO files (path, source, dev, inode, size, mtime_ns,"
                " offset, bad_lines, last_error, ingested_at, session_id, prefix)"
                " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                self.file_rows,
            )
        for (source, grp), batch in sorted(self.groups.items()):
            # A session that cannot be rebuilt (a bug, not bad input: records were checked)
            # costs its own rows only; its events stay stored for the next pass.
            conn.execute("SAVEPOINT session_rows")
            try:
                if (source, grp) in seen:
                    rebuild(conn, source, grp)  # older events too: read them all back
                else:  # all of this group's events are in hand: no read-back needed
                    batch.sort(key=lambda e: (e[0], e[1]))
                    ids: set[int] = set()
                    events = []
                    for _p, _o, ident, data in batch:
                        if ident not in ids:  # the first in (path, offset) order is kept
                            ids.add(ident)
                            events.append(data)
                    store_sessions(conn, source, grp, events)
            except Exception as exc:  # noqa: BLE001 - one session never stops a pass
                conn.execute("ROLLBACK TO session_rows")
                self.error(f"session {grp}: not rebuilt ({type(exc).__name__}: {exc})"[:300])
            conn.execute("RELEASE session_rows")
        self.rows, self.file_rows, self.groups = [], [], {}
        self.uncommitted += self.batch_bytes
        if commit or self.uncommitted >= COMMIT_BYTES:
            conn.commit()
            self.uncommitted = 0
            if self.checkpointer is not None and not commit:
                self.checkpointer.start()
        self.batch_bytes = self.batch_files = 0


_key = operator.itemgetter(1, 0)  # (group, id)


def _resume(fd: int, st: os.stat_result, known: Known) -> tuple[int, int, str | None]:
    """(offset, bad lines, group) a pass goes on from: where the last one stopped when the
    file only grew since (same inode, and the bytes before the offset are those read), else
    (0, 0, None): rewritten in place, replaced, shrunk, or a row from before fingerprints
    were kept; the file is read again from 0 and its records de-duplicated by id."""
    dev, ino, size, mtime_ns, offset, bad_lines, session_id, consumed = known
    if (dev, ino) != (st.st_dev, st.st_ino) or not 0 < offset <= st.st_size:
        return 0, 0, None
    grew = st.st_size > size or (st.st_size == size and st.st_mtime_ns == mtime_ns)
    if not grew or consumed is None or consumed != fingerprint(fd, offset):
        return 0, 0, None
    return offset, bad_lines or 0, session_id


def _unchanged(st: os.stat_result, known: Known | None) -> bool:
    return known is not None and known[:4] == (st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns)


def ingest_files(
    db: sqlite_utils.Database,
    files: list[Found],
    *,
    max_text_chars: int = MAX_TEXT_CHARS,
    progress: Progress | None = None,
    report: IngestReport | None = None,
) -> IngestReport:
    """Ingest the given (already stat'ed) files into tables ``schema.migrate`` made; the core
    shared by full scans and the watcher."""
    t0 = time.perf_counter()
    report = report or IngestReport()
    conn = db.conn
    before = totals(conn)
    known: dict[str, Known] = {
        r[0]: r[1:] for r in conn.execute(
            "SELECT path, dev, inode, size, mtime_ns, offset, bad_lines, session_id, prefix"
            " FROM files")
    }  # fmt: skip
    conn.execute("PRAGMA cache_size = -16384")  # 16 MiB: index inserts stay in memory
    work = _Pass(db, max_text_chars, report)
    work.progress = progress
    autocheckpoint = None
    # A pass allocates millions of short-lived, acyclic objects (parsed records, events,
    # rows): the cyclic collector would only re-scan them. It is back on after the pass.
    gc_was_enabled = gc.isenabled()
    gc.disable()
    try:
        for f in files:
            report.files_scanned += 1
            if not stat_mod.S_ISREG(f.st.st_mode):
                continue
            k = known.get(f.path)
            if _unchanged(f.st, k):
                if progress:
                    progress(f.st.st_size, f.path)
                continue
            if autocheckpoint is None:
                autocheckpoint = conn.execute("PRAGMA wal_autocheckpoint").fetchone()[0]
                work.checkpointer = Checkpointer.for_conn(conn)
                pages = 0 if work.checkpointer else PASS_AUTOCHECKPOINT
                conn.execute(f"PRAGMA wal_autocheckpoint = {pages}")
            work.read_file(f, k)
            if work.batch_bytes >= BATCH_BYTES or work.batch_files >= BATCH_FILES:
                work.flush()
        work.flush(commit=True)
    except BaseException:
        if conn.in_transaction:
            conn.rollback()
        raise
    finally:
        if work.checkpointer is not None:
            work.checkpointer.wait()
        if gc_was_enabled:
            gc.enable()
        if autocheckpoint is not None:
            conn.execute(f"PRAGMA wal_autocheckpoint = {int(autocheckpoint)}")
    after = totals(conn) if autocheckpoint is not None else before  # no file read: as before
    for key, value in after.items():
        setattr(report, key, value)
    report.new_sessions = after["sessions"] - before["sessions"]
    report.new_turns = after["turns"] - before["turns"]
    report.seconds = round(report.seconds + time.perf_counter() - t0, 3)
    return report


def ingest(
    db: sqlite_utils.Database,
    roots: Roots,
    *,
    paths: Iterable[str | Path] | None = None,
    max_text_chars: int = MAX_TEXT_CHARS,
    progress: Progress | None = None,
) -> IngestReport:
    """One pass over the logs under ``roots`` (or just ``paths`` among them): creates or
    upgrades the ingest tables of ``db`` first, then reads what changed."""
    t0 = time.perf_counter()
    schema.migrate(db)
    report = IngestReport()
    if paths is None:
        files = discover(roots, report.errors)
    else:
        files = stat_paths(roots, paths, report.errors)
    report.seconds = time.perf_counter() - t0
    return ingest_files(db, files, max_text_chars=max_text_chars, progress=progress, report=report)
