"""A generated corpus of Claude Code and Codex session logs, in the tools' real JSONL shapes.

    from benchmarks.corpus import write_corpus
    info = write_corpus(home, n_sessions=30, seed=0)   # home/.claude/projects/..., home/.codex/...

Several recurring task kinds are asked in paraphrases with varying details (files, bug
numbers, packages), spread over sessions and days, with user corrections that state rules
("use pytest not unittest", "keep it under 80 words, as bullet points") — the material
mining turns into replay tasks with rule judges. One-off requests made of made-up words sit
among them. Sessions hold one to a few requests; acknowledgements ("thanks") follow some
answers. Deterministic by seed; any scale (30 sessions for tests, 2,000 for benchmarks).

The records are written by the one session-log writer, the bundled samples' generator
(``skillopt_sleep/data/samples/generate.py``: ``Claude`` for Claude Code 2.1.x, one record
per content block, ``Skill`` tool calls; ``codex_records`` for Codex 0.12x rollouts,
``session_meta``, ``turn_context``, ``response_item``, ``event_msg``); this module only
plans what the sessions say. Nothing here is real user data.
"""

from __future__ import annotations

import json
import random
import uuid
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

from skillopt_sleep.data.samples.generate import Claude, Exchange, codex_records, write_jsonl

NS = uuid.UUID("0b7d3f0e-3c55-4b8e-9f61-1e7a9c2d5a44")


def uid(*parts: object) -> str:
    return str(uuid.uuid5(NS, "/".join(map(str, parts))))


@dataclass(frozen=True)
class Kind:
    name: str
    weight: float
    sources: tuple[str, ...]  # which tools it is asked in
    templates: tuple[str, ...]
    # follow-ups that state a rule, each with the first attempt it corrects (which breaks
    # the rule: mining keeps a judge only when the corrected answer fails it)
    corrections: tuple[tuple[str, str], ...]
    command: tuple[str, str]  # (shell command, its output)
    answer: str
    skill: str | None = None  # a user-written Skill the agent invokes (Claude)


KINDS: tuple[Kind, ...] = (
    Kind(
        "regression-test",
        3.0,
        ("claude", "codex"),
        (
            "add a pytest regression test for the {thing} bug in {file}",
            "write a regression test that reproduces issue #{num} in {module}",
            "please add a regression test covering the crash in {func}",
            "can you add a failing regression test for bug {num} before I fix {func}",
            "regression test for the {thing} problem reported in issue {num}, in {file}",
        ),
        (
            (
                "no, use pytest not unittest, and put it under tests/",
                "Added a unittest.TestCase for the bug in regression_test.py.",
            ),
            ("use pytest, not nose", "Added a nose test for the bug."),
            ("always run `pytest -x` before you answer", "Added the test; I did not run it."),
        ),  # fmt: skip
        ("uv run pytest -x -q", "1 passed in 0.08s"),
        "Added a regression test that fails on main and passes with the fix.",
    ),
    Kind(
        "commit-message",
        3.0,
        ("claude",),
        (
            "write a conventional commit message for the staged changes in {file}",
            "draft a commit msg for what I have staged in {module}",
            "commit message for the staged diff touching {func} please",
            "can you write the commit message for my staged {thing} fix",
        ),
        (
            (
                "no, use imperative, not past-tense. don't use emojis",
                "Fixed negative readings \U0001f389\n\nClamp only when rendering the chart.",
            ),
            (
                "the subject line must be under 50 chars",
                "fix: keep negative readings when the chart clamps values below zero",
            ),
        ),  # fmt: skip
        ("git diff --staged", "1 file changed, 4 insertions(+), 2 deletions(-)"),
        "fix: keep negative readings\n\nClamp only when rendering the chart.",
        skill="commit-message",
    ),
    Kind(
        "ci-summary",
        2.0,
        ("codex", "claude"),
        (
            "summarize the failing CI log for job {num}",
            "why did CI fail on {branch}? summarize the log",
            "read the failing CI run {num} and summarize what broke in {module}",
            "give me a short summary of the red CI pipeline on {branch}",
        ),
        (
            (
                "too long. keep it under 80 words, as bullet points",
                "The job test (3.12) failed because the API renamed a field that the client still "
                "reads under its old name, so every lookup raised a KeyError in the test that "
                "checks station lookups, and the fix is to map the new field name in the client "
                "module, after which the suite should pass again on the next push to the branch, "
                "which I would suggest doing together with a test that pins the new name so the "
                "same rename cannot break the job silently again.",
            ),
            (
                "no, always include a Root cause line",
                "- Job `test (3.12)` failed\n- Fix: map the new name",
            ),
        ),  # fmt: skip
        ("gh run view --log-failed", "FAILED tests/test_api.py::test_lookup - KeyError"),
        "- Job `test (3.12)` failed\n- Root cause: a renamed field\n- Fix: map the new name",
    ),
    Kind(
        "changelog",
        1.0,
        ("claude",),
        (
            "add a changelog entry for the {thing} change in {module}",
            "update the changelog with the {func} fix for release {ver}",
            "write the changelog notes for version {ver}",
        ),
        (("use towncrier, not CHANGELOG.md edits", "Added the entry to CHANGELOG.md."),),
        ("git log --oneline -5", "a1b2c3d fix parser\n9f8e7d6 add export"),
        "Added a news fragment describing the change.",
    ),
    Kind(
        "dependency-bump",
        1.0,
        ("codex",),
        (
            "bump {pkg} to the latest version and fix what breaks",
            "upgrade the {pkg} dependency to {ver}",
            "update {pkg} to {ver} in pyproject and run the tests",
        ),
        (
            ("use uv not pip", "Bumped it with pip install -U and updated requirements.txt."),
            ("always run `uv lock` after a bump", "Bumped the dependency; tests pass."),
        ),
        ("uv lock", "Resolved 42 packages in 310ms"),
        "Bumped the dependency and updated the lock file; tests pass.",
    ),
)

