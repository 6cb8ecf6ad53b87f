"""The check vocabulary: each check on each scope, with answers that pass and answers that
fail, scored through the trainer's own rule scorer (what a night uses)."""

from __future__ import annotations

import pytest

from trainer.checks import identifier_pattern, units, value_error
from trainer.rollout import Outcome
from trainer.scoring import rule_score
from trainer.tasks import Judge

COMMIT = "feat: add CSV export\n\nExports the filtered rows.\nSee the docs."
BULLETS = "Summary of the run:\n- first item here\n- second one\n1. numbered item"
CODE = "Use this:\n```python\nprint('x')\n```\nThen print the report."


def score(kind: str, value: str, answer: str, scope: str = "answer") -> float | None:
    return rule_score(Judge(kind, value, scope=scope), Outcome(answer))


def test_scopes_read_the_right_part_of_the_answer() -> None:
    assert units(COMMIT, "first_line") == ["feat: add CSV export"]
    assert units("```\nfix: x\n```", "first_line") == ["fix: x"]  # a fence is not a subject
    assert units(COMMIT, "lines") == ["feat: add CSV export", "Exports the filtered rows.",
                                      "See the docs."]  # fmt: skip
    assert units(BULLETS, "bullets") == ["first item here", "second one", "numbered item"]
    assert units(CODE, "code") == ["print('x')"]
    assert units(CODE, "prose") == ["Use this:\n\nThen print the report."]
    assert units("no fences here", "code") == [""]


