"""Read Claude Code and Codex session logs into SQLite, incrementally, redacted.

Public API (see ``docs/session_ingest.md``)::

    import sqlite_utils
    from session_ingest import ingest

    db = sqlite_utils.Database("sessions.db")
    report = ingest(db, {"claude": ["~/.claude"], "codex": ["~/.codex"]})

``ingest`` creates or upgrades its tables in the file (``schema.migrate``), then reads what
changed under the roots (a source name → the tool's home directories). ``Watcher`` keeps
the tables current while the agents write. Tables: ``session_ingest/schema.py`` and
``docs/internals.md``. Importing this package loads nothing until a name is used.
"""

from __future__ import annotations

from importlib import import_module
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # what a type checker sees; at run time, __getattr__ below
    from session_ingest.passes import IngestReport, ingest, ingest_files
    from session_ingest.registry import SOURCES
    from session_ingest.rows import rebuild
    from session_ingest.schema import migrate
    from session_ingest.watch import Watcher

# name -> the module that defines it, imported on first use. A name here must not be a
# submodule's name: importing that submodule would set the package attribute to the module
# (so ``redact`` and ``discover`` are ``session_ingest.redact.redact`` and
# ``session_ingest.discover.discover``).
_EXPORTS = {
    "IngestReport": "session_ingest.passes",
    "ingest": "session_ingest.passes",
    "ingest_files": "session_ingest.passes",
    "migrate": "session_ingest.schema",
    "rebuild": "session_ingest.rows",
    "SOURCES": "session_ingest.registry",
    "Watcher": "session_ingest.watch",
}

__all__ = sorted(_EXPORTS)


def __getattr__(name: str) -> Any:
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 'session_ingest' has no attribute {name!r}")
    return getattr(import_module(module), name)
