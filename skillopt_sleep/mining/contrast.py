"""Read a correction against the two answers it sits between.

The user's words say what a rule is about (``topics``: a feature, a number, a word or an
example they gave); the answer they corrected and the one they then accepted say which
way and where. For each topic the checks it could mean are tried in a fixed order of
plausibility (the scope or unit the user named first, the weaker claim before the
stronger), and the first one that the corrected answer fails and the accepted answer
passes is kept: a rule whose check does not change between the two answers is not what
the user meant. The words still bound what may be read: a word the user only named is
never required, a feature only forbidden unless they asked for it, and a layout asked for
after something was forbidden ("tables look awful, use a plain list") is the remedy, not
the rule.
"""

from __future__ import annotations

import re

from skillopt_sleep.mining import grammar
from skillopt_sleep.mining.fallback import pair_fallback
from skillopt_sleep.mining.literals import LABELLED, required
from skillopt_sleep.mining.narrow import narrowed
from skillopt_sleep.mining.phrases import Check, respell
from skillopt_sleep.mining.shapes import KEY_PATTERN, SHORTCODE, is_key, shape_candidates
from skillopt_sleep.mining.topic import HAS, KEEP, NAMED, NO, Topic
from skillopt_sleep.mining.topics import HAS_FEATURES, topics
from trainer.checks import identifier_pattern, passes

# Features read where the form shows: outside code, so a "# comment" in a shell block is
# no heading and a "!" in `[ ! -f x ]` no exclamation. The rest read the whole answer.
_PROSE_FEATURES = {
    "emoji", "heading", "bullet", "list", "numbered_list", "table", "bold", "link",
    "exclamation", "apology", "contraction", "first_person", "inline_code", "italic", "hashtag",
    "at_mention", "em_dash", "checkbox", "top_heading", "american_spelling",
}  # fmt: skip
# Features of code: read inside code blocks first ("drop the comments" means the code's).
_CODE_FEATURES = {
    "shell_prompt", "code_comment", "bare_except", "untyped_def", "camelcase_def", "single_quoted",
}  # fmt: skip
_SUBJECT_FEATURES = {"past_tense", "lowercase_start", "capital_start"}


def separates(check: Check, corrected: str, accepted: str) -> bool:
    """The corrected answer fails the check and the accepted answer passes it."""
    return not passes(check.kind, check.value, check.scope, corrected) and passes(
        check.kind, check.value, check.scope, accepted
    )


def _feature_candidates(t: Topic) -> list[Check]:
    f = t.value
    if t.role == KEEP and f not in HAS_FEATURES:
        return []
    if f in _SUBJECT_FEATURES:
        scopes = ["first_line"]
    elif f in _PROSE_FEATURES:
        scopes = ["prose", "answer"]
    elif f in _CODE_FEATURES:
        scopes = ["code", "answer"]
    else:
        scopes = ["answer"]
    if t.scope and t.scope not in scopes and f not in _SUBJECT_FEATURES:
        scopes.insert(0, t.scope)
    no = [Check("no", f, s) for s in scopes]
    if f == "past_tense":  # "Fix", not "Fixes" or "Fixing": the imperative, if no less does
        past = [Check("has", "past_tense", "first_line")] if t.role in (HAS, NAMED) else []
        return no + [
            Check("has", "imperative", "first_line"),
            *past,
        ]  # "in past tense, like 'Fixed'"
    if f == "untagged_fence":  # "a code block with the language": a tagged fence, if none was
        return no + [Check("regex", r"(?m)^\s*(?:```|~~~)[ \t]*[\w+#.-]+", "answer")]
    if t.role == NO or f not in HAS_FEATURES:
        return no  # a feature only ever forbidden: the two answers show it was
    has = [Check("has", f, "answer")]
    return has if t.role in (HAS, KEEP) else no + has


def _units(t: Topic, corrected: str) -> list[str]:
    if t.unit:
        return [t.unit]
    if t.scope == "first_line":
        return ["chars", "words"]
    if t.scope == "lines":
        return ["chars"]
    listed = passes("max_bullets", "0", "answer", corrected) is False
    small = ["sentences", "lines"] if int(t.value) <= 10 else ["words", "chars"]
    return (["bullets"] if listed else []) + small  # "four, max"; "280 max"


def _count_candidates(t: Topic, corrected: str) -> list[Check]:
    n = int(t.value)
    out = []
    for unit in _units(t, corrected):
        if t.scope and not (t.scope == "bullets" and unit == "bullets"):
            scopes = [t.scope]
        elif unit in ("chars", "words"):
            scopes = ["answer", "first_line", "lines" if unit == "chars" else "bullets"]
        else:
            scopes = ["answer"]
        if unit in ("lines", "bullets", "sentences"):
            scopes = [s if s in ("answer", "bullets") and unit == "sentences" else "answer"
                      for s in scopes]  # fmt: skip
        for bound in [t.bound] if t.bound else ["max", "min"]:
            if bound == "min" and n == 0:
                continue
            if unit == "chars" and scopes[0] == "lines" and _long_in_code_only(n, corrected):
                scopes = ["code_lines", *scopes]  # "keep lines under 80": the code's lines
            for scope in dict.fromkeys(scopes):
                out.append(Check(f"{bound}_{unit}", str(n), scope))
    return out


