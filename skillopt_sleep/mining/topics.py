"""What a correction is about, read loosely: the features it names ("emojis", "headers"),
the numbers it gives ("fifty, max"), the words and examples it quotes or names (`sudo`,
'Certainly!', Brightwater, PAY-381), each with the role its clause gives it: forbidden
("no", "drop", "… look awful"), wanted ("use", "add", "needs"), kept ("X, not Y" keeps X)
or only named. ``contrast`` turns topics into checks with the answers the user corrected
and accepted; the words say *what* a rule is about, the answers *which way* and *where*.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache

from skillopt_sleep.mining.counts import count_topics
from skillopt_sleep.mining.cues import ANY_CUE, FEATURE_TOPIC_RX
from skillopt_sleep.mining.literals import (
    COMMANDS,
    SETUP_WORDS,
    SUBCOMMANDS,
    code_tokens,
    literal,
)
from skillopt_sleep.mining.phrases import (
    FINE_AFTER,
    NEG_RX,
    PRONOUN_NEG,
    QUOTED,
    clauses,
    example_pairs,
    pair_spans,
    rx,
    scope_for,
    sentences,
    why_asked,
)
from skillopt_sleep.mining.shapes import SHORTCODE, is_identifier, shape_topics
from skillopt_sleep.mining.shapes import START as _START
from skillopt_sleep.mining.topic import HAS, KEEP, NAMED, NO, Topic
from trainer.features import FEATURES

# What an example the user quotes can show ('Certainly!' is a preamble, '## Summary' a
# heading); a quoted example is read as the feature too.
EXAMPLE_FEATURES = (
    "preamble", "closing_offer", "heading", "emoji", "bold", "apology", "hedging", "hype",
    "flattery", "recap",
)  # fmt: skip
# Layouts the user may ask for; every other feature is only ever forbidden.
HAS_FEATURES = (
    "bullet", "list", "numbered_list", "code_fence", "heading", "table", "question", "checkbox",
)  # fmt: skip

_COMPLAINT_AFTER = re.compile(
    r"\W*(?:is|are|isn'?t|aren'?t|looks?|reads?|were|was)?\s*(?:banned|off-limits|not ok|"
    r"not allowed|forbidden|legacy|gone|off|awful|ugly|distract\w*|annoying|noise|noisy|"
    r"unnecessary|not needed|too much|wrong|broken|weird|pointless|useless|a mess|odd|bad|"
    r"strange|messy|cluttered|confusing|garish|unreadable|goes nowhere|go nowhere)\b|"
    r"\W*(?:don'?t|doesn'?t|do not|does not|won'?t|will not|can'?t|cannot) (?:belong|render|work|"
    r"display|show|help|need)|\W*(?:break|breaks|broke|clutter|clutters|has to go|have to go|"
    r"renders? (?:them )?literally|everywhere)\b",
    re.IGNORECASE,
)
_WANT_BEFORE = re.compile(
    r"\b(?:use|add|include|put|give|want|wanted|need|needs|(?:has|have) (?:a|an)|"
    r"make (?:it|them|this|that)(?: into)?|"
    r"as an?|into|with|start with|begin with|tag|annotate|number|prefer)\W*(?:\w+\W+){0,2}$",
    re.IGNORECASE,
)
_END = re.compile(
    r"\b(?:end|ends|ending|bottom|trailing|last|suffix|close|closing|finish|at the end)\b",
    re.IGNORECASE,
)


_VERB_CUE = re.compile(r"(?:number|tag|spell|expand)\b", re.IGNORECASE)
_OPENS = re.compile(r"\W*(?:(?:please|pls|just|can you|could you|and)\s+)*", re.IGNORECASE)


# "fewer bullets", "less bold": a count or a degree, not a feature forbidden
_REDUCE = re.compile(r"\b(?:fewer|less)\W*$", re.IGNORECASE)


def _role(clause: str, start: int, end: int, pairs: list[tuple[int, int, str]]) -> str:
    for s, e, role in pairs:
        if s <= start and end <= e:
            if role != "no" and re.search(r"\b(?:no|never|without)\W+$", clause[s:start], re.I):
                return NO  # '"*soft*" -> no italics': the remedy is itself a rejection
            return NO if role == "no" else KEEP
    before, after = clause[:start], clause[end:]
    asked = why_asked(before, after)  # "why does it have a heading?", "why is the table gone?"
    if asked is not None:
        return NO if asked == "no" else HAS
    if re.search(r"\b(?:leave|keep|take)\b", before, re.I) and re.match(r"[\w\s-]*\bout\b", after):
        return NO  # "keep Brightwater out of it"
    if NEG_RX.search(_REDUCE.sub(" ", before)) or re.search(r"\bban\b|\bzero\b", before, re.I):
        return NO
    if _COMPLAINT_AFTER.match(after):
        return NO
    if FINE_AFTER.match(after):
        return KEEP  # "dashes are fine"
    if _WANT_BEFORE.search(before) or re.match(
        r"\W*(?:please|pls|first|only)\b(?!\W+(?:don'?t|do not|never|no|stop|avoid)\b)", after, re.I
    ):
        return HAS
    return NAMED


def _pronoun_no(text: str) -> bool:
    """ "Marlin is the codename, remove it": what the correction names is forbidden."""
    return PRONOUN_NEG.search(text) is not None


def _joined(parts: list[str]) -> list[str]:
    """ "use dashes, not numbers": a clause that only rejects joins the one it contrasts."""
    out: list[str] = []
    for part in parts:
        if out and re.match(r"\W*(?:not|never|rather than|instead of)\b", part, re.I):
            out[-1] = f"{out[-1]}, {part}"
        else:
            out.append(part)
    return out


def _pairs(clause: str) -> list[tuple[int, int, str]]:
    """ "X, not Y" spans, outside brackets: "(do not, not don't)" gives examples, not a pair."""
    return pair_spans(re.sub(r"\([^()]*\)", lambda m: " " * len(m.group(0)), clause))


def _clauses_at(text: str) -> list[tuple[int, str]]:
    """Each clause of each sentence with where it starts in ``text``."""
    out, pos = [], 0
    for sentence in sentences(text):
        for clause in _joined(clauses(sentence)):
            at = text.find(clause, pos)
            pos = at if at >= 0 else pos
            out.append((pos, clause))
    return out


def feature_topics(text: str) -> list[Topic]:
    out: list[Topic] = []
    pron = _pronoun_no(text)
    for at, clause in _clauses_at(text):
        pairs = _pairs(clause)
        found = ([(m, f) for rx, f in FEATURE_TOPIC_RX for m in rx.finditer(clause)]
                 if ANY_CUE.search(clause) else [])  # fmt: skip
        for m, cue in found:
            if any(n.start() <= m.start() and m.end() <= n.end() and n.span() != m.span()
                   for n, _ in found):  # fmt: skip
                continue  # "lists" inside "bullet lists"
            if any(m.end() < n.start() <= m.end() + 1 for n, _ in found):
                continue  # "markdown tables": the modifier of the word that names it
            role = _role(clause, m.start(), m.end(), pairs)
            if role == NAMED and pron:
                role = NO
            if (
                role == NAMED
                and _VERB_CUE.match(m.group(0))
                and _OPENS.fullmatch(clause[: m.start()])
            ):
                role = HAS  # "number the steps please": the cue is the verb that asks
            scope = scope_for(clause, "") or None
            if cue.startswith("mark:"):
                end = "end" if cue == "mark:." or _END.search(clause) else None
                out.append(Topic("mark", cue[5:], role, scope, at=end, order=at + m.start()))
                continue
            if cue.startswith("~"):  # the opposite named: asked for, it forbids the feature
                role = HAS if role == NO else NO
            out.append(Topic("feature", cue.lstrip("~"), role, scope, order=at + m.start(),
                             plain=cue == "~markdown"))  # fmt: skip
    others = any(t.what == "feature" and t.value != "markdown" for t in out)
    # "plain text" glosses a feature named beside it ("the bold …, plain text")
    return [t for t in out if not (t.plain and others)]


# Counts: skillopt_sleep/mining/counts.py


# Literals ----------------------------------------------------------------------------
_CAPITALISED = re.compile(r"(?<![\w'`-])([A-Z][A-Za-z0-9]*(?:[;:/.'-][A-Za-z0-9]+)*:?)(?![\w`])")
_COMMON = {
    "i", "a", "an", "the", "no", "not", "don't", "dont", "do", "please", "pls", "use", "drop",
    "remove", "lose", "keep", "make", "add", "we", "our", "it", "it's", "its", "this", "that",
    "these", "those", "why", "what", "how", "when", "where", "just", "only", "also", "and",
    "but", "so", "then", "you", "your", "can", "could", "would", "should", "never", "stop",
    "skip", "cut", "write", "put", "start", "end", "too", "way", "ok", "okay", "yes", "nope",
    "hmm", "ugh", "nah", "again", "still", "same", "every", "each", "all", "any", "some",
    "there", "here", "here's", "is", "are", "was", "were", "be", "my", "me", "they", "their",
    "us", "if", "for", "in", "on", "at", "to", "of", "with", "from", "by", "as", "or",
    "one", "two", "three", "four", "five", "ten", "fix", "change", "swap", "replace", "ban",
    "strip", "take", "leave", "give", "tone", "wrap", "trim", "shorten", "lowercase",
    "uppercase", "capitalize", "capitalise", "number", "tag", "annotate", "sure", "great",
    "thanks", "good", "nice", "legal", "subject", "title", "body", "first", "last", "bullets",
    "plain", "formal", "british", "american", "iso", "dates", "needs", "need", "always",
    "public", "people", "users", "customers",
}  # fmt: skip
_NOT_SUBCOMMANDS = {"in", "on", "at", "to", "is", "the", "a", "an", "and", "or", "for", "with",
                    "please", "pls", "here", "there", "everywhere", "again", "anymore"}  # fmt: skip
_ELLIPSIS = re.compile(r"\s*(?:\.\.\.|…)\s*$")


@dataclass(frozen=True)
class _Span:
    text: str
    start: int
    end: int
    quoted: bool


def _named_spans(clause: str, corrected: str) -> list[_Span]:
    """Quoted text, code tokens and capitalised names in a clause."""
    spans: list[_Span] = []
    taken: list[tuple[int, int]] = []
    for m in QUOTED.finditer(clause):
        g = next(i for i in range(1, 7) if m.group(i))
        spans.append(_Span(m.group(g), m.start(), m.end(), True))
        taken.append(m.span())
    bare = QUOTED.sub(lambda m: " " * len(m.group(0)), clause)
    for m in re.finditer(r"(?<![\w:])(?:@[A-Za-z][\w-]*|:[a-z][a-z0-9_+-]*:)(?![\w:])", bare):
        spans.append(_Span(m.group(0), m.start(), m.end(), False))  # "@channel", ":ok:"
        taken.append(m.span())
    for tok in code_tokens(bare):
        at = bare.find(tok)
        if at >= 0 and not any(a <= at < b or at <= a < at + len(tok) for a, b in taken):
            spans.append(_Span(tok, at, at + len(tok), False))
            taken.append((at, at + len(tok)))

    def add(text: str, start: int, end: int) -> None:
        if not any(a <= start < b or start <= a < end for a, b in taken):
            spans.append(_Span(text, start, end, False))
            taken.append((start, end))

    for m in re.finditer(r"(?<!\S)([•*;!+$])(?!\S)|\b(\w+)\(\)", bare):
        add(m.group(1) or m.group(2), m.start(), m.end())  # "the •", "print()"
    for m in _CAPITALISED.finditer(bare):
        word = m.group(1).rstrip(".")
        if word in SETUP_WORDS or len(word.rstrip(":")) < 2:
            continue
        caps = word.rstrip(":").isupper()
        if not caps and word.lower() in _COMMON:
            continue
        at_start = not clause[: m.start()].strip(" \"'(")
        if at_start and not caps and not _in_answer(word.rstrip(":"), corrected):
            continue  # a capital at the start of a clause is grammar, unless it is a name
        add(word, m.start(), m.end())
    for m in re.finditer(r"(?<![\w'-])([a-z][\w-]*)(?![\w'-])(?= ([a-z]+)\b)?", bare):
        word, sub = m.group(1), m.group(2)
        if word in COMMANDS:  # "npm install rewrites the lockfile", "no sudo"
            if sub and word in SUBCOMMANDS and sub not in _NOT_SUBCOMMANDS:
                add(f"{word} {sub}", m.start(), m.end() + 1 + len(sub))
            else:
                add(word, m.start(), m.end())
        elif len(word) > 2 and word not in _COMMON and word in _code_words(corrected):
            add(word, m.start(), m.end())  # "we don't print in services"
    return spans


def _in_answer(word: str, corrected: str) -> bool:
    return rx(rf"(?<!\w){re.escape(word)}(?!\w)").search(corrected) is not None


_CODE_PARTS = re.compile(r"```[^\n]*\n(.*?)```|`([^`\n]+)`", re.DOTALL)
_RUN = re.compile(r"[\w-]+")
_CALLED_RUN = re.compile(r"(?<![\w-])[\w-]+(?=\s*\()")


@lru_cache(maxsize=1024)
def _code_words(corrected: str) -> frozenset[str]:
    """The plain words (``[a-z][\\w-]*``) the corrected answer uses as code: called (a word
    boundary, the word, "(" after spaces), or in a code block or `inline code` (a whole run
    of word characters and hyphens there). Read once per answer, not once per word."""
    out: set[str] = set()
    for m in _CALLED_RUN.finditer(corrected):  # a called word ends a run: each start it may have
        run = m.group(0)
        out.update(run[i:] for i in range(len(run)) if i == 0 or run[i - 1] == "-")
    code = " ".join(a or b for a, b in _CODE_PARTS.findall(corrected))
    out.update(_RUN.findall(code))
    return frozenset(out)


def _verb_objects(clause: str, corrected: str) -> list[_Span]:
    """A plain word or short phrase a verb of removal or need takes ("drop the prints")."""
    out = []
    for m in re.finditer(
        r"\b(?:no|never|without|avoid|remove|drop|lose|delete|strip|ditch|ban|don'?t (?:use|say|"
        r"write|add|mention|name|include)|stop (?:using|saying|writing|adding)|add|include|"
        r"mention|needs?)\s+(?:the (?:word |term )?|any |all |a |an )?([\w.'-]+(?: [\w.'-]+)?)",
        clause,
        re.IGNORECASE,
    ):
        term = literal(m.group(1), True, corrected)
        if term:
            out.append(_Span(term, m.start(1), m.end(1), False))
    return out


_CLOSING = re.compile(r"(?:close[sd]?|fix(?:e[sd])?|resolve[sd]?):? #\d+", re.IGNORECASE)
_NEED = re.compile(
    r"\b(?:you forgot|forgot|forget|missing|where'?s|needs?|must have|always (?:add|include|"
    r"put|end with|start with)|remember)\b",
    re.IGNORECASE,
)
_PREFER = re.compile(
    r"\b(?:use|using|prefer|switch(?:ed)? to|go through|pipe (?:it |that )?into|stick to|"
    r"stick with)\W*(?:\w+\W+){0,2}$",
    re.IGNORECASE,
)


# A place stated right after a literal: "X at the top", "X on top", "X first".
_PLACED = re.compile(r"[\s'\"`]*(?:at the (?:very )?top|on top|up top|first|goes first)\b", re.I)
_FIRST_LINE = re.compile(r"\bfirst (?:line|word)\W*$", re.IGNORECASE)  # "first line 'Impact:'"
_LINE_NOUN = re.compile(
    r"[\s'\"`]*(?:heading|header|section|line|paragraph|footer|trailer|opener|intro|sign-?off|"
    r"title|label)s?\b",
    re.IGNORECASE,
)


def _code_like(value: str) -> bool:
    return bool(re.search(r"[._():#/@$<>=\[\]{}-]", value)) or value.split()[0] in COMMANDS


def _rejects(text: str) -> bool:
    """Somewhere the correction rejects something (a negation, a complaint)."""
    return NEG_RX.search(text) is not None or any(
        _COMPLAINT_AFTER.match(text[m.end() :]) for m in re.finditer(r"\w+", text)
    )


def _is_example(clause: str, sp: _Span) -> bool:
    """Whether the user gives the span as an example of something: "like X", "e.g. X",
    "(X)", "X as the language"."""
    before, after = clause[: sp.start], clause[sp.end :]
    return bool(
        re.search(r"\b(?:like|e\.g\.?|such as|for example|for instance|say)\W*$", before, re.I)
        or re.match(r"\W*as (?:the|a|an|our) \w+", after, re.I)
        or (before.rstrip().endswith("(") and after.lstrip().startswith(")"))
    )


def literal_topics(text: str, corrected: str) -> list[Topic]:
    out: list[Topic] = []
    examples = example_pairs(text)
    pron = _pronoun_no(text)
    for pos, clause in _clauses_at(text):
        pairs = _pairs(clause)
        at = "start" if _START.search(clause) else "end" if _END.search(clause) else None
        spans = _named_spans(clause, corrected)
        spans += [s for s in _verb_objects(clause, corrected)
                  if not any(t.text.lower() == s.text.lower() for t in spans)]  # fmt: skip
        for sp in spans:
            value = _ELLIPSIS.sub("", sp.text).strip()
            if not value or sp.text in examples:
                continue
            role = _role(clause, sp.start, sp.end, pairs)
            before = text[: pos + sp.start]
            if role == NAMED and pron:
                role = NO
            elif (
                role == NAMED
                and at == "start"
                and (_PLACED.match(clause[sp.end :]) or _FIRST_LINE.search(clause[: sp.start]))
            ):
                role = HAS  # "`#!/usr/bin/env bash` on top pls": where it goes, it goes
            elif role == NAMED and _NEED.search(before):
                role = HAS  # "you forgot to mark it (`BREAKING CHANGE:` footer …)"
            if role == HAS and _is_example(clause, sp) and not _NEED.search(before):
                role = NAMED  # "with `bash` as the language": an example, not the rule
            if role == HAS and _PREFER.search(clause[: sp.start]):
                role = KEEP  # "use rg": a tool preferred, not a word every answer needs
            if role == NAMED and not (sp.quoted or _code_like(value) or _rejects(text)):
                continue  # a name said in passing ("the Redis part is long") is no rule
            what = "identifier" if is_identifier(value.rstrip(":")) else "literal"
            if _CLOSING.fullmatch(value):
                what, value = "shape", "closing_ref"  # "`Fixes #88`": a closing keyword
            if re.fullmatch(r"[a-z]+(?:\([\w-]+\))?!?:", value):
                if role != NO:  # "a `fix:`", "e.g. 'api: '": a type prefix, read as the shape
                    out.append(Topic("shape", "commit_type", NAMED, order=pos + sp.start))
                continue
            if re.fullmatch(r"[^\w\s]", value):
                what = "mark"  # '*', '!', ';', '.': the mark of a form
            scope = scope_for(clause, "") or None
            order = pos + sp.start
            lead = re.match(r"\S+", value)
            if what == "literal" and sp.quoted and lead and is_identifier(lead.group(0)):
                what, value = "identifier", lead.group(0)  # "`OPS-77: Scale ...`"
            elif what == "literal" and sp.quoted and lead and SHORTCODE.fullmatch(lead.group(0)):
                value = lead.group(0)  # "like `:white_check_mark: api …`": the shortcode
            if what == "identifier" and role == KEEP:
                role = HAS  # "the key at the front like OPS-77, not …": the shape is asked for
            if what == "literal" and not at and _LINE_NOUN.match(clause[sp.end :]):
                at = "line"  # "the 'Summary' heading", "the 'In summary' paragraph"
            out.append(Topic(what, value, role, scope, at=at, order=order))
            if sp.quoted and role in (NO, NAMED):  # 'Certainly!' is a preamble
                out += [Topic("feature", f, NO, scope, order=order)
                        for f in EXAMPLE_FEATURES if FEATURES[f][0](value)]  # fmt: skip
    return out


def topics(said: str, corrected: str = "") -> list[Topic]:
    """Everything a correction names, in the order it names it."""
    text = " ".join(said.split())
    found = [*feature_topics(text), *count_topics(text), *literal_topics(text, corrected),
             *shape_topics(text)]  # fmt: skip
    return sorted(found, key=lambda t: t.order)
