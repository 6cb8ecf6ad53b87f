"""Word checks read wider than the user meant are dropped, counts read where the request
says they are measured: a convention's construct is the narrower reading of a word the user
named, a template's words ("JOIN ... ON") and a place ("in the WHERE clause") are no words
to check, a count in a question about the answer describes it, and a commit message's limit
in characters is on its subject; a short flag asked for is found in a bundle; and the
conventions added with them (%w, non-root, camelCase keys) rule out only their construct.
Each case keeps an answer that obeys the user passing."""

from __future__ import annotations

from pathlib import Path

import pytest

from skillopt_sleep.mining.compiler import Compiler
from skillopt_sleep.mining.grammar import Check, compile_text
from skillopt_sleep.store import open_store
from tests.judge_helpers import holds
from trainer.checks import passes


def compiled(tmp_path: Path, said: str, corrected: str, accepted: str, request: str) -> list[Check]:
    """What mining keeps without a model: compiled, then verified on the pair."""
    rules = Compiler(open_store(tmp_path / "state"), None)
    return [
        c
        for c in rules.compile(said, corrected, request, accepted)
        if not passes(c.kind, c.value, c.scope, corrected)
        and passes(c.kind, c.value, c.scope, accepted)
    ]


def fenced(code: str, lang: str) -> str:
    return f"```{lang}\n{code}\n```"


@pytest.mark.parametrize(
    ("said", "corrected", "accepted", "obeys", "violates"),
    [
        (
            "plain pytest functions please, not unittest",
            fenced("import unittest\n\nclass TestSum(unittest.TestCase):\n"
                   "    def test_two(self):\n        self.assertEqual(add(1, 1), 2)", "python"),
            fenced("def test_two():\n    assert add(1, 1) == 2", "python"),
            fenced("from unittest.mock import Mock\n\ndef test_call():\n    m = Mock()\n"
                   "    m()\n    assert m.called", "python"),
            fenced("class TestSum(unittest.TestCase):\n    pass", "python"),
        ),
        (
            "wrap it with %w, never %v",
            fenced('if err != nil {\n\treturn fmt.Errorf("read manifest: %v", err)\n}', "go"),
            fenced('if err != nil {\n\treturn fmt.Errorf("read manifest: %w", err)\n}', "go"),
            fenced('return fmt.Errorf("bad shard %v: %w", shard, err)', "go"),
            fenced('return fmt.Errorf("write index: %v", err)', "go"),
        ),
        (
            "the container must not run as root",
            fenced("FROM debian:12-slim\nCOPY svc /svc\nUSER root\nCMD [\"/svc\"]", "dockerfile"),
            fenced("FROM debian:12-slim\nCOPY svc /svc\nUSER svc\nCMD [\"/svc\"]", "dockerfile"),
            fenced("FROM debian:12-slim\nUSER root\nRUN apt-get install -y tini\nUSER 1000",
                   "dockerfile"),
            fenced("FROM debian:12-slim\nUSER svc\nRUN true\nUSER root", "dockerfile"),
        ),
        (  # the words whose case changed lie in the error strings the convention reads
            "error strings in go are lowercase",
            fenced('if len(b) == 0 {\n\treturn errors.New("Payload is empty")\n}', "go"),
            fenced('if len(b) == 0 {\n\treturn errors.New("payload is empty")\n}', "go"),
            fenced('log.Print("Payload received")\nreturn errors.New("payload is empty")', "go"),
            fenced('return errors.New("Quota exceeded")', "go"),
        ),
    ],
)  # fmt: skip
def test_a_convention_replaces_the_word_it_reads_more_narrowly(
    tmp_path: Path, said: str, corrected: str, accepted: str, obeys: str, violates: str
) -> None:
    checks = compiled(tmp_path, said, corrected, accepted, "write the code")
    assert checks and holds(checks, accepted) and not holds(checks, corrected)
    assert holds(checks, obeys)
    assert not holds(checks, violates)


