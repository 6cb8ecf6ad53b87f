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
from skillopt_sleep.mining.alternatives import (
    alternative_check,
    alternative_groups,
    spoken_openings,
    with_slashed_alternatives,
    without_mixed_lists,
)
from skillopt_sleep.mining.cues import GROUNDS
from skillopt_sleep.mining.fallback import pair_fallback
from skillopt_sleep.mining.grammar import PROSE_FEATURES
from skillopt_sleep.mining.instances import number_shape
from skillopt_sleep.mining.literals import LABELLED, labelled_line, required
from skillopt_sleep.mining.narrow import (
    narrowed,
    out_of_comments,
    read_where_meant,
    within_named,
    words_of_phrases,
)
from skillopt_sleep.mining.phrases import Check, respell
from skillopt_sleep.mining.sections import STATEMENT_END, section_pattern
from skillopt_sleep.mining.shapes import KEY_PATTERN, SHORTCODE, is_key, shape_candidates
from skillopt_sleep.mining.topic import HAS, KEEP, NAMED, NO, Topic
from skillopt_sleep.mining.topics import HAS_FEATURES, topics
from skillopt_sleep.mining.zones import ZONE_PATTERNS
from trainer.answer_parts import deliverable
from trainer.checks import identifier_pattern, passes
from trainer.features import FEATURES
from trainer.text_classes import TEXT_CLASSES

