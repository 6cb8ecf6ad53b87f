"""Narrow a forbidden word to the use the user objected to, as the corrected answer shows it.

A word forbidden anywhere is over-broad when the user meant a use of it: "no .then()" objects
to the method call, not to "then" in a comment; "never rm -rf" to the command with that flag,
not to ``rm -f`` or ``rmdir``. The narrower check is kept only where it still separates the
two answers (the corrected one fails it, the accepted one passes), so narrowing never loses a
rule the session shows; it only stops the judge from failing answers that follow the rule.

The same holds of where a code rule looks: "uppercase keywords" and "no var" are about the
code, not about ``-- select the latest rows`` or ``'select from where'`` or ``// no var
here``, so a rule the corrected answer broke only in its code reads the code less its
comments and strings (the ``code_bare`` scope) where that still separates the two answers.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from skillopt_sleep.mining.conventions import LANGUAGE_CONSTRUCTS
from skillopt_sleep.mining.literals import COMMANDS
from skillopt_sleep.mining.phrases import Check
from trainer.answer_parts import FENCED, fence_language, language_family
from trainer.checks import CODE_SCOPES, LANGUAGES_AT, passes, word_pattern

_NAME = re.compile(r"\.?([A-Za-z_][\w.]*?)(?:\(\))?")
# A command and the flag or subcommand the user wrote after it ("rm -rf", "git push").
_COMMAND_PHRASE = re.compile(r"(?<![\w-])([a-z][\w-]*)(?=\s+(--?\w[\w-]*|[a-z][\w-]+))")


def _separates(check: Check, corrected: str, accepted: str) -> bool:
    return not passes(check.kind, check.value, check.scope, corrected) and passes(
        check.kind, check.value, check.scope, accepted
    )


def _each_narrowed(
    checks: list[Check], corrected: str, accepted: str, narrower: Callable[[Check], Check | None]
) -> list[Check]:
    """``checks``, each replaced by ``narrower``'s narrower reading of it where that still
    separates the two answers; a check narrowed into one already there is kept once."""
    out: list[Check] = []
    for check in checks:
        narrow = narrower(check)
        if narrow is not None and _separates(narrow, corrected, accepted):
            check = narrow
        if check not in out:
            out.append(check)
    return out


def _as_call(check: Check, said: str, corrected: str) -> Check | None:
    """A forbidden name the corrected answer calls, forbidden as a call: a method (``.then(``)
    when the user wrote it with its dot or the answer only calls it as one."""
    m = _NAME.fullmatch(check.value)
    if check.kind != "not_contains" or m is None:
        return None
    name = m.group(1)
    method = rf"\.{re.escape(name)}\s*\("
    call = rf"(?<![\w.]){re.escape(name)}\s*\("
    called_as_method = re.search(method, corrected) is not None
    called = re.search(call, corrected) is not None
    if not (called or called_as_method):
        return None
    wrote_method = re.search(rf"\.{re.escape(name)}\b", said) is not None
    if called_as_method and (wrote_method or not called):
        return Check("not_regex", method, check.scope)
    # "it() not test()": test.each(…) and test.skip(…) are calls of test too
    return Check("not_regex", rf"(?<![\w.]){re.escape(name)}(?:\.\w+)*\s*\(", check.scope)


def _as_package(check: Check, corrected: str) -> Check | None:
    """A forbidden name the corrected answer imports as a JavaScript module, forbidden as
    that package and its family (``lodash-es``, ``lodash/get``, ``moment-timezone``) named
    as a module or called (``moment()``): "we're dropping lodash" is not broken by a comment
    that says so, or by ``const moments = …``."""
    name = check.value
    if check.kind != "not_contains" or re.fullmatch(r"[a-z][\w-]*", name) is None:
        return None
    quoted = rf"['\"]{re.escape(name)}(?:[-/.][^'\"\s]*)?['\"]"  # a JS module and its family
    if re.search(rf"(?:\brequire\(|\bfrom\s|\bimport\s)\s*{quoted}", corrected) is None:
        return None
    called = rf"(?<![\w.$]){re.escape(name)}(?:\.\w+)*\s*\("
    return Check("not_regex", f"{quoted}|{called}", check.scope)


def _command_phrases(said: str) -> dict[str, str]:
    """Each command the user wrote with a flag or subcommand after it, to that phrase."""
    out: dict[str, str] = {}
    for m in _COMMAND_PHRASE.finditer(said):
        if m.group(1) in COMMANDS and m.group(1) not in out:
            out[m.group(1)] = f"{m.group(1)} {m.group(2)}"
    return out


# The markers a comment of a kind opens with: "todo comments" are those, not every comment.
_MARKERS = "todo|fixme|xxx|hack"
_MARKER = re.compile(rf"(?i)(?:{_MARKERS})")
_MARKER_COMMENTS = re.compile(r"(?i)\b(?:todo|fixme|xxx|hack)s?[- ]comments?\b")


def _as_marker(check: Check) -> Check | None:
    """A comment marker forbidden as a word ("todo" is also the class ``Todo``), forbidden
    where it marks a comment, with its siblings: a FIXME left instead of a TODO is the same
    unfinished work."""
    if check.kind != "not_contains" or not _MARKER.fullmatch(check.value):
        return None
    marker = rf"(?i)(?:#|//|/\*|<!--|--|;|\*)\s*(?:{_MARKERS})\b"
    return Check("not_regex", marker, check.scope)


def within_named(checks: list[Check], said: str) -> list[Check]:
    """``checks`` without a class broader than the thing the user named: "no todo comments"
    forbids those comments, not every comment."""
    if not _MARKER_COMMENTS.search(said):
        return checks
    return [c for c in checks if c != Check("no", "code_comment", c.scope)]


# A command where it is run: at the start of a line (after a prompt, variables set for it,
# or a command that runs another: sudo, xargs, exec …), after a separator, or opening inline
# code; "use uv, not pip" is not broken by ``uv pip install`` (uv's subcommand) or ``pipx``.
_AS_RUN = (
    r"(?m)(?:^|[;&|(`]|\$\()[ \t]*(?:\$[ \t]+)?(?:[A-Z_][A-Z0-9_]*=\S*[ \t]+)*"
    r"(?:(?:sudo|xargs|exec|time|nohup|env|watch|nice|command)(?:[ \t]+-\S+)*[ \t]+)*"
    r"{}(?![\w-])"
)


def as_run(command: str) -> str:
    """A pattern for ``command`` where it is run (``_AS_RUN``)."""
    return _AS_RUN.format(re.escape(command))


def narrowed(checks: list[Check], said: str, corrected: str, accepted: str) -> list[Check]:
    """``checks`` with over-broad forbidden words narrowed to the use the user meant, where
    the narrower check still separates the corrected answer from the accepted one."""
    phrases = _command_phrases(said)

    def narrower(check: Check) -> Check | None:
        if _as_marker(check) is not None:
            return _as_marker(check)
        if check.kind != "not_contains":
            return None
        phrase = next((p for cmd, p in phrases.items() if check.value in (cmd, p.split()[1])), None)
        if phrase is not None and phrase != check.value:
            return Check("not_contains", phrase, check.scope)
        if check.value in COMMANDS:
            return Check("not_regex", as_run(check.value), check.scope)
        package = _as_package(check, corrected)
        if package is not None and _separates(package, corrected, accepted):
            return package
        return _as_call(check, said, corrected)

    return _each_narrowed(checks, corrected, accepted, narrower)


_FORBIDS = ("not_contains", "not_regex")
_LOOKAROUND = re.compile(r"\(\?<?[=!](?:\\.|[^()\\])*\)")  # what may stand beside a match
_QUOTE = re.compile(r"[\"']")


def out_of_comments(checks: list[Check], corrected: str, accepted: str) -> list[Check]:
    """``checks`` with each rule against a construct in the code read on the code less its
    comments and strings, where that still separates the two answers (a "no TODO" the
    corrected answer broke in a comment stays where it was). A pattern that matches a quote
    mark itself is about strings ("no '%s' % x"), and keeps them."""

    def narrower(check: Check) -> Check | None:
        if (
            check.kind in _FORBIDS
            and check.scope == "code"
            and not _QUOTE.search(_LOOKAROUND.sub("", check.value))
        ):
            return Check(check.kind, check.value, "code_bare")
        return None

    return _each_narrowed(checks, corrected, accepted, narrower)


# A pattern's syntax (flags, escapes like ``\n`` or ``\S``, group openers): what is left
# of a pattern of marks has no letter.
_SYNTAX = re.compile(r"\(\?[a-zA-Z]+\)|\\[A-Za-z]|\(\?<?[=!:]")
_MARKS_ONLY = re.compile(r"[A-Za-z]")


def _language_bound(check: Check) -> bool:
    """A rule on what one language's code means by its marks, which another language's code
    writes for something else: a keyword or name forbidden (JS's ``var``, CSS's ``var()``),
    an indent width (YAML's 2, Python's 4), a pattern of marks alone (a semicolon ending a
    statement, ``==``, a backtick). Rules written
    for any code (no TODO comments, no sleeps in tests, lines of 80) stay on all of it."""
    if check.kind == "not_contains":
        return re.fullmatch(r"[A-Za-z_]\w*", check.value) is not None
    if check.kind == "not_regex" and check.value in LANGUAGE_CONSTRUCTS:
        return True  # a convention of one language's code ("use the logger", not print)
    if check.kind == "not_regex" and _MARKS_ONLY.search(_SYNTAX.sub("", check.value)) is None:
        return True  # marks only: ``==`` is loose in JS and plain in Python, a backtick a
        # substitution in a shell and a template in JS
    return check.kind == "max_indent"


def to_languages(checks: list[Check], corrected: str, accepted: str) -> list[Check]:
    """``checks`` with each code rule the corrected answer broke only in blocks of named
    languages read in those languages' blocks (and untagged ones), where that still separates
    the two answers: "no var" after a JavaScript answer is not broken by CSS's
    ``var(--gap)``, "2-space indent" after a YAML manifest not by a Python block's 4, "no
    semicolons" after JavaScript not by Go's ``x := 1;``. A rule broken in an untagged block
    stays on all the code: its language is unknown."""

    def narrower(check: Check) -> Check | None:
        if check.scope not in CODE_SCOPES or not _language_bound(check):
            return None
        broken = {
            language_family(fence_language(corrected, m))
            for m in FENCED.finditer(corrected)
            if not passes(check.kind, check.value, check.scope, m.group(0))
        }
        if not broken or "" in broken:
            return None
        return Check(check.kind, check.value, check.scope + LANGUAGES_AT + ",".join(sorted(broken)))

    return _each_narrowed(checks, corrected, accepted, narrower)


def _quoted_as_a_word(word: str, said: str) -> bool:
    """The user put ``word`` in quotation marks (not backticks): the word, as writing uses it
    ("avoid "just""); "pytest, not unittest" names a module the code may import."""
    return re.search(rf"[\"'\u201c\u2018]{re.escape(word)}[\"'\u201d\u2019]", said) is not None


def to_prose(checks: list[Check], said: str, corrected: str, accepted: str) -> list[Check]:
    """``checks`` with each word or phrase of the language (small letters, quoted as words:
    not a name or a flag) forbidden on the whole answer that the corrected answer wrote only
    in its sentences read in the prose, where that still separates the two answers: "avoid
    'just'" in docs is not broken by the command ``just build``, nor "drop the 'let me
    know'" by ``notify("let me know when done")``. A command forbidden ("no sudo") is about
    what is run, wherever the corrected answer wrote it."""

    def narrower(check: Check) -> Check | None:
        if (
            check.kind == "not_contains"
            and check.scope == "answer"
            and re.fullmatch(r"[a-z]+(?: [a-z]+)*", check.value) is not None  # words, no name
            and _quoted_as_a_word(check.value, said)
            and check.value.split()[0] not in COMMANDS  # "no sudo": what is run
            and passes(check.kind, check.value, "code", corrected)
        ):
            return Check(check.kind, check.value, "prose")
        return None

    return _each_narrowed(checks, corrected, accepted, narrower)


_HEADING_LINE = re.compile(r"^[ \t]*#{1,6}[ \t][^\n]*", re.MULTILINE)


def to_headings(checks: list[Check], corrected: str, accepted: str) -> list[Check]:
    """``checks`` with each word forbidden on the whole answer that the corrected answer wrote
    only in its headings read in the headings, where that still separates the two answers:
    "not 'Bugfixes', 'Fixed'" after a ``### Bugfixes`` section names the section, and a
    sentence saying "bugfixes only" obeys."""

    def narrower(check: Check) -> Check | None:
        if (
            check.kind != "not_contains"
            or check.scope != "answer"
            or not _HEADING_LINE.search(corrected)
            or not passes(check.kind, check.value, check.scope, _HEADING_LINE.sub("", corrected))
        ):
            return None
        word = word_pattern(check.value)
        flags = "(?im)" if word.flags & re.IGNORECASE else "(?m)"
        return Check("not_regex", rf"{flags}^[ \t]*#{{1,6}}[ \t][^\n]*?{word.pattern}")

    return _each_narrowed(checks, corrected, accepted, narrower)


def without_bullet_kind(checks: list[Check]) -> list[Check]:
    """``checks`` less a bullet asked for beside a list asked for (``has list``, a
    ``min_bullets``, which count numbered items too): "3+ bullet points" names a list the way
    users do, and a numbered one of three obeys it."""
    lists = any(c.kind == "min_bullets" or (c.kind, c.value) == ("has", "list") for c in checks)
    return [c for c in checks if not (lists and (c.kind, c.value) == ("has", "bullet"))]


def as_units(checks: list[Check], corrected: str, accepted: str) -> list[Check]:
    """``checks`` with a short word forbidden that the corrected answer wrote only glued to a
    number ("rem, not px" after ``16px``) read as that unit after a number, in the code less
    comments and strings, where that still separates the two answers: ``px`` as a word never
    occurs there, and "Converted 16px to 1rem" or ``px-4`` obeys."""

    def narrower(check: Check) -> Check | None:
        v = check.value
        if (
            check.kind == "not_contains"
            and re.fullmatch(r"[a-z]{1,4}", v)
            and passes(check.kind, v, check.scope, corrected)
            and re.search(rf"\d{v}\b", corrected)
        ):
            return Check("not_regex", rf"(?<![\w.-])\d+(?:\.\d+)?{v}(?![\w-])", "code_bare")
        return None

    return _each_narrowed(checks, corrected, accepted, narrower)


def read_where_meant(checks: list[Check], said: str, corrected: str, accepted: str) -> list[Check]:
    """``checks`` each read where what the user meant lives: as a unit after a number, in the
    languages the rule is about, in the sentences, in the headings, on any list item
    (``as_units``, ``to_languages``, ``to_prose``, ``to_headings``, ``without_bullet_kind``)."""
    checks = to_languages(as_units(checks, corrected, accepted), corrected, accepted)
    checks = to_headings(to_prose(checks, said, corrected, accepted), corrected, accepted)
    return without_bullet_kind(checks)


def words_of_phrases(read: list[Check]) -> set[str]:
    """The words of each phrase the user forbade whole ("no curl | bash"): one of them alone
    is not what they forbade (``bash install.sh`` runs a script read first), so no topic of
    its own."""
    return {
        w.lower()
        for c in read
        if c.kind == "not_contains" and len(words := c.value.split()) > 1
        for w in words
    }
