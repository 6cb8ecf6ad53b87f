"""The parts of a correction the grammar reads: sentences and clauses (never split inside
quotes), numbers and units, where a rule applies (subject, each line, each bullet), which
words negate, which name a feature ("emojis", "headers"), and "X, not Y" pairs. Shared by
``grammar`` (forms) and ``literals`` (named words)."""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from functools import lru_cache

from skillopt_sleep.mining.prefilter import Prefiltered
from trainer.checks import scope_known


@lru_cache(maxsize=4096)
def rx(pattern: str, flags: int = 0) -> re.Pattern[str]:
    """``pattern`` compiled once: the grammar builds patterns from the user's words, more
    than ``re``'s own cache holds, and mining reads every correction of 100k sessions."""
    return re.compile(pattern, flags)


@dataclass(frozen=True)
class Check:
    kind: str
    value: str
    scope: str = "answer"

    def __post_init__(self) -> None:
        assert scope_known(self.scope), self.scope


NUMBER_WORDS = {
    "one": 1, "a single": 1, "single": 1, "two": 2, "a couple of": 2, "three": 3, "four": 4,
    "five": 5, "six": 6, "seven": 7, "eight": 8, "nine": 9, "ten": 10, "eleven": 11,
    "twelve": 12, "fifteen": 15, "twenty": 20, "thirty": 30, "forty": 40, "fifty": 50,
    "sixty": 60, "seventy": 70, "eighty": 80, "a hundred": 100, "hundred": 100,
}  # fmt: skip


NUM = r"(\d{1,4}|" + "|".join(sorted(NUMBER_WORDS, key=len, reverse=True)) + r")"


UNITS = {
    "char": "chars", "chars": "chars", "character": "chars", "characters": "chars",
    "letters": "chars", "column": "chars", "columns": "chars", "cols": "chars",
    "word": "words", "words": "words", "line": "lines", "lines": "lines",
    "sentence": "sentences", "sentences": "sentences", "bullet": "bullets",
    "bullets": "bullets", "bullet points": "bullets", "points": "bullets", "items": "bullets",
    "item": "bullets", "paragraph": "paragraphs", "paragraphs": "paragraphs",
}  # fmt: skip


UNIT = (
    r"(bullet points|characters|character|sentences|sentence|columns|column|letters|paragraphs|"
    r"paragraph|"
    r"bullets|bullet|points|items|item|chars|char|cols|words|word|lines|line)\b"
)


MAX_BEFORE = (
    r"(?:fit (?:in|into|within|on)|(?:not|never) (?:exceed|go over|be over|be longer than|"
    r"be more than|run over)|only|just|under|below|less than|fewer than|at most|"
    r"max(?:imum)?(?: of)?|no more than|"
    r"not more than|within|up to|keep (?:it|them|the \w+(?: \w+)?|every \w+|each \w+) "
    r"(?:to|at|under|below|within)|limit(?: \w+)? to|limited to|cap(?: it| them)? at|"
    r"capped at|(?:the )?top|cut (?:it|that|this) (?:down )?to|down to|trim (?:it )?to|"
    r"(?:runs?|goes|go|is|it'?s|that'?s|are) (?:past|over|beyond|above|longer than|"
    r"more than))"
)


MAX_AFTER = (
    r"(?:max(?:imum)?|at most|tops|or fewer|or less|limit|or under|would be plenty|is plenty|"
    r"are plenty|is enough|are enough|will do)"
)


MIN_BEFORE = r"(?:at least|minimum(?: of)?|min(?: of)?|no fewer than|no less than|not less than)"


MIN_AFTER = r"(?:or more|minimum|at least|min)"


SUBJECT = re.compile(r"\b(?:subject|title|first line|summary line|headline|subjects)\b", re.I)


EACH_BULLET = re.compile(
    r"\b(?:each|every|per) (?:bullet|item|point)\b|\bbullets?\b.*\b(?:each|apiece)\b|"
    r"\b(?:each|apiece)\b.*\bbullets?\b|\b(?:of|on|in|for|after) (?:the |your |all )?"
    r"(?:[a-z]+ )?(?:bullets|bullet points|list items)\b|"
    r"\bbullets? (?:should|must|shouldn'?t|don'?t|never)\b",
    re.IGNORECASE,
)


