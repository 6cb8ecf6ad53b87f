"""Plausible file contents and command outputs for the held-out sessions.

Small (5–40 lines) so a 100k-session tree stays a few GB, shaped like the real thing so a
reader of the logs sees what an agent would have seen: ``git diff`` hunks, pytest
summaries, alembic and uv output, gh run logs, a CHANGELOG, a pyproject.
"""

from __future__ import annotations

import random

from benchmarks.sessions.heldout_world import Project

SUBJECTS = (
    "fix rounding in totals",
    "add retry to feed client",
    "tidy imports",
    "bump ruff",
    "handle empty payloads",
    "speed up csv export",
    "docs: fix typo in README",
    "refactor settings loading",
    "test: cover pagination",
    "drop python 3.10",
    "log request ids",
    "cache fx rates for an hour",
    "rename helper",
    "ci: pin actions",
)


def hexid(rng: random.Random, n: int) -> str:
    return f"{rng.getrandbits(4 * n):0{n}x}"


def version(v: tuple[int, int, int]) -> str:
    return ".".join(map(str, v))


def module_text(project: Project, rel: str, rng: random.Random) -> str:
    stem = rel.rsplit("/", 1)[-1].removesuffix(".py")
    fns = rng.sample(project.functions, min(2, len(project.functions)))
    out = [
        f'"""{stem.replace("_", " ").strip()} for {project.name}."""',
        "",
        "from __future__ import annotations",
        "",
        "import logging",
        "",
        "log = logging.getLogger(__name__)",
        "",
    ]
    for fn in fns:
        out += [
            "",
            f"def {fn}(value, *, strict=False):",
            f'    """{fn.replace("_", " ").capitalize()}."""',
            "    if not value:",
            "        return None",
            f"    result = _{rng.choice(('normalize', 'coerce', 'clean'))}(value)",
            '    log.debug("%s -> %s", value, result)',
            "    return result",
            "",
        ]
    return "\n".join(out)


def test_text(project: Project, test_file: str, names: list[str]) -> str:
    out = ["import pytest", "", f"from {project.package} import {project.functions[0]}", ""]
    for name in names:
        out += ["", f"def {name}():", f"    assert {project.functions[0]}('x') is not None", ""]
    return "\n".join(out)


def changelog_text(project: Project, rng: random.Random) -> str:
    v = version(project.version)
    return (
        "# Changelog\n\nAll notable changes to this project are documented here.\n\n"
        f"## [Unreleased]\n\n### Fixed\n- {rng.choice(SUBJECTS).capitalize()}.\n\n"
        f"## [{v}] - 2026-02-{rng.randint(10, 27)}\n\n### Added\n"
        f"- {rng.choice(project.features or ('docs',)).capitalize()}.\n"
    )


def pyproject_text(project: Project, pins: dict[str, str]) -> str:
    deps = "\n".join(f'    "{d}{pins.get(d, ">=1.0")}",' for d in project.deps)
    return (
        f'[project]\nname = "{project.name}"\nversion = "{version(project.version)}"\n'
        f'requires-python = ">=3.11"\ndependencies = [\n{deps}\n]\n\n'
        '[tool.pytest.ini_options]\ntestpaths = ["tests"]\n'
    )


def migration_text(rev: str, down: str, slug: str, table: str, column: str) -> str:
    return (
        f'"""{slug.replace("_", " ")}\n\nRevision ID: {rev}\nRevises: {down}\n"""\n'
        "from alembic import op\nimport sqlalchemy as sa\n\n"
        f'revision = "{rev}"\ndown_revision = "{down}"\n\n\n'
        f'def upgrade():\n    op.add_column("{table}", sa.Column("{column}", '
        "sa.DateTime(), nullable=True))\n\n\n"
        f'def downgrade():\n    op.drop_column("{table}", "{column}")\n'
    )


def readme_text(project: Project) -> str:
    return (
        f"# {project.name}\n\n## Install\n\n    pip install -e .[dev]\n\n## Develop\n\n"
        "    make dev\n    pytest -q\n\n## License\n\nMIT\n"
    )


def workflow_text() -> str:
    return (
        "name: ci\non: [push, pull_request]\njobs:\n  test:\n    runs-on: ubuntu-latest\n"
        "    strategy:\n      matrix:\n        python: ['3.11', '3.12']\n    steps:\n"
        "      - uses: actions/checkout@v4\n      - run: pip install -e .[dev]\n"
        "      - run: pytest -q\n"
    )


def numbered(text: str) -> str:
    """Claude Code's Read result: ``cat -n`` style with an arrow."""
    return "\n".join(f"{i:>6}→{line}" for i, line in enumerate(text.split("\n"), 1))


