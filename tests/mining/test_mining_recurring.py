"""is_recurring: how many sessions, days and different texts make a task the user repeats."""

from __future__ import annotations

from skillopt_sleep.mining.pipeline import is_recurring


def _recurring(asks: list[tuple[str, str, str]]) -> bool:
    texts, sessions, days = (list(x) for x in zip(*asks, strict=True))
    return is_recurring(texts, sessions, days, min_sessions=3, min_days=2)


def test_three_different_texts_in_three_sessions() -> None:
    assert _recurring([("fix lint", "a", "1"), ("fix the lint", "b", "1"), ("lint fix", "c", "2")])


def test_one_text_in_three_sessions() -> None:
    assert _recurring([("run tests", "a", "1"), ("run tests", "b", "2"), ("run tests", "c", "2")])


def test_two_texts_joined_once_are_not_enough() -> None:
    asks = [("announce seat picker", "a", "1"), ("announce seat picker", "b", "2"),
            ("announce font picker", "c", "3")]  # fmt: skip
    assert not _recurring(asks)


def test_a_text_said_again_with_more_words_counts_as_asked_again() -> None:
    asks = [("show tools", "a", "1"), ("show tools", "b", "2"),
            ("show tools and store response in file", "c", "3")]  # fmt: skip
    assert _recurring(asks)
    assert not _recurring(asks[:2] + [("list tools", "c", "3")])  # a neighbour, not a repeat


def test_sessions_and_days_still_bound_it() -> None:
    assert not _recurring([("run tests", "a", "1"), ("run tests", "b", "1"), ("x", "b", "2")])
    assert not _recurring(
        [("run tests", "a", "1"), ("run tests", "b", "1"), ("run tests", "c", "1")]
    )
