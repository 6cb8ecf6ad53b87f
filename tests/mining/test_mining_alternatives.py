"""Readings that kept a judge the accepted answer's siblings fail: one of several words
offered as alternatives required alone, a layout named as one remedy among others required,
a line-length rule read on prose the user never complained of, a lone "." argument found
inside a path."""

from __future__ import annotations

from skillopt_sleep.mining.contrast import compile_pair, separates
from trainer.checks import passes


def kept(said: str, corrected: str, accepted: str) -> list[tuple[str, str, str]]:
    return [
        (c.kind, c.value, c.scope)
        for c in compile_pair(said, corrected, accepted)
        if separates(c, corrected, accepted)
    ]


def test_words_offered_as_alternatives_are_met_by_either() -> None:
    said = "open the release note with GO or HOLD so the bot can route it"
    got = compile_pair(said, "Release 4.2 looks fine: GO", "GO: release 4.2 looks fine")
    assert len(got) == 1 and got[0].kind == "regex"
    check = got[0]
    assert passes(check.kind, check.value, check.scope, "HOLD: the migration is not ready")
    assert not passes(check.kind, check.value, check.scope, "Release 4.3: HOLD")
    assert not passes(check.kind, check.value, check.scope, "GOLD release")


def test_alternatives_at_the_end_replace_a_check_on_one_of_them() -> None:
    said = 'sign it with "Regards" or "Best" at the bottom'
    got = compile_pair(said, "The refund is on its way.", "The refund is on its way.\n\nBest")
    assert [c.kind for c in got] == ["regex"]
    assert passes(got[0].kind, got[0].value, got[0].scope, "Done.\n\nRegards,")


def test_a_layout_named_among_remedies_is_not_required() -> None:
    said = "drop the '...' between steps, a list or proper sentences"
    got = kept(said, "Build... test... deploy.", "- Build\n- Test\n- Deploy")
    assert ("no", "ellipsis", "prose") in got
    assert not any(kind == "has" for kind, _, _ in got)


def test_a_line_length_broken_only_in_code_reads_the_code_lines() -> None:
    call = "    result = client.fetch_invoices("
    long_call = call + "account_id, since=cutoff, page_size=200, retries=3)"
    short = call + "\n        account_id, since=cutoff, page_size=200\n    )"
    prose = "Fetches the invoices for one account and hands them to the exporter unchanged."
    corrected = f"{prose}\n\n```python\n{long_call}\n```"
    accepted = f"{prose}\n\n```python\n{short}\n```"
    assert kept("that call is over 80 cols, the linter stops at 80", corrected, accepted) == [
        ("max_chars", "80", "code_lines")
    ]


def test_a_lone_dot_argument_is_not_found_inside_a_path() -> None:
    assert passes("not_contains", "docker build .", "code", "```\ndocker build ./svc/api\n```")
    assert not passes("not_contains", "docker build .", "code", "```\ndocker build . -t x\n```")
    assert not passes("not_contains", "git add .", "answer", "Run git add . now")


def test_a_quoted_mark_is_forbidden_in_the_sentences_not_in_the_code() -> None:
    from skillopt_sleep.mining.fallback import pair_fallback

    code = "\n\n```bash\nnpm test -- --watch\n```"
    got = pair_fallback('what is the "--" doing in the text', f"Ship it -- today.{code}",
                        f"Ship it today.{code}")  # fmt: skip
    assert [c.scope for c in got] == ["prose"]


def test_a_mark_asked_for_at_the_end_is_required_there() -> None:
    said = "the statement needs a semicolon at the end or the runner hangs"
    corrected = "```sql\nDELETE FROM sessions WHERE expires_at < now()\n```"
    accepted = "```sql\nDELETE FROM sessions WHERE expires_at < now();\n```"
    assert ("ends_with", ";", "code") in kept(said, corrected, accepted)
    # the same words after an answer that ended every statement with one forbid nothing
    assert ("not_regex", r"(?m);[ \t]*$", "code") not in kept(said, corrected, accepted)


def test_a_remedy_that_is_itself_a_rejection_forbids() -> None:
    said = '"_draft_" -> no italics please, the CRM prints the underscores as they are'
    got = kept(said, "This is a _draft_ reply.", "This is a draft reply.")
    assert ("no", "italic", "prose") in got


def test_words_put_first_are_asked_for_even_as_the_kept_half_of_a_contrast() -> None:
    said = "begin with APPROVED or BLOCKED, not a thumbs-up emoji"
    got = kept(said, "\U0001f44d looks good to me, APPROVED", "APPROVED: looks good to me")
    either = [c for c in got if c[0] == "regex"]
    assert len(either) == 1 and either[0][2] == "first_line"
    assert passes("regex", either[0][1], "first_line", "BLOCKED: the migration drops a column")