# Features of code: read inside code blocks first ("drop the comments" means the code's).
_CODE_FEATURES = {
    "shell_prompt", "code_comment", "bare_except", "untyped_def", "camelcase_def", "single_quoted",
    "short_flag", "unsorted",
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
    if t.role == HAS and f in TEXT_CLASSES:
        return []  # a kind of text asked for ("use file paths") is no rule against it
    if f in _SUBJECT_FEATURES:
        scopes = ["first_line"]
    elif f == "file_name":  # "no file names" is said of a subject first, then of the prose
        scopes = ["first_line", "prose", "answer"]
    elif f in PROSE_FEATURES:
        scopes = ["prose"] if f == "exclamation" else ["prose", "answer"]  # code's "!": an operator
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
    if t.unit == "paragraphs" and t.value == "1":
        return ["paragraphs", "lines"]  # "one paragraph" of a chat message: no line breaks
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
        elif unit == "indent":
            scopes = ["code", "answer"]  # "2-space indent": the code's, where it has some
        elif unit in ("chars", "words"):
            scopes = ["answer", "first_line", "lines" if unit == "chars" else "bullets"]
        else:
            scopes = ["answer"]
        if unit in ("lines", "bullets", "sentences", "paragraphs"):
            scopes = [s if s in ("answer", "bullets") and unit == "sentences" else "answer"
                      for s in scopes]  # fmt: skip
        for bound in [t.bound] if t.bound else ["max", "min"]:
            if bound == "min" and n == 0:
                continue
            if unit == "chars" and "lines" in scopes and _long_in_code_only(n, corrected):
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


def _literal_candidates(t: Topic, corrected: str, said: str = "") -> list[Check]:
    value = t.value
    # a labelled line named or kept ("a `Refs:` trailer at the bottom, not in the subject",
    # "the trailer format `Refs: PLAT-1020`"): a line opening with the label, where the pair
    # shows it asked for; any other word named or kept is never required
    labelled = labelled_line(value, said)
    if t.role == KEEP:
        return labelled
    out: list[Check] = []
    line = rf"(?im)^[\W_]*{re.escape(value)}" + (r"\b" if value[-1:].isalnum() else "")
    if t.at == "line":  # "the 'Summary' heading": a line it opens, not the word anywhere
        if t.role == HAS:
            return [Check("regex", section_pattern(value))]
        return [Check("not_regex", line), *labelled]
    if t.at == "start" and t.role != NO and SHORTCODE.fullmatch(value):
        return [Check("regex", r"\A\W*" + SHORTCODE.pattern, "first_line")]  # any shortcode
    if t.role != HAS:
        if t.at == "start":
            out.append(Check("not_starts_with", value, "answer"))  # how the answer opens
        elif t.at == "end":
            out.append(Check("not_ends_with", value, "answer"))
        where = "code" if _in_code_only(value, corrected) else "answer"
        return out + [Check("not_contains", value, where)] + (labelled if t.role == NAMED else [])
    if LABELLED.match(value):  # "add `Signed-off-by: Tomás …`": the trailer, not Tomás
        first = [Check("starts_with", value, "first_line")] if t.at == "start" else []
        return [required(value), *first]  # "first line 'Impact: ...'": where it opens
    heading = re.fullmatch(r"#{1,6}\s*(\w[\w ]*)", value)
    if heading:  # "add '## Testing'": a heading of that name, at whatever level
        return [Check("regex", section_pattern(heading.group(1)))]
    if t.at == "start":
        out.append(Check("starts_with", value, "first_line"))
    elif t.at == "end":
        out.append(Check("ends_with", value, "answer"))
    return out + [Check("contains", value, "answer")]


# Classes a forbidden word stands for when it is nothing but one of their instances: "no
# 'we'" is no first person, "no '…'" no ellipsis, not that very word. "I" is left to be
# itself: "we, not I" is a team's voice, so only "we" stands for the first person at all.
_INSTANCE_CLASSES = ("first_person_any", "ellipsis", "curly_quote", "em_dash", "emoji")


def _instance_classes(value: str) -> list[Check]:
    """The class checks for a forbidden literal that is one instance of a class, where the
    class shows (prose first, as for the class named)."""
    if len(value.split()) != 1 or FEATURES["first_person"][0](value):
        return []
    return [
        c
        for f in _INSTANCE_CLASSES
        if FEATURES[f][0](value)
        for c in _feature_candidates(Topic("feature", f, NO))
    ]


def _to_code_lines(checks: list[Check], corrected: str, accepted: str) -> list[Check]:
    """A check on every line that the corrected answer broke only inside code blocks reads
    the code's lines, where that still separates the two answers: "past 80 cols" after a
    long line of code says nothing of a long sentence around it. A message handed over in a
    plain fence is no code (``deliverable``)."""
    if "```" not in corrected or deliverable(corrected) != corrected:
        return checks
    prose = re.sub(r"(?ms)^\s*```.*?^\s*```[^\n]*$", "", corrected)
    out = []
    for check in checks:
        narrow = Check(check.kind, check.value, "code_lines")
        if (
            check.scope == "lines"
            and passes(check.kind, check.value, "lines", prose)
            and separates(narrow, corrected, accepted)
        ):
            check = narrow
        out.append(check)
    return out


def _where_it_was(check: Check, corrected: str) -> list[Check]:
    """A check read on the whole answer, narrowed first to prose or to code when the
    corrected answer broke it only there: a kind read from an instance in a sentence says
    nothing of the code beside it (``$3`` in an awk program is no amount)."""
    if check.scope != "answer":
        return [check]
    narrow = [
        Check(check.kind, check.value, scope)
        for scope, other in (("prose", "code"), ("code", "prose"))
        if not passes(check.kind, check.value, scope, corrected)
        and passes(check.kind, check.value, other, corrected)
    ]
    return [*narrow, check]


def _as_classes(checks: list[Check], corrected: str, accepted: str) -> list[Check]:
    """Each forbidden word that is one instance of a class as the class, and one whose
    numbers are placeholders as their shape (``instances``), where that still separates
    the two answers."""
    out: list[Check] = []
    for check in checks:
        if check.kind == "not_contains":
            check = next(
                (c for c in _instance_classes(check.value) if separates(c, corrected, accepted)),
                check,
            )
        shape = number_shape(check) if separates(check, corrected, accepted) else None
        if shape is not None:  # "$12" stands for every amount written so, where it was
            check = next((c for c in _where_it_was(shape, corrected)
                          if separates(c, corrected, accepted)), check)  # fmt: skip
        if check not in out:
            out.append(check)
    return out


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
    ends: list[Check] = []
    if mark in ".;" and (t.role == HAS or (t.role == NAMED and t.at == "end")):
        # "semicolon at the end", "needs a full stop": asked for, where the pair shows
        where = ["code", "answer"] if mark == ";" else ["first_line", "bullets", "lines"]
        ends = [Check("ends_with", mark, s) for s in ([t.scope] if t.scope else where)]
    if mark == ";":
        forbid = [Check("not_regex", STATEMENT_END, "code"), Check("not_contains", ";", "prose")]
        return (forbid if t.role != HAS else []) + ends
    if mark == ".":
        scopes = [t.scope] if t.scope else ["first_line", "bullets", "lines"]
        return ([Check("not_ends_with", ".", s) for s in scopes] if t.role != HAS else []) + ends
    return []


def candidates(t: Topic, corrected: str, accepted: str = "", said: str = "") -> list[Check]:
    """The checks a topic could mean, the most plausible first."""
    if t.what == "feature":
        return _feature_candidates(t)
    if t.what == "count":
        return _count_candidates(t, corrected)
    if t.what == "literal":
        return _literal_candidates(t, corrected, said)
    if t.what == "identifier":
        return _identifier_candidates(t)
    if t.what == "mark":
        return _mark_candidates(t)
    return shape_candidates(t, corrected, accepted)


# Shapes that say more than an identifier the user gave or the accepted answer added.
_STRONGER = ("closing_ref", "ticket")
# The kinds of check that ask for something in the answer (not forbid or bound it).
ASKS = ("has", "contains", "starts_with", "ends_with", "regex", "identifier_like")


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
    found = without_mixed_lists(topics(said, corrected), " ".join(said.split()))
    kept = [c for c in read if separates(c, corrected, accepted)]
    covered = {ZONE_PATTERNS.get(c.value, c.value).lower() for c in kept} | words_of_phrases(read)
    out = list(read)
    text = " ".join(said.split())
    for group in [*alternative_groups(found, text), *spoken_openings(text)]:
        either, members = alternative_check(group), {t.value.lower() for t in group}
        if separates(either, corrected, accepted):  # instead of a check on one of them
            out = [c for c in out if not (c.kind in ASKS and c.value.lower() in members)]
            out.append(either)
            covered |= members
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
            (
                c
                for c in candidates(t, corrected, accepted, said)
                if separates(c, corrected, accepted)
            ),
            None,
        )
        if check and check not in out:
            out.append(check)
            covered.add(t.value.lower())
    if _IMPERATIVE.search(said) and Check("no", "past_tense", "first_line") in out:
        out += [c for c in [_HAS_IMPERATIVE] if c not in out and separates(c, corrected, accepted)]
    out = narrowed(_without_remedies(out, read, found, corrected, accepted), said, corrected,
                   accepted)  # fmt: skip
    out = out_of_comments(_to_code_lines(out, corrected, accepted), corrected, accepted)
    if not any(separates(c, corrected, accepted) for c in out):  # narrowed as the rest
        fallback = narrowed(pair_fallback(said, corrected, accepted), said, corrected, accepted)
        out += [c for c in out_of_comments(fallback, corrected, accepted) if c not in out]
    if not any(separates(c, corrected, accepted) for c in out):
        out += _enumerated(said, corrected, accepted)
    out = with_slashed_alternatives(out, corrected, accepted)  # "no leverage/utilize"
    return within_named(read_where_meant(_as_classes(out, corrected, accepted), said, corrected,
                                         accepted), said)  # fmt: skip


