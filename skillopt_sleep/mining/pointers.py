"""How users point at what they mean without writing it: a time after a name given up ("we
moved off Poetry last quarter"), a ticket key's prefix for every key ("the PAY- ids"), a kind
of reference ("the PR number"), a remedy named before "instead", a package imported under a
name that looks plural ("axios"). ``literals`` reads the words with these."""

from __future__ import annotations

import re

# When something was given up, after its name: "we moved off Poetry last quarter".
WHEN = re.compile(
    r"\s+(?:last|this|earlier this|in|since|back in)\s+(?:week|month|quarter|year|sprint|"
    r"release|spring|summer|autumn|fall|winter|january|february|march|april|may|june|july|"
    r"august|september|october|november|december|\d{4})\b.*$|"
    r"\s+(?:yesterday|recently|a while ago)\b.*$",
    re.IGNORECASE,
)
# A ticket key's prefix named for every key: "the PAY- ids", "the INC number".
KEY_PREFIX = re.compile(
    r"(?<![\w-])([A-Z][A-Z0-9]+)(?:-\s|-$|\s+(?:ticket\s+)?(?:numbers?|ids?|refs?)\b)"
)
# A kind of reference named, not written: "the PR number", "an issue link".
KIND_OF_REF = re.compile(
    r"\b(?:PR|pull request|issue|ticket)\s+(?:numbers?|refs?|references?|links?|ids?)\b", re.I
)
# "--force-with-lease instead.", "use `uv add` instead": what is named is the remedy.
REMEDY_INSTEAD = re.compile(
    r"\W*(?:(?:please|pls|just)\s+)?(?:(?:use|try|go with|prefer|call|run)\s+)?(?:the\s+)?"
    r"\W*\x00\W*(?:\s+\w+){0,2}?\s+instead\W*$",
    re.IGNORECASE,
)


def names_module(word: str, corrected: str) -> bool:
    """The corrected answer imports ``word`` or calls into it (``require('axios')``,
    ``import requests``, ``axios.get(``): a name, whatever its last letter."""
    w = re.escape(word)
    return (
        re.search(rf"['\"]{w}['\"]|\b(?:import|from)\s+{w}\b|(?<![\w.]){w}\.\w+\(", corrected)
        is not None
    )
