"""SIMULATION — what the world and its simulated roles share: content words and seeding."""

from __future__ import annotations

import hashlib
import random
import re

from trainer.backends.base import Message
from trainer.calls import current_call_key
from trainer.skill import tokens

LABEL = "SIMULATION"
_STOPWORDS = """a an the to of and or for in on at is are be it this that with when you your
before after always make sure any all do not every by as from into its"""
STOP = frozenset(re.findall(r"\w+", _STOPWORDS))


def content(text: str) -> frozenset[str]:
    """The content words of a text (stop words dropped): what 'teaching a rule' compares."""
    return frozenset(t for t in tokens(text) if t not in STOP)


def seeded_rng(world_seed: int, role: str, messages: list[Message]) -> random.Random:
    """Randomness for one call: from the call's cache key when the trainer set one."""
    key = current_call_key() or hashlib.sha256(repr(messages).encode()).hexdigest()
    return random.Random(f"{LABEL}:{world_seed}:{role}:{key}")
