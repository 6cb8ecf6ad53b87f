"""SIMULATION — answers that follow or break a world's latent rules, whatever the judges.

A latent rule stands for one rule judge (for a mined task: a judge built from the user's
words). The simulated target decides which rules it follows; this module writes an answer
that passes the judges of the rules it followed and fails the others. It knows no judge
kind: for each judge it searches a small library of fragments (the judge's own value, the
user's words, bullets, headings, a long line, long text, an emoji, ...) for one that,
added to a plain answer, flips the judge — checked with the trainer's own `rule_score`, so
the simulation scores answers exactly as a night does, and a new kind of judge needs no
code here. A judge no fragment can flip cannot be simulated; it is no latent rule and
scores whatever the plain answer gets.

An answer is one line "Done. <inline fragments> I made the change and checked it." with
fragment lines before it (a first line of its own) or after it (bullets, code, long text):
a short fragment goes inline, a longer one on its own line, so that it changes no other
judge's first line.
"""

from __future__ import annotations

from dataclasses import dataclass

from trainer.rollout import Outcome
from trainer.scoring import rule_score
from trainer.tasks import OUTCOME_JUDGES, Judge

HEAD, TAIL = "Done.", "I made the change and checked it."
POSITIONS = ("inline", "after", "before")
# Longer fragments go on lines of their own, where they change no other judge's first line.
INLINE_CHARS = 40
_FILLER = "this part of the answer goes on about the change "
LIBRARY = (
    "- one point\n- another point",
    "* one point\n* another point",
    "1. first step\n2. second step",
    "# Summary",
    "## Details",
    "```\nchange()\n```",
    "| a | b |\n|---|---|\n| 1 | 2 |",
    "\U0001f680",
    "!",
    ";",
    "Fixed the change.",
    "feat: add the change",
    "fix: the change",
    "ABC-123",
    "(#123)",
    "Signed-off-by: A Person <a.person@example.com>",
    (_FILLER * 3).strip(),  # a long line
    (_FILLER * 40).strip(),  # long text
    "\n".join(["a line"] * 40),  # many lines
)


@dataclass(frozen=True)
class Fragment:
    text: str
    where: str  # "inline" | "after" | "before"


@dataclass(frozen=True)
class Shows:
    """How an answer shows a rule followed or broken: a fragment for one, none for the other."""

    follow: Fragment | None
    broken: Fragment | None


def compose(fragments: list[Fragment]) -> str:
    inline = [f.text for f in fragments if f.where == "inline"]
    line = f"{HEAD} {' '.join(inline)} {TAIL}"
    before = [f.text for f in fragments if f.where == "before"]
    after = [f.text for f in fragments if f.where == "after"]
    return "\n".join([*before, line, *after])


def _passes(judge: Judge, fragments: list[Fragment]) -> float | None:
    try:
        return rule_score(judge, Outcome(compose(fragments)))
    except (ValueError, TypeError):  # a kind rule_score does not know
        return None


def _candidates(judge: Judge) -> list[str]:
    own = [judge.value, *judge.quotes]
    numbers = [int(w) for w in judge.value.split() if w.isdigit() and 0 < int(w) < 2000]
    sized = [
        text
        for n in numbers
        for text in (
            " ".join(["word"] * (n + 5)),
            "x" * (n + 5),
            "\n".join(["a line"] * (n + 2)),
        )
    ]
    return [c for c in dict.fromkeys([*own, *LIBRARY, *sized]) if c.strip()]


def shows(judge: Judge) -> Shows | None:
    """How to follow and break `judge`, or None when no fragment flips it (or it is not a
    rule judge an answer can show)."""
    if judge.kind == "rubric" or judge.kind in OUTCOME_JUDGES:
        return None
    plain = _passes(judge, [])
    if plain is None:
        return None
    for text in _candidates(judge):
        short = len(text) <= INLINE_CHARS and "\n" not in text
        for where in POSITIONS if short else POSITIONS[1:]:
            frag = Fragment(text, where)
            got = _passes(judge, [frag])
            if got is not None and got != plain:
                return Shows(None, frag) if plain >= 1.0 else Shows(frag, None)
    return None


def plain_score(judge: Judge) -> float:
    """What the plain answer scores on a judge the world does not simulate (rubric and
    outcome judges: 1.0, as the world's exact expectation assumes)."""
    if judge.kind == "rubric" or judge.kind in OUTCOME_JUDGES:
        return 1.0
    return _passes(judge, []) or 0.0