def test_unquoted_words_offered_for_the_opening_are_met_by_either() -> None:
    """ "start with yes or no", "first line: PASS or FAIL", "lead with the 🟢/🟡/🔴": words
    or emoji the user did not quote, offered for the answer's first word."""
    cases = [
        ("just start with yes or no pls then details", "It depends: yes.", "Yes. It depends.",
         "No, because the cache is cold.", "Probably not."),
        ("please begin the answer with Yes or No, then the explanation", "It is safe. Yes.",
         "Yes, it is safe.", "No: the lock is held.", "Maybe, the lock is held."),
        ("first line: PASS or FAIL. then details.", "All 212 tests ran.\nPASS",
         "PASS\nAll 212 tests ran.", "FAIL: 3 tests", "Tests: PASS"),
        ("lead with the 🟢/🟡/🔴.", "Payments are healthy 🟢", "🟢 Payments are healthy",
         "🔴 Payments are down", "Payments 🟡"),
    ]  # fmt: skip
    for said, corrected, accepted, obeys, violates in cases:
        got = kept(said, corrected, accepted)
        assert len(got) == 1 and got[0][0] == "regex" and got[0][2] == "first_line", said
        assert passes(got[0][0], got[0][1], got[0][2], obeys), said
        assert not passes(got[0][0], got[0][1], got[0][2], violates), said


def test_a_kind_of_opening_named_with_an_article_is_not_its_words() -> None:
    """ "begin with a summary or overview" names a kind of opening, not the words "summary"
    and "overview"; "start with the summary or the diff" names parts of the answer."""
    corrected = "The cache was cold.\n\nSummary: warm it at boot."
    accepted = "Summary: warm the cache at boot.\n\nIt was cold."
    assert not any(c[0] == "regex" for c in kept("begin with a summary or overview",
                                                 corrected, accepted))  # fmt: skip
    assert not any(c[0] == "regex" for c in kept("start with the summary or the diff",
                                                 corrected, accepted))  # fmt: skip


def test_words_forbidden_with_a_slash_between_are_each_forbidden() -> None:
    """ "no leverage/utilize" after an answer that said "leverage" forbids "utilize" too (one
    check, which the pair confirms); "true/false, not yes/no" reads the YAML, where the answer
    had them, not every "no" of its sentences."""
    got = kept("plain english pls. no leverage/utilize", "We leverage the cache.",
               "We use the cache.")  # fmt: skip
    alt = next(c for c in got if c[0] == "not_regex")
    assert not passes(alt[0], alt[1], alt[2], "We utilize the cache.")
    assert passes(alt[0], alt[1], alt[2], "We use the cache; leverages are levers.")
    yaml = kept("true/false, not yes/no.", "```yaml\ndebug: yes\n```\nNo other change.",
                "```yaml\ndebug: true\n```\nNo other change.")  # fmt: skip
    either = next(c for c in yaml if c[0] == "not_regex" and c[2] == "code")
    assert not passes(*either[:1], either[1], "code", "```yaml\ndebug: no\n```")
    assert passes(*either[:1], either[1], "code", "```yaml\nnote: nothing yet\n```")


def test_a_half_of_a_slashed_name_is_no_word_of_its_own() -> None:
    """ "no we/I in the docs" is not broken by "I/O": a half of a slashed compound is another
    word."""
    got = kept('no "we"/"I" in the docs', "We cache the I/O results.", "Caches the I/O results.")
    alt = next(c for c in got if c[0] == "not_regex")
    assert passes(alt[0], alt[1], alt[2], "Handles heavy I/O well.")
    assert not passes(alt[0], alt[1], alt[2], "I made it handle heavy I/O.")


def test_a_path_the_answer_wrote_stays_one_literal() -> None:
    """ "don't push to origin/main" after an answer that pushed to origin/main forbids that
    path, not every "main" or "origin"."""
    got = kept("don't push to origin/main", "git push origin/main", "git push upstream feature")
    assert got
    assert all(passes(k, v, s, "git switch main") for k, v, s in got), got


def test_a_literal_in_a_list_read_two_ways_is_not_asked_for() -> None:
    """ "sections ### Security / Added / Deprecated" where the reader asks for some members
    and only names others: which one an answer needs is unsure, so none is required; a list
    asked for whole still is ("start with PASS or FAIL")."""
    corrected = "## 2.0\n\n### Misc\n\n- dropped py3.8"
    accepted = "## 2.0\n\n### Deprecated\n\n- dropped py3.8"
    said = "use the house sections: ### Security / Added / Deprecated, no 'Misc'"
    got = kept(said, corrected, accepted)
    assert all(passes(k, v, s, "## 2.0\n\n### Added\n\n- x") for k, v, s in got), got
    opening = kept("start with PASS or FAIL", "Looks fine to me.", "PASS: all green.")
    assert opening and not any(passes(k, v, s, "Looks fine.") for k, v, s in opening)
