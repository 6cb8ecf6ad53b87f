"""When nothing the words compile holds on the session, read the pair for what the user named.

Users name the thing they object to in many ways the grammar does not read ("== again",
"MARLIN is internal", "`{}` as default"), but they nearly always *write* it: a symbol, a
code token, a quoted span, a capitalised name. A token the user wrote that the corrected
answer contains and the accepted answer no longer does is what the correction removed, so
it is forbidden. Never the other way: a token the accepted answer added is often only one
instance of what was asked ("use his name, Lucas"), and requiring it would fail every other
answer that follows the rule. Precision first: only these marked tokens, never plain words.
"""

from __future__ import annotations

import re

from skillopt_sleep.mining.literals import SETUP_WORDS, code_tokens
from skillopt_sleep.mining.phrases import FINE_AFTER, QUOTED, Check
from trainer.checks import passes

# Characters that make a token code or markup rather than a word ("==", "{}", "%w", "$f").
_SYMBOLS = set("=<>{}[]%$*|&~^@#/\\!+")
_SYMBOL_CLASS = r"[=<>{}\[\]%$*|&~^@#/\\!+]"
# What an operator may not follow: a closing bracket ends an operand (``map["k"]!!``).
_BEFORE_CLASS = r"[=<>{\[%$*|&~^@#/\\!+]"
_EDGE = " \t.,;:!?()\"'`"
_MAX = 3
# Punctuation of sentences, not operators of code: read in prose (a `main...feature` range
# in a code block is no ellipsis).
_MARKS = re.compile(r"[.,;:!?\u2026\u2014\u2013'\"\u201c\u201d\u2018\u2019-]+")
# Marks of markdown formatting ("**", "__", "##"): formatting is read in prose, where it
# renders (``fn(**kwargs)`` in code is no bold).
_MARKUP = re.compile(r"\*{1,3}|_{2,3}|~~|#{1,6}")


def _marked_tokens(said: str) -> list[str]:
    """What the user wrote that names a thing in an answer: quoted spans, code tokens,
    symbol runs, capitalised names that do not open a sentence."""
    spans = [m.span() for m in QUOTED.finditer(said)]
    out = [next(g for g in m.groups() if g).strip() for m in QUOTED.finditer(said)]
    out += code_tokens(said)
    for m in re.finditer(r"\S+", said):
        word = m.group(0).strip(_EDGE) or m.group(0).strip(" \t")
        if any(c in _SYMBOLS for c in word) and len(word) <= 20:
            out.append(word)
        starts = re.search(r"(?:^|[.!?:]\s+|\n)\W*$", said[: m.start()]) is not None
        quoted = any(a < m.end() and m.start() < b for a, b in spans)
        if (
            re.fullmatch(r"[A-Z][A-Za-z]+", word)
            and not starts
            and not quoted  # a word of a quoted phrase is that phrase's, not a name
            and word not in SETUP_WORDS
        ):
            out.append(word)
    allowed = {t for t in out if any(FINE_AFTER.match(said[m.end() :]) for m in
                                     re.finditer(re.escape(t), said))}  # fmt: skip
    return [t for t in dict.fromkeys(out) if len(t) >= 2 and t not in allowed]


def _check_for(token: str, corrected: str) -> Check | None:
    """The check that forbids ``token`` as written in the corrected answer, or None."""
    if token[:1].isalnum() and token[-1:].isalnum() and not any(c in _SYMBOLS for c in token):
        m = re.search(rf"(?<![\w-]){re.escape(token)}(?![\w-])", corrected, re.IGNORECASE)
        if m is None or (token[:1].isupper() and not m.group(0)[:1].isupper()):
            return None  # a name is capitalised in the answer too ("IS" shouted is no name)
        value = m.group(0) if token.isupper() else token  # "MARLIN" is written "Marlin"
        return Check("not_contains", value, "answer")
    # an operator ends where any other begins: "==" is not in "===" or "!=="
    pattern = re.escape(token)
    if not token[:1].isalnum():
        pattern = rf"(?<!{_BEFORE_CLASS}){pattern}"
    after = r"(?!\w)" if token[-1:].isalnum() else rf"(?!{_SYMBOL_CLASS})"
    pattern += after
    return Check("not_regex", pattern, "answer")


def _scoped(check: Check, token: str, corrected: str, accepted: str) -> Check | None:
    """The check where it separates the two answers: the whole answer, narrowed to code
    when the corrected answer had the token only there, else code alone (the prose may
    name what the code must not use); punctuation and markup in prose first."""
    scopes = ["answer", "code"] if "```" in corrected else ["answer"]
    if _MARKS.fullmatch(token) or _MARKUP.fullmatch(token):
        scopes = ["prose", "answer"]  # "..." or "!!" in a sentence says nothing of code
    for scope in scopes:
        scoped = Check(check.kind, check.value, scope)
        if passes(scoped.kind, scoped.value, scope, corrected):
            continue
        if not passes(scoped.kind, scoped.value, scope, accepted):
            continue
        if (
            scope == "answer"
            and "```" in corrected
            and passes(scoped.kind, scoped.value, "prose", corrected)
        ):
            return Check(check.kind, check.value, "code")
        return scoped
    return None


def pair_fallback(said: str, corrected: str, accepted: str) -> list[Check]:
    """Forbid the tokens the user wrote that the correction removed (at most three)."""
    out: list[Check] = []
    for token in _marked_tokens(said):
        check = _check_for(token, corrected)
        check = _scoped(check, token, corrected, accepted) if check else None
        if check is not None and check not in out:
            out.append(check)
        if len(out) == _MAX:
            break
    return out