EACH_LINE = re.compile(
    r"\b(?:each|every|per|no|any) line\b|\blines? (?:must|should|longer)\b|\bwrap\b|"
    r"\bhard-?wrap\b|\bbody\b|\bcolumns?\b",
    re.IGNORECASE,
)


NEG = (
    r"(?:\bno\b|\bnot\b|\bnever\b|\bwithout\b|\bavoid\b|n't\b|\bdo not\b|\bstop (?:\w+ing|with)\b|"
    r"\bquit \w+ing\b|\blose\b|\bdrop\b|\bremove\b|\bdelete\b|\bcut\b|\bstrip\b|\bskip\b|"
    r"\bditch\b|\bget rid of\b|\btake (?:out|away)\b|\bleave (?:out|off)\b|\binstead of\b|"
    r"\brather than\b|\bless\b|\bfewer\b|\bnone\b|\bgone\b|\bbanned\b|\boff-limits\b|"
    r"\bforbidden\b|\blegacy\b|\bnot (?:ok|allowed)\b|\bhas to go\b|\bmoved off\b|"
    r"\b(?:dont|doesnt|didnt|isnt|arent|wont|cant|shouldnt|wouldnt)\b)"
)


NEG_RX = Prefiltered(NEG, re.IGNORECASE)


WANT_RX = re.compile(
    r"\b(?:put|use|add|include|wrap|break|format|turn \w+ into|into|as an?|as|in|need|"
    r"needs|want|give|fence|with)\b|\bplease\W*$|^\W*\w+(?: \w+)? (?:for|please)\b",
    re.IGNORECASE,
)


# Form words -> the feature they name. Checked before any literal reading of the words.
FEATURE_WORDS: list[tuple[str, str]] = [
    (r"emoji|emojis|emoticons|smileys", "emoji"),
    (r"(?:task|check ?box)[- ]lists?(?: boxes)?|check ?box(?:es)?", "checkbox"),
    (
        r"h1s?|(?:top[- ]level|level[- ]one|big|large) [`'\"]?#?[`'\"]? ?"
        r"(?:headings?|headers?|titles?)",
        "top_heading",
    ),
    (r"numbered lists?|numbering|numbers|1\.\s*2\.(?:\s*3\.)?|1\)\s*2\)", "numbered_list"),
    (r"bullet points?|bullets?|bulleted lists?|bulleted|dashes", "bullet"),
    (r"list form|lists?", "list"),
    (r"(?:section )?head(?:ing|er)s?|##+ ?\w*|hashes|section titles|titles", "heading"),
    (r"code ?blocks?|code fences?|fences?|fenced blocks?|triple backticks|```", "code_fence"),
    (r"tables?", "table"),
    (r"links?|urls?|hyperlinks?|http links?", "link"),
    (r"bold|asterisks", "bold"),
    (r"markdown|markup|(?<!code )(?<!code` )formatting", "markdown"),
    (r"exclamation (?:marks?|points?)|!s?|bangs?", "exclamation"),
    (r"apolog\w*|sorry", "apology"),
    (r"preamble|intro|introduction|pleasantries|small talk", "preamble"),
    (r"diffs?|diff lines|diff hunks|hunks|\+/- lines|\+/-", "diff_lines"),
    (r"first person(?: singular)?", "first_person"),
]


FEATURE_RX = [
    # "task-list": a compound names its own feature, not the list its second half says
    (re.compile(rf"(?<![\w#`-])(?:{p})(?![\w])", re.IGNORECASE), f)
    for p, f in FEATURE_WORDS
]
# Some form word or other: it matches where one of ``FEATURE_RX`` does, in one pass, so a
# clause without any is not searched once per form.
ANY_FEATURE = Prefiltered(
    r"(?<![\w#`-])(?:" + "|".join(f"(?:{p})" for p, _ in FEATURE_WORDS) + r")(?![\w])", re.I
)


# Features that are layouts: "no lists" forbids them, but "a list" is not asked for by
# merely being named, and "plain" always means no markup.
PLAIN = re.compile(
    r"\bplain(?:[- ](?:text|sentences|prose|email|message|words|english|language)\b|"
    r"\s*(?:please\b|$))",
    re.IGNORECASE,
)


