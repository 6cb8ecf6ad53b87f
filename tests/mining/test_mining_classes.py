"""A correction that names a kind of text (smart quotes, file names, spelled-out numbers)
or forbids one instance of it ("no 'we'") becomes a check on the whole kind, read where the
pair shows it: the corrected answer fails it, the accepted one passes."""

from __future__ import annotations

import pytest

from skillopt_sleep.mining.contrast import compile_pair, separates

ENV_BAD = "```env\nGREETING=\u201chello\u201d\nMODE=\u2018fast\u2019\n```"
ENV_GOOD = "```env\nGREETING=\"hello\"\nMODE='fast'\n```"


def kept(said: str, corrected: str, accepted: str) -> set[tuple[str, str, str]]:
    return {
        (c.kind, c.value, c.scope)
        for c in compile_pair(said, corrected, accepted)
        if separates(c, corrected, accepted)
    }


@pytest.mark.parametrize(
    ("said", "corrected", "accepted", "expected"),
    [
        (
            "those typographic quotes will break dotenv, keep it ascii",
            ENV_BAD,
            ENV_GOOD,
            ("no", "curly_quote", "answer"),
        ),
        (
            "don't name the file paths in the title, say what it does",
            "Touch src/billing/invoice.py and api.ts\n\nRounds totals half-up.",
            "Round invoice totals half-up\n\nEdits src/billing/invoice.py.",
            ("no", "file_name", "first_line"),
        ),
        (
            "numerals please, it's a checklist",
            "Restart three workers, then wait ten minutes.",
            "Restart 3 workers, then wait 10 minutes.",
            ("no", "number_word", "prose"),
        ),
        (
            "the status page mangles raw links, give them proper link text",
            "Details: https://status.test/incidents/41",
            "Details: [incident 41](https://status.test/incidents/41)",
            ("no", "bare_url", "prose"),
        ),
        (
            "hard to read, group the digits with thousands separators",
            "We processed 1048576 events from 37211 devices.",
            "We processed 1,048,576 events from 37,211 devices.",
            ("no", "long_number", "prose"),
        ),
        (
            "prefer the spelled-out long options in shell scripts",
            "```bash\ncurl -sS -o out.json https://api.test\n```",
            "```bash\ncurl --silent --show-error --output out.json https://api.test\n```",
            ("no", "short_flag", "code"),
        ),
        # one instance forbidden stands for its class: "our" is the first person too
        (
            "please no 'our' in release notes",
            "Our importer now skips blank rows; we also log them.",
            "The importer now skips blank rows and logs them.",
            ("no", "first_person_any", "prose"),
        ),
    ],
)
def test_a_named_kind_of_text_becomes_a_check_on_the_kind(
    said: str, corrected: str, accepted: str, expected: tuple[str, str, str]
) -> None:
    assert expected in kept(said, corrected, accepted)


def test_a_forbidden_instance_becomes_its_class_not_the_word() -> None:
    got = kept("lose the 'we' please", "We cache the token now.", "The token is now cached.")
    assert got == {("no", "first_person_any", "prose")}


def test_forbidding_i_keeps_the_team_voice() -> None:
    # "I" stands for itself: a user who forbids it may want "we"
    got = kept("no 'I' in team updates", "I moved the cron job.", "We moved the cron job.")
    assert ("no", "first_person_any", "prose") not in got
    assert got


def test_a_kind_asked_for_is_no_rule_against_it() -> None:
    got = kept(
        "use file paths so I can click them",
        "Changed the parser and the tests.",
        "Changed src/parse.py and tests/test_parse.py.",
    )
    assert not any(v == "file_name" for _, v, _ in got)


def test_a_forbidden_instance_frees_its_numbers() -> None:
    # "5s" stands for every duration written that way, read in prose where it was
    said = 'not "5s", spell the unit out: "5 seconds"'
    got = compile_pair(
        said,
        "The job waits 5s between polls.\n\n```bash\nsleep 5\n```",
        "The job waits 5 seconds between polls.\n\n```bash\nsleep 5\n```",
    )
    shape = [c for c in got if c.kind == "not_regex"]
    assert shape and shape[0].scope == "prose"
    check = shape[0]
    from trainer.checks import passes

    assert not passes(check.kind, check.value, check.scope, "Retries after 30s.")
    assert passes(check.kind, check.value, check.scope, "Retries after 30 seconds, v1.5s ok")
    assert passes(check.kind, check.value, check.scope, "```\nsleep 30s\n```")


def test_a_bare_number_is_not_every_number() -> None:
    said = '"250000" -> "250,000" please'
    got = compile_pair(said, "Imported 250000 rows.", "Imported 250,000 rows.")
    assert not any(c.kind == "not_regex" and "\\d+" in c.value for c in got)


def test_a_feature_the_words_touch_loosely_is_read_from_the_pair_when_nothing_else_is() -> None:
    said = "the wiki makes its own page title, so begin the sections at ## please"
    corrected = "# Rollback guide\n\n## Before you start\nCheck the tag."
    accepted = "## Before you start\nCheck the tag."
    assert ("no", "top_heading", "prose") in kept(said, corrected, accepted)


def test_the_users_own_pronouns_ground_no_first_person_rule() -> None:
    said = "I told you this yesterday, my build still breaks"
    got = kept(said, "I think the build is fixed now.", "The build passes: 212 tests, 0 failures.")
    assert not any(v.startswith("first_person") for _, v, _ in got)
