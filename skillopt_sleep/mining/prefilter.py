"""A regular expression that first looks for the text every match of it contains.

The grammar's widest patterns (what negates, a number with its unit) open with ``\\b`` and
an alternation of dozens of words: ``re`` tries each at every position, some 30 µs a
request, and most requests hold none of the words. Every match contains one of a set of
literal strings read off the pattern (``needed``); a text that holds none of them, in any
case, cannot match, and is not searched. Results are the pattern's own: only ASCII texts
are prefiltered (there ``re``'s case-insensitive match is ``str.lower``'s; outside it "ſ"
matches "s"), and a pattern from which no such set can be read is always searched.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from re import _constants as c  # type: ignore[attr-defined]
from re import _parser  # type: ignore[attr-defined]
from typing import Any

_REPEATS = {c.MAX_REPEAT, c.MIN_REPEAT, c.POSSESSIVE_REPEAT}


def needed(pattern: str, flags: int = 0) -> frozenset[str] | None:
    """Lowercase strings one of which every match of ``pattern`` contains, or None when
    none can be read (or one is not ASCII)."""
    found = _needed(_parser.parse(pattern, flags))
    if not found or not all(s.isascii() for s in found):
        return None
    low = {s.lower() for s in found}
    # one that holds another adds nothing: where "none" is, "no" is
    return frozenset(s for s in low if not any(t != s and t in s for t in low))


def _needed(seq: Any) -> set[str] | None:
    """One set of strings a match of the sequence ``seq`` contains one of: a run of
    literal characters (a match holds it whole), or what a group, an alternation (one of
    each branch's) or a repeat of at least once needs; the longest-shortest of them."""
    best: set[str] | None = None
    run: list[str] = []

    def consider(found: set[str] | None) -> None:
        nonlocal best
        if found and (best is None or _worth(found) > _worth(best)):
            best = found

    for op, av in seq:
        if op is c.LITERAL:
            run.append(chr(av))
            continue
        consider({"".join(run)} if run else None)
        run = []
        if op is c.SUBPATTERN:
            consider(_needed(av[3]))
        elif op is c.ATOMIC_GROUP:
            consider(_needed(av))
        elif op is c.BRANCH:
            branches = [_needed(b) for b in av[1]]
            if all(branches):
                consider(set().union(*(b for b in branches if b)))
        elif op in _REPEATS and av[0] >= 1:
            consider(_needed(av[2]))
        # anything else (anchors, classes, lookarounds, references) needs no literal
    consider({"".join(run)} if run else None)
    return best


def _worth(found: set[str]) -> tuple[int, int]:
    return min(len(s) for s in found), -len(found)


_last: list[tuple[str, str | None]] = [("", "")]


def _lowered(text: str) -> str | None:
    """``text.lower()`` when ``text`` is ASCII, else None; the last text's is kept, as the
    grammar puts one text through many patterns in a row."""
    seen, low = _last[0]
    if text is not seen:
        low = text.lower() if text.isascii() else None
        _last[0] = (text, low)
    return low


class Prefiltered:
    """``re.compile(pattern, flags)`` for ``search``, ``match``, ``finditer`` and ``sub``,
    with a text that cannot match answered without searching it."""

    def __init__(self, pattern: str, flags: int = 0) -> None:
        self.rx = re.compile(pattern, flags)
        self.pattern = self.rx.pattern
        self.flags = self.rx.flags
        needs = needed(pattern, flags)
        self.needs = None if needs is None else re.compile("|".join(map(re.escape, sorted(needs))))

    def cannot_match(self, text: str) -> bool:
        """The text is ASCII and holds none of the strings every match contains."""
        if self.needs is None:
            return False
        low = _lowered(text)
        return low is not None and self.needs.search(low) is None

    def search(self, text: str) -> re.Match[str] | None:
        return None if self.cannot_match(text) else self.rx.search(text)

    def match(self, text: str) -> re.Match[str] | None:
        return None if self.cannot_match(text) else self.rx.match(text)

    def finditer(self, text: str) -> Iterator[re.Match[str]]:
        return iter(()) if self.cannot_match(text) else self.rx.finditer(text)

    def sub(self, repl: str | Callable[[re.Match[str]], str], text: str, count: int = 0) -> str:
        return text if self.cannot_match(text) else self.rx.sub(repl, text, count)