_THINGS = [
    "timezone offset",
    "negative height",
    "empty header",
    "unicode filename",
    "null config",
    "double click",
    "stale cache",
    "trailing slash",
    "leap year",
    "overflow",
    "race condition",
    "retry loop",
    "missing locale",
    "duplicate row",
    "rounding",
    "late webhook",
    "expired token",
    "large upload",
]
_MODULES = [
    "harbor_api.schedule",
    "tidepool.chart",
    "tidepool.parser",
    "billing.invoice",
    "auth.session",
    "export.csv",
    "ingest.worker",
    "search.index",
    "ui.sidebar",
    "notify.email",
    "geo.tiles",
    "sync.queue",
]
_FILES = [m.replace(".", "/") + ".py" for m in _MODULES]
_FUNCS = [
    "parse_station_csv",
    "render_chart",
    "load_config",
    "retry_later",
    "compute_total",
    "merge_rows",
    "build_index",
    "send_digest",
    "refresh_token",
    "split_tiles",
    "flush_queue",
    "resolve_locale",
]
_PKGS = [
    "requests",
    "pydantic",
    "numpy",
    "django",
    "fastapi",
    "sqlalchemy",
    "click",
    "httpx",
    "rich",
    "jinja2",
]
_CONS, _VOWS = "bcdfghjklmnprstvwz", "aeiou"
_VERBS = [
    "make",
    "teach",
    "move",
    "turn",
    "wire",
    "hook",
    "port",
    "split",
    "merge",
    "sort",
    "trace",
    "tune",
    "stub",
    "mock",
    "plot",
]
_GLUE = [
    "the",
    "a",
    "so",
    "and",
    "with",
    "into",
    "for",
    "before",
    "after",
    "when",
    "then",
    "of",
    "on",
    "by",
    "from",
    "to",
    "my",
    "our",
]
_ACKS = ("thanks, perfect", "great, thanks", "ok thanks", "lgtm")


def _word(rng: random.Random) -> str:
    return "".join(rng.choice(_CONS) + rng.choice(_VOWS) for _ in range(rng.randint(3, 4)))


def one_off(rng: random.Random) -> str:
    """A request unlike any other: made-up nouns, a random verb, a random shape."""
    words = [rng.choice(_VERBS), *(_word(rng) for _ in range(rng.randint(2, 4)))]
    rng.shuffle(words)
    for g in rng.sample(_GLUE, 2):
        words.insert(rng.randrange(1, len(words)), g)
    return " ".join(words)


_OPENERS = ("", "", "please ", "can you ", "hey, ", "quick one: ", "when you have a sec, ")
_TAILS = (
    "", "", "", " - it broke after yesterday's deploy", " before the {ver} release",
    " ({word} asked for it)", " on the {word} branch", ", the customer saw it twice",
    " - see ticket {word}-{num}", ", keep it small", " for the {word} service",
    ", same as last time", " (blocking the {word} rollout)",
)  # fmt: skip


def request_text(kind: Kind, rng: random.Random) -> str:
    """One paraphrase of a kind, with details, an opener and a tail that vary."""
    text = rng.choice(_OPENERS) + rng.choice(kind.templates) + rng.choice(_TAILS)
    return text.format(
        word=_word(rng),
        thing=rng.choice(_THINGS),
        file=rng.choice(_FILES),
        module=rng.choice(_MODULES),
        func=rng.choice(_FUNCS),
        num=rng.randint(2, 9999),
        ver=f"{rng.randint(0, 9)}.{rng.randint(0, 30)}.{rng.randint(0, 9)}",
        pkg=rng.choice(_PKGS),
        branch=f"feature/{_word(rng)}",
    )


@dataclass
class Turn:
    kind: str | None  # None for a one-off
    request: str
    answer: str
    command: tuple[str, str]
    correction: str | None = None
    attempt: str = ""  # the first answer, which the correction corrects
    ack: bool = False
    skill: str | None = None


@dataclass
class CorpusInfo:
    sessions: int = 0
    claude_files: int = 0
    codex_files: int = 0
    requests: int = 0
    corrections: int = 0
    by_kind: dict[str, int] = field(default_factory=dict)
    paths: list[Path] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        d = dict(self.__dict__)
        d.pop("paths")
        return d


