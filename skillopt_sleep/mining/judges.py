"""Judges derived from what the logs show, each with its provenance.

* Rule checks come from the user's own words: a correction such as "use pytest not
  unittest" becomes ``contains pytest`` + ``not_contains unittest``; "keep the subject
  under 50 chars" becomes a regex on the first line. Rules learnt in one turn of a
  cluster apply to every task of the cluster: a preference stated once is a preference
  for the task kind, which is exactly what the skill must learn.
* Commands that were run in most turns of the kind become ``command_ran`` checks of low
  weight: outcome judges, scored only where the replay can show what was run (an agent
  harness); in a chat replay they are context in the rubric, never a word check.
* A rubric for the LLM judge quotes the accepted outcome and the corrections, so the
  judge grades against what this user accepted, not a generic notion of quality.

Only patterns that can be read without guessing are turned into rules; anything else
stays in the rubric, where a model reads it.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from trainer.tasks import Judge

_TERM = r"`?([\w+#/-](?:[\w.+#/-]{0,38}[\w+#/-])?)`?"
_USE_NOT = re.compile(rf"\buse {_TERM},? (?:not|instead of|rather than) {_TERM}", re.IGNORECASE)
_NOT_BUT = re.compile(rf"\bnot {_TERM},? (?:but|use) {_TERM}", re.IGNORECASE)
_DONT = re.compile(
    rf"\b(?:don'?t|do not|never|stop) (?:use|using|add|adding|include|including|mention) {_TERM}",
    re.IGNORECASE,
)
_LEN_LINE = re.compile(
    r"\b(?:subject|title|first line|summary line|headline)[^.\n]{0,40}?"
    r"(?:under|below|less than|at most|max(?:imum)?|no more than|within) (\d{1,3}) ?"
    r"(?:char|letter)",
    re.IGNORECASE,
)
_LEN_WORDS = re.compile(
    r"(?:under|below|less than|at most|max(?:imum)?|no more than|within|keep it to) "
    r"(\d{1,4}) words",
    re.IGNORECASE,
)
_INCLUDE = re.compile(
    r"\b(?:always |must |should |please )?(?:include|add|mention|needs?|have) "
    r"(?:a |an |the )?`?([\w .+#/-]{2,40}?)`? (?:section|line|heading|footer|trailer)\b",
    re.IGNORECASE,
)
# Only a quoted prefix or a type tag ("feat:") is exact enough to check by regex;
# "start with the failing job name" is left to the rubric.
_START = re.compile(
    r"\b(?:start|begin|prefix)(?: it| the \w+)? with (?:`([^`\n]{1,20})`|\"([^\"\n]{1,20})\"|"
    r"'([^'\n]{1,20})'|([\w()!/-]{1,15}:))",
    re.IGNORECASE,
)
_BULLETS = re.compile(r"\b(?:bullet(?:ed)? (?:list|points)|as bullets)\b", re.IGNORECASE)
_RUN = re.compile(r"\b(?:run|use|call) `([^`]{2,60})`", re.IGNORECASE)
_STOP_TERMS = {"it", "that", "this", "the", "them", "one", "any", "these", "those"}

# What a user means by "no X" for things that are a kind of character or layout, not a
# word: "don't use emojis" forbids emoji characters (an answer saying "no emojis" is
# fine; one with a rocket is not).
_EMOJI = r"[\U0001F000-\U0001FAFF\u2600-\u27BF\u2B00-\u2BFF\uFE0F]"
_BULLET = r"(?m)^\s*[-*•] \S"
_CATEGORIES: dict[str, tuple[str, str]] = {
    "emoji": ("regex", _EMOJI),
    "emojis": ("regex", _EMOJI),
    "emoticons": ("regex", _EMOJI),
    "bullets": ("regex", _BULLET),
    "bullet": ("regex", _BULLET),
    "headings": ("regex", r"(?m)^#{1,6} \S"),
    "headers": ("regex", r"(?m)^#{1,6} \S"),
    "exclamation": ("contains", "!"),
    "semicolons": ("contains", ";"),
    "tables": ("regex", r"(?m)^\s*\|.*\|\s*$"),
}  # fmt: skip


def _avoid(term: str, source: str) -> Judge | None:
    """The judge for "do not use ``term``": its pattern when it names a kind of character
    or layout; the literal for a tool or identifier ("unittest", "print"); none for other
    plural nouns ("abbreviations", "mocks"), whose meaning the rubric judge reads."""
    key = term.lower()
    if key in _CATEGORIES:
        kind, value = _CATEGORIES[key]
        return Judge(f"not_{kind}", value, 1.0, source)
    if key.isalpha() and key.endswith("s") and not key.endswith("ss") and len(key) > 3:
        return None
    return Judge("not_contains", term, 1.0, source)


def _want(term: str, source: str) -> Judge | None:
    """The judge for "use ``term``"; categories as in ``_avoid``, plural nouns to the rubric."""
    key = term.lower()
    if key in _CATEGORIES:
        kind, value = _CATEGORIES[key]
        return Judge(kind, value, 1.0, source)
    if key.isalpha() and key.endswith("s") and not key.endswith("ss") and len(key) > 3:
        return None
    return Judge("contains", term, 1.0, source)


# Shell-like tools whose commands count as "commands that had to be run".
SHELL_TOOLS = {"bash", "exec_command", "shell", "local_shell", "run_command"}


@dataclass(frozen=True)
class Correction:
    turn_id: str  # the turn whose answer was corrected
    text: str  # what the user said
    via: str  # "correction signal" | "next turn" | …


def _term(t: str) -> str | None:
    t = t.strip().strip(".,;:'\"").strip()
    if not t or t.lower() in _STOP_TERMS:
        return None
    return t


def rules_from_text(text: str, source: str) -> list[Judge]:
    """Rule judges that a correction or request states explicitly."""
    out: list[Judge] = []
    for pattern in (_USE_NOT, _NOT_BUT):
        for m in pattern.finditer(text):
            want, avoid = (m.group(1), m.group(2))
            if pattern is _NOT_BUT:
                want, avoid = avoid, want
            if (w := _term(want)) is not None and (j := _want(w, source)) is not None:
                out.append(j)
            if (a := _term(avoid)) is not None and (j := _avoid(a, source)) is not None:
                out.append(j)
    for m in _DONT.finditer(text):
        if (a := _term(m.group(1))) is not None and (j := _avoid(a, source)) is not None:
            out.append(j)
    for m in _LEN_LINE.finditer(text):
        n = int(m.group(1))
        if 5 <= n <= 300:
            out.append(Judge("regex", rf"\A\s*[^\n]{{1,{n}}}(?:\n|\Z)", 1.0, source))
    for m in _LEN_WORDS.finditer(text):
        n = int(m.group(1))
        if 3 <= n <= 5000:
            out.append(Judge("max_words", str(n), 1.0, source))
    for m in _INCLUDE.finditer(text):
        if (w := _term(m.group(1))) is not None:
            out.append(Judge("contains", w, 1.0, source))
    for m in _START.finditer(text):
        start = next(g for g in m.groups() if g).strip()
        if len(start) >= 2:
            out.append(Judge("regex", r"(?i)\A\s*" + re.escape(start), 1.0, source))
    if _BULLETS.search(text):
        out.append(Judge("regex", r"(?m)^\s*[-*•] \S", 1.0, source))
    for m in _RUN.finditer(text):
        out.append(Judge("contains", m.group(1).strip(), 0.5, source))
    return out


def dedupe(judges: Iterable[Judge]) -> list[Judge]:
    """One judge per (kind, value); a later contradiction (contains X vs not_contains X)
    is resolved in favour of the latest statement, since the user changed their mind."""
    latest: dict[tuple[str, str], Judge] = {}
    for j in judges:
        key = (j.kind, j.value.lower())
        opposite = {"contains": "not_contains", "not_contains": "contains"}.get(j.kind)
        if opposite:
            latest.pop((opposite, j.value.lower()), None)
        latest.pop(key, None)
        latest[key] = j
    return list(latest.values())


COMMAND_SOURCE = "tool calls:"  # how `command_rules` marks the judges it derives


def common_commands(commands_per_turn: Sequence[set[str]], min_share: float = 0.6) -> list[str]:
    """Commands (first two words) run in at least ``min_share`` of the kind's turns, most
    frequent first (at most three; none from fewer than three turns)."""
    n = len(commands_per_turn)
    if n < 3:
        return []
    counts = Counter(c for cmds in commands_per_turn for c in cmds)
    return [cmd for cmd, k in counts.most_common(3) if k / n >= min_share]


def command_rules(commands_per_turn: Sequence[set[str]], min_share: float = 0.6) -> list[Judge]:
    """`command_ran` judges for the commands the kind's turns ran (``common_commands``):
    outcome judges, checked on what an agent harness ran, never on the answer's words. A
    chat replay cannot run anything; there the commands are context for the rubric."""
    n = len(commands_per_turn)
    counts = Counter(c for cmds in commands_per_turn for c in cmds)
    return [
        Judge(
            "command_ran",
            command_regex(cmd),
            0.5,
            f"{COMMAND_SOURCE} run in {counts[cmd]}/{n} turns of this kind",
        )  # fmt: skip
        for cmd in common_commands(commands_per_turn, min_share)
    ]


def command_regex(head: str) -> str:
    """`git diff` -> a regex for that command at the start of a shell command or after a
    separator (`cd x && git diff --staged`), flags in between allowed (`git --no-pager diff`)."""
    words = [re.escape(w) for w in head.split()]
    return r"(?:^|[;&|(])\s*" + r"(?:\s+-\S+)*\s+".join(words) + r"\b"


def command_head(args_summary: str | None) -> str | None:
    """``git diff --staged -- foo`` -> ``git diff``; None for non-commands."""
    if not args_summary:
        return None
    text = args_summary.strip()
    if text.startswith("{"):
        m = re.search(r'"(?:command|cmd)"\s*:\s*\[?\s*"([^"]+)"', text)
        if not m:
            return None
        text = m.group(1)
    words = [w for w in re.split(r"\s+", text) if w and not w.startswith("-")][:2]
    if not words or not re.match(r"^[\w./-]+$", words[0]):
        return None
    return " ".join(words)


def rubric(
    intent: str,
    accepted: str | None,
    corrections: Sequence[Correction],
    commands: Sequence[str] = (),
) -> str:
    """Text for the LLM judge: the request, the user's accepted answer, their corrections,
    and as context the commands the user's sessions of this kind ran."""
    parts = [f"The user asked: {intent[:400]}"]
    if accepted:
        parts.append(f"An answer the user accepted for this kind of request:\n{accepted[:800]}")
    if corrections:
        said = "\n".join(f"- {c.text[:300]}" for c in corrections[:8])
        parts.append(f"The user corrected earlier answers of this kind with:\n{said}")
    if commands:
        parts.append(
            "For context, the user's own sessions of this kind ran: "
            + ", ".join(f"`{c}`" for c in commands)
            + ". A written answer cannot run them; do not grade it on naming them."
        )
    parts.append(
        "Score 1.0 when the answer does what was asked and respects every correction above; "
        "0.0 when it ignores a correction or does not do the task; in between otherwise."
    )
    return "\n\n".join(parts)
