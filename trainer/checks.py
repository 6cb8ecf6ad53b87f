"""The rule checks a judge can make of an answer: a small vocabulary that fits what users say.

Each check reads one *scope* of the answer and is exact, so a night scores it for free:

* scopes: ``answer`` (the whole answer), ``first_line`` (the subject: the first non-empty
  line that is not a code fence), ``lines`` (each non-empty line), ``bullets`` (each list
  item, ``-``/``*``/``+``/``•`` or numbered), ``code`` (the text inside fenced code blocks),
  ``prose`` (the answer outside code: fenced blocks and `inline code` left out),
  ``code_lines`` (each non-empty line inside fenced code blocks), ``code_bare`` (the fenced
  code less its comments, its string literals emptied: a keyword the code uses, not one a comment
  or a string mentions; mining narrows a code rule to it where the session shows that
  still separates the two answers). A check on ``lines``,
  ``bullets`` or ``code_lines`` must hold for every one (and holds when there is none).
  An answer that hands over its deliverable behind a lead-in ("Here is the message:" then
  a fenced commit message, or a blank line and the message) is read from the deliverable by
  ``first_line`` and ``lines``: the subject is the message's first line, not the lead-in.
* words: ``contains`` / ``not_contains`` a word or phrase, matched on word boundaries
  ("print" is not in "fingerprint"; a plural "s" or "'s" after it still counts, but not in
  code, where ``vars`` is another name than ``var``), so a
  forbidden word is never found inside another one.
* patterns: ``regex`` / ``not_regex`` (Python regular expressions, multi-line).
* ends: ``starts_with`` / ``not_starts_with`` / ``ends_with`` / ``not_ends_with`` a
  literal (outer spaces ignored; trailing punctuation ignored after a word; bold or italic
  marks before a start ignored: "**TL;DR**" starts with "TL;DR").
* counts: ``max_UNIT`` / ``min_UNIT`` for UNIT in words, chars, lines, sentences, bullets,
  paragraphs (blocks of prose between blank lines), indent (the widest step, in spaces, by
  which a line is indented past the line before: "2-space indent" is ``max_indent: 2``).
* features: ``has`` / ``no`` one of ``FEATURES`` (emoji, heading, code_fence, …).
* ``identifier_like``: an identifier shaped like the user's example ("PROJ-123" asks for
  ``[A-Z]+-\\d+``: capitals, a dash, digits).
* content: ``mentions_any`` names that the task's own content holds (the files, functions,
  errors of a pasted diff or log; the request's own words), ``" | "`` between them: the
  answer must mention one of them (as a word). It needs no model and no user rule: it is
  how a night tells an answer *to this task* from an empty, echoed or off-topic one (an
  answer that is not a commit message for that diff is not an example of one). Mining
  builds it from the request (``skillopt_sleep.mining.content``) and keeps it only when the
  answer the user accepted passes it.

Case: words, literals and examples are matched case-insensitively, unless the user wrote
a value with a capital inside a word (an identifier such as ``getUser``, ``PROJ-123``,
``GitHub``; a capital opening a hyphenated part, ``Co-Authored-By``, is only case) or a
single letter ("I"): then exactly as written, but for a phrase's first letter ("this PR"
is "This PR" at a sentence's start). A word a check wants at the start is a whole word. An
abbreviation in capitals a check asks for at the start or end ("TL;DR") is met in any case.
"""

from __future__ import annotations

import re
from functools import lru_cache

from trainer.answer_parts import (
    FENCE_LINE,
    FENCED,
    INLINE_CODE,
    ITEM,
    bare_code,
    deliverable,
    in_languages,
    without_program_code,
)
from trainer.features import FEATURES

SCOPES = (
    "answer", "first_line", "lines", "bullets", "code", "prose", "code_lines", "code_bare",
)  # fmt: skip
CODE_SCOPES = ("code", "code_lines", "code_bare")
LANGUAGES_AT = "@"  # "code@yaml": a code scope read in one language's blocks
COUNT_UNITS = ("words", "chars", "lines", "sentences", "bullets", "paragraphs", "indent")
COUNT_KINDS = tuple(f"{m}_{u}" for u in COUNT_UNITS for m in ("max", "min"))
WORD_KINDS = ("contains", "not_contains")
PATTERN_KINDS = ("regex", "not_regex")
END_KINDS = ("starts_with", "not_starts_with", "ends_with", "not_ends_with")
FEATURE_KINDS = ("has", "no")
CONTENT_KIND = "mentions_any"
TERM_SEPARATOR = " | "  # between the names of a ``mentions_any`` value
CHECK_KINDS = (
    *WORD_KINDS, *PATTERN_KINDS, *END_KINDS, *COUNT_KINDS, *FEATURE_KINDS, "identifier_like",
    CONTENT_KIND,
)  # fmt: skip

