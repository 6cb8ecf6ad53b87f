"""Versioned schema migrations, one ordered list per component.

Each component (``ingest``, ``mining``, ``night`` …) owns its tables. A migration is a
function of the database; its position in the list is its version. Applied versions are
recorded in ``schema_version`` so a newer program upgrades an older store in place.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import sqlite_utils

Migration = Callable[[sqlite_utils.Database], None]


def apply(db: sqlite_utils.Database, component: str, steps: Sequence[Migration]) -> int:
    """Run the migrations of ``component`` not yet applied; return the resulting version."""
    table = db["schema_version"]
    if not table.exists():
        db["schema_version"].create({"component": str, "version": int}, pk="component")
    row = next(table.rows_where("component = ?", [component]), None)
    current = row["version"] if row else 0
    if current > len(steps):
        raise RuntimeError(
            f"the store's {component} schema is version {current}, newer than this program "
            f"knows ({len(steps)}); upgrade skillopt-sleep"
        )
    for version in range(current, len(steps)):
        with db.conn:
            steps[version](db)
            table.upsert({"component": component, "version": version + 1}, pk="component")
    return len(steps)
