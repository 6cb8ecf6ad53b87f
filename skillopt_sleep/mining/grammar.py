"""A grammar for the common forms of a correction, into the check vocabulary.

Precision first: a form is compiled only when its meaning is plain ("keep the subject under
50 chars", "no emoji", "swap os.system for subprocess", "prefix it with feat:"); anything
else is left to the judge model or the rubric. It may miss; it must not be wrong, because
a wrong judge (one the user's accepted answer fails) teaches the skill the opposite of
what the user said. So:

* "X, not Y", "X instead of Y", "swap Y for X", "replace Y with X" forbid Y; they never
  require X ("use pytest, not unittest": a pytest test need not say "pytest").
* A word is forbidden only when it reads as a literal: quoted, code-like (``os.system``,
  ``type: ignore``), capitalised (Globex, TODO) or one plain word; a plain plural
  ("no client names") is a category the rubric reads.
* Kinds of character or layout ("no emojis", "drop the headers", "plain text") become
  features, not words.
* An example the user gives of an identifier ("like SEC-412", "#318") asks for that shape,
  never for that very identifier (the rule applies to every task of the kind).

``corrected`` (the answer the user corrected) only decides a word check's scope: a word the
answer had only inside code blocks is forbidden in code.
"""

from __future__ import annotations

import re

from skillopt_sleep.mining.counts import describes_answer
from skillopt_sleep.mining.literals import is_identifier, word_checks
from skillopt_sleep.mining.phrases import (
    ANY_FEATURE,
    COUNT_PHRASE,
    FEATURE_RX,
    MAX_AFTER,
    MAX_BEFORE,
    MIN_AFTER,
    MIN_BEFORE,
    NEG_RX,
    NUM,
    NUMBER_WORDS,
    PLAIN,
    PRONOUN_NEG,
    QUOTED,
    UNIT,
    UNITS,
    WANT_RX,
    Check,
    clauses,
    num,
    pair_spans,
    scope_for,
    sentences,
    unit_of,
    why_asked,
)
from skillopt_sleep.mining.prefilter import Prefiltered
from skillopt_sleep.mining.sections import section_checks, semicolon_checks
from trainer.checks import identifier_pattern
from trainer.features import FEATURES

__all__ = ["NUMBER_WORDS", "VERSION", "Check", "compile_text"]

VERSION = 1  # bump when what the grammar compiles changes: cached compilations are redone


_FILLER = r"(?:is|are|the|absolute|hard|our|each|apiece|per \w+)"  # "15 words is the max"


# "in a 2-line summary?": a question's count after an article says what the answer is.
# Not after a negation: "why isn't this a 2-line summary?" asks for one.
_DESCRIBED = re.compile(
    r"^(?!.*\b(?:not|never)\b|.*n't\b).*"
    r"\b(?:in|for|of|on|is|this|it'?s|was) (?:a|an|this|the|my|that) $"
)


