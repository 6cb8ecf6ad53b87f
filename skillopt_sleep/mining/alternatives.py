"""Words the user offers as alternatives ("lead with PASS or FAIL", "end with `Cheers` or
`Thanks`"): one check that any of them meets, never a check on the first one alone, which
every answer choosing the other would fail.
"""

from __future__ import annotations

import re

from skillopt_sleep.mining.phrases import Check
from skillopt_sleep.mining.topic import HAS, KEEP, Topic
from trainer.checks import case_sensitive, passes

# What stands between two alternatives: "or", "/", a comma, quotes around them.
_BETWEEN = re.compile(r"[\s\"'`]*(?:,\s*)?(?:or|/|,)[\s\"'`]*", re.IGNORECASE)


def alternative_groups(found: list[Topic], text: str) -> list[list[Topic]]:
    """Runs of two or more literals asked for in the same place, written one after the
    other with "or", "/" or a comma between them (``text`` as the topics read it)."""
    groups: list[list[Topic]] = []
    run: list[Topic] = []
    # at the start, the kept half of "X, not Y" is asked for too: "start with FAIL or PASS,
    # not ❌" puts a word first, where "use pytest, not unittest" needs no word at all
    literals = [t for t in found if t.what == "literal"
                and (t.role == HAS or (t.role == KEEP and t.at == "start"))]  # fmt: skip
    for t in literals:
        last = run[-1] if run else None
        if last is not None and last.at == t.at:
            end = text.find(last.value, last.order) + len(last.value)  # after its quote
            gap = text[end : t.order]
            if _BETWEEN.fullmatch(gap):
                run.append(t)
                continue
        if len(run) > 1:
            groups.append(run)
        run = [t]
    if len(run) > 1:
        groups.append(run)
    return groups


def _joined(a: Topic, b: Topic, text: str) -> bool:
    end = text.find(a.value, a.order) + len(a.value)
    return a.order < b.order and _BETWEEN.fullmatch(text[end : b.order]) is not None


def without_mixed_lists(found: list[Topic], text: str) -> list[Topic]:
    """``found`` less each literal asked for in a list that goes on with literals read
    otherwise ("### Added / Changed / Fixed / Removed", two asked for, two only named): which
    of them an answer needs is unsure, so none is asked for (the rubric keeps the words)."""
    literals = [t for t in found if t.what == "literal"]
    mixed = {
        id(t)
        for t in literals
        if t.role == HAS
        and any(u.role != HAS and (_joined(u, t, text) or _joined(t, u, text)) for u in literals)
    }
    return [t for t in found if id(t) not in mixed]


# One alternative as people write it in running text: a word ("yes", "PASS", "TL;DR") or an
# emoji ("🟢"); what stands between two of them; the forms that put them first ("begin the
# answer with Yes or No", "first line: PASS or FAIL", "yes or no first").
_ALT = (
    r"(?:[A-Za-z][\w;:!'-]{0,15}(?<![:;,!'-])|"
    r"[\U0001F000-\U0001FAFF\u2600-\u27BF\u2B00-\u2BFF]\uFE0F?)"
)
_ALTS = rf"({_ALT}(?:(?:\s*,\s*(?:or\s+)?|\s*/\s*|\s+or\s+){_ALT})+)"
_OPENINGS = (
    re.compile(
        r"\b(?:start|begin|lead|open)s?(?:\s+(?:the|your|each|every)\s+\w+)?\s+with\s+"
        rf"((?:the|a|an|either)\s+)?(?:(?:literal|plain)\s+)?(?:words?\s+)?{_ALTS}(?![\w/])",
        re.IGNORECASE,
    ),
    re.compile(rf"\bfirst\s+(?:line|word)\s*(?::|is|should be|must be)\s*(){_ALTS}(?![\w/])", re.I),
    re.compile(rf"(?:^|[.!?]\s+)(){_ALTS}\s+(?:first|up front|at the (?:start|top))\b", re.I),
)
_SPLIT = re.compile(r"\s*,\s*(?:or\s+)?|\s*/\s*|\s+or\s+", re.IGNORECASE)
# Words that end a run of alternatives ("Yes or No, then the explanation").
_NOT_ALTERNATIVE = {"the", "a", "an", "it", "this", "that", "them", "one", "not", "and", "then"}


