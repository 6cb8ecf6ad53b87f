"""Judges derived from what the logs show, each with its provenance.

* Rule checks come from the user's own words: a correction is compiled into the check
  vocabulary (``trainer.checks``) by the grammar (``grammar``) or, for what the grammar
  cannot read, the judge model (``compiler``), and kept only when the session it came
  from confirms it (``verify``): the answer the user corrected fails it, the answer they
  accepted passes it. Rules learnt in one turn of a cluster apply to every task of the
  cluster: a preference stated once is a preference for the task kind, which is exactly
  what the skill must learn.
* Commands that had to be run in most turns of the kind become ``contains`` checks of
  low weight (the answer should show they were run or asked for).
* A rubric for the LLM judge quotes the accepted outcome and the corrections, so the
  judge grades against what this user accepted, not a generic notion of quality; what
  cannot be compiled stays there, in the user's words.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from skillopt_sleep.mining.grammar import Check, compile_text
from trainer.tasks import Judge


def to_judge(check: Check, source: str, quotes: tuple[str, ...] = ()) -> Judge:
    return Judge(check.kind, check.value, 1.0, source, quotes, check.scope)


# Shell-like tools whose commands count as "commands that had to be run".
SHELL_TOOLS = {"bash", "exec_command", "shell", "local_shell", "run_command"}


@dataclass(frozen=True)
class Correction:
    turn_id: str  # the request whose answer was corrected
    text: str  # what the user said
    via: str  # "correction signal" | "next turn" | …
    corrected: str = ""  # the answer the user corrected (never an accepted outcome)


def grammar_checks(text: str, corrected: str = "") -> list[Check]:
    """The checks a correction or request states plainly (the grammar alone)."""
    return compile_text(text, corrected)


def rules_from_text(text: str, source: str, corrected: str = "") -> list[Judge]:
    """Rule judges that a correction or request states plainly (the grammar alone)."""
    return [to_judge(c, source) for c in compile_text(text, corrected)]


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


def command_rules(commands_per_turn: Sequence[set[str]], min_share: float = 0.6) -> list[Judge]:
    """Commands (first two words) run in at least ``min_share`` of the kind's turns."""
    n = len(commands_per_turn)
    if n < 3:
        return []
    counts = Counter(c for cmds in commands_per_turn for c in cmds)
    return [
        Judge("contains", cmd, 0.5, f"tool calls: run in {k}/{n} turns of this kind")
        for cmd, k in counts.most_common(3)
        if k / n >= min_share
    ]


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


def rubric(intent: str, accepted: str | None, corrections: Sequence[Correction]) -> str:
    """Text for the LLM judge: the request, the user's accepted answer, their corrections."""
    parts = [f"The user asked: {intent[:400]}"]
    if accepted:
        parts.append(f"An answer the user accepted for this kind of request:\n{accepted[:800]}")
    if corrections:
        said = "\n".join(f"- {c.text[:300]}" for c in corrections[:8])
        parts.append(f"The user corrected earlier answers of this kind with:\n{said}")
    parts.append(
        "Score 1.0 when the answer does what was asked and respects every correction above; "
        "0.0 when it ignores a correction or does not do the task; in between otherwise."
    )
    return "\n\n".join(parts)