def _counts(text: str) -> list[Check]:
    """``max_UNIT`` / ``min_UNIT`` from "under 50 chars", "15 words max", "one line" …"""
    out: list[Check] = []
    text_scope = scope_for(text)
    for sentence in sentences(text):
        scope = scope_for(sentence, text_scope)  # "subject's too long. 50 chars max"
        low = sentence.lower()
        found: list[tuple[str, int, str]] = []
        counted = _COUNTED.search(low)  # a number with its unit: what each pattern below has
        pats = (
            ("max", rf"\b{MAX_BEFORE}\s+{NUM}[- ]?{UNIT}"),
            (
                "max",
                rf"{NUM}[- ]?{UNIT}\s*(?:{_FILLER}\s+){{0,3}}{MAX_AFTER}\b",
            ),
            (
                "max",
                rf"\b{NUM}[- ]{UNIT}(?= (?:subject|title|first line|summary|limit|lines?\b))",
            ),
            ("max", rf"(?<![\w>=<-])>\s?{NUM}[- ]?{UNIT}"),  # "subject > 50 chars": past it
            ("min", rf"\b{MIN_BEFORE}\s+{NUM}[- ]?{UNIT}"),
            ("min", rf"{NUM}[- ]?{UNIT}\s*{MIN_AFTER}\b"),
        )
        for bound, pat in pats if counted else ():
            for m in re.finditer(pat, low):
                question = re.match(r"\s*\?", low[m.end() :])
                if question and re.match(r"(?:only|just)\b", m.group(0)):  # "only one?"
                    continue
                if _DESCRIBED.search(low[: m.start()]) and low.rstrip().endswith("?"):
                    continue  # "why are there headers in a 2-line summary?": what it is
                found.append((bound, num(m.group(1)), UNITS[m.group(2)]))
        # "two or fewer", "max 2", "3 or more": the unit is the one the sentence names
        unit = unit_of(sentence) or unit_of(text)
        if not unit and scope == "first_line":
            unit = "chars"  # "subject's too long, 72 max": a subject is measured in characters
        if not found and unit:
            for bound, pat in (
                ("max", rf"\b{NUM}\s+(?:or fewer|or less|max(?:imum)?|tops|at most)\b"),
                ("max", rf"\b(?:max|at most|no more than|up to)\s+{NUM}\b(?![- ]?{UNIT})"),
                ("min", rf"\b{NUM}\s+or more\b"),
                ("min", rf"\b(?:at least|minimum(?: of)?)\s+{NUM}\b(?![- ]?{UNIT})"),
            ):
                for m in re.finditer(pat, low):
                    found.append((bound, num(m.group(1)), unit))
        longer = counted and re.search(
            rf"\bno (?:\w+ )?(?:line|bullet|sentence|subject|title)s? (?:longer|"
            rf"more) than\s+{NUM}[- ]?{UNIT}",
            low,
        )
        if longer:
            found.append(("max", num(longer.group(1)), UNITS[longer.group(2)]))
        wrap = (
            re.search(r"\b(?:hard-?)?wrap(?: \w+){0,3} at\s+(\d{2,3})\b", low)
            if "wrap" in low  # what the pattern needs, looked for first
            else None
        )
        if wrap:
            found.append(("max", int(wrap.group(1)), "chars"))
            scope = "lines"
        one = "line" in low and re.search(
            r"\b(?:one|a single|single)[- ]line\b|\bone-?liner\b", low
        )
        if (
            one
            and not describes_answer(low, low[: one.start()])  # "it's a one-line answer"
            and not any(u == "lines" for _, _, u in found)
        ):
            found.append(("max", 1, "lines"))
        for bound, n, unit in found:
            if unit == "lines" and scope == "lines":
                continue  # "no line longer than …" counts characters, not lines
            in_scope = scope if not (unit == "bullets" and scope == "bullets") else "answer"
            if unit == "lines" and in_scope == "first_line":
                in_scope = "answer"
            if n == 0 and bound == "min":
                continue
            out.append(Check(f"{bound}_{unit}", str(n), in_scope))
    return out


def _case_and_tense(text: str) -> list[Check]:
    """Case of the first letter and past tense: rules about a subject line by default."""
    out: list[Check] = []
    low = text.lower()
    scope = scope_for(text, "first_line")
    if scope == "answer":
        scope = "first_line"
    lower = re.search(
        r"\b(?:lower-?case|lower case|start(?:s)? (?:with a )?lower|small letter|"
        r"(?:don'?t|do not|never|no need to) capitali[sz]e|not capitali[sz]ed)\b",
        low,
    )
    upper = re.search(
        r"\b(?:capitali[sz]e|upper-?case letter|capital letter|with a capital|"
        r"start(?:s)? with (?:an? )?(?:capital|uppercase|upper-case))\b",
        low,
    )
    if lower and upper and lower.end() <= upper.start():  # "small letter, make it a capital"
        lower = None  # the later one is the rule (a lower case named later wins below)
    if lower and not re.search(r"\b(?:don'?t|do not|never) (?:lower|use lower)", low):
        out.append(Check("has", "lowercase_start", scope))
    elif upper and not re.search(r"(?:don'?t|do not|never|no need to) capitali[sz]e", low):
        out.append(Check("has", "capital_start", scope))
    tense = re.search(
        r"\b(?:imperative|present tense|command form|as a command|not (?:in )?(?:the )?past "
        r"tense|no past tense|without (?:the )?past tense)\b",
        low,
    )
    no_past = re.search(r"past tense", low) and NEG_RX.search(low)
    pair = _tense_pair(text)
    if tense or no_past or pair == "ed":
        out.append(Check("no", "past_tense", scope))
    elif pair:  # 'Remove', not 'Removing' / 'Removes': the command form
        out.append(Check("has", "imperative", scope))
    return out


def _tense_pair(text: str) -> str:
    """'Add', not 'Added' / like 'Fix bug', never 'Fixed bug' / 'Remove', not 'Removing':
    examples of tense; the ending of the other form ("ed", "ing", "s"), or ""."""
    quoted = [next(g for g in m.groups() if g) for m in QUOTED.finditer(text)]
    for a, b in zip(quoted, quoted[1:], strict=False):
        wa, wb = a.split()[0].lower(), b.split()[0].lower()
        if wb in (wa + "ed", wa + "d") or wa in (wb + "ed", wb + "d"):
            return "ed"
        for x, y in ((wa, wb), (wb, wa)):
            if y in (x + "ing", x[:-1] + "ing") and len(x) > 2:
                return "ing"
            if y in (x + "s", x + "es") and len(x) > 2:
                return "s"
    return ""