def git_status(modules: list[str], staged: bool) -> str:
    mark = "M " if staged else " M"
    lines = [f"{mark} {m}" for m in modules] + ["?? scratch.txt"]
    return "\n".join(lines)


# Staged changes a commit message describes: (hunk header, removed, added, subject, why).
CHANGES = (
    ("def handler(request):", ["    if data is None:", "        return error(400)"],
     ["    if not data:", '        log.warning("empty payload from %s", request.remote_addr)',
      '        return error(400, "empty payload")'],
     "reject empty payloads early", "Log the sender and answer 400 before process() fails."),
    ("def fetch(url):", ["    return session.get(url)"],
     ["    return session.get(url, timeout=10)"],
     "set a timeout on outgoing requests", "A stalled upstream blocked a worker forever."),
    ("class Config:", ["    debug = True"], ['    debug = os.environ.get("DEBUG") == "1"'],
     "read debug from the environment", "Production ran with debug on."),
    ("def total(items):", ["    return sum(i.price for i in items)"],
     ["    return sum((i.price for i in items), Decimal(0)).quantize(CENT)"],
     "sum prices as Decimal", "Float sums were off by a cent on some invoices."),
    ("def load(path):", ["    with open(path) as f:"],
     ['    with open(path, encoding="utf-8") as f:'],
     "open files as utf-8", "Windows users got cp1252 decoding errors."),
)  # fmt: skip


def git_diff(modules: list[str], change: int, rng: random.Random) -> str:
    header, removed, added, _, _ = CHANGES[change]
    out = []
    for m in modules:
        n = rng.randint(8, 120)
        out += [
            f"diff --git a/{m} b/{m}",
            f"index {hexid(rng, 7)}..{hexid(rng, 7)} 100644",
            f"--- a/{m}",
            f"+++ b/{m}",
            f"@@ -{n},{len(removed) + 2} +{n},{len(added) + 2} @@ {header}",
            *(f"-{x}" for x in removed),
            *(f"+{x}" for x in added),
        ]
    return "\n".join(out)


def git_log(rng: random.Random, n: int) -> str:
    return "\n".join(f"{hexid(rng, 7)} {rng.choice(SUBJECTS)}" for _ in range(n))


def gh_prs(rng: random.Random, n: int) -> str:
    rows = []
    for _ in range(n):
        subject = rng.choice(SUBJECTS)
        rows.append(f"{rng.randint(120, 980)}\t{subject}\t{subject.split()[0]}-{hexid(rng, 4)}"
                    "\tMERGED")  # fmt: skip
    return "\n".join(rows)


def pytest_pass(n: int, seconds: float) -> str:
    dots = "." * min(n, 60)
    return f"{dots} [100%]\n{n} passed in {seconds:.2f}s"


def pytest_fail(test: str, n: int, rng: random.Random) -> str:
    file, _, name = test.partition("::")
    return (
        f"{'.' * 5}F{'.' * 4} [100%]\n=================================== FAILURES "
        f"===================================\n_____ {name} _____\n\n    def {name}():\n"
        f">       assert result == expected\nE       AssertionError: assert {rng.randint(1, 99)}"
        f" == {rng.randint(100, 199)}\n\n{file}:{rng.randint(10, 90)}: AssertionError\n"
        f"=========================== short test summary info ============================\n"
        f"FAILED {test} - AssertionError\n1 failed, {n - 1} passed in {rng.uniform(1, 9):.2f}s"
    )


def gh_runs(branch: str, run: str, rng: random.Random) -> str:
    rows = [f"X  {rng.choice(SUBJECTS)}  ci  {branch}  push  {run}  {rng.randint(2, 9)}m12s"]
    for _ in range(3):
        rows.append(
            f"✓  {rng.choice(SUBJECTS)}  ci  {branch}  push  {rng.randint(10**9, 10**10)}"
            f"  {rng.randint(2, 9)}m{rng.randint(10, 59)}s"
        )
    return "STATUS  TITLE  WORKFLOW  BRANCH  EVENT  ID  ELAPSED\n" + "\n".join(rows)


def gh_failed_log(test: str, rng: random.Random) -> str:
    job = rng.choice(("test (3.11)", "test (3.12)", "lint"))
    return (
        f"{job}\tRun pytest -q\t2026-03-0{rng.randint(1, 9)}T10:1{rng.randint(0, 9)}:03Z "
        f"FAILED {test} - AssertionError\n{job}\tRun pytest -q\t... 1 failed, "
        f"{rng.randint(80, 300)} passed\n{job}\tRun pytest -q\tError: Process completed "
        "with exit code 1."
    )
