"""Forms of an answer users ask for by naming them: a TL;DR opening it, a labelled line
(a ``Refs:`` trailer). Each reading still separates the pair it came from; an answer that
keeps the rule passes it, one that breaks it fails."""

from __future__ import annotations

from pathlib import Path

from tests.judge_helpers import compiler_for, holds

compiled = compiler_for("summarise the incident")


def test_a_tldr_named_in_any_spelling_opens_the_answer(tmp_path: Path) -> None:
    corrected = "The queue backed up after the deploy.\n\nTL;DR: roll back 4.2."
    accepted = "TL;DR: roll back 4.2.\n\nThe queue backed up after the deploy."
    for said in ("tldr up top pls", "where is the tl;dr? it belongs first"):
        checks = compiled(tmp_path, said, corrected, accepted)
        assert checks and not holds(checks, corrected) and holds(checks, accepted), said
        assert holds(checks, "**TL;DR:** nothing to do.\n\nDetails below."), said
        assert not holds(checks, "Summary: nothing to do."), said
        assert not holds(checks, "Details first.\nTL;DR: nothing."), said


def test_a_labelled_line_named_as_a_trailer_is_asked_for(tmp_path: Path) -> None:
    corrected = "fix(api): retry on 502 [PAY-31]"
    accepted = "fix(api): retry on 502\n\nTicket: PAY-31"
    for said in (
        "the key goes in a `Ticket:` trailer, not in brackets",
        "use the footer `Ticket: PAY-31` like the other commits",
    ):
        checks = compiled(tmp_path, said, corrected, accepted)
        assert checks and not holds(checks, corrected) and holds(checks, accepted), said
        assert holds(checks, "docs: typo\n\nBody.\n\nTicket: DOC-2"), said
        assert not holds(checks, "docs: typo (DOC-2)"), said
        assert not holds(checks, "docs: typo\n\nticket doc-2"), said


def test_a_section_label_named_alone_is_no_line_every_answer_needs(tmp_path: Path) -> None:
    corrected = '```python\ndef f(x):\n    """Do it.\n\n    :param x: the input\n    """\n```'
    accepted = (
        '```python\ndef f(x):\n    """Do it.\n\n    Args:\n        x: the input\n    """\n```'
    )
    said = "docstrings use `Args:` and `Returns:` here, not `:param:`"
    checks = compiled(tmp_path, said, corrected, accepted)
    assert checks and not holds(checks, corrected) and holds(checks, accepted)
    assert holds(
        checks, '```python\ndef g():\n    """Do it.\n\n    Raises:\n        E: never.\n    """\n```'
    )


def test_items_asked_to_open_with_inline_code_open_with_a_backtick(tmp_path: Path) -> None:
    corrected = "- timeout: seconds before giving up\n- retries: attempts after a failure"
    accepted = "- `timeout`: seconds before giving up\n- `retries`: attempts after a failure"
    for said in (
        "begin every item with the setting name in backticks",
        "item 2 doesn't lead with the key in code formatting. fix all of them",
    ):
        checks = compiled(tmp_path, said, corrected, accepted)
        assert checks and not holds(checks, corrected) and holds(checks, accepted), said
        assert holds(checks, "1. `--dry-run`: print only\n2. `--yes`: skip the prompt"), said
        assert not holds(checks, "- `timeout`: seconds\n- retries: attempts"), said
        assert not holds(checks, "- Sets `timeout` in seconds"), said


def test_one_code_block_rules_out_a_second_block(tmp_path: Path) -> None:
    corrected = "```bash\nmake build\n```\nthen\n```bash\nmake deploy\n```"
    accepted = "```bash\nmake build\nmake deploy\n```"
    for said in ("a single code block please, I paste it in one go", "why two blocks? one block"):
        checks = compiled(tmp_path, said, corrected, accepted)
        assert checks and not holds(checks, corrected) and holds(checks, accepted), said
        assert holds(checks, "Run:\n```sh\nnpm ci && npm test\n```\nThat is all."), said
        assert not holds(checks, "```sh\na\n```\n\n```sh\nb\n```"), said


def test_each_item_asked_for_its_pr_number_ends_with_it(tmp_path: Path) -> None:
    corrected = "### Fixed\n- Timeouts on large exports\n- Wrong currency symbol"
    accepted = "### Fixed\n- Timeouts on large exports (#412)\n- Wrong currency symbol (#418)"
    for said in ("every entry needs its PR number", "each bullet ends with (#NNN)"):
        checks = compiled(tmp_path, said, corrected, accepted)
        assert checks and not holds(checks, corrected) and holds(checks, accepted), said
        assert holds(checks, "### Added\n- Dark mode (#501)."), said
        assert not holds(checks, "### Added\n- Dark mode (#501)\n- Search"), said
        assert not holds(checks, "### Added\n- Dark mode (see PR 501)"), said


def test_a_key_prefix_named_forbids_every_key_with_it(tmp_path: Path) -> None:
    corrected = "- Faster exports (OPS-88)\n- Fixed login loop (OPS-91)"
    accepted = "- Faster exports\n- Fixed login loop"
    for said in ("strip the OPS- ticket ids, this is public", "drop the OPS numbers please"):
        checks = compiled(tmp_path, said, corrected, accepted)
        assert checks and not holds(checks, corrected) and holds(checks, accepted), said
        assert holds(checks, "Signed with SHA-256; OPS teams need no action."), said
        assert not holds(checks, "Fixed the OPS-7 crash."), said


def test_checkboxes_asked_for_are_a_task_list(tmp_path: Path) -> None:
    corrected = "Acceptance criteria: export works, totals match, CSV opens in Excel."
    accepted = "Acceptance criteria:\n- [ ] export works\n- [ ] totals match\n- [ ] CSV opens"
    said = "tickets need acceptance criteria as checkboxes"
    checks = compiled(tmp_path, said, corrected, accepted)
    assert checks and not holds(checks, corrected) and holds(checks, accepted)
    assert holds(checks, "Done when:\n* [x] migrated\n* [ ] verified")
    assert not holds(checks, "Done when:\n1. migrated\n2. verified")
