"""Word checks read wider than the user meant, dropped before verification.

Verification on the session cannot catch them: the corrected answer fails them and the
accepted one passes, yet another answer that keeps the user's rule fails them. Three forms:

* a word the user named (or whose case the pair changed) whose every use in the corrected
  answer lies inside, or begins inside, the construct a convention from the same correction
  rules out ("pytest, not unittest": ``unittest.mock`` is still pytest; "%w not %v": ``%v``
  still formats a port; "go error strings lowercase": the capital of ``errors.New("Empty``,
  not the word ``Empty`` anywhere) — the convention is the narrower reading of the same words;
* a word of a template the user wrote with an ellipsis ("explicit ``JOIN ... ON``"): the
  template is a shape, its words are no literals to require or forbid;
* a word that names where something sits ("rather than in the WHERE clause"): the place,
  not a word to keep out of every answer.

A short flag the user asks for ("add -f") is one alone or bundled with others
(``curl -fsS``) or spelt long for the tool it is on (curl's ``--fail``), not the two
characters ``-f``. A forbidden one stays as written: a bundle
is how the fix is often written ("only set -e?" is answered by ``set -euo pipefail``).

And one count read on the whole answer where the request says what is measured: a limit in
characters on a commit message is git's limit on its subject line ("too long. 50 chars"),
not on its body.
"""

from __future__ import annotations

import re

from skillopt_sleep.mining.conventions import CONVENTION_CHECKS, CONVENTION_CUES
from skillopt_sleep.mining.phrases import Check
from skillopt_sleep.mining.shapes import COMMAND_CONSTRUCTS
from skillopt_sleep.mining.zones import ZONE_PATTERNS

_CONSTRUCTS = COMMAND_CONSTRUCTS | {
    c.value for checks in CONVENTION_CHECKS.values() for c in checks
}
_WORD_KINDS = ("contains", "not_contains")
_TEMPLATE = re.compile(r"([\w.%$-]+)`?\s*(?:\.{3}|…)\s*`?([\w.%$-]+)")
_COMMIT = re.compile(r"\bcommit (?:msg|message|subject)s?\b|\bcommit\b.{0,20}\?", re.I)
_SHORT_FLAG = re.compile(r"-[A-Za-z]")
_PLACES = (
    r"clause|block|section|file|header|footer|loop|body|function|method|branch|statement|"
    r"query|condition"
)


def without_overbroad(
    checks: list[Check], said: str, corrected: str, request: str = ""
) -> list[Check]:
    """``checks`` less the word checks a narrower reading of the same words replaces, and
    a commit message's limit in characters on its subject line."""
    template = {w.lower() for m in _TEMPLATE.finditer(said) for w in m.groups()}
    checks = [
        Check("regex", _bundled(c.value[1], corrected), c.scope)
        if c.kind == "contains" and _SHORT_FLAG.fullmatch(c.value)
        else c
        for c in checks
    ]
    if _COMMIT.search(request):
        checks = [
            Check(c.kind, c.value, "first_line") if c.kind == "max_chars" and c.scope == "answer"
            else c
            for c in checks
        ]  # fmt: skip
    return [
        c
        for c in dict.fromkeys(checks)
        if not (
            _superseded(c, checks, corrected)
            or (c.kind in _WORD_KINDS and c.value.lower() in template)
            or (c.kind == "not_contains" and _names_a_place(c.value, said))
            or _a_convention_s_name(c, checks)
        )
    ]


def _a_convention_s_name(check: Check, checks: list[Check]) -> bool:
    """A literal asked for that names a convention read beside it ("missing `set -euo
    pipefail`" is a script without pipefail): the convention is the rule, and a script with
    ``set -Eeuo pipefail``, or an answer with no script, obeys it."""
    if check.kind != "contains":
        return False
    read = {c.value for c in checks if c.kind == "not_regex"}
    return any(
        re.search(cue, check.value, re.IGNORECASE) and CONVENTION_CHECKS[name][0].value in read
        for name, cue in CONVENTION_CUES.items()
    )