@pytest.mark.parametrize(
    ("kind", "value", "scope", "passing", "failing"),
    [
        # words: word boundaries, a plural after them, case as the user wrote it
        ("not_contains", "print", "answer", "check the fingerprint", "print(x)"),
        ("not_contains", "print", "code", CODE.replace("print('x')", "log('x')"), CODE),
        ("not_contains", "print", "prose", "```\nprint(1)\n```\nDone.", CODE),
        ("not_contains", "TODO", "answer", "all done", "# TODOs remain"),
        ("not_contains", "os.system", "answer", "subprocess.run(cmd)", "os.system(cmd)"),
        ("not_contains", "type: ignore", "answer", "x = 1", "x = f()  # type: ignore[arg]"),
        ("contains", "UTC", "answer", "at 16:40 UTC", "at 16:40 utc"),
        ("contains", "Signed-off-by", "answer", "x\n\nsigned-off-by: Dana", "x\n\nReviewed-by: D"),
        ("not_contains", "I", "prose", "We fixed it, i.e. the job.", "I fixed it."),
        # patterns
        ("regex", r"\d{4}-\d{2}-\d{2}", "answer", "on 2025-03-14", "on March 14"),
        (
            "not_regex",
            r"(?im)^[\W_]*changelog\b",
            "answer",
            "update the changelog tool",
            "Fix it\n\n## Changelog\n- x",
        ),
        # starts / ends, case-insensitive, trailing punctuation ignored after a word
        ("starts_with", "feat:", "first_line", COMMIT, "Add CSV export"),
        ("not_starts_with", "Sure", "answer", "^[A-Z]+$", "Sure! ^[A-Z]+$"),
        ("ends_with", "Cheers, Dana", "answer", "Paid.\n\nCheers, Dana!", "Paid.\n\nThanks"),
        ("not_ends_with", ".", "first_line", "Add pagination\n\nBody.", "Add pagination."),
        ("not_ends_with", ".", "bullets", "- one\n- two", "- one.\n- two"),
        # counts
        ("max_words", "5", "answer", "one two three four five", "one two three four five six"),
        ("max_words", "3", "bullets", "- a b c\n- d e", "- a b c d\n- e"),
        ("min_words", "3", "answer", "one two three", "one two"),
        ("max_chars", "20", "first_line", "Short subject\n" + "x" * 80, "A" * 21),
        ("max_chars", "10", "lines", "short\nlines", "short\nthis one is long"),
        ("min_chars", "5", "answer", "hello", "hey"),
        ("max_lines", "1", "answer", "one line", "one\ntwo"),
        ("min_lines", "2", "answer", "a\nb", "a"),
        ("max_sentences", "2", "answer", "It caps retries. It fails fast.", "A. B. C."),
        ("min_sentences", "2", "answer", "A one. B two.", "Only one."),
        ("max_bullets", "2", "answer", "- a\n- b", "- a\n- b\n- c"),
        ("max_bullets", "0", "answer", "A paragraph with - a dash.", "- a"),
        ("min_bullets", "3", "answer", "- a\n- b\n- c", "- a\n- b"),
        # paragraphs: blocks between blank lines; a list or a code block is no extra one
        ("max_paragraphs", "1", "answer", "Deploy moves.\nFreeze ends Wed.", "Deploy.\n\nWhy."),
        ("max_paragraphs", "2", "answer", "A.\n\nB:\n```\nx\n\ny\n```", "A.\n\nB.\n\nC."),
        ("min_paragraphs", "2", "answer", "A.\n\n- b\n- c", "A. B. C."),
        # indent: the widest step past the line before (a tab is 8); back out is no step
        ("max_indent", "2", "code", "```\na:\n  b:\n    c: 1\nd: 2\n```", "```\na:\n    b: 1\n```"),
        ("max_indent", "4", "code", "```\ndef f():\n    return 1\n```", "```\nif x:\n\tgo()\n```"),
        ("min_indent", "2", "code", '```json\n{\n  "a": 1\n}\n```', '```json\n{"a": 1}\n```'),
        # features
        ("no", "emoji", "answer", "Release 4.2, no emojis", "Release 4.2 🚀"),
        ("no", "heading", "answer", "Adds a cache. #42", "## Summary\nAdds a cache."),
        ("no", "code_fence", "answer", "docker ps -a", "```\ndocker ps -a\n```"),
        ("has", "code_fence", "answer", "```sh\nls\n```", "run ls"),
        ("no", "bullet", "answer", "Refunds landed - finally.", "* refunds"),
        ("has", "bullet", "answer", "- a", "1. a"),
        ("has", "list", "answer", "1. a\n2. b", "a, b"),
        ("no", "list", "answer", "a, then b", "- a"),
        ("no", "numbered_list", "answer", "- a\n- b", "1. a\n2. b"),
        ("no", "table", "answer", "rq is simpler", "| a | b |\n|---|---|"),
        ("no", "link", "answer", "from the IT portal", "see https://example.com"),
        ("no", "bold", "answer", "Maintenance at 02:00", "**Maintenance** at 02:00"),
        ("no", "markdown", "answer", "- plain dash list\nis fine", "Run `make`"),
        ("no", "exclamation", "prose", "if a != b: stop", "Dark mode is here!"),
        ("no", "trailing_punctuation", "first_line", "Add x\n\nBody.", "Add x;"),
        ("has", "question", "answer", "Is the index name OK?", "Please review."),
        ("no", "apology", "answer", "Thanks for the report.", "Sorry about that."),
        ("no", "preamble", "answer", "^[A-Z]{2}$", "Certainly! ^[A-Z]{2}$"),
        ("no", "past_tense", "first_line", "Embed build info", "Fixed the crash"),
        ("has", "lowercase_start", "first_line", "fix: handle leap years", "fix: Handle it"),
        ("has", "capital_start", "first_line", "Fix typo", "fix typo"),
        ("no", "diff_lines", "answer", "- a bullet\nRaise timeout", "Raise\n+timeout = 30"),
        ("no", "first_person", "answer", "We moved the cache.", "I moved the cache."),
        ("no", "heading", "prose", "```sh\n# install deps\nmake\n```", "Root cause\n====\nX."),
        ("no", "table", "answer", "ps aux | rg worker", "Option | Effort\n--- | ---\nSQS | none"),
        ("no", "exclamation", "prose", "Guard it with `[ ! -f .env ]`.", "Done! It works."),
        ("no", "inline_code", "answer", "```\nmake\n```\nRun it.", "Bump `requests` to 2.32"),
        ("no", "contraction", "answer", "The user's token is not stored.", "It's not stored."),
        (
            "no",
            "closing_offer",
            "answer",
            "Let me know the date and I'll book it.\nDone.",
            "Done.\n\nLet me know if you need anything else!",
        ),  # fmt: skip
        ("no", "untagged_fence", "answer", "```bash\nls\n```", "```\nls\n```"),
        (
            "no",
            "hedging",
            "answer",
            "It works: I ran it and the job finished.",
            "It should work now.",
        ),
        (
            "no",
            "unsorted",
            "code",
            "```\nattrs\n# test\nHttpx\npytest\n```",
            "```\nrich\nboto3\n```",
        ),
        ("no", "italic", "prose", "2 * 3 * 4 and snake_case_name", "This is *really* fast"),
        ("no", "hashtag", "answer", "Fixes #318; see a.html#top", "Ship day! #launch"),
        ("no", "at_mention", "answer", "mail ops@example.com", "thanks @dana-k"),
        ("has", "imperative", "first_line", "feat: add export\n\nAdds it.", "Adds export"),
        ("has", "imperative", "first_line", "Address review notes", "Fixing the parser"),
        # identifiers shaped like the user's example
        ("identifier_like", "SEC-412", "answer", "SEC-98 rate-limit resets", "see ticket"),
        ("identifier_like", "#318", "answer", "Closes #9.", "Closes the issue."),
        ("identifier_like", "Fixes #318", "answer", "closes #12", "refs 12"),
        # content: one of the task's own names, as a word ("chart" is not in "flowchart")
        ("mentions_any", "datum | chart", "answer", "fix: clamp at the Datum", "flowchart fix"),
        ("mentions_any", "parse_line", "first_line", "fix parse_line\n", "fix it\nparse_line"),
    ],
)
def test_each_check_passes_and_fails(kind: str, value: str, scope: str, passing: str,
                                     failing: str) -> None:  # fmt: skip
    assert score(kind, value, passing, scope) == 1.0
    assert score(kind, value, failing, scope) == 0.0


