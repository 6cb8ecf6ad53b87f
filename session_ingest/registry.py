"""The log sources ingest knows, by name (``"claude"``, ``"codex"``)."""

from __future__ import annotations

from session_ingest import claude, codex
from session_ingest.source import Source

SOURCES: dict[str, Source] = {s.name: s for s in (claude.SOURCE, codex.SOURCE)}


def get(name: str) -> Source:
    """The source called ``name``; a ``ValueError`` naming the known ones otherwise."""
    try:
        return SOURCES[name]
    except KeyError:
        raise ValueError(f"unknown log source {name!r} (known: {', '.join(SOURCES)})") from None