# A period written as the mark itself: "a `.`", "with a .".
_QUOTED_DOT = re.compile(r"""\s?[`'"]\.[`'"]|(?:(?<=\ba)|(?<=\bthe)) \.(?=\s|$)""")


def _ends(text: str) -> list[Check]:
    """Starts/ends with a literal, a trailing period, a question at the end."""
    out: list[Check] = []
    low = _QUOTED_DOT.sub(" period", text.lower())  # "don't end with a `.`"
    scope = scope_for(text)
    first = "first_line" if scope in ("answer", "first_line") else scope
    if re.search(
        r"\b(?:period|full stop|dot|\.)\b.{0,30}\b(?:end|ends|ending|at the end)\b|"
        r"\b(?:ending|ends?) (?:in|with) (?:a |the )?(?:period|full stop|dot)\b|"
        r"\b(?:trailing|final|ending) (?:period|full stop|dot)\b|"
        r"\b(?:end|finish)(?:s|es|ing)? (?:\w+ ){0,3}?with (?:a |the )?(?:period|full stop|dot)\b|"
        r"\bno (?:period|full stop|dot)\b",
        low,
    ) and NEG_RX.search(low):
        out.append(Check("not_ends_with", ".", first))
    if re.search(
        r"\b(?:end|finish|close)(?:s| it| with)?(?: \w+){0,2} (?:with|by) (?:a |an )?"
        r"(?:question|asking)\b",
        low,
    ):
        out.append(Check("has", "question", "answer"))
    start = re.compile(
        r"\b(?:start|begin|prefix|open|lead)(?:s)?(?: it| them| the [\w ]{1,20}?| each \w+| every "
        r"\w+)? with\s+(?:the\s+)?(?:" + QUOTED.pattern + r"|([a-z]+(?:\([\w-]+\))?!?:))",
        re.IGNORECASE,
    )
    for m in start.finditer(text):
        value = next(g for g in m.groups() if g).strip()
        neg = NEG_RX.search(text[max(0, m.start() - 25) : m.start()])
        out.append(_start_check(value, first, negated=bool(neg)))
    front = re.search(
        r"\b(?:the\s+)?([a-z]+(?:\([\w-]+\))?!?:)(?: type| prefix)? (?:at the (?:front|start|"
        r"beginning)|first)\b|\b(?:the\s+)?([a-z]+(?:\([\w-]+\))?!?:)\s+(?:type\s+)?prefix\b",
        text,
        re.IGNORECASE,
    )
    if front and not any(c.kind in ("starts_with", "regex") for c in out):
        out.append(_start_check(next(g for g in front.groups() if g), first, negated=False))
    if _TYPE_FAMILY.search(text):  # "the ci: prefix, conventional commits": any type of it
        out = [Check("regex", _ANY_TYPE, c.scope) if _TYPE_START.match(c.value) else c for c in out]
    opener = (
        r"(?:" + QUOTED.pattern + r")\s+(?:opener|intro|opening|greeting|in front|at the start|"
        r"at the beginning)\b"
    )
    for m in re.finditer(opener, text):
        if NEG_RX.search(text[: m.start()]):  # "skip the 'Here's the summary' opener"
            out.append(Check("not_starts_with", next(g for g in m.groups() if g).strip(), "answer"))
    sign = (
        r"\b(?:sign(?:ed)?(?: it| off| it off)?(?: with| as(?: me)?)?|sign-?off(?: is| should be)?|"
        r"(?:the )?closing (?:is|should be|line should be)|end(?: it)? with|close(?: it)? with|"
        r"finish(?: it)? with)\s*:?\s+"
    )
    signed = re.search(sign + "(?:" + QUOTED.pattern + ")", text, re.IGNORECASE) or re.search(
        sign + r"([A-Z][\w]*(?:,? [A-Z][\w]*){0,3})\s*[.!]?\s*$", text.strip(), re.IGNORECASE
    )
    if signed:
        value = next(g for g in signed.groups() if g).strip()
        if value.lower() not in ("a question", "question") and value not in ("!", "?"):
            neg = NEG_RX.search(text[: signed.start()])  # "don't end sentences with '!'": a feature
            out.append(Check("not_ends_with" if neg else "ends_with", value, "answer"))
    return out


