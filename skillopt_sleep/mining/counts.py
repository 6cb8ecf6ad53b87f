"""The numbers a correction sets ("fifty, max", "under 12 words", "the limit is forty"):
count topics with their unit and bound, told apart from numbers that only describe the
answer ("the title is like 70 chars").
"""

from __future__ import annotations

import re

from skillopt_sleep.mining.phrases import NUMBER_WORDS, QUOTED, scope_for, sentences
from skillopt_sleep.mining.topic import NAMED, Topic

_NUMBER = (
    r"(?<![\w#./:$-])(\d{1,4}|"
    + "|".join(w for w in sorted(NUMBER_WORDS, key=len, reverse=True) if " " not in w)
    + r")(?![\w/:%$]|[.,]\d|-(?!spaces?\b)\w)"  # "2-space indent" counts; "2-step" not
)
_UNIT_WORDS = (
    ("chars", r"char\w*|col\w*|letters"),
    ("words", r"words?"),
    ("lines", r"lines?|liners?"),
    ("sentences", r"sent\w*"),
    ("paragraphs", r"paragraphs?|paras?"),
    ("indent", r"spaces?|indent\w*"),
    ("bullets", r"bullet\w*|points?|items?|options?|alternatives?|choices|ideas|steps|"
                r"suggestions|examples|nits"),
)  # fmt: skip
_MAX_CUE = re.compile(
    r"(?:under|below|less than|fewer than|at most|max(?:imum)?|no more than|not more than|"
    r"within|up to|<=?|≤|limit(?:ed)?(?: \w+)? to|cap(?:s|ped)?(?: \w+)? at|trim(?: \w+)? to|"
    r"cut(?: \w+)?(?: down)? to|down to|keep (?:it|them|the \w+(?: \w+)?) (?:to|at|under)|"
    r"only|just|top|shorten(?: \w+)? to|fit (?:in|into|within)|(?:limit|cap|max|maximum|budget) "
    r"(?:is|of|at)|over|past|beyond|above|longer than|more than)\W*$",
    re.IGNORECASE,
)
_MAX_AFTER = re.compile(
    r"\W*(?:max(?:imum)?|tops|or fewer|or less|at most|limit|or under|is plenty|are plenty|"
    r"is enough|will do|(?:is|are) (?:the |our )?(?:limit|max|maximum|cap|ceiling))\b",
    re.IGNORECASE,
)
_MIN_CUE = re.compile(
    r"(?:at least|minimum(?: of)?|min(?: of)?|no fewer than|no less than|>=?|≥)\W*$", re.I
)
_MIN_AFTER = re.compile(r"\W*(?:or more|minimum|at least|min)\b", re.IGNORECASE)


def _unit(word: str) -> str | None:
    for unit, pat in _UNIT_WORDS:
        if re.fullmatch(pat, word, re.IGNORECASE):
            return unit
    return None


def _unit_after(after: str) -> tuple[str | None, str]:
    """The unit named right after a number ("50 chars", "3 short sentnces") and the rest."""
    m = re.match(r"[- ]?([a-z]+)(?:[- ]([a-z]+))?", after, re.IGNORECASE)
    if m:
        if unit := _unit(m.group(1)):
            return unit, after[m.end(1) :]
        if m.group(2) and (unit := _unit(m.group(2))):
            return unit, after[m.end(2) :]
    return None, after


def _sentence_unit(sentence: str) -> str | None:
    """The one unit a sentence names elsewhere ("subject line" and "one line" say where)."""
    bare = re.sub(r"\b(?:subject|first|summary|title|each|every|per|one|single|a) lines?\b",
                  " ", sentence, flags=re.IGNORECASE)  # fmt: skip
    found = {u for w in re.findall(r"[a-z]+", bare.lower()) if (u := _unit(w))}
    return found.pop() if len(found) == 1 else None


_DESCRIBES = re.compile(
    r"(?:\b(?:is|are|was|were|has|had|got|have)|'s)\s+(?:(?:like|about|nearly|almost|around|"
    r"roughly|already|now)\s+)?\W*$",
    re.IGNORECASE,
)


# "It's a one-line answer, why the heading?", "why a table for three lines": what the answer
# is or holds, said to argue against something else, not a limit; never after a negation
# ("why isn't this one line?" asks for one).
_IT_IS_A = re.compile(r"\b(?:it|this|that)(?:'s| is| was) (?:(?:a|an|just|only) )?\W*$", re.I)
_HOLDS = re.compile(r"\b(?:in|for|of|on) (?:(?:a|an|the|this|that|my|just|only) )?\W*$", re.I)
_WHY = re.compile(r"^\W*(?:why|how come)\b", re.IGNORECASE)
_NEGATED = re.compile(r"\b(?:not|never)\b|n't\b", re.IGNORECASE)


