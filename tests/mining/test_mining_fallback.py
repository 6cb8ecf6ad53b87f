"""The pair read for what the user wrote, when nothing the words compile holds on the session:
a symbol, code token, quoted span or name the user wrote that the correction removed is
forbidden; nothing is ever required this way, and plain or shouted words are no names."""

from __future__ import annotations

import pytest

from skillopt_sleep.mining.contrast import compile_pair, separates
from skillopt_sleep.mining.fallback import pair_fallback
from tests.judge_helpers import holds


def test_an_operator_the_correction_removed_is_forbidden_as_that_operator() -> None:
    corrected = "```php\nif ($a <> $b) { return; }\n```"
    accepted = "```php\nif ($a !== $b) { return; }\n```"
    checks = pair_fallback("<> is legacy syntax for us", corrected, accepted)
    assert checks and all(separates(c, corrected, accepted) for c in checks)
    assert holds(checks, "```php\nif ($x !== $y && $y >= 2) {}\n```")  # other operators
    assert not holds(checks, "```php\nwhile ($x <> 0) {}\n```")


def test_a_name_the_correction_removed_is_forbidden_even_when_shouted() -> None:
    corrected = "Kestrel ships next week to all tenants."
    accepted = "The new scheduler ships next week to all tenants."
    checks = pair_fallback("the public must not hear about KESTREL", corrected, accepted)
    assert [(c.kind, c.value) for c in checks] == [("not_contains", "Kestrel")]


def test_shouted_words_and_plain_words_are_no_names() -> None:
    corrected = "This is the plan, and it is final."
    accepted = "The plan is final."
    assert pair_fallback("the plan IS NOT final. this", corrected, accepted) == []


def test_what_the_accepted_answer_added_is_never_required() -> None:
    corrected = "Hi there, your refund is on its way."
    accepted = "Hi Mireille, your refund is on its way."
    assert pair_fallback("greet her as Mireille", corrected, accepted) == []


def test_mining_reads_the_pair_when_the_words_compile_nothing() -> None:
    corrected = "```php\nif ($a <> $b) { return; }\n```"
    accepted = "```php\nif ($a !== $b) { return; }\n```"
    checks = compile_pair("<> is legacy syntax for us", corrected, accepted)
    assert any(separates(c, corrected, accepted) for c in checks)
    assert holds(checks, "```php\nif ($x != $y) {}\n```")


def test_a_code_token_only_in_code_is_forbidden_in_code() -> None:
    corrected = 'Use `%v` sparingly.\n\n```go\nreturn fmt.Errorf("read: %v", err)\n```'
    accepted = 'Use `%v` sparingly.\n\n```go\nreturn fmt.Errorf("read: %w", err)\n```'
    checks = compile_pair("%v loses the chain, swap it", corrected, accepted)
    kept = [c for c in checks if separates(c, corrected, accepted)]
    assert kept and all(c.scope == "code" for c in kept)


@pytest.mark.parametrize(
    ("said", "corrected", "accepted", "allowed"),
    [
        # a name said to be fine, a sentence apart from the rule
        (
            "no sudo here. The Makefile target is fine",
            "```sh\nsudo make install\n```\nSee the Makefile.",
            "```sh\nmake install\n```",
            "Run `make install` from the Makefile.",
        ),
        # a shape said to be fine
        (
            "no sudo here. && is fine",
            "```sh\ncd src && sudo make install\n```",
            "```sh\ncd src\nmake install\n```",
            "```sh\ncd src && make install\n```",
        ),
        # a symbol said to be fine, read from the pair only
        (
            "<> is fine, it was the @@ that broke the parser",
            "```sql\nselect @@version where a <> b\n```",
            "```sql\nselect version() where a != b\n```",
            "```sql\nselect 1 where a <> b\n```",
        ),
    ],
)
def test_what_the_user_calls_fine_is_never_forbidden(
    said: str, corrected: str, accepted: str, allowed: str
) -> None:
    compiled = compile_pair(said, corrected, accepted)
    checks = [c for c in compiled if separates(c, corrected, accepted)]
    assert checks
    assert holds(checks, allowed), checks


def test_a_capitalised_word_of_a_quoted_phrase_is_the_phrase_not_a_name() -> None:
    """The phrase the user quoted is forbidden, not each capitalised word of it: "Happy
    Friday team!" must not make every answer with "Friday" in it fail."""
    corrected = "Happy Friday team! The deploy went out at 16:00 and the queue drained."
    accepted = "The deploy went out at 16:00 and the queue drained."
    checks = pair_fallback('drop the "Happy Friday team!" opener, it is noise', corrected, accepted)
    assert checks and all(separates(c, corrected, accepted) for c in checks)
    assert holds(checks, "The Friday deploy is moved to Monday.")
    assert not holds(checks, "Happy Friday team! Nothing shipped today.")