# Classes the loose words cannot ground: "I", "my", "we" are how users speak, not names.
_SPOKEN = {"first_person", "first_person_any"}
# Marks of markdown a user can touch by name ("asterisks" make bold): markdown as a whole
# only when its own words are said.
_MARKDOWN_PARTS = {"bold", "italic", "heading", "top_heading", "table", "link", "blockquote"}
_NAMES_MARKDOWN = re.compile(r"markdown|markup|format|plain")


def _enumerated(said: str, corrected: str, accepted: str) -> list[Check]:
    """When nothing read holds on the pair: each feature only ever forbidden that the
    user's words touch, even loosely (``cues.GROUNDS``: "a space befor the unit", "the page
    title from front matter … start at ##"), forbidden where the pair shows the corrected
    answer had it and the accepted one has not. At most two."""
    low = said.lower()
    out: list[Check] = []
    for f, grounds in GROUNDS.items():
        if f in HAS_FEATURES or f in _SPOKEN or not re.search(grounds, low):
            continue
        check = next((c for c in _feature_candidates(Topic("feature", f, NO))
                      if separates(c, corrected, accepted)), None)  # fmt: skip
        if check is not None:
            out.append(check)
    if not _NAMES_MARKDOWN.search(low) and any(
        c.value in _MARKDOWN_PARTS for c in out
    ):  # "the double asterisks": the bold they make, not every other mark of markdown
        out = [c for c in out if c.value != "markdown"]
    return out[:2]


_NO_PROSE = Check("max_words", "0", "prose")
# "imperative mood", "as a command": the subject's first word a command, not only no "-ed"
_IMPERATIVE = re.compile(r"\bimperative\b|\bas (?:a command|an order)\b|\blike an order\b", re.I)
_HAS_IMPERATIVE = Check("has", "imperative", "first_line")


def _without_remedies(
    checks: list[Check], read: list[Check], found: list[Topic], corrected: str, accepted: str
) -> list[Check]:
    """Asks named after a forbidden topic, but the grammar's own words (it never requires
    the kept half of "X, not Y", and "use UTC" after "don't use PT" is the rule) except a
    layout ("use a plain list"); "just the code" after a forbidden word is its remedy too,
    not a ban on every word of prose."""
    orders = {c: t.order for c in checks if (t := _topic_of(c, found))}
    roles = {c: t.role for c in checks if (t := _topic_of(c, found))}
    forbidden = [
        orders[c]
        for c in checks
        if c.kind not in ASKS and c in orders and separates(c, corrected, accepted)
    ]
    first = min(forbidden, default=None)
    code_only = next((t.order for t in found if t.value == "code_only"), None)
    if first is not None and code_only is not None and first < code_only:
        checks = [c for c in checks if c != _NO_PROSE]  # "skip 'here's', just the command"
    return [
        c
        for c in checks
        if not (
            c.kind in ASKS
            and (roles.get(c) == HAS or (c.kind == "has" and roles.get(c) == NAMED))
            and first is not None
            and first < orders[c]
            and (c not in read or c.kind == "has")
        )  # fmt: skip
        and not (c.kind == "has" and roles.get(c) == KEEP and first is not None)
    ]  # "a plain list instead of a table": no table is the rule, the list one way to keep it
