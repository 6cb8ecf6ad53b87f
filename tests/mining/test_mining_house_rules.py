"""House rules users state about code, commands and style compile into judges that mean
them: the corrected answer fails, the accepted one passes, and so do other answers that
obey or break the rule (some near its edge: an en dash for "no em dashes", `$HOME` for "no
prompts", a `#` inside a string for "no comments", UTF-8 for "no ticket keys")."""

from __future__ import annotations

import pytest

from skillopt_sleep.mining.contrast import compile_pair, separates
from skillopt_sleep.mining.grammar import Check, compile_text
from trainer.checks import passes


def judges(said: str, corrected: str, accepted: str) -> list[Check]:
    """The checks mining keeps: compiled, then verified against the pair."""
    return [c for c in compile_pair(said, corrected, accepted) if separates(c, corrected, accepted)]


def ok(checks: list[Check], answer: str) -> bool:
    return all(passes(c.kind, c.value, c.scope, answer) for c in checks)


def fence(code: str, lang: str = "") -> str:
    return f"```{lang}\n{code}\n```"


CASES = [
    # (said, corrected, accepted, obeys, violates)
    (
        "please stop with the em-dashes, commas do the job",
        "Fast \u2014 and cheap.",
        "Fast, and cheap.",
        ["Pages 3\u20135 changed."],
        ["It works \u2014 mostly."],
    ),
    (
        "no task-list boxes in the description please",
        "- [ ] run tests\n- [x] update docs",
        "- run tests\n- update docs",
        ["- plain item"],
        ["* [x] done"],
    ),
    (
        "skip the h1, the page already shows a title",
        "# Release 4\n\n## Fixes\n- a",
        "## Fixes\n- a",
        ["## Notes\ntext\n" + fence("# a shell comment", "sh")],
        ["# Big title\ntext"],
    ),
    (
        "no dollar signs before the commands please",
        fence("$ make build\n$ make test", "sh"),
        fence("make build\nmake test", "sh"),
        [fence("echo $HOME", "sh")],
        [fence("$ ls")],
    ),
    (
        "strip out the comments, the code speaks for itself",
        fence("total = 0  # running sum\nfor x in xs:\n    total += x", "python"),
        fence("total = 0\nfor x in xs:\n    total += x", "python"),
        [fence('url = "https://host/#anchor"', "python")],
        [fence("let a = 1; // one", "js")],
    ),
    (
        "catch-alls hide bugs, name the exception you expect",
        fence("try:\n    go()\nexcept:\n    pass", "python"),
        fence("try:\n    go()\nexcept OSError:\n    pass", "python"),
        [fence("try:\n    x()\nexcept (KeyError, ValueError):\n    raise", "python")],
        [fence("try:\n    y()\nexcept :\n    pass", "python")],
    ),
    (
        "every function needs a return type",
        fence("def area(r):\n    return 3.14 * r * r", "python"),
        fence("def area(r: float) -> float:\n    return 3.14 * r * r", "python"),
        [fence("async def run() -> None:\n    await go()", "python")],
        [fence("def helper(x: int):\n    return x", "python")],
    ),
    (
        "test functions in snake_case please",
        fence("def testParsesEmpty():\n    assert parse('') == []", "python"),
        fence("def test_parses_empty():\n    assert parse('') == []", "python"),
        [fence("def test_http2_upgrade():\n    pass", "python")],
        [fence("def checkValue():\n    pass", "python")],
    ),
    (
        "use double quotes for string literals",
        fence("name = 'x'", "python"),
        fence('name = "x"', "python"),
        [fence("msg = \"it's fine\"  # it's fine", "python")],
        [fence("path = f'{a}/b'", "python")],
    ),
    (
        "house style is British English, please",
        "We optimized the color palette.",
        "We optimised the colour palette.",
        ["Resize the window to see the citizens list."],
        ["Customize the behavior."],
    ),
    (
        "leave an empty line between the summary line and the body",
        "Add cache\nIt speeds up reads.",
        "Add cache\n\nIt speeds up reads.",
        ["Fix typo"],
        ["Bump deps\nNothing else changed."],
    ),
    (
        "don't hedge, say what happened",
        "The job probably failed on a timeout.",
        "The job failed on a timeout at 02:14.",
        ["The deploy finished in 4 minutes."],
        ["It might be the cache."],
    ),
    (
        "tone down the marketing speak",
        "We're thrilled to ship a game-changing search.",
        "Search now matches partial words.",
        ["Search is now faster on large projects."],
        ["A seamless new login flow."],
    ),
    (
        "no force pushing please, with-lease only",
        fence("git push -f origin main", "sh"),
        fence("git push --force-with-lease origin main", "sh"),
        [fence("git push origin main\ntail -f app.log", "sh")],
        [fence("git push --force", "sh")],
    ),
    (
        "please never curl straight into sh",
        fence("curl -fsSL https://get.example/install.sh | sh", "sh"),
        fence("curl -fsSLo install.sh https://get.example/install.sh\nsh install.sh", "sh"),
        [fence("grep -c ok log.txt | wc -l", "sh")],
        [fence("wget -qO- https://y.example | bash", "sh")],
    ),
    (
        "stage the files by name, not everything",
        fence("git add -A\ngit commit -m 'Fix'", "sh"),
        fence("git add src/app.py\ngit commit -m 'Fix'", "sh"),
        [fence("git add README.md", "sh")],
        [fence("git add .\ngit commit", "sh")],
    ),
    (
        "put each command on its own line instead of chaining them",
        fence("make && make test", "sh"),
        fence("make\nmake test", "sh"),
        [fence("ls", "sh")],
        [fence("cd src && ls", "sh")],
    ),
    (
        "wildcard imports aren't allowed here",
        fence("from os.path import *", "python"),
        fence("from os.path import join", "python"),
        [fence("import os", "python")],
        [fence("from typing import *", "python")],
    ),
    (
        "this goes to customers, keep the Jira keys like ABC-12 out",
        "Fixed the login loop (WEB-311).",
        "Fixed the login loop.",
        ["Now reads UTF-8 and checks SHA-256 sums."],
        ["Closes OPS-7."],
    ),
    (
        "versions are written 3.1.0, not v3.1.0",
        "Released v3.1.0 today.",
        "Released 3.1.0 today.",
        ["Version 3.1.0 ships the fix; 3.0.9 is the last of the 3.0 line."],
        ["Upgrade to v2.9.1 first."],
    ),
    (
        "lines of code over 100 chars break our linter",
        fence("result = compute(" + ", ".join(f"arg{i}" for i in range(20)) + ")", "python"),
        fence("result = compute(\n    *args,\n)", "python"),
        ["A long sentence of prose that runs on " * 5 + "\n" + fence("x = 1", "python")],
        [fence("y = " + " + ".join(str(i) for i in range(40)), "python")],
    ),
    (
        "please don't @here the whole channel for this",
        "@here staging is back up",
        "Staging is back up.",
        ["Ping me at dev@example.com if it breaks."],
        ["@channel deploy done"],
    ),
    (
        "every bullet should end with its issue, like (#42)",
        "- Fix crash on empty input\n- Add --json flag (#40)",
        "- Fix crash on empty input (#41)\n- Add --json flag (#40)",
        ["- Speed up startup (#77)"],
        ["- (#9) Fix crash\n- Add flag (#10)"],
    ),
    (
        "the DCO check failed, add the sign-off trailer",
        "Fix the retry loop",
        "Fix the retry loop\n\nSigned-off-by: Ana Lima <ana@example.com>",
        ["Bump deps\n\nSigned-off-by: Bo Chen <bo@example.org>"],
        ["Bump deps\n\nSigned: Bo"],
    ),
    (
        "no 'this change …' narration, just state it",
        "This change adds retries to uploads.",
        "Adds retries to uploads.",
        ["Adds a changelog entry for the change."],
        ["This patch bumps the version."],
    ),
    (
        "Google-style docstrings please, not reST :param: fields",
        fence('def f(a):\n    """Do it.\n\n    :param a: the input\n    """', "python"),
        fence('def f(a):\n    """Do it.\n\n    Args:\n        a: the input\n    """', "python"),
        [fence('def g():\n    """Return nothing."""', "python")],
        [fence('def h(b):\n    """Go.\n\n    :returns: b\n    """', "python")],
    ),
    (
        "s/leverage/use/ in the intro",
        "We leverage a queue.",
        "We use a queue.",
        ["Use the queue."],
        ["Leverage the cache."],
    ),
    (
        "f-strings please, not % formatting",
        fence("msg = 'hi %s' % name", "python"),
        fence('msg = f"hi {name}"', "python"),
        [fence('pct = f"{n}%"', "python")],
        [fence("line = '%d items' % n", "python")],
    ),
    (
        "we indent with four spaces here, not tabs",
        fence("def f():\n\treturn 1", "python"),
        fence("def f():\n    return 1", "python"),
        [fence('sep = "\\t"', "python")],
        [fence("if x:\n\ty()", "python")],
    ),
    (
        "no trailing whitespace please",
        "line one   \nline two",
        "line one\nline two",
        ["one line"],
        ["a \nb"],
    ),
    (
        '"Cheers, hope that helps!" — please don\'t sign off like that',
        "Merged.\n\nCheers, hope that helps!",
        "Merged.",
        ["Cheers to the team for the fix."],
        ["Done.\nCheers, hope that helps!"],
    ),
    (
        "changelog lines start with a past-tense verb, like 'Removed', 'Fixed'",
        "- Remove the old flag",
        "- Removed the old flag",
        ["- Added a retry"],
        ["- Update the docs"],
    ),
    (
        "can you take the line numbers out of the snippet? I can't paste it",
        fence("1  total = 0\n2  for x in xs:\n3      total += x", "python"),
        fence("total = 0\nfor x in xs:\n    total += x", "python"),
        [fence("x = [1, 2]\ny = 10 * x", "python")],
        [fence("10: print(a)", "python")],
    ),
    (
        "tag the code block as sql",
        fence("select 1"),
        fence("select 1", "sql"),
        [fence("x = 1", "python")],
        [fence("select 2")],
    ),
]


