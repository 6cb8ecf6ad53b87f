"""The tuning session corpus's recurring kinds of work (benchmarks/sessions/tuning.py): per
kind, the user's skill and how often it is invoked, the phrasing families of its requests,
the procedure the agent follows (each step with its probability), the answer, and the
corrections the user sometimes follows it with."""

from __future__ import annotations

from dataclasses import dataclass

# (probability, call kind, argument template): one step of a kind's procedure.
Step = tuple[float, str, str]


@dataclass(frozen=True)
class Kind:
    skill: str | None
    skill_rate: float  # share of its requests that load the skill
    families: tuple[tuple[str, ...], ...]  # phrasings; families share no content word
    steps: tuple[Step, ...]
    answer: str
    corrections: tuple[str, ...]


KINDS: dict[str, Kind] = {
    "commit-message": Kind(
        "commit-message",
        0.6,
        (
            (
                "write a commit message for the staged changes",
                "commit message for what is staged please",
                "give me a conventional commit message for the staged diff",
            ),
            (
                "sum up my pending edits so I can record them",
                "summarize these pending edits for the record",
                "record my pending edits with a short summary",
            ),
            (
                "describe what I did for git log",
                "one line for the history about this work",
                "what should the history say about this work",
            ),
            (
                "check in the {mod} tweaks with a proper title",
                "check in everything under {mod} with a good title",
            ),
        ),
        (
            (0.7, "bash", "git status"),
            (0.9, "bash", "git diff --staged"),
            (0.3, "bash", "git diff --staged --stat"),
            (0.4, "bash", "git log --oneline -n 10"),
            (0.5, "bash", 'git commit -m "{msg}"'),
        ),
        "feat({mod}): handle empty input\n\nGuard the parser against empty files.",
        ("no, keep the subject under 50 characters", "no, use the imperative mood"),
    ),  # fmt: skip
    "changelog": Kind(
        "release-notes",
        0.5,
        (
            (
                "update the changelog for release {ver}",
                "add the {ver} entries to the changelog",
                "changelog entry for version {ver}",
            ),
            (
                "what is new since {prev}? note it for users",
                "list user-visible improvements shipped since {prev}",
                "note the user-facing improvements since {prev}",
            ),
            ("prepare the notes for the {ver} cut", "draft notes for cutting {ver}"),
            ("bump the version to {ver} and document it", "document {ver} and bump the version"),
        ),
        (
            (0.6, "bash", "git tag --sort=-creatordate"),
            (0.9, "bash", "git log --oneline v{prev}..HEAD"),
            (0.6, "read", "CHANGELOG.md"),
            (0.95, "edit", "CHANGELOG.md"),
            (0.4, "read", "pyproject.toml"),
            (0.2, "edit", "pyproject.toml"),
        ),
        "## {ver}\n\n### Added\n- Export to CSV\n\n### Fixed\n- Crash on empty input",
        ("no, group the entries by Added, Changed and Fixed", "no, leave out internal refactors"),
    ),  # fmt: skip
    "regression-test": Kind(
        None,
        0.0,
        (
            (
                "add a regression test for bug #{num}",
                "write a regression test that reproduces bug {num}",
                "regression test for the crash in {func}",
            ),
            (
                "make sure #{num} never comes back",
                "guard against #{num} coming back",
                "ensure #{num} stays fixed",
            ),
            (
                "pin down the {func} fix with a failing case first",
                "pin the {func} fix with a case that failed before",
            ),
            ("the suite should catch {func} breaking again", "cover {func} in the suite"),
        ),
        (
            (0.6, "grep", "def {func}"),
            (0.8, "read", "src/{pkg}/{mod}.py"),
            (0.6, "write", "tests/test_{mod}_regression.py"),
            (0.35, "edit", "tests/test_{mod}.py"),
            (0.8, "bash", "pytest tests/test_{mod}.py -k {test}"),
            (0.3, "bash", "pytest -q"),
            (0.2, "bash", "git stash"),
        ),
        "Added `{test}`, which fails on the old code and passes with the fix.",
        ("no, use pytest not unittest", "no, don't mock the parser"),
    ),  # fmt: skip
    "flaky-test": Kind(
        None,
        0.0,
        (
            ("the test {test} is flaky, find out why", "investigate the flaky test {test}"),
            (
                "{test} passes locally but randomly dies on the build server",
                "{test} randomly dies, it passes locally",
            ),
            (
                "intermittent failure in {test}, find the race",
                "hunt the race behind the intermittent {test} failure",
            ),
            ("why does {test} go red one run in {n}", "{test} goes red once every {n} runs"),
        ),
        (
            (0.8, "read", "tests/test_{mod}.py"),
            (0.6, "read", "tests/conftest.py"),
            (0.7, "bash", "pytest tests/test_{mod}.py -k {test} --count 50"),
            (0.4, "bash", "pytest -p no:randomly tests/test_{mod}.py"),
            (0.4, "bash", "gh run list --workflow ci.yml --status failure"),
            (0.5, "edit", "tests/test_{mod}.py"),
        ),
        "The test shares a temp dir with another test; it now uses `tmp_path`.",
        ("no, don't just add a retry", "no, the sleep is not a fix"),
    ),  # fmt: skip
    "sql-migration": Kind(
        "db-migration",
        0.7,
        (
            (
                "write a migration that adds column {col} to {tbl}",
                "add a database migration for the new {col} column on {tbl}",
            ),
            ("{tbl} needs a {col} field", "give {tbl} a {col} field"),
            ("schema change: {col} on {tbl}", "schema change for {tbl} with {col}"),
            ("store {col} for each row of {tbl}", "keep track of {col} per {tbl} row"),
        ),
        (
            (0.8, "read", "src/{pkg}/models.py"),
            (0.6, "edit", "src/{pkg}/models.py"),
            (0.85, "bash", 'alembic revision --autogenerate -m "add {col} to {tbl}"'),
            (0.6, "bash", "alembic upgrade head"),
            (0.5, "write", "migrations/versions/{hash}_add_{col}.py"),
            (0.2, "bash", "alembic history"),
        ),
        "Added revision `{hash}` adding `{tbl}.{col}` (nullable), with a downgrade.",
        ("no, make the column nullable", "no, add a server default"),
    ),  # fmt: skip
    "dependency-bump": Kind(
        "deps-upgrade",
        0.6,
        (
            (
                "bump {dep} to the latest version and fix what breaks",
                "upgrade {dep} to {ver} and fix what breaks",
            ),
            ("move {dep} forward to {ver}", "move us forward on {dep}"),
            ("we are behind on {dep}, get us current", "get us current on {dep}"),
            ("is there a safe {dep} release we can take", "take the newest safe {dep} release"),
        ),
        (
            (0.5, "bash", "pip index versions {dep}"),
            (0.85, "edit", "pyproject.toml"),
            (0.8, "bash", "uv lock --upgrade-package {dep}"),
            (0.4, "bash", "uv sync"),
            (0.7, "bash", "pytest -q"),
            (0.3, "read", "pyproject.toml"),
        ),
        "{dep} is now {ver}; two call sites used a removed argument and were updated.",
        ("no, pin the exact version", "no, don't touch the other packages"),
    ),  # fmt: skip
    "ci-failure": Kind(
        None,
        0.0,
        (
            ("summarize the failing CI log", "why did CI fail? summarize the log for run {run}"),
            ("why is the pipeline red", "the pipeline went red again, what happened"),
            (
                "tell me what went wrong on the build server",
                "what went wrong on the build server this time",
            ),
            ("job {run} broke, give me the gist", "give me the gist of job {run}"),
        ),
        (
            (0.6, "bash", "gh run list --limit 5"),
            (0.9, "bash", "gh run view {run} --log-failed"),
            (0.4, "read", ".github/workflows/ci.yml"),
        ),
        "The lint step failed: ruff found an unused import in `{mod}.py`.",
        ("no, I want the root cause, not the log", "no, shorter"),
    ),  # fmt: skip
    "pr-description": Kind(
        "pr-writer",
        0.6,
        (
            (
                "write a pull request description for this branch",
                "draft the PR description for {branch}",
            ),
            ("text for the merge page of {branch}", "fill in the merge page text for {branch}"),
            (
                "help reviewers of {branch} understand it",
                "what should reviewers know about {branch}",
            ),
            ("open it up for review with a summary", "open {branch} up for review"),
        ),
        (
            (0.8, "bash", "git log --oneline main..HEAD"),
            (0.7, "bash", "git diff main...HEAD --stat"),
            (0.4, "read", ".github/pull_request_template.md"),
            (0.5, "bash", 'gh pr create --title "{msg}" --body-file /tmp/pr.md'),
            (0.2, "bash", "gh pr edit --body-file /tmp/pr.md"),
        ),
        "## Summary\n- Adds CSV export\n\n## Test plan\n- pytest",
        ("no, add a test plan section", "no, drop the file list"),
    ),  # fmt: skip
    "type-hints": Kind(
        None,
        0.0,
        (
            ("add type hints to {file}", "add type hints to every function in {file}"),
            ("make {file} pass mypy", "{file} fails mypy, fix it"),
            ("static typing for {file}", "static typing for the public API of {file}"),
            ("annotate the signatures in {file}", "annotate {func} and its callers"),
        ),
        (
            (0.9, "read", "{file}"),
            (0.9, "edit", "{file}"),
            (0.75, "bash", "mypy {file}"),
            (0.2, "bash", "mypy --strict {file}"),
        ),
        "Annotated 12 functions; mypy is clean on `{file}`.",
        ("no, don't use Any", "no, use the built-in generics"),
    ),  # fmt: skip
}
