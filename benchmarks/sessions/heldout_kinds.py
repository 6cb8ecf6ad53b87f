"""The recurring kinds' plans: each kind's characteristic commands and files.

Commands vary in their arguments (``git diff --staged`` / ``--cached`` / ``-- path``,
``alembic revision --autogenerate -m "…"``, ``pytest … --count=30``,
``uv lock --upgrade-package …``, ``gh run view … --log-failed``) and files are the kind's
own (CHANGELOG.md, migrations/versions/…, pyproject.toml, docs/releases/…), after the
common moves every plan may start with.
"""

from __future__ import annotations

import random

from benchmarks.sessions import heldout_files as F
from benchmarks.sessions.heldout_plans import Plan, Step, common_moves, suite
from benchmarks.sessions.heldout_world import Project


def kind_plan(kind: str, p: Project, s: dict[str, str], rng: random.Random) -> Plan:
    plan = Plan()
    common_moves(p, rng, plan)
    _KINDS[kind](p, s, rng, plan)
    return plan


def _commit(p: Project, s: dict[str, str], rng: random.Random, plan: Plan) -> None:
    mods = rng.sample(p.modules, min(len(p.modules), rng.randint(1, 2)))
    if rng.random() < 0.6:
        plan.steps.append(
            Step(
                "bash",
                "git status --short",
                F.git_status(mods, staged=True),
                say="Let me look at what's staged.",
            )
        )
    diff = rng.choice(
        (
            "git diff --staged",
            "git diff --cached",
            "git diff --staged --stat",
            f"git diff --staged -- {mods[0]}",
        )
    )
    change = rng.randrange(len(F.CHANGES))
    plan.steps.append(Step("bash", diff, F.git_diff(mods, change, rng)))
    if rng.random() < 0.4:
        plan.steps.append(
            Step(
                "bash",
                f"git log --oneline -{rng.randint(5, 10)}",
                F.git_log(rng, 6),
                say="Matching the repo's message style.",
            )
        )
    if rng.random() < 0.3:
        plan.steps.append(Step("read", mods[0], F.module_text(p, mods[0], rng)))
    scope = mods[0].split("/")[-1].removesuffix(".py")
    *_, what, why = F.CHANGES[change]
    subject = f"{rng.choice(('fix', 'feat', 'refactor'))}({scope}): {what}"
    if rng.random() < 0.2:
        short = F.hexid(rng, 7)
        plan.steps.append(
            Step(
                "bash",
                f'git commit -m "{subject}"',
                f"[{s['branch']} {short}] {subject}\n {len(mods)} files changed, "
                f"{rng.randint(3, 30)} insertions(+), {rng.randint(1, 9)} "
                "deletions(-)",
            )
        )
    plan.answer = f"Suggested message:\n\n```\n{subject}\n\n{why}\n```"


def _changelog(p: Project, s: dict[str, str], rng: random.Random, plan: Plan) -> None:
    tag = f"v{s['prev']}"
    if rng.random() < 0.5:
        plan.steps.append(Step("bash", "git describe --tags --abbrev=0", tag))
        plan.steps.append(Step("bash", f"git log --oneline {tag}..HEAD", F.git_log(rng, 7)))
    else:
        plan.steps.append(
            Step("bash", f"git log --oneline -{rng.randint(8, 20)}", F.git_log(rng, 8))
        )
    plan.steps.append(Step("read", "CHANGELOG.md", F.changelog_text(p, rng)))
    section = rng.choice(("Added", "Changed", "Fixed"))
    entry = f"### {section}\n- {s['feature'][:1].upper()}{s['feature'][1:]} (#{s['pr']})."
    plan.steps.append(
        Step("edit", "CHANGELOG.md", old="## [Unreleased]\n", new=f"## [Unreleased]\n\n{entry}\n")
    )
    plan.answer = f"Added to CHANGELOG.md under Unreleased:\n\n{entry}"


