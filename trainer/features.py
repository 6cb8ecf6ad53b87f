"""The named features of the check vocabulary, for ``has`` / ``no``: what users forbid or ask
for that is a kind of character or layout rather than a word ("no emojis" forbids the
characters; an answer saying "no emojis here" is fine). Each is a test of a text and a
short description (docs/tasks.md lists them); ``trainer.checks`` reads them on a scope.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from trainer.answer_parts import (
    BULLET,
    FENCE_LINE,
    FENCED,
    INLINE_CODE,
    ITEM,
    PREAMBLE,
    deliverable,
    without_program_code,
)
from trainer.spelling import has_american, has_british
from trainer.text_classes import TEXT_CLASSES, has_match

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
    """A fenced block opened without a language (```` ``` ```` rather than ```` ```bash ````);
    a bare fence on the last line opens nothing (a block closed on a line of prose before
    it, "and ```diff … ```", leaves its closing fence unmatched)."""
    inside = False
    lines = text.rstrip().split("\n")
    for i, line in enumerate(lines):
        m = FENCE_LINE.match(line)
        if m:
            if not inside and not line.strip()[3:].strip() and i < len(lines) - 1:
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
    lines = [x for x in FENCED.sub("", text).split("\n") if x.strip()]
    return bool(lines) and _CLOSING_OFFER.search(lines[-1]) is not None


def _unsorted(text: str) -> bool:
    """A code block (or, without one, the text) whose lines are out of alphabetical order,
    comment lines left out: a requirements file with ``uvicorn`` before ``structlog``."""
    blocks = [m.group(2) for m in FENCED.finditer(text)] or [text]
    for block in blocks:
        keys = [x.strip().lower() for x in block.split("\n")
                if x.strip() and not re.match(r"\s*(?:#|//|--|;)", x)]  # fmt: skip
        if keys != sorted(keys):
            return True
    return False


def _glued_body(text: str) -> bool:
    lines = deliverable(text).strip().split("\n")
    return len(lines) > 1 and bool(lines[1].strip())


# Methods the standard library calls by their camelCase names: unittest's hooks, ast's and
# http.server's dispatch (``visit_Name``, ``do_GET``).
_STDLIB_HOOKS = (
    r"(?:setUp|tearDown|setUpClass|tearDownClass|setUpModule|tearDownModule|asyncSetUp|"
    r"asyncTearDown|(?:visit|do)_[A-Z]\w*)"
)


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
    "bullet": (
        lambda t: BULLET.search(without_program_code(t)) is not None,
        "a bullet (- * + • item) outside a block of code",
    ),
    "list": (
        lambda t: any(ITEM.match(x) for x in without_program_code(t).split("\n")),
        "a bullet or numbered item outside a block of code",
    ),
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
    "apology": (
        has_match(
            r"\b(?:sorry|apologi[sz]\w*|apologies)\b|\bmy (?:bad|mistake)\b(?! \w)", re.IGNORECASE
        ),
        "an apology (sorry, apologies, my bad, my mistake)",
    ),
    "preamble": (
        lambda t: PREAMBLE.search(t) is not None,
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
        lambda t: INLINE_CODE.search(FENCED.sub("", t)) is not None,
        "`inline code` outside code blocks",
    ),
    "contraction": (lambda t: _CONTRACTION.search(t) is not None, "a contraction (don't, it's)"),
    "closing_offer": (_closing_offer, "ends with an offer (Let me know if …, Hope this helps)"),
    "untagged_fence": (_untagged_fence, "a code fence opened without a language"),
    "first_person": (
        has_match(r"\b(?:I(?!/\w)|I'm|I've|I'll|I'd)\b|\b(?:[Mm]e|[Mm]y|[Mm]ine)\b"),
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
    "camelcase_def": (  # a name the standard library calls is not the author's to choose
        has_match(
            rf"^\s*(?:async\s+)?def\s+(?!{_STDLIB_HOOKS}\s*\()_*[a-z][a-z0-9]*_?[A-Z]\w*\s*\("
        ),
        "a Python def named in camelCase (testParsesDate; unittest's setUp, ast's visit_Name pass)",
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
