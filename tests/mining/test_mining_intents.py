"""Intents: cleaning keeps the request, drops harness text and blobs; normalizing lets
occurrences of one task with different details meet."""

from __future__ import annotations

from skillopt_sleep.mining.intents import clean, intent, normalize


def test_paths_numbers_hashes_identifiers_meet() -> None:
    a = intent("fix the failing test in foo.py")[1]
    b = intent("Fix the failing test in src/pkg/bar.py")[1]
    assert a == b
    assert (
        intent("revert commit 3f9a2c1d and bump to 1.2.3")[1]
        == intent("revert commit 77be01aa9 and bump to 2.0")[1]
    )
    assert intent("rename parse_config to load")[1] == intent("rename loadUserName to load")[1]


def test_harness_text_removed() -> None:
    text = "<system-reminder>be brief</system-reminder>summarize the log\nCaveat: ignore"
    assert clean(text) == "summarize the log"


def test_pasted_blob_and_code_block_become_placeholders() -> None:
    log = "\n".join(f"2026-03-01T10:00:{i:02d} ERROR worker {i} crashed" for i in range(40))
    cleaned = clean(f"summarize this CI log:\n{log}\nthanks")
    assert "[pasted 40 lines]" in cleaned and "worker" not in cleaned
    code = "look at this\n```python\n" + "x = 1\n" * 30 + "```\nwhy does it fail"
    cleaned = clean(code)
    assert "[code block" in cleaned and "x = 1" not in cleaned
    assert clean("use `pytest -q` please") == "use `pytest -q` please"  # short code stays


def test_edge_inputs_do_not_crash() -> None:
    assert intent(None) == ("", "")
    assert intent("") == ("", "")
    assert intent("   \n\t ") == ("", "")
    assert intent("fix")[1] == "fix"
    big = "please review " + "lorem ipsum dolor sit amet " * 4000  # ~100 KB
    cleaned, norm = intent(big)
    assert len(cleaned) <= 610 and norm
    blob = "x" * 100_000
    assert intent(blob)[0] == "[pasted 1 lines]"
    cn, nn = intent("修复 foo.py 中失败的测试")
    assert "修复" in cn and "zpath" in nn
    assert normalize("Überprüfe die Änderungen") == "überprüfe die änderungen"
