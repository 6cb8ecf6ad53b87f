"""Classes of text as features of the check vocabulary: each is found where it is and
missed on its look-alikes (a port is no unseparated number, "someone" holds no number word,
``S3`` no glued unit, ``Node.js`` no file name, a URL inside [text](url) no bare URL)."""

from __future__ import annotations

import pytest

from trainer.checks import passes
from trainer.features import FEATURES


@pytest.mark.parametrize(
    ("feature", "scope", "clean", "dirty"),
    [
        ("curly_quote", "answer", 'NAME="kestrel"\nIt\'s set.', "NAME=\u201ckestrel\u201d"),
        ("curly_quote", "answer", "plain 'single' marks", "it\u2019s done"),
        (
            "ellipsis",
            "prose",
            "Diff with `a...b`:\n```\ngit log a...b\n```\nLoading.",
            "Loading...",
        ),
        ("ellipsis", "prose", "Two dots in a..b are a range.", "Wait\u2026 done."),
        (
            "horizontal_rule",
            "prose",
            "Intro\n```yaml\n---\nkey: 1\n```",
            "Part one\n\n* * *\n\nTwo",
        ),
        ("horizontal_rule", "prose", "a -- b, and x - y - z", "Intro\n___\nRest"),
        ("blockquote", "prose", "score -> 0.9 and x > 1", "As the RFC says:\n> be liberal"),
        (
            "bare_url",
            "prose",
            "See [the runbook](https://wiki.test/run).",
            "See https://wiki.test/run",
        ),
        ("bare_url", "prose", "Run `curl https://api.test/x`.", "Docs: <https://docs.test>"),
        ("number_word", "prose", "someone saw none of the 3 jobs once", "it retries five times"),
        ("number_word", "prose", "one of them", "Twenty minutes later"),
        ("long_number", "prose", "port 8080 in 2026, 18,342 rows, build a1b2c3d4e5", "18342 rows"),
        ("long_number", "prose", "version 1.23456 and ID #123456", "took 250000 ms"),
        ("glued_unit", "prose", "p95 is 140 ms on S3, 5xx and 2FA", "p95 is 140ms"),
        ("glued_unit", "prose", "uses 20 MB", "uses 20MB and 1.5s"),
        ("currency_symbol", "prose", "costs USD 12\n```awk\n{ print $3 }\n```", "costs $12"),
        ("currency_symbol", "prose", "the HOME variable is $HOME", "\u20ac 5 a month"),
        ("short_flag", "code", "```sh\nrsync --archive a b\n```", "```sh\nrsync -az a b\n```"),
        (
            "short_flag",
            "code",
            "```sh\ntar --create --file x.tar dir-2026-12-07\n```",
            "```sh\nmkdir -p out\n```",
        ),
        (
            "file_name",
            "first_line",
            "Support Node.js 22 in the CLI\n\nEdits cli/main.py.",
            "Bump limits in values.yaml",
        ),
        ("file_name", "first_line", "Use e.g. smaller pages", "Fix Dockerfile cache"),
        # flattery: praise of the reader, not a word of it ("catch block", "right to worry")
        (
            "flattery",
            "prose",
            "The catch block rethrows. You're right to worry about retries.",
            "Excellent catch! The catch block rethrows.",
        ),
        ("flattery", "prose", "Yes: the lock is per tenant.", "You're absolutely right, it is."),
        # a sub-bullet is an item indented under another; YAML's "  - x" in code is none
        (
            "nested_list",
            "prose",
            "- a\n- b\n```yaml\nports:\n  - 80\n```",
            "- a\n  - a1\n- b",
        ),
        # a recap opens a sentence; "overall cost" or "a short summary" is none
        (
            "recap",
            "prose",
            "Overall cost is lower. A short summary goes first.",
            "Both work. To summarize: reserved is cheaper.",
        ),
        # a name at a sentence's end, or with dots inside, is a file name too
        ("file_name", "prose", "It runs on Node.js 22. Done.", "It is in app/routes.ts."),
        ("file_name", "prose", "Edit `app.config.json` first.", "It reads app.config.json."),
        (
            "first_person_any",
            "prose",
            "IO errors in the Imports page; the US region",
            "We fixed it",
        ),
        ("first_person_any", "prose", "The flag was not checked.", "I added a check"),
    ],
)
def test_each_class_is_found_and_its_look_alikes_are_not(
    feature: str, scope: str, clean: str, dirty: str
) -> None:
    assert feature in FEATURES
    assert passes("no", feature, scope, clean)
    assert not passes("no", feature, scope, dirty)


def test_first_person_alone_stays_singular() -> None:
    # "we, not I" is a team's voice: the first person singular does not forbid "we"
    assert passes("no", "first_person", "answer", "We moved the cron job.")
    assert not passes("no", "first_person_any", "answer", "We moved the cron job.")


def test_a_word_ending_in_an_underscore_is_a_prefix() -> None:
    assert passes("contains", "ACME_", "code", "```\nport = env['ACME_PORT']\n```")
    assert not passes("contains", "ACME_", "code", "```\nport = env['PORT']\n```")
    assert passes("not_contains", "tmp_", "answer", "write to a temp file")


def test_a_half_of_a_slashed_or_hyphened_name_is_no_pronoun() -> None:
    region = "Deploys to us-east-1 and handles bursty I/O."
    assert passes("no", "first_person_any", "answer", region)
    assert not passes("no", "first_person_any", "answer", "Deploys to us-east-1; I checked.")
    assert not passes("no", "first_person_any", "answer", "It gives us headroom.")