def spoken_openings(text: str) -> list[list[Topic]]:
    """Words the user offers as alternatives for the answer's first word without quoting
    them ("just start with yes or no pls", "first line: PASS or FAIL", "lead with the
    🟢/🟡/🔴"): groups read as ``alternative_groups`` reads quoted ones. After an article
    the words name a kind of opening ("begin with a summary or overview"), not the words
    themselves: then only marked ones (a capital, a mark, an emoji) are read."""
    groups = []
    for rx in _OPENINGS:
        for m in rx.finditer(text):
            values = []
            for v in _SPLIT.split(m.group(2)):
                if v.lower() in _NOT_ALTERNATIVE:
                    break
                values.append(v)
            marked = all(not v.isalpha() or not v.islower() for v in values)
            if len(values) > 1 and (marked or not m.group(1)):
                groups.append([Topic("literal", v, HAS, at="start") for v in values])
    return groups


def alternative_check(group: list[Topic]) -> Check:
    """Any of the alternatives, where the user put them: at the start of the subject, at
    the end of the answer, or anywhere, each as a word."""
    values = [t.value for t in group]
    flags = "" if any(case_sensitive(v) for v in values) else "(?i)"
    either = "(?:" + "|".join(_word(v) for v in values) + ")"
    if group[0].at == "start":
        return Check("regex", rf"{flags}\A\W*{either}", "first_line")
    if group[0].at == "end":
        return Check("regex", rf"{flags}{either}\W*\Z", "answer")
    return Check("regex", flags + either, "answer")


def _word(value: str) -> str:
    """``value`` as a whole word where it begins or ends with a letter or digit."""
    body = r"\s+".join(re.escape(part) for part in value.split())
    # a half of a slashed compound is no word of its own: "I" is not in "I/O"
    left = r"(?<!\w/)\b" if value[:1].isalnum() else ""
    right = r"\b(?!/\w)" if value[-1:].isalnum() else ""
    return left + body + right


# "leverage/utilize", "'just'/'easily'", "uh-oh / oops": words forbidden as alternatives.
_SLASHED = re.compile(r"[\"'`]?[A-Za-z][\w'-]*[\"'`]?(?:\s*/\s*[\"'`]?[A-Za-z][\w'-]*[\"'`]?)+")


def slashed_alternatives(check: Check, corrected: str) -> list[Check]:
    """A forbidden "A/B" the corrected answer never wrote as such read as the words each
    forbidden: one check, so that the pair, which shows one of them, confirms both ("no
    leverage/utilize" after "we leverage"); in the code first ("true/false, not yes/no"
    forbids the YAML's, not every "no" of the sentences), then in the prose ("no 'we'/'our'
    in the docs" is not broken by ``# we retry here`` in a code block). A path the answer had
    ("origin/main") stays the literal."""
    value = check.value
    if check.kind != "not_contains" or not _SLASHED.fullmatch(value):
        return []
    if re.search(rf"(?<![\w/]){re.escape(value)}(?![\w/])", corrected, re.IGNORECASE):
        return []
    words = [w.strip(" \"'`") for w in value.split("/")]
    either = f"(?i)(?:{'|'.join(_word(w) for w in words)})"
    return [Check("not_regex", either, s) for s in dict.fromkeys(("code", "prose", check.scope))]


def with_slashed_alternatives(checks: list[Check], corrected: str, accepted: str) -> list[Check]:
    """``checks`` and, for each forbidden "A/B", its words each forbidden where the pair
    shows it (``slashed_alternatives``)."""
    out = list(checks)
    for check in checks:
        for alt in slashed_alternatives(check, corrected):
            if not passes(alt.kind, alt.value, alt.scope, corrected) and passes(
                alt.kind, alt.value, alt.scope, accepted
            ):
                if alt not in out:
                    out.append(alt)
                break
    return out