# The family of commit types named as such: a type the user quotes beside it is an example.
_TYPE_FAMILY = re.compile(r"\bconven\w*[- ]?commits?\b|\b(?:commit|change) types?\b", re.I)
_TYPE_START = re.compile(r"\(\?i\)\\A\\W\*[a-z]+\(")
_ANY_TYPE = r"\A\W*[a-z]+(?:\([^)\n]*\))?!?:\s"


def _start_check(value: str, scope: str, negated: bool) -> Check:
    """A start the user named; a conventional-commit type ("feat:") allows its scope and
    "!" ("feat(api)!: …" starts with the feat type too); an identifier ("PAY-381:") its
    shape, not that very ticket."""
    if not negated and is_identifier(value.rstrip(":")):
        return Check("regex", r"\A\W*" + identifier_pattern(value), scope)
    kind = re.fullmatch(r"([a-z]+)!?:", value)
    if kind and not negated:
        return Check("regex", rf"(?i)\A\W*{kind.group(1)}(?:\([^)\n]*\))?!?:", scope)
    if negated:  # "don't open with 'Sure'": how the answer opens, lead-in and all
        return Check("not_starts_with", value, "answer")
    return Check("starts_with", value, scope)


_COUNTED = Prefiltered(rf"{NUM}[- ]?{UNIT}", re.IGNORECASE)
# Where a count or a scope is named, not a feature: "no more than 3 bullets", "each bullet".
_SCOPE_PHRASE = re.compile(r"\b(?:each|every|per) (?:bullet|item|point|line)s?\b", re.I)
_HAS_FEATURES = ("bullet", "list", "numbered_list", "code_fence", "heading", "table")


def _features(text: str) -> list[Check]:
    """``has`` / ``no`` a feature named by a form word, by the polarity of its clause."""
    out: list[Check] = []
    pronoun_neg = PRONOUN_NEG.search(text) is not None
    for sentence in sentences(text):
        for clause in clauses(sentence):
            if (
                PLAIN.search(clause)
                and not _names_feature(text)
                and not re.search(r"\bplain (?:english|words|language)\b", clause, re.I)
            ):  # "plain text" glosses a feature named beside it ("the bold …, plain text")
                out.append(Check("no", "markdown"))
            if re.search(r"\bunnumbered\b", clause, re.IGNORECASE):
                out.append(Check("no", "numbered_list"))
            if _COUNTED.search(clause):  # what every count phrase has, read cheaply first
                clause = COUNT_PHRASE.sub(" ", clause)  # "no more than 3 bullets" is a count
            clause = _SCOPE_PHRASE.sub(" ", clause)  # "each bullet" says where, not what
            pairs = pair_spans(clause)
            found = ([(m, f) for rx, f in FEATURE_RX for m in rx.finditer(clause)]
                     if ANY_FEATURE.search(clause) else [])  # fmt: skip
            for m, feature in found:
                word = m.group(0).lower()
                if any(m.end() < n.start() <= m.end() + 1 for n, _ in found):
                    continue  # "markdown headers": the modifier of the word that names it
                if any(n.start() <= m.start() and m.end() <= n.end() and n.span() != m.span()
                       for n, _ in found):  # fmt: skip
                    continue  # "lists" inside "numbered lists"
                if feature == "numbered_list" and word == "numbers" and not _LIST.search(text):
                    continue
                if feature == "heading" and word == "titles" and "#" not in clause:
                    continue
                if (
                    feature == "exclamation"
                    and word.startswith("!")
                    and not re.search(r"(?:^|\s|['\"`])!s?(?:['\"`]|\s|$)", clause)
                ):
                    continue
                role = _role(clause, m.start(), m.end(), pairs)
                if feature == "code_fence" and re.match(r"\W*fence\b", clause, re.I):
                    role = "has"  # "fence the command"
                if role is None and pronoun_neg:
                    role = "no"  # "… renders emoji as boxes, so leave them out"
                if role == "has" and any(r == "keep" and s <= m.start() < e for s, e, r in pairs):
                    continue  # "X, not Y" forbids Y and never asks for X
                if role == "no":
                    out.append(Check("no", feature, _feature_scope(feature, clause)))
                elif role == "has" and feature in _HAS_FEATURES:
                    out.append(Check("has", "list" if feature == "bullet" else feature))
    return _resolve_lists(out)


_LIST = re.compile(r"\b(?:list|steps|bullets?|dashes|items)\b", re.I)


def _names_feature(text: str) -> bool:
    """A feature other than markdown or a list named outside "plain …" (read only where a
    clause says "plain": most requests never do)."""
    unglossed = PLAIN.sub(" ", text)
    return ANY_FEATURE.search(unglossed) is not None and any(
        f not in ("markdown", "list") and rx.search(unglossed) for rx, f in FEATURE_RX
    )


