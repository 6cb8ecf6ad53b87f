"""Read the ingest tables into the shape mining needs: requests, their follow-ups, and the
outcome evidence attached to each.

A *request* is a human turn that asks for something. The turn after an answer is read by
``followups.classify``: a correction ("no emoji", "too long", "I said 50 chars") is not a
new request but evidence for the request it follows (its words become rule judges, the
answer it follows is one the user did not accept) and is never clustered, or the
corrections themselves would become a "recurring task"; a bare "thanks" is acceptance.
Ingest's own ``correction`` / ``reask`` signal on the answer counts too, unless the turn
plainly asks for more work ("now do the changelog").

The accepted outcome of a request is its last answer before the user accepted it, moved
on, or the session ended; never an answer the user corrected, and never one that was
interrupted or failed.
"""

from __future__ import annotations

import functools
import json
import sqlite3
import sys
from collections import defaultdict
from dataclasses import dataclass, field

import sqlite_utils

from skillopt_sleep.mining import fingerprint, followups
from skillopt_sleep.mining.intents import intent
from skillopt_sleep.mining.judges import Correction, command_head

FAILURE_KINDS = {"interrupt", "tool_rejected", "test_failure", "correction", "reask", "abandonment"}
FOLLOW_UP_KINDS = {"correction", "reask"}
# What makes an answer one the user cannot have accepted, whatever they said next.
BROKEN_KINDS = FAILURE_KINDS - FOLLOW_UP_KINDS
CLASSIFIED = 65536  # follow-ups (and the answers they follow) kept read at once


@dataclass(slots=True)  # one per request: 150,000 of them at 100,000 sessions
class Request:
    turn_id: str
    session_id: str
    started_at: str
    text: str  # user_text as ingested (redacted)
    intent: str  # cleaned
    norm: str  # normalized, for clustering
    skills: list[str]
    project: str
    branch: str
    signals: dict[str, int] = field(default_factory=dict)  # over the request and follow-ups
    corrections: list[Correction] = field(default_factory=list)
    accepted: str | None = None  # the answer the user moved on from
    commands: set[str] = field(default_factory=set)
    fingerprint: list[str] = field(default_factory=list)  # what the agent did (``fingerprint``)

    @property
    def day(self) -> str:
        return (self.started_at or "")[:10]

    @property
    def failed(self) -> bool:
        return any(k in FAILURE_KINDS for k in self.signals)


@dataclass
class Evidence:
    requests: list[Request]
    skipped_empty: int  # turns with no human request left after cleaning
    follow_ups: int  # correction turns folded into the request they correct
    subagent_turns: int  # prompts written by an agent, not a person
    other_turns: int  # slash-command and continuation turns: not requests
    acknowledgements: int = 0  # "thanks, perfect": not requests


def load(db: sqlite_utils.Database, skills: frozenset[str] = frozenset()) -> Evidence:
    """Every human request in the store with its outcome evidence, oldest first.
    ``skills``: the user's skills on disk, besides those the store shows invoked."""
    signals: dict[str, set[str]] = defaultdict(set)
    for turn_id, kind in db.execute("select turn_id, kind from signals"):
        signals[turn_id].add(kind)
    commands, work = _work(db)
    invoked = _skills_invoked(db) | skills
    # read as a stream: every turn's answer at once held hundreds of MB at 100,000 sessions;
    # as sqlite3 rows, read by name without a dict built for each of them
    turns = db.conn.cursor()
    turns.row_factory = sqlite3.Row
    turns.execute(
        "select t.id, t.session_id, t.idx, t.started_at, t.user_text, t.assistant_text,"
        " t.skills, t.finished, t.command, coalesce(s.kind, 'main') as skind,"
        " coalesce(t.kind, 'human') as tkind,"
        " coalesce(s.project, '') as project, coalesce(s.branch, '') as branch"
        " from turns t left join sessions s on s.id = t.session_id"
        " order by t.session_id, t.idx"
    )
    # a follow-up read once per answer it follows: the same words after the same answer
    # (a kind's corrections, its acknowledgements) recur across sessions
    classify = functools.lru_cache(maxsize=CLASSIFIED)(followups.classify)
    # an answer kept (accepted, corrected) is held once however often it was given
    answers: dict[str, str] = {}
    # a request's cleaning read once per text: requests are asked again word for word
    cleaned_of: dict[str, tuple[str, str]] = {}
    requests: list[Request] = []
    skipped = follow_ups = subagent = not_human = acks = 0
    current: Request | None = None
    prev_session = None
    prev_kinds: set[str] = set()
    last_answer = ""  # the answer the user saw last in this session
    for t in turns:
        if t["session_id"] != prev_session:
            current, prev_session, prev_kinds, last_answer = None, t["session_id"], set(), ""
        kinds = set(signals.get(t["id"], ()))
        if t["skind"] == "subagent" or t["tkind"] == "subagent":
            subagent += 1
            continue
        skill = _skill_command(t, invoked)
        if t["tkind"] not in ("human", "") and skill is None:
            not_human += 1  # slash commands, continuations after compaction
            continue
        raw = (t["command"] if skill else t["user_text"]) or ""
        text = raw.strip()
        flagged = bool(prev_kinds & FOLLOW_UP_KINDS)
        if skill is not None:
            kind = followups.REQUEST  # the user asked for one of their skills' task
        elif current is None:
            kind = None
        elif flagged and not followups.is_new_work(text):
            # ingest saw the user react to the answer: a correction unless it only
            # acknowledges it (the one thing ``classify`` would decide here, so its
            # dearer readings are not made)
            ack = followups.is_ack(text, after_answer=True)
            kind = followups.ACK if ack else followups.CORRECTION
        else:
            kind = classify(text, last_answer)
        prev_kinds = kinds
        if current is not None and kind == followups.ACK:
            acks += 1
            current.signals["positive"] = current.signals.get("positive", 0) + 1
            continue
        if current is not None and kind == followups.CORRECTION:
            follow_ups += 1
            via = "correction signal" if flagged else "follow-up correcting the answer"
            current.corrections.append(
                Correction(current.turn_id, text, via, answers.setdefault(last_answer, last_answer))
            )
            if not flagged:  # ingest did not see it; the request still failed first time
                current.signals["correction"] = current.signals.get("correction", 0) + 1
            current.accepted = None  # the corrected answer is never the accepted one
            _absorb(current, t, kinds, commands, answers)
            last_answer = t["assistant_text"] or ""
            continue
        last_answer = t["assistant_text"] or ""
        if current is None and followups.is_ack(text):
            acks += 1
            continue
        if raw not in cleaned_of:
            cleaned_of[raw] = intent(raw)
        cleaned, norm = cleaned_of[raw]
        if not norm:
            skipped += 1
            current = None
            continue
        current = Request(
            turn_id=t["id"],
            session_id=t["session_id"],
            started_at=t["started_at"] or "",
            text=raw,
            intent=cleaned,
            norm=norm,
            skills=_json_skills(t["skills"]) + ([skill] if skill else []),
            project=t["project"],
            branch=t["branch"],
            fingerprint=list(work.get(t["id"], ())),
        )
        _absorb(current, t, kinds, commands, answers)
        requests.append(current)
    requests.sort(key=lambda r: (r.started_at, r.turn_id))
    return Evidence(requests, skipped, follow_ups, subagent, not_human, acks)


