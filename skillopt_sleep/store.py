"""The one SQLite database: opened in WAL mode, private to the user, migrated on open.

``session_ingest`` creates and upgrades its own tables (``session_ingest.schema.migrate``);
the components below list theirs as named migrations for the same runner
(``session_ingest.migrations``).
"""

from __future__ import annotations

import contextlib
import os
import sqlite3
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING

from session_ingest import migrations, schema
from skillopt_sleep import paths

if TYPE_CHECKING:
    import sqlite_utils

DB_NAME = "skillopt-sleep.db"


def components() -> list[tuple[str, list[migrations.Step]]]:
    """Each component's migrations, applied in this order (after ingest's). Components
    register here.

    Imported when a store is opened, not when this module is: the CLI imports this module
    for ``StoreError`` on every command, and the components pull in sqlite-utils (which
    loads numpy) and the promotion package."""
    from skillopt_sleep.mining.store import MINING_MIGRATIONS
    from skillopt_sleep.night.store import MIGRATIONS as NIGHT_MIGRATIONS
    from skillopt_sleep.promotion.versions import PROMOTION_MIGRATIONS

    return [
        ("mining", MINING_MIGRATIONS),
        ("night", NIGHT_MIGRATIONS),
        ("promotion", PROMOTION_MIGRATIONS),
    ]


class StoreError(Exception):
    """The store cannot be opened or written; the message says why in one line and
    ``code`` what kind of failure it is (see ``failure_code``)."""

    def __init__(self, message: str, code: str = "database_error") -> None:
        super().__init__(message)
        self.code = code


# SQLite's primary result codes (the low byte of ``sqlite_errorcode``) -> the CLI's error
# code: what the user has to do differs (restore, wait, free space, fix permissions).
_SQLITE_CODES = {
    3: "state_unwritable",  # SQLITE_PERM
    5: "database_busy",  # SQLITE_BUSY
    6: "database_busy",  # SQLITE_LOCKED
    8: "state_unwritable",  # SQLITE_READONLY
    11: "database_corrupt",  # SQLITE_CORRUPT
    13: "disk_full",  # SQLITE_FULL
    14: "state_unwritable",  # SQLITE_CANTOPEN
    26: "database_corrupt",  # SQLITE_NOTADB
}


def failure_code(exc: sqlite3.Error) -> str:
    """The CLI's error code for a SQLite failure (``database_error`` when none fits)."""
    primary = (getattr(exc, "sqlite_errorcode", None) or 0) & 0xFF
    return _SQLITE_CODES.get(primary, "database_error")


def db_path(state_dir: Path) -> Path:
    return state_dir / DB_NAME


def open_store(state_dir: Path) -> sqlite_utils.Database:
    """Open (creating and migrating if needed) the database under ``state_dir``."""
    import sqlite_utils

    paths.ensure_private_dir(state_dir)
    path = db_path(state_dir)
    try:
        with _private_files():
            conn = sqlite3.connect(path, timeout=30)
            db = sqlite_utils.Database(conn)
            db.execute("PRAGMA busy_timeout = 30000")
            db.enable_wal()
            db.execute("PRAGMA synchronous = NORMAL")
            db.execute("PRAGMA foreign_keys = OFF")
            schema.migrate(db)
            for name, steps in components():
                migrations.apply(db, name, steps)
    except sqlite3.DatabaseError as exc:
        raise StoreError(f"cannot open the store {path}: {exc}", failure_code(exc)) from exc
    except migrations.SchemaError as exc:
        raise StoreError(f"cannot use the store {path}: {exc}", "database_incompatible") from exc
    _make_private(path)
    return db


def open_for_reading(state_dir: Path) -> sqlite3.Connection | None:
    """A plain sqlite3 connection to an existing store, or None when there is none yet.

    For commands that only read and must start fast (``status``): no sqlite-utils, no
    migrations. A query that then fails (an older schema, a lock held past the busy
    timeout) means the caller should use ``open_store``, which migrates; a file that is
    not a database is a StoreError here, as there."""
    path = db_path(state_dir)
    if not path.is_file():
        return None
    try:
        with _private_files():
            conn = sqlite3.connect(path, timeout=30)
            conn.execute("PRAGMA busy_timeout = 30000")
            conn.execute("SELECT count(*) FROM sqlite_master").fetchone()  # opens -wal, -shm
    except sqlite3.DatabaseError as exc:
        raise StoreError(f"cannot open the store {path}: {exc}", failure_code(exc)) from exc
    _make_private(path)
    return conn


def integrity_problems(conn: sqlite3.Connection, limit: int = 5) -> list[str]:
    """SQLite's ``PRAGMA integrity_check``: up to ``limit`` problems, [] for a sound store.

    Not ``quick_check``: that one skips whether each index matches its table, so a single
    flipped bit in an index page (tests/test_errors.py) reads as "ok" while queries through
    that index can miss rows or return wrong ones. The full check costs little more (0.14 s
    against 0.12 s on a 333 MB store, page cache warm) and runs in ``doctor`` and before a
    night writes into the store."""
    try:
        rows = conn.execute(f"PRAGMA integrity_check({int(limit)})").fetchall()
    except sqlite3.DatabaseError as exc:  # too damaged to walk: the check itself fails
        return [str(exc)]
    lines = [line for (text,) in rows for line in str(text).splitlines()]
    problems = [line for line in lines if not line.startswith("*** in database")]
    return [] if problems == ["ok"] else problems


@contextlib.contextmanager
def _private_files() -> Iterator[None]:
    """SQLite creates the -wal and -shm side files with the process umask: make it 077."""
    old_umask = os.umask(0o077)
    try:
        yield
    finally:
        os.umask(old_umask)


def _make_private(path: Path) -> None:
    for suffix in ("", "-wal", "-shm"):
        side = Path(f"{path}{suffix}")
        if side.exists():
            os.chmod(side, 0o600)
