"""A held-out user who corrects the agent in their own words, as real Claude Code and Codex
logs with the ground truth of every turn.

    from benchmarks.users.heldout import write
    truth = write(Path("/tmp/user"), seed=0)
    # /tmp/user/claude/projects/-home-mara-src-ledgerline/<id>.jsonl
    # /tmp/user/codex/sessions/2026/04/07/rollout-2026-04-07T09-14-02-<id>.jsonl

Mara works on "ledgerline", a payments ledger (Python) and its web app (TypeScript), over
three weeks of April 2026 (weekdays and two Saturdays), in Claude Code and in Codex:

* ``commit-message``: 48 sessions, each pasting its own staged diff with a ticket key; four
  house rules (ticket key in brackets first, subject at most 60 characters, body wrapped at
  72, no co-author/"Generated with" trailer);
* ``ci-summary``: 20 sessions, each pasting its own failing CI log; three house rules (at
  most 60 words, no emoji, no headings);
* ``changelog-entry``: 18 sessions, each pasting GitHub's generated notes of one release;
  three house rules (every bullet ends with ``(#N)``, never the internal codename Kestrel,
  no @handles);
* 20 one-off requests.

In half the sessions of each kind the first answer breaks one or two house rules and Mara
corrects it; the next answer follows every house rule and is accepted (a "thanks", a new
request, or the session simply ends). Answers she does not correct follow every house rule.
Some sessions go on with a new request of no kind (commit it, rerun the job, tag the
release) or a question about the answer.

``write`` returns ``{"kinds": {kind: {"rules": [{"id", "text"}]}}, "turns": [...],
"sessions": [...]}``. A turn is ``{"session_id", "text", "role", "kind", "rules",
"answer_before", "answer_after"}``: ``text`` is the message exactly as logged; ``role`` is
``request`` (a new ask: a kind's request, a one-off, or a follow-up of no kind), ``correction``
(``rules``: the house rules it states), ``ack`` (bare acceptance) or ``other`` (a question
about the previous answer, not a task of its own); ``kind`` is the session's kind for its
request, corrections and acks, None for one-offs and follow-ups; ``answer_before`` is the
agent's answer the message follows (None for a session's first message) and
``answer_after`` the agent's reply to it. Held out: nothing in mining is tuned on it.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from datetime import UTC, date, datetime, timedelta
from pathlib import Path
from typing import Any

from benchmarks.users import changelog, ci, commits
from benchmarks.users.followups import FOLLOW_UPS, QUESTIONS
from benchmarks.users.logs import TZ, ClaudeSession, CodexSession, Command
from benchmarks.users.oneoffs import ONE_OFFS
from benchmarks.users.speech import ACK_REPLIES, Voice

KINDS: dict[str, tuple[tuple[str, str], ...]] = {
    "commit-message": (
        (
            commits.BRACKETS,
            "The subject starts with the ticket key in square brackets, e.g. `[LED-412] `.",
        ),
        (commits.SUBJECT_60, "The subject line is at most 60 characters long."),
        (commits.WRAP_72, "Every body line is at most 72 characters long."),
        (commits.NO_TRAILER, "No Co-authored-by or 'Generated with' trailer."),
    ),
    "ci-summary": (
        (ci.MAX_60_WORDS, "At most 60 words."),
        (ci.NO_EMOJI, "No emoji."),
        (ci.NO_HEADINGS, "No markdown headings."),
    ),
    "changelog-entry": (
        (changelog.PR_REF, "Every bullet ends with its PR number in parentheses, e.g. `(#412)`."),
        (
            changelog.NO_CODENAME,
            "Never mention Kestrel, the internal codename of the ledger engine.",
        ),
        (changelog.NO_HANDLES, "No @handles of contributors."),
    ),
}
# kind -> (sessions, sessions per tool); half of each kind's sessions are corrected
SIZES = {
    "commit-message": (48, {"claude": 36, "codex": 12}),
    "ci-summary": (20, {"codex": 14, "claude": 6}),
    "changelog-entry": (18, {"claude": 12, "codex": 6}),
}
N_ONE_OFFS = 20
HOME = "/home/mara/src"
AGENTS_MD = (
    "# ledgerline\n\n- Python 3.12; run the tests with `pytest -q`, lint with `ruff check .`.\n"
    "- Migrations are Alembic revisions in migrations/versions.\n"
    "- The web app lives in ../ledgerline-web (TypeScript, `npm test`)."
)
THINKING = {
    "commit-message": "The user pasted a staged diff and wants a commit message for it.",
    "ci-summary": "Let me find the first real error in the failing step and say what caused it.",
    "changelog-entry": "I'll group the merged PRs into Added, Changed and Fixed.",
    None: "Let me look at what is being asked.",
}
DAYS = [date(2026, 4, d) for d in range(6, 25) if date(2026, 4, d).weekday() < 5 or d in (11, 18)]


@dataclass
class Exchange:
    """One user message and the agent's reply to it."""

    text: str
    role: str
    kind: str | None
    reply: str
    rules: list[str] = field(default_factory=list)
    commands: tuple[Command, ...] = ()