@pytest.mark.parametrize(
    "said",
    [
        "I want JOIN ... ON here",
        "could you put the join condition into a JOIN ... ON instead of in the WHERE clause?",
    ],
)
def test_a_templates_words_and_a_place_are_no_words_to_check(tmp_path: Path, said: str) -> None:
    corrected = fenced("SELECT p.sku, s.qty FROM products p, stock s WHERE s.sku = p.sku;", "sql")
    accepted = fenced("SELECT p.sku, s.qty FROM products p JOIN stock s ON s.sku = p.sku;", "sql")
    checks = compiled(tmp_path, said, corrected, accepted, "query for stock per product")
    assert checks and holds(checks, accepted) and not holds(checks, corrected)
    assert holds(checks, fenced("SELECT sku FROM products WHERE active;", "sql"))
    assert not holds(checks, fenced("SELECT a.x FROM a, b WHERE a.id = b.id;", "sql"))


def test_a_count_in_a_question_about_the_answer_describes_it() -> None:
    # the table the question asks about is the complaint; the count says what the answer is
    assert compile_text("why is there a table in a 3-line answer? plain text") == [
        Check("no", "table", "prose")
    ]
    assert compile_text("why is this a 6-line summary? 3 lines max") == [
        Check("max_lines", "3", "answer")
    ]
    assert compile_text("why isn't this a 2-line summary?") == [Check("max_lines", "2", "answer")]


def test_a_commit_messages_limit_in_characters_is_on_its_subject(tmp_path: Path) -> None:
    corrected = "Retry webhook deliveries with exponential backoff and a jittered ceiling"
    accepted = "Retry webhook deliveries with backoff"
    checks = compiled(tmp_path, "too long, 50 chars tops", corrected, accepted,
                      "commit message for the webhook change")  # fmt: skip
    assert checks
    assert holds(checks, "Cap webhook retries\n\n" + "The sender retried forever; " * 4)
    assert not holds(checks, corrected)
    other = compiled(tmp_path, "too long, 50 chars tops", corrected, accepted, "a tweet about it")
    assert not holds(other, "Cap webhook retries\n\n" + "The sender retried forever; " * 4)


def test_a_short_flag_asked_for_is_found_in_a_bundle(tmp_path: Path) -> None:
    corrected = "rsync -a src/ backup.example.test:/srv/"
    accepted = "rsync -azv src/ backup.example.test:/srv/"
    checks = compiled(tmp_path, "add -z, the link is slow", corrected, accepted, "copy it over")
    assert checks and holds(checks, accepted) and not holds(checks, corrected)
    assert holds(checks, "rsync -z -a src/ host:/srv/")
    assert not holds(checks, "rsync -a --zap src/ host:/srv/")


def test_an_error_wrapped_through_its_message_loses_the_chain(tmp_path: Path) -> None:
    corrected = fenced('return fmt.Errorf("load plugin: %s", err.Error())', "go")
    accepted = fenced('return fmt.Errorf("load plugin: %w", err)', "go")
    checks = compiled(tmp_path, "use %w so errors.As works", corrected, accepted, "fix it")
    assert checks and holds(checks, accepted) and not holds(checks, corrected)
    assert holds(checks, fenced('return fmt.Errorf("bad id %v", id)', "go"))


def test_a_bare_fence_rejected_asks_for_a_language_tag(tmp_path: Path) -> None:
    corrected = "```\nretries: 3\n```"
    accepted = "```yaml\nretries: 3\n```"
    checks = compiled(tmp_path, "```yaml, no bare fences", corrected, accepted, "the config")
    assert checks and holds(checks, accepted) and not holds(checks, corrected)
    assert holds(checks, "Run:\n```bash\nmake\n```")
    assert not holds(checks, "```yaml\na: 1\n```\n```\nexport A=1\n```")


def test_a_forbidden_call_includes_its_chained_forms(tmp_path: Path) -> None:
    corrected = fenced("test('parses dates', () => {\n  expect(parse('x')).toBeNull()\n})", "js")
    accepted = fenced("it('parses dates', () => {\n  expect(parse('x')).toBeNull()\n})", "js")
    checks = compiled(tmp_path, "we write it(), never test()", corrected, accepted, "a test")
    assert checks and holds(checks, accepted) and not holds(checks, corrected)
    assert not holds(checks, fenced("test.only('parses', () => {})", "js"))
    assert holds(checks, fenced("expect(/^v/.test(tag)).toBe(true)", "js"))


