"""Cache and ledger interfaces, with in-memory and JSON-file implementations.

Every model call goes through the cache, keyed by (skill hash, task id, role, sample index,
backend identity, prompt/settings hash). A run rerun with the same cache replays what was
done and pays for nothing twice; because every decision is seeded, it ends identically.
The daemon supplies SQLite implementations of the same protocols.

The ledger keeps judged edits of one skill across nights by normalized hash. A record's
"status" is "rejected" (the gate's evidence, the judge firewall: never evaluated again, and
shown to the optimizer as "already tried") or "pending" (the gate could not decide yet: the
record carries its evidence, and a later night against the same skill continues it). It also
keeps incumbents' val sweeps ("streams", keyed by skill hash and val set), so that a night
starting from the skill an earlier night ended with pairs its candidates with those samples
instead of paying for them again (trainer.engine says when that is allowed). Only the
newest ``KEPT_STREAMS`` of them are kept, whatever the implementation. A ledger is written
records as dicts (``LedgerRecord.to_dict``) and reads them back typed (``LedgerRecord``).
"""

from __future__ import annotations

import hashlib
import json
import os
import threading
from pathlib import Path
from typing import Any, Protocol

from trainer.ledger import PENDING, LedgerRecord
from trainer.shapes import LEDGER, STREAM, stamp, unstamped

# Streams kept per ledger (one skill): the newest few cover a rollback to a recent version;
# an older version's samples are only a saving, never needed for a verdict. Without a bound
# a ledger kept across nights would grow by one stream a night.
KEPT_STREAMS = 10


class Cache(Protocol):
    def get(self, key: str) -> dict | None: ...

    def put(self, key: str, value: dict) -> None: ...  # durable when it returns


class Ledger(Protocol):
    """Judged edits of one skill, across nights (see the module docstring)."""

    def __contains__(self, edit_hash: str) -> bool: ...  # any status

    def add(self, edit_hash: str, record: dict) -> None: ...  # replaces the hash's record

    def recent(self, limit: int) -> list[LedgerRecord]: ...  # newest first, any status

    def pending(self) -> list[LedgerRecord]: ...  # status "pending", oldest first

    def forget(self, edit_hash: str) -> None: ...  # drop a record (a pending one that lapsed)

    def stream(self, key: str) -> dict | None: ...  # an incumbent's kept val sweeps

    def keep_stream(self, key: str, record: dict) -> None: ...  # the newest KEPT_STREAMS


def cache_key(
    *, skill_hash: str, task_id: str, role: str, sample: int | str, identity: str, prompt: Any
) -> str:
    """The cache key of one call; `prompt` is anything JSON-able that fixes the request."""
    blob = json.dumps(prompt, sort_keys=True, ensure_ascii=False, default=str)
    prompt_hash = hashlib.sha256(blob.encode()).hexdigest()[:16]
    parts = [skill_hash, task_id, role, str(sample), identity, prompt_hash]
    return hashlib.sha256("\x1f".join(parts).encode()).hexdigest()


class MemoryCache:
    """In-process cache; survives a 'kill' only as long as the object does (tests)."""

    def __init__(self) -> None:
        self._data: dict[str, dict] = {}
        self._lock = threading.Lock()

    def get(self, key: str) -> dict | None:
        with self._lock:
            value = self._data.get(key)
            return dict(value) if value is not None else None

    def put(self, key: str, value: dict) -> None:
        with self._lock:
            self._data[key] = dict(value)

    def __len__(self) -> int:
        return len(self._data)


class MemoryLedger:
    def __init__(self) -> None:
        self._records: dict[str, dict] = {}
        self._streams: dict[str, dict] = {}

    def __contains__(self, edit_hash: object) -> bool:
        return edit_hash in self._records

    def add(self, edit_hash: str, record: dict) -> None:
        self._records.pop(edit_hash, None)  # a replaced record is the newest
        self._records[edit_hash] = {"status": "rejected", **record, "edit_hash": edit_hash}

    def recent(self, limit: int) -> list[LedgerRecord]:
        newest = list(self._records.values())[-limit:][::-1] if limit > 0 else []
        return [LedgerRecord.from_dict(r) for r in newest]

    def pending(self) -> list[LedgerRecord]:
        return [LedgerRecord.from_dict(r) for r in self._records.values() if r["status"] == PENDING]

    def forget(self, edit_hash: str) -> None:
        self._records.pop(edit_hash, None)

    def stream(self, key: str) -> dict | None:
        rec = self._streams.get(key)
        return json.loads(json.dumps(rec)) if rec is not None else None

    def keep_stream(self, key: str, record: dict) -> None:
        self._streams.pop(key, None)  # a replaced stream is the newest
        self._streams[key] = json.loads(json.dumps(record))
        for old in list(self._streams)[:-KEPT_STREAMS]:
            del self._streams[old]


class JsonLedger(MemoryLedger):
    """A ledger in one JSON file (written atomically), for use without the daemon. The file
    holds {"edits": [...], "streams": {...}}; a bare list (edits only) is read too."""

    def __init__(self, path: str | Path) -> None:
        super().__init__()
        self.path = Path(path)
        if self.path.exists():
            data = json.loads(self.path.read_text() or "[]")
            if isinstance(data, list):
                data = {"edits": data}
            for rec in data.get("edits", []):
                self._records[rec["edit_hash"]] = unstamped(LEDGER, rec)
            for key, rec in data.get("streams", {}).items():
                self._streams[key] = unstamped(STREAM, rec)

    def add(self, edit_hash: str, record: dict) -> None:
        super().add(edit_hash, record)
        self._save()

    def forget(self, edit_hash: str) -> None:
        super().forget(edit_hash)
        self._save()

    def keep_stream(self, key: str, record: dict) -> None:
        super().keep_stream(key, record)
        self._save()

    def _save(self) -> None:
        tmp = self.path.with_suffix(self.path.suffix + ".tmp")
        data = {
            "edits": [stamp(LEDGER, r) for r in self._records.values()],
            "streams": {k: stamp(STREAM, r) for k, r in self._streams.items()},
        }
        tmp.write_text(json.dumps(data, indent=1, ensure_ascii=False))
        os.replace(tmp, self.path)
