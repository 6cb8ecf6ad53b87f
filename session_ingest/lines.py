"""One log line's bytes → records, the careful way, and the tally of lines that fail.

The read loop in ``ingest.py`` parses the common case (a valid JSON line) itself; a line
that does not parse comes here. ``parse_careful`` repairs bad UTF-8 and lone surrogates,
drops base64 image data from huge lines, and recovers a record glued to a truncated one:
the agents append, so after a crash mid-write the next record lands right after the
fragment on the same line (``{"type":"us{"type":"user",…}``). ``FileProblems`` counts the
bad lines and records of one file by reason, so a file with a thousand bad lines yields
one message, not a thousand.
"""

from __future__ import annotations

import re
from typing import Any

import orjson

BIG_LINE = 256 << 10  # lines this long get base64 image data cut before parsing
_B64 = re.compile(rb'"(data|image_url|url)":"(?:data:[^",]{0,100},)?[A-Za-z0-9+/=\\]{2048,}"')
_SURROGATE = re.compile(r"\\u[dD][89a-fA-F][0-9a-fA-F]{2}")
# Where a record can start inside a bad line: ``{"`` right after a byte that cannot come
# before ``{`` in valid JSON (only ``:``, ``,``, ``[`` or whitespace can). Inside one valid
# record no such place exists, so these are the seams between a fragment and a record.
_BEFORE_OBJECT = frozenset(b":,[ \t\r\n")
_SPACE = frozenset(b" \t\r\n")
MAX_SEAMS = 64  # seams tried, from the end of the line
MAX_BRACES = 100_000  # ``{"`` looked at, from the end: bounds the work on a huge bad line

MALFORMED = "malformed JSON"
REPAIRED = "invalid UTF-8 or surrogate repaired"
TRUNCATED = "truncated record before a complete one"


def _loads(line: bytes) -> tuple[Any, str | None]:
    try:
        return orjson.loads(line), None
    except orjson.JSONDecodeError:
        pass
    text = line.decode("utf-8", "replace")
    text = _SURROGATE.sub(r"\\ufffd", text)
    try:
        return orjson.loads(text), REPAIRED
    except orjson.JSONDecodeError:
        return None, MALFORMED


def parse_careful(line: bytes | memoryview) -> tuple[list[tuple[int, Any]], str | None]:
    """The records in a line the fast path could not parse, each with its offset in the
    line, and the problem to count (None when nothing was lost or repaired)."""
    raw = bytes(line)
    if len(raw) > BIG_LINE:
        raw = _B64.sub(rb'"\1":"[base64 dropped]"', raw)
    obj, err = _loads(raw)
    if err != MALFORMED:
        return [(0, obj)], err
    for at in _seams(raw):  # the appended record is the last one on the line
        tail, tail_err = _loads(raw[at:])
        if not (isinstance(tail, dict) and "type" in tail):  # every record has a type
            continue
        head, head_err = _loads(raw[:at])
        if isinstance(head, dict):  # a whole record that only lacked its newline
            return [(0, head), (at, tail)], head_err or tail_err
        return [(at, tail)], TRUNCATED
    return [], MALFORMED


def _seams(raw: bytes) -> list[int]:
    """Seams in ``raw``, last first (see ``_BEFORE_OBJECT``)."""
    out: list[int] = []
    at = len(raw)
    for _ in range(MAX_BRACES):
        at = raw.rfind(b'{"', 0, at)
        if at <= 0 or len(out) >= MAX_SEAMS:
            break
        j = at - 1
        while j > 0 and raw[j] in _SPACE:
            j -= 1
        if raw[j] not in _BEFORE_OBJECT:
            out.append(at)
    return out


class FileProblems:
    """Bad lines and records of one file, counted by reason with their first offsets."""

    SHOWN = 3  # offsets quoted per reason

    def __init__(self) -> None:
        self.count = 0
        self.by_reason: dict[str, list[int]] = {}  # reason -> [count, first offsets…]

    def add(self, reason: str, offset: int) -> None:
        self.count += 1
        seen = self.by_reason.get(reason)
        if seen is None:
            self.by_reason[reason] = [1, offset]
        else:
            seen[0] += 1
            if len(seen) <= self.SHOWN:
                seen.append(offset)

    def summary(self, name: str) -> str:
        """``name: 3 bad lines skipped: malformed JSON ×2 (bytes 0, 812); …`` (one line)."""
        parts = []
        for reason, (n, *offsets) in self.by_reason.items():
            where = ", ".join(str(o) for o in offsets) + (", …" if n > len(offsets) else "")
            parts.append(f"{reason} ×{n} (byte {where})")
        noun = "bad line" if self.count == 1 else "bad lines"
        return f"{name}: {self.count} {noun} skipped or repaired: " + "; ".join(parts)