def test_the_subject_of_a_message_handed_over_behind_a_lead_in() -> None:
    """A commit message in a plain fence behind "Here is the message:", or after such a
    line and a blank line, is read from the message: its subject, its lines. A fence of
    code, or prose that is not a lead-in, is read as it is."""
    fenced = "Here is the commit message:\n\n```\nfix(api): guard nulls\n\nBody.\n```"
    assert units(fenced, "first_line") == ["fix(api): guard nulls"]
    assert units(fenced, "lines") == ["fix(api): guard nulls", "Body."]
    bare = "Here is the updated message:\n\nAdd retries\n\nRetries uploads twice."
    assert units(bare, "first_line") == ["Add retries"]
    assert units("TL;DR: use rg\n\n```bash\nrg x\n```", "first_line") == ["TL;DR: use rg"]
    assert units("Changes:\n\n- a", "first_line") == ["Changes:"]  # a label, not a lead-in
    assert units("Fix the parser: guard nulls\n\nBody.", "first_line") == [
        "Fix the parser: guard nulls"
    ]
    assert score("max_chars", "25", fenced, "first_line") == 1.0  # the lead-in has 27
    polite = "Sure, here's the message for this change.\n\nfeat: add export\n\nBody."
    assert units(polite, "first_line") == ["feat: add export"]
    assert units("Sure! The fix is simple.", "first_line") == ["Sure! The fix is simple."]
    # how the answer opens is read on the whole answer, lead-in and all
    assert score("not_starts_with", "Sure", polite, "answer") == 0.0


def test_identifier_shape_and_case() -> None:
    assert identifier_pattern("PROJ-123") == r"(?<![\w-])[A-Z][A-Z\d]*\-\d+(?![\w-])"
    assert score("identifier_like", "PROJ-123", "proj-7 done") == 0.0  # capitals as written
    assert score("identifier_like", "PROJ-123", "refs ABC-7") == 1.0


