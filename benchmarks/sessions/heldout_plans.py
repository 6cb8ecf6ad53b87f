"""What the agent does for a request: a tool-neutral plan the two log writers render.

A plan is a list of ``Step``s (run a command, read, edit or write a file, glob, grep, or
invoke a skill) and a final answer. The recurring kinds' plans are in ``heldout_kinds``;
here are what every plan shares (the request's objects, the common moves: ``git status``,
``ls``, reading the README, running the whole suite) and the plans of one-offs, of a stray
commit and of a follow-up correction.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field, replace

from benchmarks.sessions import heldout_files as F
from benchmarks.sessions.heldout_world import Project


@dataclass
class Step:
    tool: str  # bash | read | edit | write | glob | grep | skill
    arg: str  # command, relative path, pattern or skill name
    out: str = ""  # command output, file content, or matches (newline-separated)
    code: int = 0  # bash exit code
    old: str = ""  # edit: replaced text
    new: str = ""  # edit: new text; write: content
    say: str = ""  # the agent's words before the step
    rejected: bool = False  # the user refused this tool use


@dataclass
class Plan:
    steps: list[Step] = field(default_factory=list)
    answer: str = ""


def slots(kind: str | None, p: Project, rng: random.Random) -> dict[str, str]:
    """The objects one request is about (the same values fill its text and its plan)."""
    v = p.version
    table, column = rng.choice(p.columns) if p.columns else ("items", "created_at")
    test = rng.choice(p.tests) if p.tests else "tests/test_smoke.py::test_import"
    fn, fn2 = rng.sample(p.functions, 2) if len(p.functions) > 1 else (p.functions[0],) * 2
    nxt = rng.choice(((v[0], v[1], v[2] + 1), (v[0], v[1] + 1, 0), (v[0], v[1] + 1, 1)))
    return {
        "feature": rng.choice(p.features) if p.features else "the docs",
        "table": table,
        "column": column,
        "model": table.removesuffix("s").capitalize(),
        "test": test,
        "testname": test.rpartition("::")[2],
        "pkg": rng.choice(p.deps),
        "ver": f"{rng.randint(0, 4)}.{rng.randint(1, 40)}.{rng.randint(0, 9)}",
        "old": f"{rng.randint(0, 3)}.{rng.randint(1, 30)}.{rng.randint(0, 9)}",
        "branch": rng.choice(p.branches),
        "run": str(rng.randint(10**9, 10**10 - 1)),
        "pr": str(rng.randint(120, 980)),
        "bug": rng.choice(p.bugs) if p.bugs else "a typo",
        "num": str(rng.randint(40, 700)),
        "module": rng.choice(p.modules),
        "fn": fn,
        "fn2": fn2,
        "cls": rng.choice(p.classes),
        "next": F.version(nxt),
        "prev": F.version(v),
    }


def fill(template: str, s: dict[str, str], kind: str | None) -> str:
    if kind == "release_notes":  # a release request names the next version
        s = {**s, "ver": s["next"]}
    return template.format(**s)


def common_moves(p: Project, rng: random.Random, plan: Plan) -> None:
    """The moves that start any kind of work (so they say nothing about the kind)."""
    if rng.random() < 0.3:
        plan.steps.append(
            Step("bash", "git status", F.git_status([rng.choice(p.modules)], staged=False))
        )
    if rng.random() < 0.12:
        plan.steps.append(Step("bash", rng.choice(("ls", "ls -la")), ls_output(p)))
    if rng.random() < 0.1:
        plan.steps.append(Step("read", "README.md", F.readme_text(p)))


def ls_output(p: Project) -> str:
    return "\n".join(sorted({m.split("/", 1)[0] for m in p.modules} | {"README.md", "tests"}))


def suite(p: Project, rng: random.Random) -> Step:
    cmd = rng.choice(("pytest -q", "pytest", "python -m pytest -q", "make test"))
    return Step("bash", cmd, F.pytest_pass(rng.randint(40, 400), rng.uniform(2, 40)))


# One-off targets named in the request text, else the module in the slots.
_NAMED_FILES = (
    ("README", "README.md"),
    ("LICENSE", "LICENSE"),
    (".gitignore", ".gitignore"),
    ("CONTRIBUTING", "CONTRIBUTING.md"),
    ("pre-commit", ".pre-commit-config.yaml"),
    (".editorconfig", ".editorconfig"),
    ("makefile", "Makefile"),
    ("script", "scripts/rows_per_month.py"),
)


def one_off_plan(style: str, text: str, p: Project, s: dict[str, str], rng: random.Random) -> Plan:
    plan = Plan()
    common_moves(p, rng, plan)
    target = next((f for k, f in _NAMED_FILES if k in text), s["module"])
    if style == "explain":
        plan.steps.append(Step("read", target, F.module_text(p, target, rng)))
        if rng.random() < 0.3:
            plan.steps.append(Step("grep", s["fn"], f"{s['module']}\n{rng.choice(p.modules)}"))
        plan.answer = f"`{s['fn']}` normalizes its input and returns None for empty values."
    elif style == "change":
        new_file = target.startswith((".pre-commit", ".editorconfig", "scripts/"))
        if not new_file:
            plan.steps.append(Step("read", target, F.module_text(p, target, rng)))
            plan.steps.append(
                Step(
                    "edit",
                    target,
                    old="    if not value:\n",
                    new="    if value is None or value == '':\n",
                )
            )
        else:
            plan.steps.append(Step("write", target, new="# generated\n"))
        if rng.random() < 0.6:
            plan.steps.append(
                suite(p, rng)
                if rng.random() < 0.7
                else Step("bash", "ruff check .", "All checks passed!")
            )
        plan.answer = f"Done: updated {target}."
    elif style == "search":
        plan.steps.append(
            Step(
                "grep",
                rng.choice((s["fn"], "except Exception", "os.environ", "@app.route|@router")),
                "\n".join(rng.sample(p.modules, 2)),
            )
        )
        plan.steps.append(Step("read", s["module"], F.module_text(p, s["module"], rng)))
        plan.answer = f"It happens in `{s['module']}`; details above."
    elif style == "look":
        cmd = rng.choice(("ls", "git status", "ls docs", "git log --stat -5", "tree -L 2"))
        plan.steps.append(Step("bash", cmd, ls_output(p)))
        if rng.random() < 0.4:
            plan.steps.append(
                Step(
                    "glob",
                    rng.choice(("**/*.md", "docs/**/*", "**/*.py")),
                    "\n".join(rng.sample(p.modules, min(3, len(p.modules)))),
                )
            )
        plan.answer = "Here's what's there."
    else:  # chat
        plan.answer = "Short answer: it depends on the size, but the simple way works here."
    return plan


def stray_commit(p: Project, s: dict[str, str], rng: random.Random, plan: Plan) -> None:
    """The agent ends an unrelated task by committing with the commit-message skill."""
    mods = [s["module"]]
    plan.steps.append(Step("skill", "commit-msg", say="I'll commit this with your skill."))
    plan.steps.append(
        Step(
            "bash", "git diff --staged --stat", F.git_diff(mods, rng.randrange(len(F.CHANGES)), rng)
        )
    )
    plan.steps.append(
        Step(
            "bash",
            'git commit -m "chore: apply requested change"',
            f"[{s['branch']} {F.hexid(rng, 7)}] chore: apply requested change",
        )
    )


def followup_plan(first: Plan, rng: random.Random) -> Plan:
    """A correction redoes the request's last change (and re-runs its check)."""
    plan = Plan(answer="Updated as asked.")
    edits = [st for st in first.steps if st.tool in ("edit", "write")]
    if edits:
        last = edits[-1]
        plan.steps.append(
            Step(
                "edit",
                last.arg,
                old=(last.new or "x")[:60],
                new=(last.new or "x")[:60].replace("-", "*", 1) + " ",
            )
        )
    checks = [
        st
        for st in first.steps
        if st.tool == "bash"
        and st.code == 0
        and st.arg.startswith(("pytest", "alembic upgrade", "uv lock", "make test"))
    ]
    if checks:
        plan.steps.append(replace(checks[-1], say=""))
    return plan
