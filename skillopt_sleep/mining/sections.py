"""Sections and statement ends a correction names: "don't add a changelog section" forbids a
line that opens one, "add a Testing section" asks for one, "no semicolons" forbids a
statement's final ``;`` in code (split from ``literals``, which reads the words)."""

from __future__ import annotations

import re

from skillopt_sleep.mining.literals import STOP_WORDS, word_scope
from skillopt_sleep.mining.phrases import NEG_RX, Check, sentences

_SECTION = re.compile(
    r"\b(?:an?|the|any)\s+['\"`]?(?:#{1,6}\s*)?(?!section|heading|header)([\w-]+(?: [\w-]+)?)"
    r"['\"`]?\s+(?:section|heading|header)\b",
    re.IGNORECASE,
)


def section_checks(text: str) -> list[Check]:
    """ "don't add a changelog section" forbids a line that opens it (a heading or a label);
    "add a Testing section" asks for one."""
    out = []
    for sentence in sentences(text):
        for m in _SECTION.finditer(sentence):
            name = m.group(1)
            if name.lower() in STOP_WORDS or name.lower() in ("new", "separate", "extra", "own"):
                continue
            if NEG_RX.search(sentence[: m.start()]):
                out.append(Check("not_regex", r"(?im)^[\W_]*" + re.escape(name) + r"\b"))
            elif re.search(r"\b(?:add|include|needs?|forgot|missing|want|where'?s)\b", text, re.I):
                out.append(Check("regex", section_pattern(name)))
    return out


def section_pattern(name: str) -> str:
    """A line that opens the section ``name`` asks for: one opening with the name, or a
    heading holding a form of its one word ("### How I tested" is a Testing section)."""
    line = r"(?im)^[\W_]*" + re.escape(name) + (r"\b" if name[-1:].isalnum() else "")
    word = name.lstrip("#").strip()
    if not re.fullmatch(r"[A-Za-z]{4,}", word):
        return line
    stem = re.sub(r"(?:ing|ed|s)$", "", word, flags=re.IGNORECASE) if len(word) > 5 else word
    return line + rf"|^\s{{0,3}}#{{1,6}}[^\n]*\b{stem}\w*"


# A semicolon ending a line of code: a statement's end, the mark "no semicolons" forbids.
STATEMENT_END = r"(?m);[ \t]*$"


def semicolon_checks(text: str, corrected: str) -> list[Check]:
    """ "no semicolons": in code, none ending a line (a `for (;;)` keeps its own); in prose,
    none at all."""
    if re.search(r"\bsemi[- ]?colons?\b|(?<!\w);s?(?!\w)", text) and NEG_RX.search(text):
        if word_scope(";", corrected) == "code":
            return [Check("not_regex", STATEMENT_END, "code")]
        return [Check("not_contains", ";", "answer")]
    return []