def _work(db: sqlite_utils.Database) -> tuple[dict[str, set[str]], dict[str, tuple[str, ...]]]:
    """Per turn, the heads of the commands it ran (for the judges) and its fingerprint
    units; read as a stream, one turn at a time, so 100,000 sessions' tool calls are never
    held at once (their units are interned: they repeat across turns)."""
    commands: dict[str, set[str]] = defaultdict(set)
    work: dict[str, tuple[str, ...]] = {}
    rows = db.execute(
        "select c.turn_id, c.name, c.args_summary, coalesce(s.project, '') from tool_calls c"
        " left join sessions s on s.id = c.session_id where not c.is_error"
        " order by c.turn_id, c.idx"
    )
    turn, project = None, ""
    calls: list[tuple[str, str]] = []

    def close() -> None:
        if turn is not None:
            work[turn] = tuple(sys.intern(u) for u in fingerprint.units(calls, project))

    for tid, name, args, proj in rows:
        if tid != turn:
            close()
            turn, project, calls = tid, proj, []
        calls.append((name or "", args or ""))
        if (name or "").lower() in fingerprint.SHELL_TOOLS and (head := command_head(args)):
            commands[tid].add(head)
    close()
    return commands, work


def _json_skills(raw: str | None) -> list[str]:
    if not raw or raw == "[]":  # most turns invoke no skill
        return []
    try:
        return [str(s) for s in json.loads(raw or "[]")]
    except (ValueError, TypeError):
        return []


def _skills_invoked(db: sqlite_utils.Database) -> set[str]:
    """Every skill some turn of the store invoked (the ``Skill`` tool, ``$name``)."""
    rows = db.execute("select distinct skills from turns where skills is not null")
    return {s for (raw,) in rows for s in _json_skills(raw)}


def _skill_command(turn: sqlite3.Row, invoked: set[str] | frozenset[str]) -> str | None:
    """The skill a ``/name args`` command turn runs, when ``name`` is one of ``invoked``
    (the user's skills): the user asked for that skill's task (``/init``, ``/review`` … are
    not requests). Claude Code logs a user-invoked skill as a command, never as ``Skill``."""
    if turn["tkind"] != "command":
        return None
    name = (turn["command"] or "").strip().split(" ", 1)[0].lstrip("/")
    return name if name in invoked else None


def _absorb(
    req: Request, turn: sqlite3.Row, kinds: set[str], commands: dict, answers: dict[str, str]
) -> None:
    """Fold one turn's outcome into the request it belongs to (itself or a follow-up);
    ``answers``: the answers kept so far, each held once."""
    for k in kinds:
        req.signals[k] = req.signals.get(k, 0) + 1
    req.commands |= commands.get(turn["id"], set())
    # The latest answer stands until the user corrects it (set to None by the caller then);
    # one that was interrupted, rejected or failed its tests was not accepted.
    ok = turn["assistant_text"] and turn["finished"] and not kinds & BROKEN_KINDS
    req.accepted = (
        answers.setdefault(turn["assistant_text"], turn["assistant_text"]) if ok else None
    )
    for s in _json_skills(turn["skills"]):
        if s not in req.skills:
            req.skills.append(s)
