"""A rule on a kind of thing is a rule on each one the answer writes, not a demand for one:
"ISO dates" is broken by a date written another way, never by an answer with no date; "3+
bullet points" beside a list asked for is met by any list of three, numbered too; "1, 2, 3"
after "numbered" shows the numbering and asks for no three."""

from __future__ import annotations

from pathlib import Path

from tests.judge_helpers import compiler_for, holds

compiled = compiler_for("write it up")


def test_iso_dates_rule_every_date_written_not_a_date_in_every_answer(tmp_path: Path) -> None:
    corrected = "The freeze starts 14/02/2027 and the branch is cut then."
    accepted = "The freeze starts 2027-02-14 and the branch is cut then."
    checks = compiled(tmp_path, "ISO dates please, 14/02 reads as nonsense here", corrected,
                      accepted)  # fmt: skip
    assert checks and not holds(checks, corrected) and holds(checks, accepted)
    assert holds(checks, "No date is fixed yet; release 2027.2.1 follows the freeze.")
    assert holds(checks, "Screens are 16/9 and the cache hit rate is 1/2.")
    assert not holds(checks, "The freeze starts Feb 14.")
    assert not holds(checks, "The freeze starts 14/02.")


def test_a_bullet_asked_beside_a_list_asked_is_any_item(tmp_path: Path) -> None:
    corrected = "We fixed the login, the cache, and the export."
    accepted = "- fixed the login\n- fixed the cache\n- fixed the export"
    checks = compiled(tmp_path, "bullet points please, at least 3", corrected, accepted)
    assert checks and not holds(checks, corrected) and holds(checks, accepted)
    assert holds(checks, "1. fixed the login\n2. fixed the cache\n3. fixed the export")


def test_a_literal_naming_a_convention_is_the_convention_not_the_words(tmp_path: Path) -> None:
    corrected = "```bash\n#!/usr/bin/env bash\nrm -r build\n```"
    accepted = "```bash\n#!/usr/bin/env bash\nset -euo pipefail\nrm -r build\n```"
    checks = compiled(tmp_path, "this needs `set -euo pipefail` up top", corrected, accepted)
    assert checks and not holds(checks, corrected) and holds(checks, accepted)
    assert holds(checks, "```bash\n#!/usr/bin/env bash\nset -Eeuo pipefail\nrm -r build\n```")
    assert holds(checks, "```python\nimport shutil\nshutil.rmtree('build')\n```")
    assert not holds(checks, "```sh\n#!/bin/sh\nset -e\nrm -r build\n```")


def test_a_word_of_the_language_written_in_the_sentences_is_forbidden_there(
    tmp_path: Path,
) -> None:
    corrected = "You just run the migration before the deploy."
    accepted = "Run the migration before the deploy."
    checks = compiled(tmp_path, "don't write 'just' in the docs", corrected, accepted)
    assert checks and not holds(checks, corrected) and holds(checks, accepted)
    assert holds(checks, "Run `just migrate` first.\n\n```bash\njust migrate\n```")
    assert not holds(checks, "Just run the migration first.")


def test_a_command_forbidden_stays_on_the_whole_answer(tmp_path: Path) -> None:
    corrected = "Install it with sudo, then restart the service."
    accepted = "Install it as your user, then restart the service."
    checks = compiled(tmp_path, "no sudo", corrected, accepted)
    assert checks and not holds(checks, corrected) and holds(checks, accepted)
    assert not holds(checks, "Install it:\n\n```bash\nsudo apt install jq\n```")


def test_a_number_with_a_plus_is_at_least_that_many(tmp_path: Path) -> None:
    corrected = "We fixed the login and the cache."
    accepted = "- fixed the login\n- fixed the cache\n- fixed the export\n- fixed the docs"
    checks = compiled(tmp_path, "want 4+ items as bullets, not one long paragraph", corrected,
                      accepted)  # fmt: skip
    assert checks and not holds(checks, corrected) and holds(checks, accepted)
    assert not holds(checks, "- fixed the login\n- fixed the cache\n- fixed the export")
    # what the answer was is no limit: "the line is 100+ chars" sets no minimum
    said = "that line is 100+ chars, our limit is 80"
    long_line = "```python\nx = " + "1 + " * 30 + "1\n```"
    short = compiled(tmp_path, said, long_line, "```python\nx = 31\n```")
    assert not any(c.kind.startswith("min_") for c in short), short


def test_numbers_counting_up_from_one_show_a_numbering_not_a_count(tmp_path: Path) -> None:
    corrected = "Drain the node, then cordon it and reboot."
    accepted = "1. Drain the node\n2. Cordon it\n3. Reboot"
    checks = compiled(tmp_path, "steps numbered 1, 2, 3 please", corrected, accepted)
    assert checks and not holds(checks, corrected) and holds(checks, accepted)
    assert holds(checks, "1. Drain the node\n2. Reboot")  # two steps are a numbered list too
    assert not holds(checks, "Drain, cordon, reboot.")
    # a count the user states beside it is still read
    three = compiled(tmp_path, "at least 3 numbered steps please", corrected, accepted)
    assert not holds(three, "1. Drain the node\n2. Reboot") and holds(three, accepted)