def _long_in_code_only(n: int, corrected: str) -> bool:
    """The corrected answer's lines longer than ``n`` are all inside code blocks."""
    prose = re.sub(r"(?ms)^\s*```.*?^\s*```[^\n]*$", "", corrected)
    return not passes("max_chars", str(n), "code_lines", corrected) and passes(
        "max_chars", str(n), "lines", prose
    )


def _in_code_only(value: str, corrected: str) -> bool:
    return (
        "```" in corrected
        and not passes("not_contains", value, "code", corrected)
        and passes("not_contains", value, "prose", corrected)
    )


def _literal_candidates(t: Topic, corrected: str) -> list[Check]:
    value = t.value
    if t.role == KEEP:
        return []
    out: list[Check] = []
    line = rf"(?im)^[\W_]*{re.escape(value)}" + (r"\b" if value[-1:].isalnum() else "")
    if t.at == "line":  # "the 'Summary' heading": a line it opens, not the word anywhere
        return [Check("regex" if t.role == HAS else "not_regex", line, "answer")]
    if t.at == "start" and t.role != NO and SHORTCODE.fullmatch(value):
        return [Check("regex", r"\A\W*" + SHORTCODE.pattern, "first_line")]  # any shortcode
    if t.role != HAS:
        if t.at == "start":
            out.append(Check("not_starts_with", value, "answer"))  # how the answer opens
        elif t.at == "end":
            out.append(Check("not_ends_with", value, "answer"))
        where = "code" if _in_code_only(value, corrected) else "answer"
        return out + [Check("not_contains", value, where)]
    if LABELLED.match(value):  # "add `Signed-off-by: Tomás …`": the trailer, not Tomás
        return [required(value)]
    heading = re.fullmatch(r"#{1,6}\s*(\w[\w ]*)", value)
    if heading:  # "add '## Testing'": a heading of that name, at whatever level
        return [Check("regex", rf"(?im)^\s{{0,3}}#{{1,6}}\s*{re.escape(heading.group(1))}\b")]
    if t.at == "start":
        out.append(Check("starts_with", value, "first_line"))
    elif t.at == "end":
        out.append(Check("ends_with", value, "answer"))
    return out + [Check("contains", value, "answer")]


def _identifier_candidates(t: Topic) -> list[Check]:
    if t.role == NO and is_key(t.value):  # "no Jira keys like CORE-412": none of that shape
        return [Check("not_regex", KEY_PATTERN, "answer")]
    if t.role in (NO, KEEP):
        return []
    if t.scope in ("first_line", "lines", "bullets"):  # "the key goes in the subject"
        return [Check("identifier_like", t.value.rstrip(":"), t.scope)]
    out = [Check("identifier_like", t.value.rstrip(":"), "answer")]
    if t.at == "start":  # "the key goes at the front": only where having it is not enough
        out.append(Check("regex", r"\A\W*" + identifier_pattern(t.value), "first_line"))
    return out


def _mark_candidates(t: Topic) -> list[Check]:
    """A single mark the user quoted: a bullet marker, "!", ";", a final "."."""
    mark = t.value
    if t.role == KEEP and mark != "-":
        return []
    if mark == "-" and t.role != NO:  # "bullets should be dashes": no other marker
        return [Check("not_regex", r"(?m)^\s*[*+•]\s+\S", "prose")]
    if mark in "*•+-" and t.role != HAS:
        return [Check("not_regex", rf"(?m)^\s*{re.escape(mark)}\s+\S", "prose")]
    if mark == "!":
        return _feature_candidates(Topic("feature", "exclamation", NO, t.scope))
    if mark == "$":  # "drop the `$` prompts": a prompt opening a command line
        return _feature_candidates(Topic("feature", "shell_prompt", NO, t.scope))
    if mark == ";":
        return [Check("not_regex", r"(?m);[ \t]*$", "code"), Check("not_contains", ";", "prose")]
    if mark == "." and t.role != HAS:
        scopes = [t.scope] if t.scope else ["first_line", "bullets", "lines"]
        return [Check("not_ends_with", ".", s) for s in scopes]
    return []


def candidates(t: Topic, corrected: str, accepted: str = "") -> list[Check]:
    """The checks a topic could mean, the most plausible first."""
    if t.what == "feature":
        return _feature_candidates(t)
    if t.what == "count":
        return _count_candidates(t, corrected)
    if t.what == "literal":
        return _literal_candidates(t, corrected)
    if t.what == "identifier":
        return _identifier_candidates(t)
    if t.what == "mark":
        return _mark_candidates(t)
    return shape_candidates(t, corrected, accepted)


# Shapes that say more than an identifier the user gave or the accepted answer added.
_STRONGER = ("closing_ref", "ticket")
_ASKS = ("has", "contains", "starts_with", "ends_with", "regex", "identifier_like")


def _topic_of(check: Check, found: list[Topic]) -> Topic | None:
    """The topic a check reads (by its feature, number or word)."""
    value = check.value.lower()
    for t in found:
        if t.value.lower() == value or (t.what == "shape" and check.kind == "regex"):
            return t
    return None