_SENTENCE_END = re.compile(r"(?<=[.!?])[\"')\]]*\s+|\n+")


def case_sensitive(value: str) -> bool:
    """The user's casing matters for an identifier (a capital after the first character)
    or a single letter; everything else is matched case-insensitively."""
    if len(value.strip()) == 1:
        return True
    # a capital opening a word or a hyphenated part is case, not identity ("Co-Authored-By")
    return any(c.isupper() for part in re.split(r"[\s_-]+", value) for c in part[1:])


@lru_cache(maxsize=4096)
def _compiled(pattern: str, flags: int) -> re.Pattern[str]:
    """A check's pattern compiled once: a night scores every answer with the same judges."""
    return re.compile(pattern, flags)


@lru_cache(maxsize=4096)
def word_pattern(value: str, token: bool = False) -> re.Pattern[str]:
    """``value`` as a word or phrase: word boundaries where it begins or ends with a word
    character (a hyphen joined to a word continues it: "--force" is not in
    "--force-with-lease"), any run of spaces for a space, an optional plural after it
    unless it is a ``token`` of code (``vars`` is another name than ``var``).
    Kept once built: verifying a kind's judges asks for the same words thousands of times,
    and each new pattern pushes the grammar's out of ``re``'s small cache."""
    body = r"\s+".join(re.escape(part) for part in value.split())
    sensitive = case_sensitive(value)
    if sensitive and len(value.split()) > 1 and body[:1].isalpha():
        body = f"(?i:{body[0]}){body[1:]}"  # "this PR" is "This PR" at a sentence's start
    if value[:1].isalnum() or value[:1] == "_":
        body = r"(?<![\w])(?<!\w-)" + body
    if value[-1:].isalnum():  # a value ending in "_" is a prefix: "APP_" is in "APP_PORT"
        body += r"(?![\w])(?!-\w)" if token else r"(?:e?s|'s)?(?![\w])(?!-\w)"
    elif value.split()[-1] == ".":  # "git add ." is not in "git add ./charts/values.yaml"
        body += r"(?![\w./])"
    return re.compile(body, 0 if sensitive else re.IGNORECASE)


def word_found(value: str, text: str, token: bool = False) -> bool:
    """``word_pattern(value, token)`` found in ``text``; not compiled for a text lacking a word
    of the value in any case (mining checks thousands of content names once each). Only for
    ASCII, where ``re``'s case-insensitive match is ``str.lower``'s ("ſ" matches "s")."""
    if value.isascii() and text.isascii():
        low = text.lower()
        if not all(part.lower() in low for part in value.split()):
            return False
    return word_pattern(value, token).search(text) is not None


def identifier_pattern(example: str) -> str:
    """The shape of the user's example as a regex: runs of capitals, small letters and
    digits become classes, other characters stay as written ("PROJ-123" -> [A-Z][A-Z\\d]*-\\d+)."""
    out = []
    # a key of capitals may hold digits after its first letter ("WEB2-1009" is a "PAY-412")
    key = re.match(r"[A-Z]+(?=[^\w\s])", example.strip())
    for m in re.finditer(r"[A-Z]+|[a-z]+|\d+|.", example.strip()):
        run = m.group(0)
        if run.isdigit():
            out.append(r"\d+")
        elif key and m.start() == 0:
            out.append(r"[A-Z][A-Z\d]*")
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


def scope_known(scope: str) -> bool:
    """A scope of ``SCOPES``, or a code scope read in some languages' blocks only
    (``code_bare@javascript``, ``code@yaml,python``)."""
    base, at, languages = scope.partition(LANGUAGES_AT)
    return base in SCOPES and (not at or (base in CODE_SCOPES and bool(languages.strip(","))))


