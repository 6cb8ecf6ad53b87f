"""What a correction rules out is the rule; what it offers instead, the parts of a phrase it
forbids whole, and a mark it asks for only where something is, are no rules of their own:
"a list instead of a table" does not ask every answer for a list, "no curl | bash" does not
forbid ``bash install.sh``, "UTC on the times" asks nothing of an answer with no time."""

from __future__ import annotations

from pathlib import Path

from skillopt_sleep.mining.grammar import Check, compile_text
from tests.judge_helpers import compiler_for, holds

compiled = compiler_for("summarise the options")


def test_the_layout_offered_instead_is_not_required(tmp_path: Path) -> None:
    corrected = "| region | latency |\n|---|---|\n| eu | 40 ms |\n| us | 90 ms |"
    accepted = "- eu: 40 ms\n- us: 90 ms"
    said = "use a list instead of a table please, slack mangles tables"
    checks = compiled(tmp_path, said, corrected, accepted)
    assert checks and not holds(checks, corrected) and holds(checks, accepted)
    assert holds(checks, "The eu region answers in 40 ms, the us one in 90 ms.")
    assert not holds(checks, "| a | b |\n|---|---|\n| 1 | 2 |")
    # a layout asked for against no feature is still the rule
    steps = compiled(tmp_path, "I want numbered steps, not a paragraph", "Do a then b.",
                     "1. Do a\n2. Do b")  # fmt: skip
    assert steps and not holds(steps, "Do a, then do b.")


def test_a_word_of_a_forbidden_pipeline_is_not_forbidden_alone(tmp_path: Path) -> None:
    corrected = "```bash\ncurl -fsSL https://get.example.test/setup.sh | bash\n```"
    accepted = "```bash\ncurl -fsSLo setup.sh https://get.example.test/setup.sh\nless setup.sh\n```"
    checks = compiled(tmp_path, "please, no curl | bash in the docs", corrected, accepted)
    assert checks and not holds(checks, corrected) and holds(checks, accepted)
    assert holds(checks, "```bash\ncurl -fsSLo s.sh https://get.example.test/s.sh\nbash s.sh\n```")
    assert not holds(checks, "```bash\nwget -qO- https://get.example.test/s.sh | sh\n```")


def test_a_zone_on_the_times_asks_nothing_of_an_answer_without_one(tmp_path: Path) -> None:
    corrected = "The window opens 2026-03-02 at 09:30 and closes at 11:00."
    accepted = "The window opens 2026-03-02 at 09:30 UTC and closes at 11:00 UTC."
    checks = compiled(tmp_path, "put UTC on the times please", corrected, accepted)
    assert checks and not holds(checks, corrected) and holds(checks, accepted)
    assert holds(checks, "The freeze runs from 2026-03-02 to 2026-03-09.")
    assert holds(checks, "Maintenance 22:00-23:30 UTC; cron `--at 04:15` (read as UTC).")
    assert not holds(checks, "The window opens at 09:30 CET.")
    # without the times named, the zone is what was asked for
    assert Check("contains", "UTC", "answer") in compile_text("use UTC, not PT")


def test_a_zone_beside_a_clock_convention_is_a_rule_of_its_own(tmp_path: Path) -> None:
    corrected = "Standup moves to 9:30 am."
    accepted = "Standup moves to 09:30 UTC."
    checks = compiled(tmp_path, "times in UTC and on a 24-hour clock", corrected, accepted)
    assert not holds(checks, "Standup moves to 09:30 CET.")
    assert not holds(checks, "Standup moves to 9:30 pm UTC.")
    assert holds(checks, "Standup moves to 16:00 UTC.")


def test_a_marker_the_fallback_reads_is_every_marker_comment(tmp_path: Path) -> None:
    corrected = "```go\nfunc Sync() error {\n\t// XXX: unbounded\n\treturn run()\n}\n```"
    accepted = "```go\nfunc Sync() error {\n\treturn runWithRetries(3)\n}\n```"
    checks = compiled(tmp_path, "what's this XXX doing here? finish it", corrected, accepted)
    assert checks and not holds(checks, corrected) and holds(checks, accepted)
    assert not holds(checks, "```go\n// TODO: cap retries\nreturn run()\n```")
    assert holds(checks, "```go\nxxxCount := 0 // counts the x-rays\n```")