def _superseded(check: Check, checks: list[Check], corrected: str) -> bool:
    if check.kind == "not_contains":
        flags = re.IGNORECASE if check.value.islower() else 0
        pattern = re.compile(re.escape(check.value), flags)
    elif check.kind == "not_regex" and check.value not in _CONSTRUCTS.union(ZONE_PATTERNS):
        pattern = re.compile(check.value)
    else:
        return False
    spans = [
        m.span()
        for c in checks
        if c.kind == "not_regex" and c.value in _CONSTRUCTS
        for m in re.finditer(c.value, corrected)
    ]
    hits = [m.span() for m in pattern.finditer(corrected)]
    # a construct's pattern stops once it is sure (``errors.New("St``): a word it reaches
    # into is the construct's, as one it holds whole
    return bool(spans and hits) and all(
        any(a <= start < b for a, b in spans) for start, end in hits
    )


def _names_a_place(value: str, said: str) -> bool:
    """``value`` is said as the place of something: "in the WHERE clause"."""
    place = rf"\b(?:in|inside|within|into) (?:the|a|an|your|that) `?{re.escape(value)}`? "
    return re.search(place + rf"(?:{_PLACES})\b", said, re.IGNORECASE) is not None


# The long spellings of the short flags of common tools: "add -f" to a curl command is
# kept by ``--fail`` too. A letter is another option in another tool (rsync's -z is
# --compress, tar's -f names a file), so a flag is spelt long only for the tool it is on.
LONG_FLAGS: dict[str, dict[str, str]] = {
    "curl": {"f": "fail", "L": "location", "s": "silent", "S": "show-error", "k": "insecure",
             "o": "output", "O": "remote-name", "v": "verbose", "I": "head", "i": "include"},
    "wget": {"q": "quiet", "O": "output-document", "c": "continue", "N": "timestamping"},
    "rsync": {"a": "archive", "z": "compress", "v": "verbose", "n": "dry-run", "r": "recursive",
              "P": "partial", "h": "human-readable"},
    "grep": {"i": "ignore-case", "r": "recursive", "E": "extended-regexp", "n": "line-number",
             "v": "invert-match", "w": "word-regexp", "l": "files-with-matches",
             "F": "fixed-strings", "q": "quiet"},
    "rm": {"r": "recursive", "f": "force", "i": "interactive", "v": "verbose"},
    "cp": {"r": "recursive", "a": "archive", "f": "force", "n": "no-clobber", "v": "verbose"},
    "mkdir": {"p": "parents", "v": "verbose"},
    "tar": {"z": "gzip", "x": "extract", "c": "create", "f": "file", "v": "verbose", "j": "bzip2"},
    "git": {"f": "force", "n": "dry-run", "v": "verbose", "q": "quiet", "a": "all"},
    "docker": {"d": "detach", "i": "interactive", "t": "tty", "e": "env", "p": "publish",
               "v": "volume"},
    "kubectl": {"n": "namespace", "f": "filename", "o": "output", "l": "selector"},
    "sort": {"n": "numeric-sort", "r": "reverse", "u": "unique", "h": "human-numeric-sort"},
}  # fmt: skip


def _bundled(letter: str, corrected: str) -> str:
    """A short flag alone or bundled with others (``-k``, ``-skL``), or its long spelling
    for the tool the corrected answer ran (``curl``'s ``-f`` is ``--fail``)."""
    short = rf"(?<![\w-])-[A-Za-z]{{0,4}}{letter}[A-Za-z]{{0,4}}(?![\w-])"
    tools = re.findall(r"(?<![\w./-])([a-z]+)(?=\s+-)", corrected)
    long = next((LONG_FLAGS[t][letter] for t in tools if letter in LONG_FLAGS.get(t, {})), None)
    return short if long is None else rf"{short}|(?<![\w-])--{long}(?![\w-])"
