"""Judges derived from what the logs show, each with its provenance.

* Rule checks come from the user's own words: a correction is compiled into the check
  vocabulary (``trainer.checks``) by the grammar (``grammar``) or, for what the grammar
  cannot read, the judge model (``compiler``), and kept only when the session it came
  from confirms it (``verify``): the answer the user corrected fails it, the answer they
  accepted passes it. Rules learnt in one turn of a cluster apply to every task of the
  cluster: a preference stated once is a preference for the task kind, which is exactly
  what the skill must learn.
* Commands that were run in most turns of the kind become ``command_ran`` checks of low
  weight: outcome judges, scored only where the replay can show what was run (an agent
  harness); in a chat replay they are context in the rubric, never a word check.
* A rubric for the LLM judge quotes the accepted outcome and the corrections, so the
  judge grades against what this user accepted, not a generic notion of quality; what
  cannot be compiled stays there, in the user's words.
"""

from __future__ import annotations

import functools
import re
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from skillopt_sleep.mining.grammar import Check, compile_text
from trainer.tasks import Judge


def to_judge(check: Check, source: str, quotes: tuple[str, ...] = ()) -> Judge:
    return Judge(check.kind, check.value, 1.0, source, quotes, check.scope)


@dataclass(frozen=True)
class Correction:
    turn_id: str  # the request whose answer was corrected
    text: str  # what the user said
    via: str  # "correction signal" | "next turn" | …
    corrected: str = ""  # the answer the user corrected (never an accepted outcome)


def rules_from_text(
    text: str, source: str, corrected: str = "", quotes: tuple[str, ...] = ()
) -> list[Judge]:
    """Rule judges that a correction or request states plainly (the grammar alone)."""
    return [to_judge(c, source, quotes) for c in _stated(text, corrected)]


@functools.lru_cache(maxsize=8192)
def _stated(text: str, corrected: str) -> tuple[Check, ...]:
    """The grammar's reading, once per text: requests are asked again word for word."""
    return tuple(compile_text(text, corrected))


_OPPOSITE = {"contains": "not_contains", "not_contains": "contains", "has": "no", "no": "has",
             "regex": "not_regex", "not_regex": "regex", "starts_with": "not_starts_with",
             "not_starts_with": "starts_with", "ends_with": "not_ends_with",
             "not_ends_with": "ends_with"}  # fmt: skip


def dedupe(judges: Iterable[Judge]) -> list[Judge]:
    """One judge per (kind, value, scope); a later contradiction (contains X vs
    not_contains X) is resolved in favour of the latest statement, since the user changed
    their mind."""
    latest: dict[tuple[str, str, str], Judge] = {}
    for j in judges:
        key = (j.kind, j.value.lower(), j.scope)
        opposite = _OPPOSITE.get(j.kind)
        if opposite:
            latest.pop((opposite, j.value.lower(), j.scope), None)
        latest.pop(key, None)
        latest[key] = j
    return list(latest.values())


COMMAND_SOURCE = "tool calls:"  # how `command_rules` marks the judges it derives


def common_commands(commands_per_turn: Sequence[set[str]], min_share: float = 0.6) -> list[str]:
    """Commands (first two words) run in at least ``min_share`` of the kind's turns, most
    frequent first, ties by name (at most three; none from fewer than three turns). Ties are
    broken by name, not by the sets' iteration order, which changes between processes: the
    same store must always mine the same tasks."""
    n = len(commands_per_turn)
    if n < 3:
        return []
    counts = Counter(c for cmds in commands_per_turn for c in cmds)
    ranked = sorted(counts.items(), key=lambda ck: (-ck[1], ck[0]))[:3]
    return [cmd for cmd, k in ranked if k / n >= min_share]


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


@functools.lru_cache(maxsize=65536)  # a kind's commands are run again in session after session
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


RUBRIC_CORRECTIONS = 8  # corrections a rubric quotes: the first ones the kind was given


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
        said = "\n".join(f"- {c.text[:300]}" for c in corrections[:RUBRIC_CORRECTIONS])
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