def test_bad_values_are_refused_with_a_reason() -> None:
    assert value_error("max_words", "twelve") == "max_words needs a whole number, got 'twelve'"
    assert value_error("min_words", "0") is not None
    assert value_error("max_bullets", "0") is None
    assert value_error("mentions_any", " | ") == "mentions_any needs a value"
    assert "needs one of" in (value_error("no", "emojis") or "")
    assert "invalid regex" in (value_error("regex", "(") or "")
    with pytest.raises(ValueError, match="unknown scope"):
        Judge("contains", "x", scope="subject")
    with pytest.raises(ValueError, match="unknown scope"):
        Judge("not_contains", "var", scope="prose@javascript")  # only code reads a language
    # a code scope read in some languages' blocks is a judge's scope as it is a check's
    judge = Judge("not_contains", "var", scope="code_bare@javascript")
    assert rule_score(judge, Outcome("```css\n.a { gap: var(--g) }\n```")) == 1.0
    assert rule_score(judge, Outcome("```js\nvar a = 1\n```")) == 0.0
    with pytest.raises(ValueError, match="needs a value"):
        Judge("not_contains", " ")


def test_old_judges_load_and_read_the_whole_answer() -> None:
    old = Judge.from_dict({"kind": "not_contains", "value": "print", "weight": 1.0})
    assert old.scope == "answer" and old.to_dict()["scope"] == "answer"
    assert rule_score(old, Outcome("fingerprint")) == 1.0  # word-bounded now
    assert rule_score(Judge("max_words", "2"), Outcome("- one two")) == 1.0  # "-" is no word


def test_a_list_in_a_block_of_code_is_the_program_s_not_the_answer_s() -> None:
    steps = "- lint\n- ship\n\n```yaml\nsteps:\n  - checkout\n  - build\n  - test\n```"
    assert score("max_bullets", "2", steps) == 1.0
    assert units(steps, "bullets") == ["lint", "ship"]
    assert score("no", "bullet", "```yaml\n- a\n```") == 1.0
    # a list in an untagged fence is still a list the answer hands over; markdown source is not
    assert score("max_bullets", "2", "```\n- a\n- b\n- c\n```") == 0.0
    assert score("min_bullets", "3", "```md\n- a\n- b\n- c\n```") == 0.0
    assert score("max_bullets", "2", "- a\n- b\n- c") == 0.0


def test_a_ticket_key_may_hold_digits_after_its_first_letter() -> None:
    assert score("identifier_like", "OPS-88", "WEB2-1009: lazy-load the map") == 1.0
    assert score("identifier_like", "OPS-88", "2WEB-1009: lazy-load the map") == 0.0
    assert score("identifier_like", "2026-03-04", "2026-3-4") == 1.0  # no capitals: as before


def test_a_comment_line_s_indent_is_no_structure_s() -> None:
    manifest = "```yaml\nspec:\n  # replicas below\n        # stray note\n  replicas: 2\n```"
    assert score("max_indent", "2", manifest, "code") == 1.0
    assert score("max_indent", "2", "```yaml\nspec:\n      replicas: 2\n```", "code") == 0.0


def test_an_abbreviation_asked_for_at_the_start_is_met_in_any_case() -> None:
    assert score("starts_with", "TL;DR", "tl;dr: the disk filled up", "first_line") == 1.0
    assert score("starts_with", "FYI:", "fyi: the build is red", "first_line") == 1.0
    assert score("starts_with", "TL;DR", "Summary: the disk filled up", "first_line") == 0.0
    # forbidding keeps the capitals; an identifier's capitals are its spelling
    assert score("not_starts_with", "TL;DR", "tl;dr: the disk filled up", "first_line") == 1.0
    assert score("starts_with", "PROJ-12", "proj-12 fixed", "first_line") == 0.0