def _alembic(p: Project, s: dict[str, str], rng: random.Random, plan: Plan) -> None:
    models = next(m for m in p.modules if "models" in m)
    plan.steps.append(Step("read", models, F.module_text(p, models, rng)))
    table, column = s["table"], s["column"]
    if rng.random() < 0.4:
        plan.steps.append(
            Step(
                "edit",
                models,
                old=f"class {s['model']}(Base):\n",
                new=f"class {s['model']}(Base):\n    {column} = Column(DateTime, nullable=True)\n",
            )
        )
    down, rev = F.hexid(rng, 12), F.hexid(rng, 12)
    if rng.random() < 0.5:
        plan.steps.append(
            Step("bash", rng.choice(("alembic heads", "alembic current")), f"{down} (head)")
        )
    slug = rng.choice((f"add {column} to {table}", f"{table} {column}", f"add_{column}_to_{table}"))
    auto = "--autogenerate " if rng.random() < 0.75 else ""
    fname = f"migrations/versions/{rev}_{slug.replace(' ', '_')}.py"
    plan.steps.append(
        Step(
            "bash",
            f'alembic revision {auto}-m "{slug}"',
            "INFO  [alembic.runtime.migration] Context impl PostgresqlImpl.\n"
            f"INFO  [alembic.autogenerate.compare] Detected added column '{table}.{column}'\n"
            f"  Generating {p.cwd}/{fname} ...  done",
        )
    )
    if rng.random() < 0.4:
        olds = [f"migrations/versions/{F.hexid(rng, 12)}_{x}.py" for x in ("initial", "indexes")]
        plan.steps.append(Step("glob", "migrations/versions/*.py", "\n".join([*olds, fname])))
    plan.steps.append(Step("read", fname, F.migration_text(rev, down, slug, table, column)))
    if rng.random() < 0.5:
        plan.steps.append(
            Step(
                "edit",
                fname,
                old="nullable=True))",
                new="nullable=True, server_default=sa.func.now()))",
            )
        )
    plan.steps.append(
        Step(
            "bash",
            "alembic upgrade head",
            f"INFO  [alembic.runtime.migration] Running upgrade {down} -> {rev}, {slug}",
        )
    )
    if rng.random() < 0.5:
        plan.steps.append(
            Step(
                "bash",
                "alembic downgrade -1 && alembic upgrade head",
                f"INFO  [alembic.runtime.migration] Running downgrade {rev} -> "
                f"{down}\nINFO  [alembic.runtime.migration] Running upgrade "
                f"{down} -> {rev}",
            )
        )
    plan.answer = (
        f"Created `{fname}`: adds `{table}.{column}` (nullable) with a downgrade "
        "that drops it. Upgrade and downgrade both run cleanly."
    )


def _flaky(p: Project, s: dict[str, str], rng: random.Random, plan: Plan) -> None:
    test, file = s["test"], s["test"].partition("::")[0]
    runs = rng.choice((20, 25, 30, 50))
    loop = rng.choice(
        (
            f"pytest {test} -x -q --count={runs}",
            f"for i in $(seq 1 {runs}); do pytest -q {test} -p no:randomly || break; done",
            f"pytest -q -k {s['testname']} -p randomly --randomly-seed={rng.randint(1, 99999)}",
        )
    )
    fails = rng.random() < 0.65
    out = F.pytest_fail(test, runs, rng) if fails else F.pytest_pass(runs, rng.uniform(3, 20))
    plan.steps.append(
        Step("bash", loop, out, code=1 if fails else 0, say="Running it in a loop to reproduce.")
    )
    plan.steps.append(Step("read", file, F.test_text(p, file, [s["testname"]])))
    pattern = rng.choice(("time.sleep", "datetime.now|time.time", "random\\.", "asyncio.sleep"))
    plan.steps.append(Step("grep", pattern, f"{file}\n{rng.choice(p.modules)}"))
    if rng.random() < 0.5:
        mod = rng.choice(p.modules)
        plan.steps.append(Step("read", mod, F.module_text(p, mod, rng)))
    plan.steps.append(
        Step("edit", file, old="    time.sleep(0.1)\n", new="    clock.advance(0.1)\n")
    )
    plan.steps.append(Step("bash", loop, F.pytest_pass(runs, rng.uniform(3, 20))))
    plan.answer = (
        f"`{s['testname']}` depended on wall-clock timing: it slept 0.1 s and assumed "
        f"the background task had run. It now advances a fake clock; {runs} runs pass."
    )


def _bump(p: Project, s: dict[str, str], rng: random.Random, plan: Plan) -> None:
    pkg, old, new = s["pkg"], s["old"], s["ver"]
    plan.steps.append(Step("read", "pyproject.toml", F.pyproject_text(p, {pkg: f">={old}"})))
    probe = rng.choice(
        (f"pip index versions {pkg}", f"uv pip list --outdated | grep -i {pkg}", f"pip show {pkg}")
    )
    plan.steps.append(Step("bash", probe, f"{pkg} ({new})\nAvailable versions: {new}, {old}"))
    plan.steps.append(
        Step("edit", "pyproject.toml", old=f'"{pkg}>={old}",', new=f'"{pkg}>={new}",')
    )
    plan.steps.append(
        Step(
            "bash",
            f"uv lock --upgrade-package {pkg}",
            f"Resolved {rng.randint(30, 120)} packages in {rng.randint(200, 900)}"
            f"ms\nUpdated {pkg} v{old} -> v{new}",
        )
    )
    if rng.random() < 0.4:
        plan.steps.append(Step("grep", f"import {pkg}|from {pkg}", rng.choice(p.modules)))
    plan.steps.append(suite(p, rng))
    plan.answer = f"{pkg} is now >= {new} in pyproject.toml and uv.lock; the suite passes."