def describes_answer(sentence: str, before: str) -> bool:
    """Whether a count whose words are ``before`` in ``sentence`` says what the answer is
    ("it's a one-liner") or, in a question, what it holds ("why a table for three lines")."""
    if _NEGATED.search(sentence):
        return False
    question = _WHY.search(sentence) is not None or sentence.rstrip().endswith("?")
    return _IT_IS_A.search(before) is not None or (question and _HOLDS.search(before) is not None)


_STATES_LIMIT = re.compile(r"\b(?:limit|max(?:imum)?|at most|cap|tops|or fewer|or less)\b", re.I)
_WRAP = re.compile(r"\b(?:un)?(?:hard-?)?wrap(?:ped|ping|s)?\b", re.IGNORECASE)
_LINES_UNDER = re.compile(r"\blines? (?:\w+ )?(?:under|below|within|at most|max|over|<)", re.I)


# A plural noun right after a number that is no unit ("3 headings", "two tests"): what it counts.
_COUNTS_OTHER = re.compile(
    r"[- ]?(?![a-z]*(?:ss|us|is)\b)(?!(?:tops|plus|max|thanks|please|pls)\b)[a-z]{3,}s\b", re.I
)


# "numbered. 1, 2, 3.": numbers counting up from one show a numbering, they count nothing
_COUNTING_RUN = re.compile(r"(?<![\w.,-])1[.)]?(?:,? +|, *)2[.)]?(?:,? +|, *)3(?![\w-])")


def count_topics(text: str) -> list[Topic]:
    out: list[Topic] = []
    whole_scope = scope_for(text, "") or None
    quoted = [m.span() for m in QUOTED.finditer(text)]
    for sentence in sentences(text):
        offset = text.find(sentence)
        examples = [  # "(50 is the limit)" states the rule; "(3.12)", "(#311)" are examples
            p.span()
            for p in re.finditer(r"\([^()]*\)", sentence)
            if not _STATES_LIMIT.search(p.group(0))
        ] + [r.span() for r in _COUNTING_RUN.finditer(sentence)]
        for m in re.finditer(_NUMBER, sentence, re.IGNORECASE):
            at = offset + m.start()
            if any(a <= at < b for a, b in quoted) or any(a <= m.start() < b for a, b in examples):
                continue  # a number inside a quoted or bracketed example is the example's
            raw = m.group(1).lower()
            n = int(raw) if raw.isdigit() else NUMBER_WORDS[raw]
            if n > 2000:
                continue
            after = sentence[m.end() :]
            plus = re.match(r"\+(?![\d+])", after)  # "3+ bullets": three or more
            after = after[1:] if plus else after
            unit, rest = _unit_after(after)
            line_width = False
            if not unit and _COUNTS_OTHER.match(after):
                continue  # "three headings": the number counts those, not the sentence's unit
            if not unit and _WRAP.search(text):
                unit = "chars"  # "body's not wrapped. 72.": a wrap is a width
            elif not unit:
                unit = _sentence_unit(sentence) or _sentence_unit(text)
                if unit == "lines" and n >= 20 and _LINES_UNDER.search(sentence):
                    unit, line_width = "chars", True  # "keep lines under 80": a line's width
            before = sentence[: m.start()]
            bound = None
            if plus or _MIN_CUE.search(before) or _MIN_AFTER.match(rest):
                bound = "min"
            elif _MAX_CUE.search(before) or _MAX_AFTER.match(rest):
                bound = "max"
            if not unit and not bound:
                continue  # a bare number ("Python 3", "the 2 tests") counts nothing said
            if (not bound or plus) and (
                _DESCRIBES.search(before) or describes_answer(sentence, before)
            ):
                continue  # "the title is like 70 chars": what the answer was, not the rule
            scope = scope_for(sentence, "") or whole_scope or ("lines" if line_width else None)
            out.append(Topic("count", str(n), NAMED, scope, unit, bound, order=at))
        one = re.search(r"\b(?:one|a single|single)[- ]line(?:r)?\b|\bone-?liner\b|\bjust the "
                        r"(?:subject|title|summary)(?: line)?\b", sentence, re.I)  # fmt: skip
        if one and not describes_answer(sentence, sentence[: one.start()]):
            out.append(Topic("count", "1", NAMED, "answer", "lines", "max", order=offset))
        if re.search(r"\b(?:a single|single|just one)[- ]para(?:graph)?\b", sentence, re.I):
            out.append(Topic("count", "1", NAMED, "answer", "paragraphs", "max", order=offset))
    if any(t.bound for t in out):  # "70 chars … fifty, max": the bound is the rule
        out = [t for t in out if t.bound]
    return out
