"""Background WAL checkpoints during an ingest pass (see ``Checkpointer``)."""

from __future__ import annotations

import sqlite3
import threading

# WAL pages before an automatic checkpoint during a pass (SQLite's default is 1000): each
# commit rewrites the random-keyed index pages it touched, so fewer, larger checkpoints
# copy each hot page back once rather than once per commit. Used when the checkpoints
# cannot run in the background (see ``Checkpointer``).
PASS_AUTOCHECKPOINT = 10000


class Checkpointer:
    """Checkpoints the WAL on a second connection in a background thread.

    During a pass the ingest connection does not checkpoint at commit (copying the
    committed pages into the database file and syncing it took ~10% of a cold pass);
    after each commit this thread does it while the pass goes on parsing, on the other
    core. ``wait`` is called before the next write transaction begins, so the WAL is
    restarted from its start at each transaction instead of growing: it holds at most
    about one transaction, as before. A PASSIVE checkpoint never blocks the writer and
    gives up on readers; what it leaves is copied by a later checkpoint.
    """

    def __init__(self, path: str) -> None:
        self.path = path
        self.thread: threading.Thread | None = None

    @classmethod
    def for_conn(cls, conn: sqlite3.Connection) -> Checkpointer | None:
        """A checkpointer for ``conn``'s database, or None (not a WAL database file)."""
        path = next((r[2] for r in conn.execute("PRAGMA database_list") if r[1] == "main"), "")
        mode = conn.execute("PRAGMA journal_mode").fetchone()[0]
        return cls(path) if path and str(mode).lower() == "wal" else None

    def start(self) -> None:
        self.wait()
        self.thread = threading.Thread(target=self._run, name="ingest-checkpoint", daemon=True)
        self.thread.start()

    def _run(self) -> None:
        try:
            conn = sqlite3.connect(self.path, timeout=0)
            try:
                conn.execute("PRAGMA wal_checkpoint(PASSIVE)").fetchall()
            finally:
                conn.close()
        except sqlite3.Error:
            pass  # skipped: the pages stay in the WAL for the next checkpoint

    def wait(self) -> None:
        if self.thread is not None:
            self.thread.join()
            self.thread = None
