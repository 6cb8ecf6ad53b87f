"""Named schema migrations for any SQLite database: sqlite-utils' runner, plus two rules.

A component (``ingest``, ``mining``, ``night`` …) owns its tables and lists its migrations
as ``(name, function)`` pairs, in order; a new one is appended (one line), a released one
is never edited or renamed. Applying runs sqlite-utils' ``Migrations``: each pending step
in its own transaction together with the record of its name in ``_sqlite_migrations``.
On top of it:

* a store migrated by the older numbering (``schema_version``: component → N, N = how many
  steps of the list had run) upgrades in place: its first N names are recorded as applied;
* a store holding an applied name this program does not know was written by a newer
  program: ``SchemaError``, one line, and nothing is changed.

``schema_version`` is still kept (component → number of applied steps) for ``doctor`` and
so an older program refuses a store that went past it instead of re-running its steps.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from datetime import UTC, datetime
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import sqlite_utils

Step = tuple[str, Callable[["sqlite_utils.Database"], None]]  # (stable name, migration)

TABLE = "_sqlite_migrations"  # sqlite-utils' table of applied names
LEGACY = "schema_version"


class SchemaError(Exception):
    """The store's schema cannot be used by this program; the message says why in one line."""


def applied(db: sqlite_utils.Database, component: str) -> list[str]:
    """Names of ``component``'s migrations recorded as applied, in the order they ran."""
    if not db[TABLE].exists():
        return []
    rows = db.execute(
        f"SELECT name FROM {TABLE} WHERE migration_set = ? ORDER BY rowid", [component]
    )
    return [r[0] for r in rows]


def apply(db: sqlite_utils.Database, component: str, steps: Sequence[Step]) -> list[str]:
    """Apply ``component``'s steps not yet applied, in list order; return their names."""
    from sqlite_utils.migrations import Migrations

    names = [name for name, _ in steps]
    if len(set(names)) != len(names):
        raise ValueError(f"{component}: a migration name is listed twice")
    migrations = Migrations(component)
    for name, step in steps:
        migrations(name=name)(step)
    migrations.ensure_migrations_table(db)
    done = applied(db, component)
    if not done:
        done = _adopt_legacy(db, component, names)
    unknown = [n for n in done if n not in names]
    if unknown:
        raise SchemaError(
            f"the store's {component} schema has migration {unknown[0]!r}, newer than this "
            "program knows; upgrade skillopt-sleep"
        )
    pending = [m.name for m in migrations.pending(db)]
    migrations.apply(db)
    _record_legacy(db, component, len(names))
    return pending


def _adopt_legacy(db: sqlite_utils.Database, component: str, names: list[str]) -> list[str]:
    """Record the first N names as applied when the old numbering says N ran."""
    if not db[LEGACY].exists():
        return []
    row = db.execute(f"SELECT version FROM {LEGACY} WHERE component = ?", [component]).fetchone()
    if not row or not row[0]:
        return []
    version = int(row[0])
    if version > len(names):
        raise SchemaError(
            f"the store's {component} schema is version {version}, newer than this program "
            f"knows ({len(names)}); upgrade skillopt-sleep"
        )
    at = datetime.now(UTC).isoformat()
    with db.atomic():
        for name in names[:version]:
            db.table(TABLE).insert({"migration_set": component, "name": name, "applied_at": at})
    return names[:version]


def _record_legacy(db: sqlite_utils.Database, component: str, version: int) -> None:
    """Written only when it changes: opening an up-to-date store writes nothing."""
    if db[LEGACY].exists():
        row = db.execute(f"SELECT version FROM {LEGACY} WHERE component = ?", [component])
        if (row.fetchone() or (None,))[0] == version:
            return
    else:
        db.table(LEGACY).create({"component": str, "version": int}, pk="component")
    with db.atomic():
        db.table(LEGACY).upsert({"component": component, "version": version}, pk="component")
