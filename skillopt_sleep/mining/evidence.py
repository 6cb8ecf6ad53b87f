"""Read the ingest tables into the shape mining needs: requests, their follow-ups, and the
outcome evidence attached to each.

A *request* is a human turn that asks for something. A turn right after a turn that drew a
``correction`` or ``reask`` signal is not a new request but the user's correction of the
previous answer: it is kept as evidence for that request (its words become rule judges)
and not clustered, or the corrections themselves would become a "recurring task".
"""

from __future__ import annotations

import json
import re
import sys
from collections import defaultdict
from dataclasses import dataclass, field
from typing import Any

import sqlite_utils

from session_ingest.signals import reaction
from skillopt_sleep.mining import fingerprint
from skillopt_sleep.mining.intents import intent
from skillopt_sleep.mining.judges import SHELL_TOOLS, Correction, command_head, rules_from_text

FAILURE_KINDS = {"interrupt", "tool_rejected", "test_failure", "correction", "reask", "abandonment"}
FOLLOW_UP_KINDS = {"correction", "reask"}
ACK_WORDS = {
    "thanks", "thank", "thx", "you", "perfect", "great", "ok", "okay", "lgtm", "nice", "good",
    "cool", "awesome", "yes", "yep", "sure", "looks", "fine", "works", "done", "that", "it",
}  # fmt: skip
# How a follow-up that states a rule usually begins ("no, …", "keep it under …", "use X").
_RULE_FOLLOW_UP = re.compile(
    r"^\W*(no\b|nope|not\b|don'?t|do not|never|always|use\b|keep\b|make it|too\b|start\b|"
    r"begin\b|also\b|and\b|but\b|instead|please (use|keep|don'?t|start)|the (subject|title|"
    r"first line)|it should|should|must|wrong)",
    re.IGNORECASE,
)


def is_ack(text: str) -> bool:
    """A bare acknowledgement ("thanks, perfect"): not a request."""
    words = re.findall(r"[a-z']+", text.lower())
    return 0 < len(words) <= 8 and all(w in ACK_WORDS for w in words)


def states_rule(text: str) -> bool:
    """A short follow-up that corrects the previous answer with an explicit rule."""
    text = text.strip()
    return len(text) < 400 and bool(_RULE_FOLLOW_UP.match(text)) and bool(rules_from_text(text, ""))


@dataclass
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


def _rows(db: sqlite_utils.Database, sql: str) -> list[dict[str, Any]]:
    return list(db.query(sql))