def test_a_forbidden_short_flag_is_not_read_in_a_bundle(tmp_path: Path) -> None:
    corrected = fenced("#!/bin/sh\nset -e\nmake", "bash")
    accepted = fenced("#!/bin/sh\nset -eu\nmake", "bash")
    checks = compiled(tmp_path, "not just -e", corrected, accepted, "the build script")
    assert checks and holds(checks, accepted) and not holds(checks, corrected)


def test_camel_case_keys_rule_out_quoted_snake_case_keys_only(tmp_path: Path) -> None:
    corrected = fenced('return {"user_name": u.name, "is_admin": u.admin}', "python")
    accepted = fenced('return {"userName": u.name, "isAdmin": u.admin}', "python")
    checks = compiled(tmp_path, "camelCase in the response body", corrected, accepted, "endpoint")
    assert checks and holds(checks, accepted) and not holds(checks, corrected)
    assert holds(checks, fenced('return {"state": "in_progress"}', "python"))
    assert not holds(checks, fenced('return {"userName": n, "last_seen": t}', "python"))
    refused = compiled(
        tmp_path / "refused",
        "snake_case for function names, not camelCase",
        fenced('def getUser():\n    return {"user_id": 1}', "python"),
        fenced('def get_user():\n    return {"user_id": 1}', "python"),
        "a helper",
    )
    assert holds(refused, fenced('def load():\n    return {"user_id": 1}', "python"))


def test_sql_keywords_in_capitals_rule_out_lowercase_keywords_not_string_values(
    tmp_path: Path,
) -> None:
    corrected = fenced("select id from jobs where state = 'queued';", "sql")
    accepted = fenced("SELECT id FROM jobs WHERE state = 'queued';", "sql")
    said = "sql keywords in caps like the rest of the repo"
    checks = compiled(tmp_path, said, corrected, accepted, "a query")
    assert checks and holds(checks, accepted) and not holds(checks, corrected)
    in_strings = "SELECT id FROM jobs WHERE note IN ('from here', 'on hold');"
    assert holds(checks, fenced(in_strings, "sql"))
    assert not holds(checks, fenced("SELECT id FROM jobs order by id;", "sql"))
    refused = compiled(tmp_path / "r", "no uppercase sql keywords", accepted, corrected, "a query")
    assert holds(refused, fenced("select id from jobs;", "sql"))


def test_strict_mode_rules_out_a_shell_script_without_pipefail(tmp_path: Path) -> None:
    corrected = fenced("#!/usr/bin/env bash\nset -e\npg_dump app | gzip > app.sql.gz", "bash")
    accepted = fenced("#!/usr/bin/env bash\nset -euo pipefail\npg_dump app | gzip > a.gz", "bash")
    checks = compiled(tmp_path, "strict mode please", corrected, accepted, "backup script")
    assert checks and holds(checks, accepted) and not holds(checks, corrected)
    assert holds(checks, fenced("#!/bin/sh\nset -eu\nset -o pipefail\nmake", "sh"))
    assert holds(checks, "Run it:\n" + fenced("make backup", "bash"))  # no script of its own
    assert not holds(checks, fenced("#!/bin/bash\nset -e\nmake", "bash"))


def test_strict_mode_commented_out_is_off(tmp_path: Path) -> None:
    corrected = fenced("#!/usr/bin/env bash\nset -e\npg_dump app | gzip > app.sql.gz", "bash")
    accepted = fenced("#!/usr/bin/env bash\nset -euo pipefail\npg_dump app | gzip > a.gz", "bash")
    checks = compiled(tmp_path, "strict mode please", corrected, accepted, "backup script")
    assert checks and holds(checks, accepted) and not holds(checks, corrected)
    assert not holds(checks, fenced("#!/bin/bash\n# set -euo pipefail\nmake", "bash"))
    assert holds(checks, fenced("#!/bin/bash\nset -euo pipefail  # strict\nmake", "bash"))
