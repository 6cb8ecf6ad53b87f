"""One parsed record → (record id, group, event): the step every line of every file takes.

The record's shape is checked first (the source's ``problem``); a record that fails raises
``BadRecord`` and is counted by the caller, as is any other exception a parser raises on
a record it did not expect, so no record can stop a pass. Ids: a Claude record is keyed
by its ``uuid`` *within its session* (the store's key is (group, id)), so a uuid that a
forked or resumed session copied into another session is kept in both; a record without
an id of its own is keyed by a digest of its line and group.
"""

from __future__ import annotations

import hashlib
from typing import Any

import orjson

from session_ingest.redact import redact, redact_clip

RAW_CHARS = 500  # excerpt kept of a record kind no parser knows
_LEAF_CHARS = 600
_MAX_DEPTH = 12


class BadRecord(Exception):
    """A record whose fields have the wrong shape: skipped and counted, never fatal."""


_blake2b = hashlib.blake2b
_from_bytes = int.from_bytes
_ID_HEADS: dict[tuple[bytes, str], Any] = {}  # (prefix, group) -> hash state after them


def hash64(*parts: bytes) -> int:
    return _from_bytes(_blake2b(b"".join(parts), digest_size=8).digest(), "big", signed=True)


def line_id(prefix: bytes, group: str, line: bytes | memoryview) -> int:
    """Id of a record that has none of its own: its group and a digest of the line.

    Hashing the first and last 1 KiB plus the length (not every byte of a 50 KB tool
    output) keeps this off the hot path; lines carry timestamps and call ids near the
    start, so distinct records of one session do not collide. The digest is that of
    ``prefix + group + b"\\0" + <those bytes>``; the hash state after the group's part is
    kept and copied, so each line hashes only its own bytes.
    """
    head = _ID_HEADS.get((prefix, group))
    if head is None:
        if len(_ID_HEADS) >= 4096:
            _ID_HEADS.clear()
        head = _blake2b(b"".join((prefix, group.encode(), b"\0")), digest_size=8)
        _ID_HEADS[(prefix, group)] = head
    h = head.copy()
    n = len(line)
    if n > 2048:
        h.update(line[:1024])
        h.update(line[-1024:])
        h.update(b"%d" % n)
    else:
        h.update(line)
    return _from_bytes(h.digest(), "big", signed=True)


def to_event(
    src: Any, obj: dict[str, Any], line: Any, ctx: Any, group: str | None
) -> tuple[str, int, dict[str, Any] | None]:
    """(group, record id, event) of one record of source ``src`` (a ``source.Source``); the
    event is None for kinds no session needs. ``ctx`` is the file's context; ``group`` the
    file's session once its first good record has decided it (one-session-per-file
    sources)."""
    problem = src.problem(obj)
    if problem is not None:
        raise BadRecord(f"wrong type: {problem}")
    grp, ident, data = src.event(obj, line, ctx, group)
    if data is not None and data.get("k") == "unk":
        data["raw"] = unknown_excerpt(obj)
    return grp, ident, data


def redact_values(value: Any) -> Any:
    """``value`` (a stored event) with every string in it redacted again."""
    if isinstance(value, str):
        return redact(value)
    if isinstance(value, dict):
        return {k: redact_values(v) for k, v in value.items()}
    if isinstance(value, list):
        return [redact_values(v) for v in value]
    return value


def unknown_excerpt(obj: Any) -> str:
    """A short, redacted view of a record no parser knows, made from its *decoded* values.

    The raw line is not used: JSON may spell a secret with escapes (``\\u0073k-…``,
    ``:\\/\\/``) that no rule sees in the raw text. Every string is redacted on its own,
    then the re-encoded whole once more (a ``"password": "…"`` pair spans two strings).
    """
    text = orjson.dumps(_redacted(obj, 0)).decode()
    return redact_clip(text, RAW_CHARS)


def _redacted(value: Any, depth: int) -> Any:
    if isinstance(value, str):
        return redact_clip(value, _LEAF_CHARS)
    if depth >= _MAX_DEPTH:
        return "…"
    if isinstance(value, dict):
        return {redact_clip(str(k), 100): _redacted(v, depth + 1) for k, v in value.items()}
    if isinstance(value, list):
        return [_redacted(v, depth + 1) for v in value[:50]]
    if isinstance(value, int) and not -(1 << 63) <= value < 1 << 63:
        return str(value)  # beyond what orjson writes
    return value
