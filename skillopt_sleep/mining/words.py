"""The words of a request as mining reads them: content words (stop words and politeness
dropped, crude stems, placeholders for pasted blobs kept as slots), and typos folded into the
frequent word they are one edit from ("chnages" -> "changes").
"""

from __future__ import annotations

import functools
from collections import Counter

from sklearn.feature_extraction.text import ENGLISH_STOP_WORDS

# Politeness and glue words carry no task.
STOP_WORDS = frozenset(ENGLISH_STOP_WORDS) | {"please", "pls", "thanks", "thank", "ok", "okay"}

# What ``intents.normalize`` puts for a path, number, identifier …: "some file" says
# nothing about the task, and without IDF to weigh it down it made "add type hints to
# <file>" meet "add docstrings to <file>".
SLOTS = frozenset({"zblob", "zurl", "zhash", "zpath", "zcode", "zident", "znum"})

# No "ure": it made "texture" meet "text".
_SUFFIXES = ("ations", "ation", "ings", "ing", "ies", "ied", "ed", "es", "s")


@functools.lru_cache(maxsize=200_000)
def stem(word: str) -> str:
    """A light stem so "failing", "failure" and "failed" meet, and British spellings meet
    American ones ("summarise"); deliberately crude: a wrong merge of two rare words
    costs less than a paraphrase that never meets its kind."""
    if len(word) <= 4 or not word.isalpha():
        return word
    if word.endswith(("ise", "ised", "ises", "ising")):
        word = word.replace("is", "iz", 1) if word.count("is") == 1 else word
    for suffix in _SUFFIXES:
        if word.endswith(suffix) and len(word) - len(suffix) >= 4:
            word = word[: -len(suffix)]
            break
    if word.endswith("e") and len(word) > 5:
        word = word[:-1]
    return word


def content_words(norm: str) -> list[str]:
    """Stemmed words of a normalized intent without glue words."""
    return [w for w in norm.split() if w not in STOP_WORDS and w not in SLOTS]


def _one_edit(a: str, b: str) -> bool:
    """Damerau distance exactly one (delete, insert, substitute or swap)."""
    if a == b or abs(len(a) - len(b)) > 1:
        return False
    if len(a) > len(b):
        a, b = b, a
    i = 0
    while i < len(a) and a[i] == b[i]:
        i += 1
    if len(a) < len(b):
        return a[i:] == b[i + 1 :]
    if a[i + 1 :] == b[i + 1 :]:
        return True
    return i + 1 < len(a) and a[i] == b[i + 1] and a[i + 1] == b[i] and a[i + 2 :] == b[i + 2 :]


def typo_map(df: Counter[str], min_len: int = 5, ratio: int = 3) -> dict[str, str]:
    """Word -> the word one edit away that is at least ``ratio`` times as common (ten times
    for a word seen more than twice, which is less likely to be a slip)."""
    frequent = {w: n for w, n in df.items() if n >= ratio and len(w) >= min_len - 1}
    deletes: dict[str, list[str]] = {}
    for w in frequent:
        for i in range(len(w)):
            deletes.setdefault(w[:i] + w[i + 1 :], []).append(w)
    out: dict[str, str] = {}
    for w, n in df.items():
        if len(w) < min_len or not w.isalpha():
            continue
        need = ratio * n if n <= 2 else 10 * n
        cands = set(deletes.get(w, ()))  # w lost a letter
        for i in range(len(w)):
            d = w[:i] + w[i + 1 :]
            if d in frequent:  # w gained a letter
                cands.add(d)
            cands.update(deletes.get(d, ()))  # substitution or swap
        best = max(
            (c for c in cands if frequent[c] >= need and _one_edit(w, c)),
            key=lambda c: (frequent[c], c),
            default=None,
        )
        if best is not None:
            out[w] = best
    return out