@pytest.mark.parametrize(
    ("said", "corrected", "accepted", "obeys", "violates"), CASES, ids=[c[0][:40] for c in CASES]
)
def test_a_house_rule_becomes_a_judge_that_means_it(
    said: str, corrected: str, accepted: str, obeys: list[str], violates: list[str]
) -> None:
    checks = judges(said, corrected, accepted)
    assert checks, said
    assert not ok(checks, corrected) and ok(checks, accepted)
    for answer in obeys:
        assert ok(checks, answer), (said, answer, checks)
    for answer in violates:
        assert not ok(checks, answer), (said, answer, checks)


def test_a_tense_pair_with_ing_asks_for_the_command_form() -> None:
    checks = compile_text("'Add', not 'Adding' — the subject is a command", "Adding cache")
    assert Check("has", "imperative", "first_line") in checks
    assert not passes("has", "imperative", "first_line", "Adding a cache layer")
    assert passes("has", "imperative", "first_line", "Add a cache layer")


def test_a_limit_in_brackets_and_a_wrap_width_are_counts() -> None:
    said = "too long (60 is the max) for the subject"
    long_subject = "Rework the scheduler so that retries back off exponentially per queue"
    checks = judges(said, long_subject, "Back off retries exponentially per queue")
    assert Check("max_chars", "60", "first_line") in checks
    body = "Fix x\n\n" + "word " * 30
    wrapped = "Fix x\n\n" + ("word " * 10 + "\n") * 3
    assert Check("max_chars", "72", "lines") in judges("the body isn't wrapped. 72.", body, wrapped)
    code_long = fence("x = " + "1 + " * 30 + "1", "python")
    code_short = fence("x = sum([1] * 31)", "python")
    got = judges("keep lines under 90", code_long, code_short)
    assert got and all(c.scope == "code_lines" for c in got)  # only the code was long


