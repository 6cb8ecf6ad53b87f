"""A name the user writes in its own casing is asked for in that casing, where the pair shows
the corrected answer cased it otherwise; a domain or an identifier is no spelling of it."""

from __future__ import annotations

from skillopt_sleep.mining.casing import name_casing
from tests.judge_helpers import holds


def test_a_name_cased_otherwise_is_forbidden_and_its_domain_passes() -> None:
    corrected = "Install it with Homebrew on MacOS 14."
    accepted = "Install it with Homebrew on macOS 14."
    checks = name_casing("macOS, small m", corrected, accepted)
    assert checks and holds(checks, accepted) and not holds(checks, corrected)
    assert holds(checks, "See macos.example.test and set MACOS_SDK_PATH.")
    assert not holds(checks, "Runs on Macos and Linux.")


def test_nothing_is_read_when_the_pair_does_not_show_the_casing() -> None:
    corrected = '{"user_id": 7}'
    accepted = '{"userId": 7}'
    assert name_casing("userId, not user_id", corrected, accepted) == []
    assert name_casing("GitHub pls", "Push to GitLab.", "Push to GitHub.") == []