QUOTED = re.compile(
    r"`([^`\n]{1,60})`|\"([^\"\n]{1,60})\"|(?<!\w)'((?:[^'\n]|'(?=\w)){1,60}?)'(?!\w|s\b)|"
    r"(?<!\w)'((?:[^'\n]|'(?=\w)){1,60}?)'(?=s\b)|"
    r"“([^”\n]{1,60})”|‘([^’\n]{1,60})’"
)


# "leave them out", "remove it", "use the logger instead": a rejection whose object is
# named elsewhere in the correction ("the portal renders emoji as boxes, so leave them out").
PRONOUN_NEG = Prefiltered(
    r"\b(?:leave|take|keep)\s+(?:them|it|those|these|that)\s+out\b|"
    r"\b(?:remove|drop|lose|avoid|skip|delete|strip|ditch|cut|replace|swap|get rid of)\s+"
    r"(?:them|it|those|these|that)\b|\b(?:don'?t|do not|never|stop)\s+(?:use|add|include|"
    r"want|using|adding|including|do|doing)\s+(?:them|it|those|these|that|any)\b|\binstead\W*$",
    re.IGNORECASE,
)


def num(text: str) -> int:
    text = text.lower()
    return int(text) if text.isdigit() else NUMBER_WORDS[text]


@lru_cache(maxsize=256)
def sentences(text: str) -> tuple[str, ...]:
    """Sentences, never split inside quotes or after "e.g."; kept once read (every reading
    of a correction, the grammar's and the topics', splits the same text again)."""
    spans = [m.span() for m in QUOTED.finditer(text)]
    out, start = [], 0
    for m in re.finditer(r"(?<=[.!?;])\s+|\n+", text):
        inside = any(a < m.start() < b for a, b in spans)
        abbrev = re.search(r"\b(?:e\.g|i\.e|etc|vs|\d{1,2})\.$", text[start : m.start()])
        if not inside and not abbrev:
            out.append(text[start : m.start()])
            start = m.end()
    out.append(text[start:])
    return tuple(x.strip() for x in out if x.strip())


def clauses(sentence: str) -> list[str]:
    return list(_clauses(sentence))


@lru_cache(maxsize=1024)
def _clauses(sentence: str) -> tuple[str, ...]:
    """Kept once read: the grammar's forms and its words split the same sentences again."""
    spans = [m.span() for m in QUOTED.finditer(sentence)]
    out, start = [], 0
    for m in re.finditer(r",\s+|\s+(?:but|so)\s+|\s+-\s+", sentence):
        if not any(a < m.start() < b for a, b in spans):
            out.append(sentence[start : m.start()])
            start = m.end()
    out.append(sentence[start:])
    return tuple(x.strip() for x in out if x.strip())


CODE_LINE = re.compile(
    r"\b(?:lines? of code|code lines?|E501)\b|\b(?:cols?|columns?|chars?|characters?)\b.*\bin "
    r"(?:the )?code\b|\bin (?:the )?code\b.*\b(?:cols?|columns?|chars?|characters?)\b",
    re.IGNORECASE,
)


# Any of the scopes below, in one pass: most texts name none, and are searched once.
_ANY_SCOPE = Prefiltered(
    "|".join(f"(?:{p.pattern})" for p in (CODE_LINE, EACH_BULLET, SUBJECT, EACH_LINE)), re.I
)


def scope_for(text: str, default: str = "answer") -> str:
    if not _ANY_SCOPE.search(text):
        return default
    if CODE_LINE.search(text):
        return "code_lines"
    if EACH_BULLET.search(text):
        return "bullets"
    if SUBJECT.search(text):
        return "first_line"
    if EACH_LINE.search(text):
        return "lines"
    return default


_UNIT_WORDS = Prefiltered(UNIT, re.IGNORECASE)


