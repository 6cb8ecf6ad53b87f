"""A forbidden word narrowed to the use the user objected to: a name the corrected answer
calls is forbidden as a call (a comment or a message that says the word still passes), a
command written with its flag is forbidden with that flag (its gentler forms still pass), and
an example version keeps its letter as the shape to follow."""

from __future__ import annotations

import pytest

from skillopt_sleep.mining.contrast import compile_pair, separates
from skillopt_sleep.mining.narrow import narrowed
from skillopt_sleep.mining.phrases import Check
from skillopt_sleep.mining.shapes import is_identifier
from trainer.checks import passes


def verified(said: str, corrected: str, accepted: str) -> list[Check]:
    return [c for c in compile_pair(said, corrected, accepted) if separates(c, corrected, accepted)]


def all_pass(checks: list[Check], answer: str) -> bool:
    return all(passes(c.kind, c.value, c.scope, answer) for c in checks)


@pytest.mark.parametrize(
    ("said", "corrected", "accepted", "follows", "breaks"),
    [
        # a method call: "then" in a comment is English, not the call
        (
            "quit chaining .done() on these, await them",
            "```js\nload().done(render)\n```",
            "```js\nrender(await load())\n```",
            "```js\n// when it is done, render\nrender(await load())\n```",
            "```js\nfetchAll().done(show)\n```",
        ),
        # a builtin call: a log line that says the word is not a call
        (
            "please avoid abort() here, hand the status back",
            "```c\nif (rc < 0) abort();\n```",
            "```c\nif (rc < 0) return rc;\n```",
            '```c\nlog("refusing to abort on a bad frame");\nreturn rc;\n```',
            "```c\nif (!buf) abort();\n```",
        ),
        # a command with its flag: the command's gentler form is fine
        (
            "never kill -9 the workers, it skips their cleanup",
            "```sh\nkill -9 $(cat worker.pid)\n```",
            "```sh\nsystemctl stop worker\n```",
            "```sh\nkill -TERM $(cat worker.pid)\n```",
            "```sh\nkill -9 1234\n```",
        ),
    ],
)
def test_forbidden_use_is_narrowed(
    said: str, corrected: str, accepted: str, follows: str, breaks: str
) -> None:
    checks = verified(said, corrected, accepted)
    assert checks
    assert all_pass(checks, follows), checks
    assert not all_pass(checks, breaks), checks


def test_narrowing_keeps_the_broad_check_when_the_narrow_one_does_not_separate() -> None:
    # the corrected answer names the word without calling it: nothing to narrow to
    broad = Check("not_contains", "eval", "answer")
    corrected = "We could eval the expression at runtime."
    accepted = "We parse the expression with the AST module."
    assert narrowed([broad], "no eval", corrected, accepted) == [broad]


def test_a_method_the_user_wrote_with_its_dot_is_read_as_the_method() -> None:
    broad = Check("not_contains", "done", "code")
    corrected = "```js\ndone(x).done(y)\n```"
    accepted = "```js\ndone(await y)\n```"
    (check,) = narrowed([broad], "no .done() chains", corrected, accepted)
    assert check.kind == "not_regex"
    assert passes(check.kind, check.value, check.scope, accepted)


@pytest.mark.parametrize(
    ("example", "expected"),
    [("v2.0.3", True), ("r10.4", True), ("2.0.3", True), ("v2", True), ("version", False)],
)
def test_a_version_with_its_letter_is_an_identifier(example: str, expected: bool) -> None:
    assert is_identifier(example) is expected


def test_an_example_version_asks_for_its_shape_not_the_literal() -> None:
    said = "our tags carry a lowercase r, e.g. r4.1.0, please follow it"
    corrected = "Tagged 4.1.0 and pushed it."
    accepted = "Tagged r4.1.0 and pushed it."
    checks = verified(said, corrected, accepted)
    assert checks
    assert all_pass(checks, "Tagged r5.0.2 after the freeze.")
    assert not all_pass(checks, "Tagged 5.0.2 after the freeze.")