def units(answer: str, scope: str) -> list[str]:
    """The texts a check on ``scope`` reads (one for the single-text scopes)."""
    if LANGUAGES_AT in scope:  # "code_bare@javascript": that language's blocks, untagged ones
        scope, _, languages = scope.partition(LANGUAGES_AT)
        answer = in_languages(answer, set(languages.split(",")))
    if scope == "answer":
        return [answer.strip()]
    if scope in ("first_line", "lines"):
        answer = deliverable(answer)
    lines = answer.split("\n")
    if scope == "first_line":
        first = next((x for x in lines if x.strip() and not FENCE_LINE.match(x)), "")
        return [first.strip()]
    if scope == "lines":
        return [x.strip() for x in lines if x.strip()]
    if scope == "bullets":
        lines = without_program_code(answer).split("\n")
        return [m.group(1).strip() for x in lines if (m := ITEM.match(x))]
    if scope == "code_lines":
        return [x for m in FENCED.finditer(answer) for x in m.group(2).split("\n") if x.strip()]
    if scope == "code":
        return ["\n".join(m.group(2) for m in FENCED.finditer(answer)).strip()]
    if scope == "prose":
        return [INLINE_CODE.sub(" ", FENCED.sub("", answer)).strip()]
    if scope == "code_bare":
        return [bare_code(answer)]
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
    if unit == "bullets":  # a list in a block of code is the program's, not the answer's
        return sum(1 for x in without_program_code(text).split("\n") if ITEM.match(x))
    if unit == "paragraphs":  # blocks of prose between blank lines; a code block is none
        return sum(1 for b in re.split(r"\n\s*\n", FENCED.sub("\n\n", text)) if b.strip())
    if unit == "indent":  # the widest step a line is indented past the one before (tab: 8);
        # a comment line's indent is no structure's
        lines = [x for x in text.expandtabs(8).split("\n") if x.strip()]
        widths = [len(x) - len(x.lstrip()) for x in lines if not x.lstrip().startswith(("#", "//"))]
        return max((b - a for a, b in zip(widths, widths[1:], strict=False)), default=0)
    raise ValueError(f"unknown unit {unit!r}")


# Capitals with marks and no digits ("TL;DR", "FYI:"): how an abbreviation is written, not an
# identifier's spelling ("PROJ-123" has digits), so an answer that opens "tl;dr:" has one.
_ABBREVIATION = re.compile(r"[A-Z]{2,}(?:[^\w\s]*[A-Z]+)*[^\w\s]*")


def _literal_match(text: str, value: str, at: str, asked: bool = False) -> bool:
    """``value`` at the start or end of ``text``; an abbreviation ``asked`` for in any case."""
    any_case = asked and _ABBREVIATION.fullmatch(value.strip()) is not None
    flags = 0 if case_sensitive(value) and not any_case else re.IGNORECASE
    lit = re.escape(value.strip())
    if at == "start":  # a word at the start is a whole word: "Here" does not open "Hereford"
        word_end = r"(?!\w)" if value.strip()[-1:].isalnum() else ""
        # emphasis is formatting, not text: "**TL;DR**" starts with "TL;DR"
        return _compiled(r"\s*(?:[*_]{1,3}(?=\S))?" + lit + word_end, flags).match(text) is not None
    tail = r"[\s.!?,;:…]*\Z" if value.strip()[-1:].isalnum() else r"\s*\Z"
    return _compiled(lit + tail, flags).search(text) is not None


def _holds(kind: str, value: str, text: str, code: bool = False) -> bool:
    if kind in WORD_KINDS:
        found = word_found(value, text, code)
        return found if kind == "contains" else not found
    if kind in PATTERN_KINDS:
        try:
            found = _compiled(value, re.MULTILINE).search(text) is not None
        except re.error:
            return False
        return found if kind == "regex" else not found
    if kind in END_KINDS:
        at = "start" if "starts" in kind else "end"
        if kind.startswith("not_"):
            return not _literal_match(text, value, at)
        return _literal_match(text, value, at, asked=True)
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
        return _compiled(identifier_pattern(value), flags).search(text) is not None
    if kind == CONTENT_KIND:
        return any(word_found(term, text) for term in terms(value))
    raise ValueError(f"not a check kind: {kind}")


def terms(value: str) -> list[str]:
    """The names of a ``mentions_any`` value."""
    return [t.strip() for t in value.split(TERM_SEPARATOR.strip()) if t.strip()]


def passes(kind: str, value: str, scope: str, answer: str) -> bool:
    """Whether ``answer`` passes the check: on every unit of ``scope``."""
    code = scope.partition(LANGUAGES_AT)[0] in CODE_SCOPES
    return all(_holds(kind, value, text, code) for text in units(answer, scope))


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
    if not value.strip() or (kind == CONTENT_KIND and not terms(value)):
        return f"{kind} needs a value"
    if kind in PATTERN_KINDS:
        try:
            re.compile(value)
        except re.error as exc:
            return f"invalid regex: {exc}"
    return None