def _ci(p: Project, s: dict[str, str], rng: random.Random, plan: Plan) -> None:
    run, branch = s["run"], s["branch"]
    if rng.random() < 0.7:
        plan.steps.append(
            Step("bash", f"gh run list --branch {branch} --limit 5", F.gh_runs(branch, run, rng))
        )
    else:
        plan.steps.append(
            Step(
                "bash",
                f"gh pr checks {s['pr']}",
                f"test (3.12)\tfail\t4m2s\thttps://github.com/dana/{p.name}/"
                f"actions/runs/{run}\nlint\tpass\t41s",
            )
        )
    view = rng.choice((f"gh run view {run} --log-failed", f"gh run view {run} --log | tail -n 80"))
    plan.steps.append(Step("bash", view, F.gh_failed_log(s["test"], rng)))
    if rng.random() < 0.3:
        plan.steps.append(Step("read", ".github/workflows/ci.yml", F.workflow_text()))
    if rng.random() < 0.3:
        plan.steps.append(
            Step(
                "bash",
                f"pytest -q {s['test']}",
                F.pytest_fail(s["test"], 1, rng),
                code=1,
                say="Reproducing locally.",
            )
        )
    plan.answer = (
        f"Run {run} failed in the test job: `{s['test']}` asserts on a value that "
        "changed. Everything else passed; lint is green."
    )


def _release(p: Project, s: dict[str, str], rng: random.Random, plan: Plan) -> None:
    prev, nxt = s["prev"], s["next"]
    plan.steps.append(
        Step(
            "bash",
            rng.choice(("git tag --sort=-v:refname | head -5", "git tag -l 'v*' | tail -5")),
            f"v{prev}",
        )
    )
    plan.steps.append(
        Step(
            "bash",
            rng.choice(
                (
                    f"git log v{prev}..HEAD --merges --oneline",
                    f"git log v{prev}..HEAD --pretty=format:'%s'",
                )
            ),
            F.git_log(rng, 9),
        )
    )
    if rng.random() < 0.5:
        plan.steps.append(
            Step(
                "bash",
                f"gh pr list --state merged --base main --limit {rng.choice((30, 50))}",
                F.gh_prs(rng, 6),
            )
        )
    if rng.random() < 0.4:
        plan.steps.append(Step("read", "CHANGELOG.md", F.changelog_text(p, rng)))
    body = (
        f"# {p.name} {nxt}\n\n## Highlights\n- {rng.choice(p.features).capitalize()}\n\n"
        f"## Fixes\n- {rng.choice(p.bugs).capitalize()}\n"
    )
    if rng.random() < 0.7:
        plan.steps.append(Step("write", f"docs/releases/{nxt}.md", new=body))
    else:
        plan.steps.append(
            Step(
                "edit",
                "RELEASE_NOTES.md",
                old="# Release notes\n",
                new=f"# Release notes\n\n{body}",
            )
        )
    plan.answer = f"Drafted the {nxt} notes (highlights, fixes) from the merges since v{prev}."


def _regression(p: Project, s: dict[str, str], rng: random.Random, plan: Plan) -> None:
    fn, mod = s["fn"], s["module"]
    plan.steps.append(Step("grep", f"def {fn}", mod, say=f"Finding {fn}."))
    plan.steps.append(Step("read", mod, F.module_text(p, mod, rng)))
    tfile = f"tests/test_{mod.rsplit('/', 1)[-1].removesuffix('.py').lstrip('_')}.py"
    name = f"test_{fn}_regression_{s['num']}"
    if rng.random() < 0.4:
        plan.steps.append(
            Step(
                "glob",
                rng.choice(("tests/**/test_*.py", "tests/test_*.py")),
                "\n".join([tfile, *(t.partition("::")[0] for t in p.tests)]),
            )
        )
    plan.steps.append(Step("read", tfile, F.test_text(p, tfile, [f"test_{fn}"])))
    plan.steps.append(
        Step(
            "edit",
            tfile,
            old=f"def test_{fn}():\n",
            new=f"def {name}():\n    assert {fn}('') is None\n\n\ndef test_{fn}():\n",
        )
    )
    cmd = rng.choice(
        (f"pytest {tfile} -k {name} -q", f"pytest {tfile}::{name}", f"pytest -q {tfile}")
    )
    plan.steps.append(Step("bash", cmd, F.pytest_pass(rng.randint(1, 12), rng.uniform(0.1, 2))))
    plan.answer = f"Added `{name}` in {tfile}; it fails on the old code and passes now."


_KINDS = {
    "commit_message": _commit,
    "changelog_entry": _changelog,
    "alembic_migration": _alembic,
    "flaky_test": _flaky,
    "dependency_bump": _bump,
    "ci_summary": _ci,
    "release_notes": _release,
    "regression_test": _regression,
}
KINDS = tuple(_KINDS)