def _claude_file(home: Path, sid: str, start: datetime, cwd: str, turns: list[Turn]) -> Path:
    c = Claude(sid, start, cwd)
    for t in turns:
        c.user(t.request)
        if t.skill:
            c.skill(t.skill)
        cmd, out = t.command
        c.tool(
            "Bash",
            {"command": cmd, "description": "Inspect"},
            out,
            {"stdout": out, "stderr": "", "interrupted": False, "isImage": False},
        )
        if t.correction:
            c.text(t.attempt)
            c.user(t.correction)
        c.text(t.answer)
        if t.ack:
            c.user(_ACKS[len(c.lines) % len(_ACKS)])
            c.text("Glad it helps.")
    folder = home / ".claude" / "projects" / cwd.replace("/", "-")
    return write_jsonl(folder / f"{sid}.jsonl", c.lines)


def _codex_file(home: Path, sid: str, start: datetime, cwd: str, turns: list[Turn]) -> Path:
    exchanges: list[Exchange] = []
    for turn in turns:
        if turn.correction:
            exchanges.append((turn.request, turn.attempt, turn.command))
            exchanges.append((turn.correction, turn.answer, turn.command))
        else:
            exchanges.append((turn.request, turn.answer, turn.command))
        if turn.ack:
            exchanges.append((_ACKS[len(exchanges) % len(_ACKS)], "Glad it helps.", ("", "")))
    folder = home / ".codex" / "sessions" / f"{start:%Y}" / f"{start:%m}" / f"{start:%d}"
    path = folder / f"rollout-{start:%Y-%m-%dT%H-%M-%S}-{sid}.jsonl"
    records = codex_records(sid, start, cwd, exchanges, lambda what, n: uid(what, sid, n))
    return write_jsonl(path, records)


def write_corpus(
    home: Path,
    n_sessions: int = 30,
    *,
    seed: int = 0,
    days: int | None = None,
    requests_per_session: tuple[int, int] = (2, 4),
    one_off_share: float = 0.2,
    correction_rate: float = 0.3,
    kinds: tuple[Kind, ...] = KINDS,
    start: datetime = datetime(2026, 3, 2, 8, 0, 0),
) -> CorpusInfo:
    """Write ``n_sessions`` sessions under ``home`` (laid out as ``~/.claude/projects/...``
    and ``~/.codex/sessions/YYYY/MM/DD/...``); returns what was written.

    Point config ``sources.claude.roots`` at ``home/.claude`` and ``sources.codex.roots`` at
    ``home/.codex``. ``days`` defaults to about one day per 10 sessions (at least 7).
    """
    rng = random.Random(f"corpus:{seed}")
    days = days or max(7, n_sessions // 10)
    info = CorpusInfo(by_kind={k.name: 0 for k in kinds})
    weights = [k.weight for k in kinds]
    projects = ["/home/dev/tidepool", "/home/dev/harbor-api", "/home/dev/billing"]
    for i in range(n_sessions):
        day = i * days // n_sessions
        when = start + timedelta(days=day, hours=rng.randint(0, 12), minutes=rng.randint(0, 59),
                                 seconds=rng.randint(0, 59))  # fmt: skip
        turns: list[Turn] = []
        for _ in range(rng.randint(*requests_per_session)):
            if rng.random() < one_off_share:
                turns.append(Turn(None, one_off(rng), "Done; the tests pass.", ("ls", "src")))
                continue
            kind = rng.choices(kinds, weights)[0]
            said, attempt = (
                rng.choice(kind.corrections) if rng.random() < correction_rate else (None, "")
            )
            turns.append(Turn(kind.name, request_text(kind, rng), kind.answer, kind.command,
                              said, attempt, ack=rng.random() < 0.3, skill=kind.skill))  # fmt: skip
            info.by_kind[kind.name] += 1
            info.corrections += said is not None
        # the session's tool: the one its first recurring kind is asked in, by weight
        first = next((_kind(kinds, t.kind) for t in turns if t.kind), None)
        sources = first.sources if first else ("claude", "codex")
        source = sources[0] if len(sources) == 1 or rng.random() < 0.6 else sources[1]
        if source == "codex":
            for t in turns:
                t.skill = None  # Codex has no Skill tool call in this shape
        cwd = rng.choice(projects)
        if source == "claude":
            path = _claude_file(home, uid("claude", seed, i), when, cwd, turns)
            info.claude_files += 1
        else:
            path = _codex_file(home, "019c" + uid("codex", seed, i)[4:], when, cwd, turns)
            info.codex_files += 1
        info.paths.append(path)
        info.sessions += 1
        info.requests += len(turns)
    return info


def _kind(kinds: tuple[Kind, ...], name: str) -> Kind:
    return next(k for k in kinds if k.name == name)


if __name__ == "__main__":  # pragma: no cover - a quick look: python -m benchmarks.corpus DIR N
    import sys

    out = write_corpus(Path(sys.argv[1]), int(sys.argv[2]) if len(sys.argv) > 2 else 30)
    print(json.dumps(out.to_dict(), indent=2))
