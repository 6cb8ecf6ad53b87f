"""A fingerprint of the part of a log file a pass consumed, to tell growth from rewriting.

A grown file is read from the offset the last pass stopped at, which is right only when
the bytes before that offset are still the ones read: an agent (or a user) that rewrites
a log in place (same inode, new content) and lets it grow would otherwise have its new
records before the old offset skipped. The fingerprint is a hash of a few KB of the
consumed prefix (its head, the bytes just before the offset, and samples between them; the
whole prefix when it is short), kept per file; a pass checks it only when the file's size
or mtime changed, so a re-scan of unchanged files still costs one ``stat`` each. When it
does not match, the file is read again from 0 and its records are de-duplicated by id.
"""

from __future__ import annotations

import hashlib
import os

WHOLE = 16 << 10  # a prefix up to this long is hashed whole
EDGE = 4 << 10  # bytes hashed at the head and just before the offset
SAMPLES = 8  # evenly spaced pieces in between …
SAMPLE = 64  # … of this many bytes


def _ranges(end: int) -> list[tuple[int, int]]:
    """(start, length) of the bytes of ``[0, end)`` the fingerprint covers."""
    if end <= WHOLE:
        return [(0, end)]
    middle = [(end * k // (SAMPLES + 1), SAMPLE) for k in range(1, SAMPLES + 1)]
    return [(0, EDGE), *middle, (end - EDGE, EDGE)]


def fingerprint(fd: int, end: int) -> int | None:
    """The fingerprint of bytes ``[0, end)`` of the open file ``fd``; None when they cannot
    be read (the file shrank under us, or an I/O error): then nothing is trusted."""
    h = hashlib.blake2b(b"%d\0" % end, digest_size=8)
    try:
        for at, n in _ranges(end):
            data = os.pread(fd, n, at)
            if len(data) != n:
                return None
            h.update(data)
    except OSError:
        return None
    return int.from_bytes(h.digest(), "big", signed=True)