def _resolve_lists(checks: list[Check]) -> list[Check]:
    """A list asked for where bullets or numbers are forbidden is no request for a list
    ("bullets without numbering", "a paragraph, not a list")."""
    names = {(c.kind, c.value) for c in checks}
    forbidden = {("no", "bullet"), ("no", "list"), ("no", "numbered_list")}
    return [c for c in checks if not (c == Check("has", "list") and forbidden & names)]


# Features read where the form shows: outside code, so a "# comment" in a shell block is
# no heading, a "!" in `[ ! -f x ]` no exclamation, `apologies.py` no apology and `:smile:`
# in inline code no emoji (it is not rendered). The rest read the whole answer.
PROSE_FEATURES = frozenset({
    "emoji", "heading", "bullet", "list", "numbered_list", "table", "bold", "link",
    "exclamation", "apology", "contraction", "first_person", "inline_code", "italic", "hashtag",
    "at_mention", "em_dash", "checkbox", "top_heading", "american_spelling", "british_spelling",
    "ellipsis", "first_person_any", "horizontal_rule", "blockquote", "bare_url", "number_word",
    "long_number", "glued_unit", "currency_symbol", "flattery", "recap", "nested_list",
})  # fmt: skip


def _feature_scope(feature: str, clause: str) -> str:
    """Where a forbidden feature shows: a layout or a mark outside code (``PROSE_FEATURES``),
    a subject's form on the subject, the rest anywhere."""
    if feature in PROSE_FEATURES:
        return "prose"
    if feature in ("past_tense", "lowercase_start", "capital_start"):
        return "first_line"
    return "answer"


# "fewer bullets", "less bold": a count or a degree, not a feature forbidden
_REDUCE = re.compile(r"\b(?:fewer|less)\W*$", re.IGNORECASE)


def _role(clause: str, start: int, end: int, pairs: list[tuple[int, int, str]]) -> str | None:
    """Whether a form word at [start, end) is forbidden ("no"), asked for ("has") or only
    mentioned (None) in its clause."""
    for s, e, role in pairs:
        if s <= start and end <= e:
            return "no" if role == "no" else "has"
    before = clause[:start]
    after = clause[end:]
    asked = why_asked(before, after)  # "why does it need a heading?": a complaint
    if asked is not None:
        return asked
    if re.search(r"\b(?:leave|keep|take)\b", before, re.I) and re.match(r"[\w\s-]*\bout\b", after):
        return "no"  # "leave the +/- lines out"
    if NEG_RX.search(_REDUCE.sub(" ", before)) or re.match(
        r"\W*(?:is|are|isn'?t|aren'?t)?\s*(?:banned|off-limits|not ok|not allowed|forbidden|"
        r"has to go|have to go|legacy|gone|break\w*)\b|\W*(?:don'?t|doesn'?t) (?:belong|render)",
        after,
        re.IGNORECASE,
    ):
        return "no"
    bare = re.fullmatch(r"\W*(?:(?:please|pls|just|a|an|the|some|more)\s+)*", before)
    if (
        WANT_RX.search(before)
        or (bare and re.fullmatch(r"\W*(?:please)?\W*", after))  # "bullets please"
        or (bare and re.match(r"\s+(?:for|please)\b", after))  # "code block for the command"
    ):
        return "has"
    return None


def compile_text(said: str, corrected: str = "") -> list[Check]:
    """The checks a correction states, by the grammar; [] when none is plain."""
    pasted = r"\[(?:pasted \d+ lines|code block, \d+ lines)\]|```[^\n`]*\n.*?(?:```|$)"
    said = re.sub(pasted, " ", said, flags=re.DOTALL)  # what was pasted is not what was said
    text = " ".join(said.split())
    checks = [
        *_counts(text),
        *_case_and_tense(text),
        *_ends(text),
        *_features(text),
        *word_checks(text, corrected),
        *semicolon_checks(text, corrected),
        *section_checks(text),
    ]
    out: list[Check] = []
    for c in checks:
        if c.kind in ("has", "no") and c.value not in FEATURES:
            continue
        if c not in out:
            out.append(c)
    return _drop_contradictions(out)


def _drop_contradictions(checks: list[Check]) -> list[Check]:
    """A check and its opposite from one sentence cannot both be meant: keep neither."""
    opposite = {"has": "no", "no": "has", "contains": "not_contains", "not_contains": "contains"}
    keys = {(c.kind, c.value.lower()) for c in checks}
    return [c for c in checks if (opposite.get(c.kind, ""), c.value.lower()) not in keys]
