"""Generated request corpora with planted recurring task kinds, for the mining benchmark
and tests. Two generators with nothing in common but the record shape:

* ``tuning`` — the corpus mining's parameters were chosen on.
* ``heldout`` — different templates, object names, filler and kind sizes, never used to
  choose anything; the figures that count are measured on it.

Nothing here is real user data, and none of it ships in the ``skillopt_sleep`` package.
"""

from __future__ import annotations

import random
from dataclasses import dataclass


@dataclass(frozen=True)
class Request:
    text: str
    kind: str | None  # planted kind, None for a one-off
    session_id: str
    day: int


def typo(text: str, rng: random.Random, rate: float) -> str:
    """Drop, double or swap a letter in some words, as hurried typing does."""
    words = text.split(" ")
    for i, w in enumerate(words):
        if len(w) > 3 and w.isalpha() and rng.random() < rate:
            j = rng.randrange(1, len(w) - 1)
            op = rng.randrange(3)
            if op == 0:
                w = w[:j] + w[j + 1 :]
            elif op == 1:
                w = w[:j] + w[j] + w[j:]
            else:
                w = w[: j - 1] + w[j] + w[j - 1] + w[j + 1 :]
            words[i] = w
    return " ".join(words)