@dataclass
class Session:
    kind: str | None
    tool: str
    start: datetime
    repo: str
    branch: str
    exchanges: list[Exchange]


class Planner:
    """Plans every session of the user from one seed."""

    def __init__(self, seed: int) -> None:
        self.rng = random.Random(seed)
        self.voice = Voice(self.rng)
        self.followups = {k: make() for k, make in FOLLOW_UPS.items()}
        self.questions = {k: list(v) for k, v in QUESTIONS.items()}
        for deck in (*self.followups.values(), *self.questions.values()):
            self.rng.shuffle(deck)

    def start(self, day: date) -> datetime:
        local = datetime(day.year, day.month, day.day, 8, 30, tzinfo=TZ)
        local += timedelta(minutes=self.rng.randrange(0, 630), seconds=self.rng.uniform(0, 60))
        return local.astimezone(UTC)

    def tools(self, kind: str) -> list[str]:
        out = [tool for tool, n in SIZES[kind][1].items() for _ in range(n)]
        self.rng.shuffle(out)
        return out

    def broken(self, kind: str) -> list[frozenset[str]]:
        """Per session, the house rules its first answer breaks (empty for half of them)."""
        n = SIZES[kind][0]
        rules = [r for r, _text in KINDS[kind]]
        out, deck = [], []
        for _ in range(n // 2):
            want = 2 if self.rng.random() < 0.33 else 1
            picked: list[str] = []
            while len(picked) < want:
                if not deck:
                    deck = self.rng.sample(rules, len(rules))
                rule = deck.pop()
                if rule not in picked:
                    picked.append(rule)
            out.append(frozenset(picked))
        out += [frozenset()] * (n - n // 2)
        self.rng.shuffle(out)
        return out

    def exchanges(
        self,
        kind: str,
        request: str,
        first: str,
        good: str,
        broken: frozenset[str],
        slots: dict[str, str],
        context: dict[str, Any],
    ) -> list[Exchange]:
        """The request, the correction if the first answer broke rules, and the tail."""
        out = [Exchange(request, "request", kind, first)]
        if broken:
            rules = self.rng.sample(sorted(broken), len(broken))
            said = self.voice.correction(rules, **slots)
            out.append(Exchange(said, "correction", kind, good, rules))
        if self.rng.random() < (0.6 if broken else 0.35):
            out.append(
                Exchange(self.voice.ack(bool(broken)), "ack", kind, self.rng.choice(ACK_REPLIES))
            )
        roll = self.rng.random()
        deck = self.followups[kind] if roll < 0.22 else self.questions[kind] if roll < 0.3 else []
        if deck:
            text, answer, commands = deck.pop()(context)
            role = "request" if roll < 0.22 else "other"
            out.append(Exchange(text, role, None, answer, commands=commands))
        return out

    def commit_sessions(self) -> list[Session]:
        kind, rng = "commit-message", self.rng
        out = []
        for change, tool, broken in zip(
            commits.changes(rng, SIZES[kind][0]), self.tools(kind), self.broken(kind), strict=True
        ):
            with_body = rng.random() < 0.7 or commits.WRAP_72 in broken  # fixed, not dropped
            good = commits.message(change, frozenset(), rng, tool, with_body)
            first = commits.message(change, broken, rng, tool, with_body) if broken else good
            request = self.voice.ask(kind, key=change.ticket, diff=change.diff(rng))
            slug = "-".join(change.subject.lower().split()[:3]).strip(".")
            branch = (
                f"{change.ticket.lower()}-{''.join(ch for ch in slug if ch.isalnum() or ch == '-')}"
            )
            changed = sum(1 for x in change.hunk.split("\n")[1:] if x[:1] in "+-")
            context = {
                "message": good,
                "sha": rng.randbytes(4).hex()[:7],
                "branch": branch,
                "repo": change.repo,
                "pr": rng.randint(600, 900),
                "key": change.ticket,
                "body": change.body,
                "lines": changed,
                "path": change.path,
            }
            ex = self.exchanges(kind, request, first, good, broken, {"key": change.ticket}, context)
            out.append(Session(kind, tool, self.start(rng.choice(DAYS)), change.repo, branch, ex))
        return out

    def ci_sessions(self) -> list[Session]:
        kind, rng = "ci-summary", self.rng
        out = []
        for failure, tool, broken in zip(
            ci.failures(rng, SIZES[kind][0]), self.tools(kind), self.broken(kind), strict=True
        ):
            start = self.start(rng.choice(DAYS))
            request = self.voice.ask(kind, log=failure.log(start - timedelta(minutes=9), rng))
            first, emoji = ci.summary(failure, broken, rng)
            run = rng.randint(9_100_000_000, 9_200_000_000)
            context = {
                "run": run,
                "issue": rng.randint(300, 500),
                "job": failure.job,
                "sha": rng.randbytes(4).hex()[:7],
            }
            ex = self.exchanges(
                kind, request, first, failure.summary, broken, {"emoji": emoji}, context
            )
            repo = "ledgerline-web" if failure.job.startswith(("web", "e2e")) else "ledgerline"
            out.append(Session(kind, tool, start, repo, "main", ex))
        return out

    def changelog_sessions(self) -> list[Session]:
        kind, rng = "changelog-entry", self.rng
        n = SIZES[kind][0]
        starts = sorted(self.start(rng.choice(DAYS)) for _ in range(n))
        days = [s.astimezone(TZ).date() for s in starts]
        out = []
        for release, start, tool, broken in zip(
            changelog.releases(rng, days), starts, self.tools(kind), self.broken(kind), strict=True
        ):
            request = self.voice.ask(kind, version=release.version, draft=release.draft())
            good = changelog.entry(release, frozenset(), rng)
            first = changelog.entry(release, broken, rng) if broken else good
            numbers = [n for n, _a, _p in release.prs]
            highlight = next(p.text for _n, _a, p in release.prs if not p.kestrel)
            context = {
                "version": release.version,
                "day": release.day.isoformat(),
                "pr": numbers[-1] + rng.randint(1, 5),
                "n_prs": len(numbers),
                "previous": release.previous,
                "highlight": highlight[0].lower() + highlight[1:],
            }
            slots = {"n": str(rng.choice(numbers))}
            ex = self.exchanges(kind, request, first, good, broken, slots, context)
            out.append(Session(kind, tool, start, "ledgerline", f"release/{release.version}", ex))
        return out

    def one_off_sessions(self) -> list[Session]:
        tools = ["claude"] * 12 + ["codex"] * (N_ONE_OFFS - 12)
        self.rng.shuffle(tools)
        out = []
        for (request, answer, commands), tool in zip(
            self.rng.sample(ONE_OFFS, N_ONE_OFFS), tools, strict=True
        ):
            ex = [Exchange(request, "request", None, answer, commands=commands)]
            if self.rng.random() < 0.3:
                ex.append(
                    Exchange(self.voice.ack(False), "ack", None, self.rng.choice(ACK_REPLIES))
                )
            out.append(
                Session(None, tool, self.start(self.rng.choice(DAYS)), "ledgerline", "main", ex)
            )
        return out


PAUSES = {"request": (30, 400), "correction": (20, 180), "ack": (8, 60), "other": (15, 120)}


def write(root: Path, seed: int) -> dict[str, Any]:
    """Write the user's sessions under ``root/claude`` and ``root/codex``; the ground truth."""
    planner = Planner(seed)
    rng = planner.rng
    sessions = (
        planner.commit_sessions()
        + planner.ci_sessions()
        + planner.changelog_sessions()
        + planner.one_off_sessions()
    )
    sessions.sort(key=lambda s: s.start)
    turns: list[dict[str, Any]] = []
    written: list[dict[str, Any]] = []
    for s in sessions:
        cwd = f"{HOME}/{s.repo}"
        log: ClaudeSession | CodexSession
        if s.tool == "claude":
            log = ClaudeSession(rng, cwd, s.branch, s.start)
        else:
            log = CodexSession(rng, cwd, s.branch, s.start, AGENTS_MD)
        before: str | None = None
        for i, ex in enumerate(s.exchanges):
            if i:
                log.wait(rng.uniform(*PAUSES[ex.role]))
            if isinstance(log, ClaudeSession):
                log.prompt(ex.text)
                thinking = THINKING[s.kind] if i == 0 and rng.random() < 0.6 else None
                log.answer(ex.reply, thinking, ex.commands)
            else:
                log.turn(ex.text, ex.reply, ex.commands)
            turns.append(
                {
                    "session_id": log.sid,
                    "text": ex.text,
                    "role": ex.role,
                    "kind": ex.kind,
                    "rules": list(ex.rules),
                    "answer_before": before,
                    "answer_after": ex.reply,
                }
            )
            before = ex.reply
        path = log.write(root / s.tool)
        written.append(
            {
                "session_id": log.sid,
                "source": s.tool,
                "kind": s.kind,
                "path": str(path.relative_to(root)),
            }
        )
    kinds = {k: {"rules": [{"id": r, "text": t} for r, t in rules]} for k, rules in KINDS.items()}
    return {"kinds": kinds, "turns": turns, "sessions": written}