@lru_cache(maxsize=256)
def unit_of(text: str) -> str | None:
    """The one unit a text names ("subject line" names where, not what is counted); kept
    once read (``grammar`` asks it of the whole text once per sentence)."""
    if _UNIT_WORDS.cannot_match(text):  # blanking "subject line" makes no unit word
        return None
    text = re.sub(r"\b(?:subject|first|summary|title|each|every|per|one|single) lines?\b", " ",
                  text, flags=re.IGNORECASE)  # fmt: skip
    units = {UNITS[m.group(1).lower()] for m in re.finditer(UNIT, text, re.IGNORECASE)}
    return units.pop() if len(units) == 1 else None


def example_pairs(text: str) -> set[str]:
    """Quoted words that are only examples of a form ('Add' vs 'Added'), never literals."""
    quoted = [next(g for g in m.groups() if g) for m in QUOTED.finditer(text)]
    out: set[str] = set()
    for a, b in zip(quoted, quoted[1:], strict=False):
        wa, wb = a.split()[0].lower(), b.split()[0].lower()
        short, long_ = sorted((wa, wb), key=len)
        if (
            wa != wb
            and long_.startswith(short.rstrip("e"))
            and re.fullmatch(r"e?(?:d|s|es|ing)", long_[len(short.rstrip("e")) :])
        ):  # an inflection: 'Add'/'Added', 'Fix'/'Fixes', 'Remove'/'Removing'
            out |= {a, b}
    return out


COUNT_PHRASE = Prefiltered(
    rf"(?:{MAX_BEFORE}|{MIN_BEFORE}|no more than|more than|over)?\s*\b{NUM}[- ]?{UNIT}"
    rf"(?:\s*(?:{MAX_AFTER}|{MIN_AFTER})\b)?",
    re.IGNORECASE,
)


# "X, not Y", "X instead of Y", "swap Y for X", "turn Y into X", "Y -> X", "s/Y/X/": each
# pattern, whether its rejected half comes first, and a cheap test a clause must pass for
# it to match (a pattern opening with ``(.+?)`` tries every start of a clause without its
# cue: quadratic in the clause, and most clauses of a request have none).
_NOT_CUE = re.compile(r"\s(?:not|rather than|instead of|over)\s", re.IGNORECASE)
_PAIRS: tuple[tuple[str, bool, Callable[[str], object] | None], ...] = (
    (r"(.+?)\s*,?\s+(?:not|rather than|instead of|over(?!\s+\d))\s+(.+)", False, _NOT_CUE.search),
    (r"(?:rather|prefer)\s+(.+?)\s+than\s+(.+)", False, None),
    (r"(?:swap|replace|switch|change|turn|convert)\s+(.+?)\s+(?:for|with|to|into)\s+(.+)", True,
     None),
    (r"(?:write|spell)\s+(.+?)\s+as\s+(.+)", True, None),
    (r"(.+?)\s*(?:->|→)\s*(.+)", True, lambda clause: "->" in clause or "→" in clause),
    (r"(?<![\w/])s/([^/\n]+)/([^/\n]*)/", True, lambda clause: "/" in clause),  # "s/a/b/"
)  # fmt: skip
_PAIRS_RX = [(re.compile(p, re.IGNORECASE), first, cue) for p, first, cue in _PAIRS]
_STATEMENT_END = re.compile(
    r"\b(?:is|are|was|were|do|does|did|should|must|can|could|will|would|has|have|need|"
    r"needs|they'?re|it'?s|that'?s|we'?re|you'?re)\W*$",
    re.IGNORECASE,
)


# A question asking why something is there ("why does it have a heading?", "why the bold")
# complains of it; one asking why it is missing ("why is the code block gone?") asks for it.
_WHY = re.compile(r"\W*(?:why|how come)\b", re.IGNORECASE)
_MISSING = re.compile(r"[^.?!]*\b(?:missing|gone|removed|dropped|lost|went)\b", re.IGNORECASE)


def why_asked(before: str, after: str) -> str | None:
    """How a why-question takes the form word between ``before`` and ``after``: "no" when
    it asks why the answer has it, "has" when why it lost it, None for no such question (or
    a negated one: "why not a table?")."""
    if not _WHY.match(before) or NEG_RX.search(before):
        return None
    return "has" if _MISSING.match(after) else "no"


def pair_spans(clause: str) -> list[tuple[int, int, str]]:
    """Spans of the preferred (keep) and rejected (no) parts of "X, not Y", "X instead of
    Y", "swap Y for X", "turn Y into X", "Y -> X"."""
    return list(_pair_spans(clause))


