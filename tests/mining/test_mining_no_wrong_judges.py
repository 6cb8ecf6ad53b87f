"""A judge must never fail an answer that obeys what the user said: what a correction names
(a tool's trailer, a family of commit types, a count of headings, a start written in
bold) is read as narrowly as the user meant it, never as something broader or stricter."""

from __future__ import annotations

from pathlib import Path

from skillopt_sleep.mining.grammar import Check, compile_text
from tests.judge_helpers import compiler_for, holds
from trainer.checks import passes

compiled = compiler_for("write the commit message")


def test_a_tool_trailer_is_forbidden_and_a_human_co_author_is_not(tmp_path: Path) -> None:
    corrected = "Cache parsed templates\n\nCo-authored-by: Copilot <bot@tools.example.test>"
    accepted = "Cache parsed templates"
    checks = compiled(tmp_path, "lose the co-author line for the assistant", corrected, accepted)
    assert checks and not holds(checks, corrected) and holds(checks, accepted)
    assert holds(checks, "Cache parsed templates\n\nCo-authored-by: Priya Raman <pr@corp.test>")
    assert not holds(checks, "Fix typo\n\nCo-authored-by: ChatGPT <gpt@agent.example.test>")


def test_a_start_written_in_bold_still_starts_the_answer() -> None:
    assert passes("starts_with", "Summary", "first_line", "**Summary** the cron is fine.")
    assert passes("starts_with", "Note:", "first_line", "_Note:_ read this first")
    assert not passes("not_starts_with", "Sure", "answer", "*Sure*, here it is.")
    assert not passes("starts_with", "Summary", "first_line", "The **Summary** comes later.")


def test_a_number_counting_other_things_is_no_limit_on_lines(tmp_path: Path) -> None:
    corrected = "\n".join(f"| col | {i} |" for i in range(6))
    accepted = "Bump the timeout to 30 s."
    said = "a two-line tweak with five tables? why"
    checks = compiled(tmp_path, said, corrected, accepted)
    assert not [c for c in checks if c.kind.startswith(("max_", "min_"))]
    # a unit named right after the number still counts
    assert Check("max_lines", "5", "answer") in compile_text("keep it to five lines max")


def test_a_type_quoted_beside_the_family_asks_for_the_family() -> None:
    checks = compile_text("give it the docs: prefix, we use conventional commits here")
    assert checks
    assert holds(checks, "docs: explain the retry policy")
    assert holds(checks, "fix(cache): evict stale entries")
    assert not holds(checks, "Explain the retry policy")
    # with no family named, the type quoted is the one asked for
    exact = compile_text("give it the docs: prefix")
    assert holds(exact, "docs: explain the retry policy")
    assert not holds(exact, "fix(cache): evict stale entries")


def test_in_code_a_forbidden_word_is_that_token_not_its_plural() -> None:
    snippet = "```py\nfor item in items:\n    pass\n```"
    assert passes("not_contains", "item", "code", "```py\nitems = load()\n```")
    assert not passes("not_contains", "item", "code", snippet)
    assert not passes("not_contains", "item", "code_lines", snippet)
    # in prose a plural is still the word: "no emojis" is broken by "emojis"
    assert not passes("not_contains", "emoji", "prose", "I added emojis to the title.")


def test_marker_comments_forbid_those_comments_not_every_comment(tmp_path: Path) -> None:
    corrected = "```py\nclass Todo:\n    # todo: persist these\n    items: list[str]\n```"
    accepted = "```py\nclass Todo:\n    items: list[str]\n```"
    said = "no todo comments in there, finish the thing"
    checks = compiled(tmp_path, said, corrected, accepted)
    assert checks and not holds(checks, corrected) and holds(checks, accepted)
    # another comment, and a class named after the word, obey what was said
    assert holds(checks, "```py\n# the queue is bounded on purpose\nclass Todo: ...\n```")
    assert not holds(checks, "```js\n// TODO wire this up\nrun()\n```")
    # a sibling marker is the same unfinished work; a word "hack" in a string is no marker
    assert not holds(checks, "```go\n// FIXME: handle timeouts\nresp, err := do(req)\n```")
    assert holds(checks, '```py\nprint("a quick hack")\n```')


def test_a_markup_mark_is_forbidden_where_it_renders(tmp_path: Path) -> None:
    corrected = "Heads up: the deploy is **done**, tokens rotate at noon."
    accepted = "Heads up: the deploy is done, tokens rotate at noon."
    said = "teams prints the ** as-is, get rid of it"
    checks = compiled(tmp_path, said, corrected, accepted)
    assert checks and not holds(checks, corrected) and holds(checks, accepted)
    assert holds(checks, "Call `run(**opts)` to pass them through.")
    assert not holds(checks, "**Heads up** the deploy is done.")


def test_asterisks_touch_the_bold_they_make_not_all_markdown(tmp_path: Path) -> None:
    corrected = "**Status:** the queue drained overnight, **no action needed**."
    accepted = "Status: the queue drained overnight, no action needed."
    said = "what are all these asterisks for? the pager shows them raw"
    checks = compiled(tmp_path, said, corrected, accepted)
    assert checks and not holds(checks, corrected) and holds(checks, accepted)
    assert holds(checks, "_Status_ drained. Run `make check` to see it.")
    assert not holds(checks, "**Status** drained.")


def test_an_attribution_line_named_so_is_the_tool_trailer(tmp_path: Path) -> None:
    corrected = "Cache parsed templates\n\nGenerated by Copilot"
    accepted = "Cache parsed templates"
    checks = compiled(tmp_path, "no credit line for the bot please", corrected, accepted)
    assert checks and not holds(checks, corrected) and holds(checks, accepted)
    assert holds(checks, "Cache parsed templates\n\nCo-authored-by: Priya Raman <pr@corp.test>")
    assert holds(checks, "Regenerate stubs\n\nGenerated files only.")
