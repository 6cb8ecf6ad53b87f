"""A task's content check: names its own request holds, one of which an answer must mention.

A commit message for a diff names something the diff touches (a file, a function, what
changed); a CI summary names the failing job or error the log shows; a regression test
names the bug the request describes. An empty answer, the skill's outline, a refusal or an
answer to another task names none of them. So a task's content check is a
``mentions_any`` judge (``trainer.checks``) over the names that set this request apart from
the other requests of its kind: words of the request and what was pasted with it that few
of the kind's requests share ("chart", "datum" for one diff; not "commit", "staged" or the
project's own folder, which every request of the kind has). It needs no model. Like every
judge it is verified against the session (``verify``): the answer the user accepted for the
request must pass it, or it is dropped and listed.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Sequence

from trainer.checks import CONTENT_KIND, TERM_SEPARATOR
from trainer.tasks import Judge

MAX_TERMS = 12
MIN_CHARS = 4  # shorter names ("fix", "api", "x") are too likely in any answer
# A name in more than this share of the kind's requests is the kind's, not the request's.
MAX_SHARE = 0.34
SOURCE = "the request's own content: an answer to it names one of these"

# Words any request or answer of any kind may hold: English glue, the words people ask
# with, and the keywords of code and diffs.
_COMMON_WORDS = """
    about above after again also although always another answer because been before being
    below between both bring cannot change changed changes could does doing done down during
    each either else even every example first from give given have here into just keep know
    last least less like line lines little look made make many maybe more most much must need
    needs never next none only other over please really same should show since some still
    such than thanks that their them then there these they thing things this those though
    through today under until upon used using very want wants well were what when where which
    while will with within without would write wrote your yours
    true false null none self this class def return import from elif pass async await lambda
    yield raise except finally global const function var let static public private void
    string number object array value values main index file files diff staged commit message
    messages code test tests draft summarize summarise summary tell explain describe
    create update reproduce reproduces fail failed failing failure merged pipeline
"""
_COMMON = frozenset(_COMMON_WORDS.split())
_PATH = re.compile(r"(?:[\w.-]+/)+([\w-]+)(?:\.\w{1,6})?|\b([\w-]+)\.[A-Za-z]{1,6}\b")
_WORD = re.compile(r"[A-Za-z][A-Za-z0-9_]*")
_CAMEL = re.compile(r"[A-Z]?[a-z]+|[A-Z]+(?![a-z])|\d+")


def _names(text: str) -> list[str]:
    """The names a text holds, lowercased, in order: words and identifiers, the parts of a
    snake_case or camelCase identifier, the stem of a file name."""
    out: list[str] = []
    for m in _PATH.finditer(text):
        out.append((m.group(1) or m.group(2) or "").lower())
    for m in _WORD.finditer(text):
        word = m.group(0)
        out.append(word.lower())
        parts = [p for chunk in word.split("_") for p in _CAMEL.findall(chunk)]
        if len(parts) > 1:
            out += [p.lower() for p in parts]
    return [
        n
        for n in dict.fromkeys(out)
        if len(n) >= MIN_CHARS and n not in _COMMON and not n.isdigit() and "redacted" not in n
    ]


class KindNames:
    """The names of a kind's requests (``kind``, a list: a text asked twice counts twice),
    read once. ``content_terms`` reads a request against every other of its kind, and
    reading each of them again per request was quadratic in the kind (a kind of thousands
    of requests at 100,000 sessions). ``read``: the names of texts already read, shared by
    the kinds of one cluster's splits (train's requests are in all three)."""

    def __init__(self, kind: Sequence[str], read: dict[str, list[str]] | None = None) -> None:
        self.size = len(kind)
        self.asked = Counter(kind)
        self._names: dict[str, list[str]] = {} if read is None else read
        self.holding: Counter[str] = Counter()  # name -> requests of the kind that hold it
        for text, times in self.asked.items():
            for name in self.names(text):
                self.holding[name] += times

    def names(self, text: str) -> list[str]:
        if text not in self._names:
            self._names[text] = _names(text)
        return self._names[text]


def content_terms(
    text: str,
    kind: Sequence[str] | KindNames,
    seen: str | None = None,
    max_terms: int = MAX_TERMS,
) -> list[str]:
    """The names of ``text`` (a request as written, its paste included) that at most
    ``MAX_SHARE`` of the kind's requests ``kind`` hold (``text`` among them, or not), the
    rarest first; [] when nothing sets it apart. ``seen``: what the agent is shown of the
    request (a long paste is cut), which must hold the name too."""
    kind = kind if isinstance(kind, KindNames) else KindNames(kind)
    names = kind.names(text)
    if seen is not None:
        shown = set(_names(seen))
        names = [n for n in names if n in shown]
    # the request itself is not among the others, once: the same words asked again are
    own = 1 if kind.asked[text] else 0
    others = kind.size - own
    share = {n: kind.holding[n] - own for n in names}
    total = max(1, others + 1)
    kept = [n for n in names if (share[n] + 1) / total <= MAX_SHARE or others < 2]
    kept.sort(key=lambda n: share[n])  # stable: the request's own order among equals
    return kept[:max_terms]


def content_judge(
    text: str, kind: Sequence[str] | KindNames, turn_id: str = "", seen: str | None = None
) -> Judge | None:
    """The ``mentions_any`` judge of a request (unverified), or None when it names
    nothing of its own."""
    terms = content_terms(text, kind, seen)
    if not terms:
        return None
    where = f"turn {turn_id}: {SOURCE}" if turn_id else SOURCE
    return Judge(CONTENT_KIND, TERM_SEPARATOR.join(terms), 1.0, where)