@lru_cache(maxsize=1024)
def _pair_spans(clause: str) -> tuple[tuple[int, int, str], ...]:
    """Kept once read: the grammar's forms and its words read the same clauses' pairs."""
    spans: list[tuple[int, int, str]] = []
    for pattern, rejected_first, cue in _PAIRS_RX:
        m = pattern.search(clause) if cue is None or cue(clause) else None
        if m and not rejected_first and _STATEMENT_END.search(m.group(1)):
            continue  # "X are not OK", "it should not …": a statement, not a preference
        if m:
            a, b = (m.span(1), m.span(2))
            rejected, kept = (a, b) if rejected_first else (b, a)
            spans += [(*rejected, "no"), (*kept, "keep")]
            break
    return tuple(spans)


# The words the readings key on, so a slip of the keyboard ("insted", "sentnces", "colums",
# "plase") does not hide a rule; none is one slip from a common word ("remove"/"remote",
# "never"/"newer", "forgot"/"forget" are left out).
KEYWORDS = (
    "instead", "rather", "sentence", "sentences", "character", "characters", "column",
    "columns", "bullet", "bullets", "paragraph", "paragraphs", "numbered", "numbering", "emoji",
    "emojis", "heading", "headings", "header", "headers", "exclamation", "apology",
    "apologies", "apologize", "apologise", "contraction", "contractions", "imperative",
    "lowercase", "uppercase", "capital", "capitals", "capitalize", "please", "without",
    "replace", "trailing", "period", "markdown", "prefix", "subject", "maximum", "minimum",
    "words", "lines", "always", "mention", "missing", "include",
    "language", "formatting", "numbers", "tables", "links", "preamble", "intro",
)  # fmt: skip


_KEYWORD_SET = frozenset(KEYWORDS)


def _near(a: str, b: str) -> bool:
    """One edit inside the word (insert, delete, substitute or swap two neighbours); an
    edit of the last letter is an inflection ("tables", "wordy"), not a slip."""
    if a == b or abs(len(a) - len(b)) > 1:
        return a == b
    if len(a) == len(b):
        diff = [i for i in range(len(a)) if a[i] != b[i]]
        if diff[-1] == len(a) - 1:
            return False
        return len(diff) == 1 or (
            len(diff) == 2 and diff[1] == diff[0] + 1 and a[diff[0]] == b[diff[1]]
            and a[diff[1]] == b[diff[0]]
        )  # fmt: skip
    short, long_ = (a, b) if len(a) < len(b) else (b, a)
    return any(long_[:i] + long_[i + 1 :] == short for i in range(len(long_) - 1))


def respell(text: str, known: str = "") -> str:
    """``text`` with each word of five letters or more one edit away from a keyword spelt as
    the keyword, unless ``known`` (the answers) uses the word as written."""
    seen = _words_of(known)

    def fix(m: re.Match[str]) -> str:
        word = m.group(0)
        low = word.lower()
        if len(low) < 5 or low in _KEYWORD_SET or low in seen:
            return word
        return _keyword_near(low) or word

    return re.sub(r"[A-Za-z]+", fix, text)


# "dashes are fine"; "the Makefile target is fine" (a noun or two may name what of it)
FINE_AFTER = re.compile(
    r"\W*(?:(?:[\w-]+\s+){0,2}(?:is|are)\s+|(?:'s|'re)\s*)?"
    r"(?:fine|ok|okay|good|allowed|great|welcome|all right)\b",
    re.I,
)


@lru_cache(maxsize=1024)
def _words_of(known: str) -> frozenset[str]:
    """An answer's words, read once: the follow-ups after one answer are read against it."""
    return frozenset(w.lower() for w in re.findall(r"[A-Za-z]+", known))


@lru_cache(maxsize=8192)
def _keyword_near(low: str) -> str | None:
    """The keyword one slip away from ``low``, when all such keywords agree on it."""
    near = [k for k in KEYWORDS if k[0] == low[0] and _near(low, k)]
    return near[0] if near and all(k[:5] == near[0][:5] for k in near) else None