def test_fewer_is_a_degree_not_a_ban() -> None:
    checks = compile_text("fewer emojis please", "Done 🎉🎉🎉 ✅")
    assert Check("no", "emoji", "answer") not in checks


def test_a_linter_code_or_a_rejected_date_is_no_identifier_asked_for() -> None:
    assert not any(c.kind == "identifier_like" for c in compile_text("line too long (E501)"))
    checks = compile_text("'03/04' reads two ways, write 2025-03-04")
    assert [c.value for c in checks if c.kind == "identifier_like"] == ["2025-03-04"]


def test_a_word_at_the_start_and_case_of_phrases() -> None:
    assert not passes("starts_with", "Here", "first_line", "Hereford office gets a VPN")
    assert passes("starts_with", "Here", "first_line", "Here you go")
    assert not passes("not_contains", "this PR", "answer", "This PR adds a flag.")
    assert passes("not_contains", "this PR", "answer", "this pr adds a flag")  # PR as written
    assert not passes("not_contains", "Co-Authored-By", "answer", "x\n\nCo-authored-by: A <a@b>")
    assert not passes("not_contains", "getUser", "answer", "call getUser()")
    assert passes("not_contains", "getUser", "answer", "call getuser()")


def test_a_dash_the_user_writes_is_no_rule_about_dashes() -> None:
    said = "'Kind regards' \u2014 please drop it, it's a chat"
    checks = judges(said, "Done.\n\nKind regards", "Done.")
    assert checks and not any(c.value == "em_dash" for c in checks)
