"""Read Claude Code and Codex session logs into SQLite, incrementally, redacted.

Public API::

    from session_ingest import ingest, IngestReport, Watcher
    report = ingest(db, config, sources=("claude", "codex"), progress=None)

``db`` is the store (``skillopt_sleep.store.open_store``), ``config`` the effective
configuration (keys ``sources.*`` and ``ingest.*``). Tables written: see
``session_ingest/schema.py`` and ``docs/internals.md``.
"""

from session_ingest.ingest import IngestReport, ingest
from session_ingest.redact import redact
from session_ingest.rows import rebuild

__all__ = ["IngestReport", "Watcher", "ingest", "rebuild", "redact"]


def __getattr__(name: str):  # the watcher pulls in watchdog: import it only when asked
    if name == "Watcher":
        from session_ingest.watch import Watcher

        return Watcher
    raise AttributeError(name)
