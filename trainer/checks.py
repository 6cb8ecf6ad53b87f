"""The rule checks a judge can make of an answer: a small vocabulary that fits what users say.

Each check reads one *scope* of the answer and is exact, so a night scores it for free:

* scopes: ``answer`` (the whole answer), ``first_line`` (the subject: the first non-empty
  line that is not a code fence), ``lines`` (each non-empty line), ``bullets`` (each list
  item, ``-``/``*``/``+``/``•`` or numbered), ``code`` (the text inside fenced code blocks),
  ``prose`` (the answer outside fenced code blocks). A check on ``lines`` or ``bullets``
  must hold for every line or item (and holds when there is none).
* words: ``contains`` / ``not_contains`` a word or phrase, matched on word boundaries
  ("print" is not in "fingerprint"; a plural "s" or "'s" after it still counts), so a
  forbidden word is never found inside another one.
* patterns: ``regex`` / ``not_regex`` (Python regular expressions, multi-line).
* ends: ``starts_with`` / ``not_starts_with`` / ``ends_with`` / ``not_ends_with`` a
  literal (outer spaces ignored; trailing punctuation ignored after a word).
* counts: ``max_UNIT`` / ``min_UNIT`` for UNIT in words, chars, lines, sentences, bullets.
* features: ``has`` / ``no`` one of ``FEATURES`` (emoji, heading, code_fence, …).
* ``identifier_like``: an identifier shaped like the user's example ("PROJ-123" asks for
  ``[A-Z]+-\\d+``: capitals, a dash, digits).

Case: words, literals and examples are matched case-insensitively, unless the user wrote
a value with a capital after its first character (an identifier such as ``getUser``,
``PROJ-123``, ``GitHub``) or a single letter ("I"): then exactly as written.
"""

from __future__ import annotations

import re
from collections.abc import Callable

SCOPES = ("answer", "first_line", "lines", "bullets", "code", "prose")
COUNT_UNITS = ("words", "chars", "lines", "sentences", "bullets")
COUNT_KINDS = tuple(f"{m}_{u}" for u in COUNT_UNITS for m in ("max", "min"))
WORD_KINDS = ("contains", "not_contains")
PATTERN_KINDS = ("regex", "not_regex")
END_KINDS = ("starts_with", "not_starts_with", "ends_with", "not_ends_with")
FEATURE_KINDS = ("has", "no")
CHECK_KINDS = (
    *WORD_KINDS, *PATTERN_KINDS, *END_KINDS, *COUNT_KINDS, *FEATURE_KINDS, "identifier_like",
)  # fmt: skip

_FENCE_LINE = re.compile(r"^\s*(```|~~~)")
_FENCED = re.compile(r"^\s*(```|~~~)[^\n]*\n(.*?)(?:^\s*\1[^\n]*$|\Z)", re.DOTALL | re.MULTILINE)
_ITEM = re.compile(r"^\s*(?:[-*+•]|\d{1,3}[.)])\s+(\S.*)$")
_BULLET = re.compile(r"^\s*[-*+•]\s+\S", re.MULTILINE)
_EMOJI = re.compile(r"[\U0001F000-\U0001FAFF\u2600-\u27BF\u2B00-\u2BFF\uFE0F]")
# A conventional-commit prefix ("feat:", "fix(api)!:"): the subject's words come after it.
_TYPE_PREFIX = re.compile(r"\A\s*[a-z]+(?:\([^)\n]*\))?!?:\s*")
# Verbs ending in "ed" that are not past tense ("Embed fonts", "Speed up the loader").
_NOT_PAST = {
    "embed", "seed", "feed", "need", "speed", "proceed", "succeed", "exceed", "bleed",
    "breed", "shred", "shed", "wed", "bed", "red", "bred", "heed", "weed", "reseed", "unembed",
}  # fmt: skip
_SENTENCE_END = re.compile(r"(?<=[.!?])[\"')\]]*\s+|\n+")


def _first_word(text: str) -> str:
    m = re.match(r"\W*([A-Za-z][\w'-]*)", _TYPE_PREFIX.sub("", text, count=1))
    return m.group(1) if m else ""


def _first_letter(text: str) -> str:
    m = re.search(r"[^\W\d_]", _TYPE_PREFIX.sub("", text, count=1))
    return m.group(0) if m else ""


def _past_tense(text: str) -> bool:
    word = _first_word(text).lower()
    return len(word) >= 4 and word.endswith("ed") and word not in _NOT_PAST


