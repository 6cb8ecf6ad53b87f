"""The one SQLite database: opened in WAL mode, private to the user, migrated on open.

``session_ingest`` creates and upgrades its own tables (``session_ingest.schema.migrate``);
the components below list theirs as named migrations for the same runner
(``session_ingest.migrations``).
"""

from __future__ import annotations

import os
import sqlite3
from pathlib import Path

import sqlite_utils

from session_ingest import migrations, schema
from skillopt_sleep import paths
from skillopt_sleep.mining.store import MINING_MIGRATIONS
from skillopt_sleep.night.store import MIGRATIONS as NIGHT_MIGRATIONS
from skillopt_sleep.promotion.versions import PROMOTION_MIGRATIONS

DB_NAME = "skillopt-sleep.db"

# Each component's migrations, applied in this order (after ingest's). Components register here.
COMPONENTS: list[tuple[str, list[migrations.Step]]] = [
    ("mining", MINING_MIGRATIONS),
    ("night", NIGHT_MIGRATIONS),
    ("promotion", PROMOTION_MIGRATIONS),
]


class StoreError(Exception):
    """The store cannot be opened or written; the message says why in one line."""


def db_path(state_dir: Path) -> Path:
    return state_dir / DB_NAME


def open_store(state_dir: Path) -> sqlite_utils.Database:
    """Open (creating and migrating if needed) the database under ``state_dir``."""
    paths.ensure_private_dir(state_dir)
    path = db_path(state_dir)
    old_umask = os.umask(0o077)  # the -wal and -shm side files must be private too
    try:
        conn = sqlite3.connect(path, timeout=30)
        db = sqlite_utils.Database(conn)
        db.execute("PRAGMA busy_timeout = 30000")
        db.enable_wal()
        db.execute("PRAGMA synchronous = NORMAL")
        db.execute("PRAGMA foreign_keys = OFF")
        schema.migrate(db)
        for name, steps in COMPONENTS:
            migrations.apply(db, name, steps)
    except sqlite3.DatabaseError as exc:
        raise StoreError(f"cannot open the store {path}: {exc}") from exc
    except migrations.SchemaError as exc:
        raise StoreError(f"cannot use the store {path}: {exc}") from exc
    finally:
        os.umask(old_umask)
    for suffix in ("", "-wal", "-shm"):
        side = Path(f"{path}{suffix}")
        if side.exists():
            os.chmod(side, 0o600)
    return db
