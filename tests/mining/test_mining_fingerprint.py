"""The fingerprint: what a request made the agent do, as units mining can compare."""

from __future__ import annotations

from skillopt_sleep.mining.fingerprint import command_units, file_units, units

PROJECT = "/home/dev/src/shop"


def test_a_command_is_its_head_subcommands_and_flags_not_its_arguments() -> None:
    assert command_units('git commit -m "fix: the cart && totals"') == (
        ("$ git commit", "$ git commit -m"),
        (),
    )
    assert command_units("gh run view 8812734 --log-failed")[0] == (
        "$ gh run view",
        "$ gh run view --log-failed",
    )
    assert command_units("git log --oneline v1.2.0..HEAD") == (
        ("$ git log", "$ git log --oneline"),
        (),
    )  # a revision range is no file
    cmds, paths = command_units("pytest tests/test_cart.py -k test_totals --count=50")
    assert cmds == ("$ pytest", "$ pytest -k", "$ pytest --count")
    assert paths == ("tests/test_cart.py",)


def test_wrappers_shells_and_chains_are_seen_through() -> None:
    assert command_units("cd src && uv run pytest -q")[0] == ("$ pytest", "$ pytest -q")
    assert command_units("bash -lc 'git status && ls'")[0] == ("$ git status", "$ ls")
    assert command_units("FOO=1 npx vitest run src/a.test.ts")[0] == ("$ vitest run",)
    assert command_units("cat x.py | grep total\nls -la")[0] == (
        "$ cat", "$ grep total", "$ ls", "$ ls -la",
    )  # fmt: skip
    assert command_units('echo "unbalanced')[0] == ("$ echo unbalanced",)  # clipped summary


def test_files_are_named_and_placed_inside_the_project_only() -> None:
    assert file_units(f"{PROJECT}/migrations/versions/3f2a9c1d7e6b_add_col.py", PROJECT) == (
        "@ #_add_col.py",
        "@ migrations/",
        "@ versions/",
    )
    assert file_units(f"{PROJECT}/CHANGELOG.md", PROJECT) == ("@ CHANGELOG.md",)
    assert file_units("/tmp/pr.md", PROJECT) == ("@ pr.md",)  # outside: no folders
    assert file_units(".github/workflows/ci.yml", PROJECT) == (
        "@ ci.yml",
        "@ .github/",
        "@ workflows/",
    )


def test_a_turns_units_come_from_every_kind_of_tool_call() -> None:
    calls = [
        ("Bash", "git diff --staged"),
        ("Read", f"{PROJECT}/src/shop/cart.py"),
        ("apply_patch", "*** Begin Patch\n*** Update File: CHANGELOG.md\n@@\n-a\n+b"),
        ("exec_command", "sed -n '1,200p' pyproject.toml"),
        ("shell_command", "gh run view 42 --log-failed"),  # Codex's string-command shell
        ("mcp__github__create_pull_request", "{title}"),
        ("TodoWrite", "3 todos"),
        ("Skill", "commit-message"),  # the skill is read apart, not as a unit
    ]
    assert units(calls, PROJECT) == [
        "$ git diff", "$ git diff --staged", "@ cart.py", "@ src/", "@ shop/",
        "@ CHANGELOG.md", "$ sed", "$ sed -n", "@ pyproject.toml",
        "$ gh run view", "$ gh run view --log-failed", "% mcp__github__create_pull_request",
    ]  # fmt: skip