def _has(pattern: str, flags: int = re.MULTILINE) -> Callable[[str], bool]:
    rx = re.compile(pattern, flags)
    return lambda text: rx.search(text) is not None


# Named features for ``has`` / ``no``: what users forbid or ask for that is a kind of
# character or layout rather than a word ("no emojis" forbids the characters; an answer
# saying "no emojis here" is fine).
FEATURES: dict[str, tuple[Callable[[str], bool], str]] = {
    "emoji": (lambda t: _EMOJI.search(t) is not None, "an emoji character"),
    "heading": (_has(r"^\s{0,3}#{1,6}\s+\S"), "a Markdown heading line (# …)"),
    "code_fence": (_has(r"^\s*(```|~~~)"), "a fenced code block (```)"),
    "bullet": (lambda t: _BULLET.search(t) is not None, "a bullet (- * + • item)"),
    "list": (lambda t: any(_ITEM.match(x) for x in t.split("\n")), "a bullet or numbered item"),
    "numbered_list": (_has(r"^\s*\d{1,3}[.)]\s+\S"), "a numbered list item"),
    "table": (_has(r"^\s*\|.*\|\s*$"), "a Markdown table row"),
    "link": (_has(r"https?://\S|\bwww\.\S|\[[^\]\n]+\]\([^)\n]+\)"), "a URL or link"),
    "bold": (_has(r"\*\*\S[^*\n]*\*\*|__\S[^_\n]*__"), "bold text (**…**)"),
    "markdown": (
        _has(
            r"^\s{0,3}#{1,6}\s+\S|^\s*(```|~~~)|\*\*\S[^*\n]*\*\*|__\S[^_\n]*__|"
            r"\[[^\]\n]+\]\([^)\n]+\)|^\s*\|.*\|\s*$|`[^`\n]+`|^\s*>\s"
        ),
        "Markdown syntax: headings, fences, bold, links, tables, inline code, quotes "
        "(plain '-' lists are not counted)",
    ),
    "exclamation": (_has(r"!(?!=)"), "an exclamation mark"),
    "trailing_punctuation": (
        lambda t: bool(t.strip()) and t.rstrip()[-1] in ".!?;:,…",
        "ends with a punctuation mark",
    ),
    "question": (lambda t: t.rstrip().endswith("?"), "ends with a question mark"),
    "apology": (_has(r"\b(?:sorry|apologi[sz]\w*|apologies)\b", re.IGNORECASE), "an apology"),
    "preamble": (
        _has(
            r"\A\W*(?:sure|certainly|of course|absolutely|here(?:'s| is| are)|great question|"
            r"happy to|i'?d be happy|no problem|okay|ok)\b",
            re.IGNORECASE,
        ),
        "opens with a pleasantry (Sure, Certainly, Here is …)",
    ),
    "past_tense": (_past_tense, "the first word is a past tense verb (Added, Fixed)"),
    "lowercase_start": (lambda t: _first_letter(t).islower(), "the first letter is lower case"),
    "capital_start": (lambda t: _first_letter(t).isupper(), "the first letter is a capital"),
    "diff_lines": (
        _has(r"^(?:diff --git |@@ -\d|\+\+\+ [ab/]|--- [ab/]|[+-](?![\s+-])\S)"),
        "lines of a diff (+/- lines, @@ hunks)",
    ),
    "first_person": (_has(r"\b(?:I|I'm|I've|I'll|I'd)\b|\b(?:[Mm]e|[Mm]y|[Mm]ine)\b"), "I/me/my"),
}


def case_sensitive(value: str) -> bool:
    """The user's casing matters for an identifier (a capital after the first character)
    or a single letter; everything else is matched case-insensitively."""
    letters = [c for c in value if c.isalpha()]
    return len(value.strip()) == 1 or any(c.isupper() for c in letters[1:])


def word_pattern(value: str) -> re.Pattern[str]:
    """``value`` as a word or phrase: word boundaries where it begins or ends with a word
    character (a hyphen joined to a word continues it: "--force" is not in
    "--force-with-lease"), any run of spaces for a space, an optional plural after it."""
    body = r"\s+".join(re.escape(part) for part in value.split())
    if value[:1].isalnum() or value[:1] == "_":
        body = r"(?<![\w])(?<!\w-)" + body
    if value[-1:].isalnum() or value[-1:] == "_":
        body += r"(?:e?s|'s)?(?![\w])(?!-\w)"
    return re.compile(body, 0 if case_sensitive(value) else re.IGNORECASE)


