"""The normalized model both parsers produce, and the text helpers they share.

Parsers turn one log line into one small *event* (a dict, stored idempotently by record
id); ``build`` functions turn a session's events into these dataclasses, which ingest
writes to the ``sessions``/``turns``/``tool_calls``/``signals`` tables. Keeping the
per-line step context-free is what makes "ingest in pieces == ingest whole" hold.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

# Turn kinds: a human request, a slash command that made the agent work, a subagent's
# Claude-authored prompt, or agent work with no request in front of it (after compaction,
# at the start of a resumed file).
HUMAN, COMMAND, SUBAGENT, CONTINUATION = "human", "command", "subagent", "continuation"

ARGS_CHARS = 240  # args_summary cap
EXCERPT_CHARS = 600  # output_excerpt cap
EVIDENCE_CHARS = 200


class _Span:
    """Something with a time span that widens as timestamped records arrive."""

    started_at: str | None
    ended_at: str | None

    def touch(self, ts: str | None) -> None:
        if not ts:
            return
        if self.started_at is None or ts < self.started_at:
            self.started_at = ts
        if self.ended_at is None or ts > self.ended_at:
            self.ended_at = ts


@dataclass
class ToolCall:
    id: str
    name: str
    args_summary: str = ""
    exit_code: int | None = None
    is_error: bool = False
    output_excerpt: str = ""
    rejected: bool = False
    answered: bool = False


@dataclass
class Turn(_Span):
    idx: int
    kind: str = HUMAN
    started_at: str | None = None
    ended_at: str | None = None
    user_text: str = ""
    command: str = ""
    assistant_parts: list[str] = field(default_factory=list)
    tool_calls: list[ToolCall] = field(default_factory=list)
    skills: list[str] = field(default_factory=list)
    finished: bool = False
    interrupted: str = ""  # evidence text when the user interrupted
    api_error: str = ""
    input_tokens: int = 0
    output_tokens: int = 0

    @property
    def assistant_text(self) -> str:
        return "\n\n".join(p for p in self.assistant_parts if p)


@dataclass
class Signal:
    kind: str  # interrupt | tool_rejected | tool_failure | test_failure | correction | reask
    # | positive | abandonment
    turn_idx: int
    evidence: str


@dataclass
class Session(_Span):
    id: str
    source: str
    grp: str  # the ingest group (main session id) this row is rebuilt with
    parent_id: str | None = None
    kind: str = "main"
    project: str | None = None
    branch: str | None = None
    git_commit: str | None = None  # the commit the session started from (Codex session_meta)
    model: str | None = None
    cli_version: str | None = None
    title: str | None = None
    started_at: str | None = None
    ended_at: str | None = None
    turns: list[Turn] = field(default_factory=list)
    signals: list[Signal] = field(default_factory=list)
    input_tokens: int = 0
    output_tokens: int = 0
    unknown_records: int = 0


def iso_time(value: object) -> str | None:
    """``value`` when it is an ISO-8601 time as both tools write them, else None.

    Spans are compared as strings, so a placeholder such as ``"[trimmed]"`` (sanitized
    fixtures) would otherwise sort after every real time and become the session's end.
    """
    if type(value) is str and value[:4].isdigit() and value[4:5] == "-":
        return value
    return None


def clip(text: str, limit: int) -> str:
    """Cut ``text`` to ``limit`` characters, saying how much was cut (so size stays visible)."""
    if len(text) <= limit:
        return text
    return f"{text[:limit]}… [+{len(text) - limit} chars]"


_SYSTEM_REMINDER = re.compile(r"<system-reminder>.*?(?:</system-reminder>|\Z)", re.S)


def strip_reminders(text: str) -> str:
    """Remove ``<system-reminder>`` blocks the harness appends to user text."""
    if "<system-reminder>" not in text:
        return text
    return _SYSTEM_REMINDER.sub("", text).strip()


_SENTENCE_END = re.compile(r"(?<=[.!?;])\s|\n")


def first_sentence(text: str, limit: int = EVIDENCE_CHARS) -> str:
    """The first sentence (or line) of ``text``: where a reaction to the last answer lives."""
    text = text.strip()
    m = _SENTENCE_END.search(text)
    head = text[: m.start()] if m else text
    return head[:limit].strip()
