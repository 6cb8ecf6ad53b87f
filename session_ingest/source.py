"""What a log source is: the small interface each agent's module implements.

One module per source (``claude.py``, ``codex.py``) ends with a ``SOURCE = Source(...)``;
``registry.py`` lists them. Ingest knows nothing about either tool beyond this: it finds
files with ``log_dirs``/``is_log``, reads lines, and hands every record to ``event``; the
rows of a session group come from ``build``. A new agent is a new module and one line in
the registry.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from session_ingest.model import Session

# (record, its line's bytes, the file's context, the file's group so far) → (group, record
# id, event); the event is None for a kind no session needs. ``BadRecord`` for a bad one.
EventFn = Callable[[dict[str, Any], Any, Any, "str | None"], tuple[str, int, "dict | None"]]


def _never(_path: str) -> bool:
    return False


@dataclass(frozen=True)
class Source:
    """One agent's session logs: where they are, line → event, events → sessions."""

    name: str
    # the tool's home (``~/.claude``, ``~/.codex``) → the directories holding its logs
    log_dirs: Callable[[Path], list[Path]]
    # a file name under those directories → is it a session log
    is_log: Callable[[str], bool]
    # what a file's records may depend on besides themselves: (path, max_text_chars) → ctx
    context: Callable[[str, int], Any]
    # a raw line of a kind that is never stored: skipped without parsing it
    skip_line: Callable[[Any], bool]
    # the first field a parser reads whose JSON type is wrong, or None
    problem: Callable[[dict[str, Any]], str | None]
    event: EventFn
    # one session group's events (file order) → its sessions
    build: Callable[[str, list[dict[str, Any]]], list[Session]]
    # directory names under a log directory that hold no session logs
    skip_dirs: frozenset[str] = frozenset()
    # one file is one session, named by its first good record (stored in files.session_id)
    file_is_session: bool = False
    # a file holding one JSON object rather than lines, and its records: obj → (group, records)
    whole_file: Callable[[str], bool] = _never
    whole_records: Callable[[dict[str, Any], str], tuple[str, Iterable[dict[str, Any]]]] | None = (
        None
    )