def load(db: sqlite_utils.Database, skills: frozenset[str] = frozenset()) -> Evidence:
    """Every human request in the store with its outcome evidence, oldest first.
    ``skills``: the user's skills on disk, besides those the store shows invoked."""
    turns = _rows(
        db,
        "select t.id, t.session_id, t.idx, t.started_at, t.user_text, t.assistant_text,"
        " t.skills, t.finished, t.command, coalesce(s.kind, 'main') as skind,"
        " coalesce(t.kind, 'human') as tkind,"
        " coalesce(s.project, '') as project, coalesce(s.branch, '') as branch"
        " from turns t left join sessions s on s.id = t.session_id"
        " order by t.session_id, t.idx",
    )
    signals: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for row in _rows(db, "select turn_id, kind, evidence from signals"):
        signals[row["turn_id"]].append(row)
    commands, work = _work(db)
    invoked = _skills_invoked(turns) | skills
    requests: list[Request] = []
    skipped = follow_ups = subagent = not_human = acks = 0
    current: Request | None = None
    prev_session = None
    prev_kinds: set[str] = set()
    after_command = False  # the last request was a /skill command, which ingest gives no signal
    for t in turns:
        if t["session_id"] != prev_session:
            current, prev_session, prev_kinds = None, t["session_id"], set()
            after_command = False
        kinds = {s["kind"] for s in signals.get(t["id"], [])}
        if t["skind"] == "subagent" or t["tkind"] == "subagent":
            subagent += 1
            continue
        skill = _skill_command(t, invoked)
        if t["tkind"] not in ("human", "") and skill is None:
            not_human += 1  # slash commands, continuations after compaction
            continue
        raw = (t["command"] if skill else t["user_text"]) or ""
        text = raw.strip()
        if skill is None and current is not None and is_ack(text):
            acks += 1
            current.signals["positive"] = current.signals.get("positive", 0) + 1
            prev_kinds = kinds
            continue
        seen = bool(prev_kinds & FOLLOW_UP_KINDS)  # ingest flagged the turn it follows
        flagged = seen or (after_command and (reaction(text) or ("",))[0] == "correction")
        after_command = skill is not None
        if skill is None and current is not None and (flagged or states_rule(text)):
            follow_ups += 1
            via = "correction signal" if flagged else "follow-up stating a rule"
            current.corrections.append(Correction(current.turn_id, text, via))
            if not seen:  # ingest did not see it; the request still failed first time
                current.signals["correction"] = current.signals.get("correction", 0) + 1
                current.accepted = None
            _absorb(current, t, kinds, commands)
            prev_kinds = kinds
            continue
        if current is None and is_ack(text):
            acks += 1
            prev_kinds = kinds
            continue
        prev_kinds = kinds
        cleaned, norm = intent(raw)
        if not norm:
            skipped += 1
            current = None
            continue
        skills = _json_skills(t["skills"]) + ([skill] if skill else [])
        current = Request(
            turn_id=t["id"],
            session_id=t["session_id"],
            started_at=t["started_at"] or "",
            text=raw,
            intent=cleaned,
            norm=norm,
            skills=skills,
            project=t["project"],
            branch=t["branch"],
        )
        _absorb(current, t, kinds, commands)
        current.fingerprint = list(work.get(t["id"], ()))
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
    turn, project, calls = None, "", []

    def close() -> None:
        if turn is not None:
            work[turn] = tuple(sys.intern(u) for u in fingerprint.units(calls, project))

    for tid, name, args, proj in rows:
        if tid != turn:
            close()
            turn, project, calls = tid, proj, []
        calls.append((name or "", args or ""))
        if (name or "").lower() in SHELL_TOOLS and (head := command_head(args)):
            commands[tid].add(head)
    close()
    return commands, work


def _absorb(req: Request, turn: dict[str, Any], kinds: set[str], commands: dict) -> None:
    """Fold one turn's outcome into the request it belongs to (itself or a follow-up)."""
    for k in kinds:
        req.signals[k] = req.signals.get(k, 0) + 1
    req.commands |= commands.get(turn["id"], set())
    bad = kinds & FAILURE_KINDS
    if turn["assistant_text"] and turn["finished"] and not bad:
        req.accepted = turn["assistant_text"]
    elif bad:
        req.accepted = None
    for s in _json_skills(turn["skills"]):
        if s not in req.skills:
            req.skills.append(s)


def _json_skills(raw: str | None) -> list[str]:
    try:
        return [str(s) for s in json.loads(raw or "[]")]
    except (ValueError, TypeError):
        return []


def _skills_invoked(turns: list[dict[str, Any]]) -> set[str]:
    """Every skill some turn of the store invoked (the ``Skill`` tool, ``$name``)."""
    return {s for t in turns for s in _json_skills(t["skills"])}


def _skill_command(turn: dict[str, Any], invoked: set[str]) -> str | None:
    """The skill a ``/name args`` command turn runs, when ``name`` is one of ``invoked``
    (the user's skills): the user asked for that skill's task (``/init``, ``/review`` … are
    not requests). Claude Code logs a user-invoked skill as a command, never as ``Skill``."""
    if turn["tkind"] != "command":
        return None
    name = (turn["command"] or "").strip().split(" ", 1)[0].lstrip("/")
    return name if name in invoked else None
