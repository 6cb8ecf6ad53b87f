"""The two spellings of English as features of the check vocabulary: "US spelling" forbids
every British spelling and "British spelling" every American one, and neither is found in
the words both share ("promise", "exercise", "size", "analyses")."""

from __future__ import annotations

import pytest

from trainer.checks import passes
from trainer.spelling import american, british


@pytest.mark.parametrize(
    "word",
    ["colour", "behaviour", "organise", "normalised", "summarise", "polarise", "optimiser",
     "prioritisation", "initialising", "analyse", "catalogue", "cancelled", "centre", "grey"],
)  # fmt: skip
def test_british_spellings_are_found(word: str) -> None:
    assert british(word)
    assert not american(word)


@pytest.mark.parametrize(
    "word",
    ["promise", "exercises", "otherwise", "likewise", "sunrise", "arise", "enterprise",
     "advertising", "advise", "supervisor", "crises", "analyses", "noise", "raised",
     "praised", "precise", "surprised", "compromise", "revised", "disguise", "paradise",
     "Denise", "size", "wise"],
)  # fmt: skip
def test_words_both_spellings_share_are_neither(word: str) -> None:
    assert not british(word)
    assert not american(word)


@pytest.mark.parametrize("word", ["color", "behavior", "organize", "optimizer", "analyze"])
def test_american_spellings_are_found(word: str) -> None:
    assert american(word)
    assert not british(word)


def test_a_spelling_feature_reads_the_whole_text() -> None:
    us = "We normalized the behavior of the exporter; otherwise the promise holds."
    uk = "We normalised the behaviour of the exporter; otherwise the promise holds."
    assert passes("no", "british_spelling", "prose", us)
    assert not passes("no", "british_spelling", "prose", uk)
    assert passes("no", "american_spelling", "prose", uk)
    assert not passes("no", "american_spelling", "prose", us)