def compile_pair(said: str, corrected: str, accepted: str | None) -> list[Check]:
    """The checks ``said`` states: the grammar's reading, and, where the session shows the
    answer the user accepted after it, each topic's first candidate that separates the two
    answers (for topics the grammar's separating checks do not already read). An ask named
    after something forbidden is its remedy and dropped ("never --force, use
    --force-with-lease" forbids --force and asks for nothing)."""
    said = respell(said, f"{corrected}\n{accepted or ''}")
    read = grammar.compile_text(said, corrected)
    if accepted is None:
        return read
    found = topics(said, corrected)
    kept = [c for c in read if separates(c, corrected, accepted)]
    covered = {c.value.lower() for c in kept}
    out = list(read)
    for t in found:
        if t.value.lower() in covered:
            continue
        if t.value == "case" and any(
            c.value in ("lowercase_start", "capital_start") and separates(c, corrected, accepted)
            for c in out
        ):
            continue  # the subject's first letter was the case meant
        if t.value in _STRONGER and any(
            c.kind == "identifier_like" and separates(c, corrected, accepted) for c in out
        ):
            continue  # the issue is referenced: that is enough, not a keyword or a place
        check = next(
            (c for c in candidates(t, corrected, accepted) if separates(c, corrected, accepted)),
            None,
        )
        if check and check not in out:
            out.append(check)
            covered.add(t.value.lower())
    out = narrowed(_without_remedies(out, read, found, corrected, accepted), said, corrected,
                   accepted)  # fmt: skip
    if not any(separates(c, corrected, accepted) for c in out):
        out += [c for c in pair_fallback(said, corrected, accepted) if c not in out]
    return out


def _without_remedies(
    checks: list[Check], read: list[Check], found: list[Topic], corrected: str, accepted: str
) -> list[Check]:
    """Asks named after a forbidden topic, but the grammar's own words (it never requires
    the kept half of "X, not Y", and "use UTC" after "don't use PT" is the rule) except a
    layout ("use a plain list")."""
    orders = {c: t.order for c in checks if (t := _topic_of(c, found))}
    roles = {c: t.role for c in checks if (t := _topic_of(c, found))}
    forbidden = [
        orders[c]
        for c in checks
        if c.kind not in _ASKS and c in orders and separates(c, corrected, accepted)
    ]
    first = min(forbidden, default=None)
    return [
        c
        for c in checks
        if not (
            c.kind in _ASKS
            and roles.get(c) == HAS
            and first is not None
            and first < orders[c]
            and (c not in read or c.kind == "has")
        )  # fmt: skip
    ]


def broken_by(said: str, answer: str) -> bool:
    """Whether ``said`` states a rule ``answer`` breaks, by its words alone: the grammar's
    reading, or a topic whose words say which way (forbidden, asked for) and whose first
    check of that polarity the answer fails."""
    return broken_by_respelt(respell(said, answer), answer)


def broken_by_respelt(said: str, answer: str) -> bool:
    """``broken_by`` of words already respelt against ``answer`` (``respell``: a follow-up
    is, before it is read at all; respelling again changes nothing)."""
    for c in grammar.compile_text(said, answer):
        if c.kind not in ("contains", "identifier_like") and not passes(
            c.kind, c.value, c.scope, answer
        ):  # a word asked for may be new work's ("I need a Grafana dashboard")
            return True
    for t in topics(said, answer):
        if t.what in ("literal", "identifier") and t.role != NO and not t.at:
            continue  # a word only named or asked for may be new work's ("add Unreleased")
        if t.what == "count" and not (t.unit and t.bound):
            continue
        if t.what == "feature" and t.role not in (NO, HAS):
            continue
        wanted = _ASKS if t.role == HAS else None
        for c in candidates(t, answer, ""):
            if wanted is not None and c.kind not in wanted:
                continue
            if not passes(c.kind, c.value, c.scope, answer):
                return True
            if t.what != "identifier":
                break  # the first reading; an identifier's are weaker to stronger
    return False


_LITERAL_ASKS = ("contains", "starts_with", "ends_with")
_LITERAL_FORBIDS = ("not_contains", "not_starts_with", "not_ends_with")


def admissible(check: Check, said: str, corrected: str = "") -> bool:
    """Whether a check proposed by the judge model reads a word as the user's words do: a
    word it asks for is one they asked for (never the one they prefer, "use logging"), a
    word it forbids one they rejected or named as code, a layout it asks for one they
    asked for."""
    found = topics(respell(said, corrected), corrected)
    value = check.value.lower()
    if check.kind in (*_LITERAL_ASKS, *_LITERAL_FORBIDS, "identifier_like"):
        roles = {t.role for t in found if t.what != "feature" and t.value.lower() == value}
        if check.kind in _LITERAL_FORBIDS:
            return bool(roles & {NO, NAMED})
        return HAS in roles
    if check.kind == "has":
        return any(t.what == "feature" and t.value == check.value and t.role in (HAS, KEEP)
                   for t in found)  # fmt: skip
    return True
