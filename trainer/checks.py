"""The rule checks a judge can make of an answer: a small vocabulary that fits what users say.

Each check reads one *scope* of the answer and is exact, so a night scores it for free:

* scopes: ``answer`` (the whole answer), ``first_line`` (the subject: the first non-empty
  line that is not a code fence), ``lines`` (each non-empty line), ``bullets`` (each list
  item, ``-``/``*``/``+``/``•`` or numbered), ``code`` (the text inside fenced code blocks),
  ``prose`` (the answer outside code: fenced blocks and `inline code` left out),
  ``code_lines`` (each non-empty line inside fenced code blocks). A check on ``lines``,
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
is "This PR" at a sentence's start). A word a check wants at the start is a whole word.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from functools import lru_cache

from trainer.spelling import has_american, has_british
from trainer.text_classes import TEXT_CLASSES, has_match

SCOPES = ("answer", "first_line", "lines", "bullets", "code", "prose", "code_lines")
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

_FENCE_LINE = re.compile(r"^\s*(```|~~~)")
_FENCED = re.compile(r"^\s*(```|~~~)[^\n]*\n(.*?)(?:^\s*\1[^\n]*$|\Z)", re.DOTALL | re.MULTILINE)
_INLINE_CODE = re.compile(r"`[^`\n]+`")
# A fence that wraps text rather than code: its deliverable is a message, not a program.
_TEXT_FENCE = re.compile(
    r"^\s*(```|~~~)\s*(?:text|txt|plain|plaintext|gitcommit|commit|git|markdown|md)?\s*\n"
    r"(.*?)^\s*\1\s*$",
    re.DOTALL | re.MULTILINE,
)
_ITEM = re.compile(r"^\s*(?:[-*+•]|\d{1,3}[.)])\s+(\S.*)$")
_BULLET = re.compile(r"^\s*[-*+•]\s+\S", re.MULTILINE)
_EMOJI = re.compile(r"[\U0001F000-\U0001FAFF\u2600-\u27BF\u2B00-\u2BFF\uFE0F]")
# A shortcode GitHub and Slack render as an emoji (":sparkles:", ":white_check_mark:").
_SHORTCODE = re.compile(r"(?<![\w:]):[a-z][a-z0-9_+-]*:(?![\w:])")
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


def _imperative(text: str) -> bool:
    """The first word reads as a command: not past tense, not -ing, not a third person -s
    ("Fix", not "Fixed", "Fixing" or "Fixes")."""
    word = _first_word(text).lower()
    if not word or _past_tense(text):
        return False
    if len(word) > 4 and word.endswith("ing") and word not in ("bring", "string", "spring"):
        return False
    third = len(word) > 3 and word.endswith("s") and not word.endswith(("ss", "us", "is", "ics"))
    return not third


def _first_letter(text: str) -> str:
    m = re.search(r"[^\W\d_]", _TYPE_PREFIX.sub("", text, count=1))
    return m.group(0) if m else ""


def _past_tense(text: str) -> bool:
    word = _first_word(text).lower()
    return len(word) >= 4 and word.endswith("ed") and word not in _NOT_PAST


def _untagged_fence(text: str) -> bool:
    """A fenced block opened without a language (```` ``` ```` rather than ```` ```bash ````)."""
    inside = False
    for line in text.split("\n"):
        m = _FENCE_LINE.match(line)
        if m:
            if not inside and not line.strip()[3:].strip():
                return True
            inside = not inside
    return False


_CONTRACTION = re.compile(
    r"\b[A-Za-z]+n['’]t\b|\b(?:[A-Za-z]+['’](?:re|ve|ll|d|m)|(?:it|that|there|here|what|who|"
    r"where|how|let|he|she|everything|nothing|something|everyone|someone|nobody|this)['’]s)\b",
    re.IGNORECASE,
)
# An offer or a wish at the end of an answer ("Let me know if …", "Hope this helps!").
_CLOSING_OFFER = re.compile(
    r"\b(?:let me know|hope (?:this|that|it) helps|feel free|happy to (?:help|assist|adjust|"
    r"clarify|answer|explain)|any (?:other |more |further )?questions|want me to|shall i|"
    r"should i|would you like|do you want me|if you(?:'d| would)? (?:like|want|need))\b",
    re.IGNORECASE,
)


def _closing_offer(text: str) -> bool:
    lines = [x for x in _FENCED.sub("", text).split("\n") if x.strip()]
    return bool(lines) and _CLOSING_OFFER.search(lines[-1]) is not None


def _unsorted(text: str) -> bool:
    """A code block (or, without one, the text) whose lines are out of alphabetical order,
    comment lines left out: a requirements file with ``uvicorn`` before ``structlog``."""
    blocks = [m.group(2) for m in _FENCED.finditer(text)] or [text]
    for block in blocks:
        keys = [x.strip().lower() for x in block.split("\n")
                if x.strip() and not re.match(r"\s*(?:#|//|--|;)", x)]  # fmt: skip
        if keys != sorted(keys):
            return True
    return False


def _glued_body(text: str) -> bool:
    lines = deliverable(text).strip().split("\n")
    return len(lines) > 1 and bool(lines[1].strip())


# Named features for ``has`` / ``no``: what users forbid or ask for that is a kind of
# character or layout rather than a word ("no emojis" forbids the characters; an answer
# saying "no emojis here" is fine).
FEATURES: dict[str, tuple[Callable[[str], bool], str]] = {
    "emoji": (
        lambda t: _EMOJI.search(t) is not None or _SHORTCODE.search(t) is not None,
        "an emoji character, or a shortcode rendered as one (:sparkles:)",
    ),
    "heading": (
        has_match(r"^\s{0,3}#{1,6}\s+\S|^[^\n]*\w[^\n]*\n\s*={3,}\s*$"),
        "a Markdown heading line (# …, or a line underlined with ===)",
    ),
    "code_fence": (has_match(r"^\s*(```|~~~)"), "a fenced code block (```)"),
    "bullet": (lambda t: _BULLET.search(t) is not None, "a bullet (- * + • item)"),
    "list": (lambda t: any(_ITEM.match(x) for x in t.split("\n")), "a bullet or numbered item"),
    "numbered_list": (has_match(r"^\s*\d{1,3}[.)]\s+\S"), "a numbered list item"),
    "table": (
        has_match(r"^\s*\|.*\|\s*$|^\s*\|?\s*:?-{3,}:?\s*(?:\|\s*:?-{3,}:?\s*)+\|?\s*$"),
        "a Markdown table (a |-row, or a --- | --- rule)",
    ),
    "link": (has_match(r"https?://\S|\bwww\.\S|\[[^\]\n]+\]\([^)\n]+\)"), "a URL or link"),
    "bold": (has_match(r"\*\*\S[^*\n]*\*\*|__\S[^_\n]*__"), "bold text (**…**)"),
    "markdown": (
        has_match(
            r"^\s{0,3}#{1,6}\s+\S|^\s*(```|~~~)|\*\*\S[^*\n]*\*\*|__\S[^_\n]*__|"
            r"\[[^\]\n]+\]\([^)\n]+\)|^\s*\|.*\|\s*$|`[^`\n]+`|^\s*>\s"
        ),
        "Markdown syntax: headings, fences, bold, links, tables, inline code, quotes "
        "(plain '-' lists are not counted)",
    ),
    "exclamation": (has_match(r"!(?!=)"), "an exclamation mark"),
    "trailing_punctuation": (
        lambda t: bool(t.strip()) and t.rstrip()[-1] in ".!?;:,…",
        "ends with a punctuation mark",
    ),
    "question": (lambda t: t.rstrip().endswith("?"), "ends with a question mark"),
    "apology": (has_match(r"\b(?:sorry|apologi[sz]\w*|apologies)\b", re.IGNORECASE), "an apology"),
    "preamble": (
        has_match(
            r"\A\W*(?:sure|certainly|of course|absolutely|here(?:'s| is| are)|great question|"
            r"happy to|i'?d be happy|no problem|okay|ok)\b",
            re.IGNORECASE,
        ),
        "opens with a pleasantry (Sure, Certainly, Here is …)",
    ),
    "past_tense": (_past_tense, "the first word is a past tense verb (Added, Fixed)"),
    "imperative": (_imperative, "the first word is a command (Fix, not Fixed/Fixes/Fixing)"),
    "lowercase_start": (lambda t: _first_letter(t).islower(), "the first letter is lower case"),
    "capital_start": (lambda t: _first_letter(t).isupper(), "the first letter is a capital"),
    "diff_lines": (
        has_match(r"^(?:diff --git |@@ -\d|\+\+\+ [ab/]|--- [ab/]|[+-](?![\s+-])\S)"),
        "lines of a diff (+/- lines, @@ hunks)",
    ),
    "italic": (
        has_match(
            r"(?<![*\w])\*(?![\s*])[^*\n]+(?<![\s*])\*(?![*\w])|(?<![_\w])_(?![\s_])[^_\n]+(?<![\s_])_(?![_\w])"
        ),
        "italic text (*…* or _…_)",
    ),
    "hashtag": (has_match(r"(?<![\w&#/])#[A-Za-z]\w*"), "a hashtag (#launch)"),
    "at_mention": (has_match(r"(?<![\w.])@[A-Za-z][\w-]*"), "an @mention"),
    "inline_code": (
        lambda t: _INLINE_CODE.search(_FENCED.sub("", t)) is not None,
        "`inline code` outside code blocks",
    ),
    "contraction": (lambda t: _CONTRACTION.search(t) is not None, "a contraction (don't, it's)"),
    "closing_offer": (_closing_offer, "ends with an offer (Let me know if …, Hope this helps)"),
    "untagged_fence": (_untagged_fence, "a code fence opened without a language"),
    "first_person": (
        has_match(r"\b(?:I|I'm|I've|I'll|I'd)\b|\b(?:[Mm]e|[Mm]y|[Mm]ine)\b"),
        "I/me/my",
    ),
    "em_dash": (has_match("\u2014"), "an em dash (\u2014)"),
    "checkbox": (
        has_match(r"^\s*(?:[-*+]|\d{1,3}[.)])\s+\[[ xX]\]"),
        "a task-list checkbox (- [ ] …)",
    ),
    "top_heading": (has_match(r"^\s{0,3}#[ \t]+\S"), "a top-level heading (# Title)"),
    "shell_prompt": (has_match(r"^\s*[$%>][ \t]+\S"), "a command line opened with a prompt ($ …)"),
    "code_comment": (
        has_match(r"(?:^|[ \t])(?:#|//)(?=[ \t]|$)(?![ \t]*(?:type|noqa|pragma|fmt)\b)"),
        "a comment (# … or // …, not a shebang, pragma or #123)",
    ),
    "bare_except": (has_match(r"^\s*except\s*:"), "a bare `except:`"),
    "untyped_def": (
        has_match(r"^\s*(?:async\s+)?def\s+\w+\s*\((?:[^()]|\([^()]*\))*\)\s*:"),
        "a Python def without a return annotation (-> …)",
    ),
    "camelcase_def": (
        has_match(r"^\s*(?:async\s+)?def\s+_*[a-z][a-z0-9]*_?[A-Z]\w*\s*\("),
        "a Python def named in camelCase (testParsesDate)",
    ),
    "single_quoted": (
        has_match(r"^(?:[^\"'#\n]|\"[^\"\n]*\")*'"),
        "a single-quoted string (an apostrophe in a double-quoted one or a comment is not)",
    ),
    "american_spelling": (
        has_american,
        "an American spelling (color, behavior, -ize/-yze: organize, analyze)",
    ),
    "british_spelling": (
        has_british,
        "a British spelling (colour, behaviour, -ise/-yse: organise, analyse)",
    ),
    "hedging": (
        has_match(
            r"\b(?:maybe|perhaps|probably|possibly|likely|might|may (?:be|have)|could be|"
            r"seems?|appears? to|I think|I guess|I suspect|not sure|should (?:still |now )?"
            r"(?:work|be (?:fine|ok(?:ay)?|good)|do the trick|fix it))\b",
            re.IGNORECASE,
        ),
        "a hedge (maybe, probably, might, I think, should work)",
    ),
    "hype": (
        has_match(
            r"\b(?:thrilled|excited|exciting|delighted|game-?changing|game-?changer|seamless\w*|"
            r"revolutionary|cutting-edge|world-class|best-in-class|next-level|supercharge\w*|"
            r"unleash\w*|blazing(?:ly)?|incredible|amazing|awesome|powerful|stunning|"
            r"groundbreaking|magical)\b",
            re.IGNORECASE,
        ),
        "a hype word (thrilled, game-changing, seamless)",
    ),
    "glued_body": (_glued_body, "a second line that is not blank: no blank line after the subject"),
    "unsorted": (_unsorted, "lines of a code block out of alphabetical order (comments aside)"),
    **TEXT_CLASSES,
}


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


# "Here is the commit message:" then a blank line: a lead-in, not the message's subject.
_LEAD_IN = re.compile(r"\A\s*((?:\S+[ \t]+){2,}\S*:)[ \t]*\n[ \t]*\n(?=\s*\S)")
_FIRST_PARAGRAPH = re.compile(r"\A\s*([^\n]+)\n[ \t]*\n(?=\s*\S)")


def _leads_in(line: str) -> bool:
    """A line that introduces what follows: three or more words ending in ":", or a
    pleasantry ("Sure, here's the updated message.")."""
    line = line.strip()
    return bool(re.fullmatch(r"(?:\S+\s+){2,}\S*:", line)) or FEATURES["preamble"][0](line)


def deliverable(answer: str) -> str:
    """What the answer hands over: the inside of its one plain fence when the rest is a
    lead-in (at most two lines, the last one leading in) and at most two lines after; the
    rest of the answer after a lead-in line and a blank line; else the answer. A fence
    tagged with a programming language holds code, not the message."""
    fences = list(_FENCED.finditer(answer))
    if not fences:
        first = _FIRST_PARAGRAPH.match(answer)
        return answer[first.end() :] if first and _leads_in(first.group(1)) else answer
    m = _TEXT_FENCE.search(answer)
    if len(fences) != 1 or m is None or m.start() != fences[0].start():
        return answer
    before, after = answer[: m.start()].strip(), answer[m.end() :].strip()
    if before and not _leads_in(before.splitlines()[-1]):
        return answer
    if len(before.splitlines()) > 2 or len(after.splitlines()) > 2:
        return answer
    return m.group(2)


def units(answer: str, scope: str) -> list[str]:
    """The texts a check on ``scope`` reads (one for the single-text scopes)."""
    if scope == "answer":
        return [answer.strip()]
    if scope in ("first_line", "lines"):
        answer = deliverable(answer)
    lines = answer.split("\n")
    if scope == "first_line":
        first = next((x for x in lines if x.strip() and not _FENCE_LINE.match(x)), "")
        return [first.strip()]
    if scope == "lines":
        return [x.strip() for x in lines if x.strip()]
    if scope == "bullets":
        return [m.group(1).strip() for x in lines if (m := _ITEM.match(x))]
    if scope == "code_lines":
        return [x for m in _FENCED.finditer(answer) for x in m.group(2).split("\n") if x.strip()]
    if scope == "code":
        return ["\n".join(m.group(2) for m in _FENCED.finditer(answer)).strip()]
    if scope == "prose":
        return [_INLINE_CODE.sub(" ", _FENCED.sub("", answer)).strip()]
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
    if unit == "paragraphs":  # blocks of prose between blank lines; a code block is none
        return sum(1 for b in re.split(r"\n\s*\n", _FENCED.sub("\n\n", text)) if b.strip())
    if unit == "indent":  # the widest step a line is indented past the one before (tab: 8)
        widths = [len(x) - len(x.lstrip()) for x in text.expandtabs(8).split("\n") if x.strip()]
        return max((b - a for a, b in zip(widths, widths[1:], strict=False)), default=0)
    raise ValueError(f"unknown unit {unit!r}")


def _literal_match(text: str, value: str, at: str) -> bool:
    flags = 0 if case_sensitive(value) else re.IGNORECASE
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
        return _compiled(identifier_pattern(value), flags).search(text) is not None
    if kind == CONTENT_KIND:
        return any(word_found(term, text) for term in terms(value))
    raise ValueError(f"not a check kind: {kind}")


def terms(value: str) -> list[str]:
    """The names of a ``mentions_any`` value."""
    return [t.strip() for t in value.split(TERM_SEPARATOR.strip()) if t.strip()]


def passes(kind: str, value: str, scope: str, answer: str) -> bool:
    """Whether ``answer`` passes the check: on every unit of ``scope``."""
    code = scope in ("code", "code_lines")
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