def identifier_pattern(example: str) -> str:
    """The shape of the user's example as a regex: runs of capitals, small letters and
    digits become classes, other characters stay as written ("PROJ-123" -> [A-Z]+-\\d+)."""
    out = []
    for m in re.finditer(r"[A-Z]+|[a-z]+|\d+|.", example.strip()):
        run = m.group(0)
        if run.isdigit():
            out.append(r"\d+")
        elif run.isupper() and run.isalpha():
            out.append("[A-Z]+")
        elif run.islower() and run.isalpha():
            out.append("[a-z]+")
        else:
            out.append(re.escape(run))
    body = "".join(out)
    left = r"(?<![\w-])" if example.strip()[:1].isalnum() else ""
    right = r"(?![\w-])" if example.strip()[-1:].isalnum() else ""
    return left + body + right


def units(answer: str, scope: str) -> list[str]:
    """The texts a check on ``scope`` reads (one for the single-text scopes)."""
    if scope == "answer":
        return [answer.strip()]
    lines = answer.split("\n")
    if scope == "first_line":
        first = next((x for x in lines if x.strip() and not _FENCE_LINE.match(x)), "")
        return [first.strip()]
    if scope == "lines":
        return [x.strip() for x in lines if x.strip()]
    if scope == "bullets":
        return [m.group(1).strip() for x in lines if (m := _ITEM.match(x))]
    if scope == "code":
        return ["\n".join(m.group(2) for m in _FENCED.finditer(answer)).strip()]
    if scope == "prose":
        return [_FENCED.sub("", answer).strip()]
    raise ValueError(f"unknown scope {scope!r}; expected one of {SCOPES}")


def count(text: str, unit: str) -> int:
    if unit == "words":
        return len(re.findall(r"\S*\w\S*", text))
    if unit == "chars":
        return len(text.strip())
    if unit == "lines":
        return sum(1 for x in text.split("\n") if x.strip())
    if unit == "sentences":
        return sum(1 for s in _SENTENCE_END.split(text) if re.search(r"\w", s))
    if unit == "bullets":
        return sum(1 for x in text.split("\n") if _ITEM.match(x))
    raise ValueError(f"unknown unit {unit!r}")


def _literal_match(text: str, value: str, at: str) -> bool:
    flags = 0 if case_sensitive(value) else re.IGNORECASE
    lit = re.escape(value.strip())
    if at == "start":
        return re.match(r"\s*" + lit, text, flags) is not None
    tail = r"[\s.!?,;:…]*\Z" if value.strip()[-1:].isalnum() else r"\s*\Z"
    return re.search(lit + tail, text, flags) is not None


def _holds(kind: str, value: str, text: str) -> bool:
    if kind in WORD_KINDS:
        found = word_pattern(value).search(text) is not None
        return found if kind == "contains" else not found
    if kind in PATTERN_KINDS:
        try:
            found = re.search(value, text, re.MULTILINE) is not None
        except re.error:
            return False
        return found if kind == "regex" else not found
    if kind in END_KINDS:
        at = "start" if "starts" in kind else "end"
        found = _literal_match(text, value, at)
        return not found if kind.startswith("not_") else found
    if kind in COUNT_KINDS:
        bound, unit = kind.split("_", 1)
        n = count(text, unit)
        limit = int(float(value))
        return n <= limit if bound == "max" else n >= limit
    if kind in FEATURE_KINDS:
        found = FEATURES[value][0](text)
        return found if kind == "has" else not found
    if kind == "identifier_like":
        flags = 0 if case_sensitive(value) else re.IGNORECASE
        return re.search(identifier_pattern(value), text, flags) is not None
    raise ValueError(f"not a check kind: {kind}")


def passes(kind: str, value: str, scope: str, answer: str) -> bool:
    """Whether ``answer`` passes the check: on every unit of ``scope``."""
    return all(_holds(kind, value, text) for text in units(answer, scope))


def value_error(kind: str, value: str) -> str | None:
    """Why ``value`` cannot be the value of a ``kind`` check (None when it can)."""
    if kind not in CHECK_KINDS:
        return None
    if kind in COUNT_KINDS:
        ok = value.strip().isdigit() and (int(value) > 0 or kind.startswith("max_"))
        return None if ok else f"{kind} needs a whole number, got {value!r}"
    if kind in FEATURE_KINDS:
        if value in FEATURES:
            return None
        return f"{kind} needs one of {', '.join(FEATURES)}, got {value!r}"
    if not value.strip():
        return f"{kind} needs a value"
    if kind in PATTERN_KINDS:
        try:
            re.compile(value)
        except re.error as exc:
            return f"invalid regex: {exc}"
    return None
