"""Write the demo's sample sessions: two weeks of one user's Claude Code and Codex logs.

    python benchmarks/samples/demo_user.py

Writes ``skillopt_sleep/data/samples/`` (the ``claude``, ``codex`` and ``skills`` folders
and the README); only that output ships in the package, this generator does not. It is
deterministic: rerunning it rewrites the same files.

The user (Maya, fictional) keeps the books of a small firm in ``ledgerline``, a made-up
double-entry bookkeeping CLI she maintains, and its web API ``ledgerline-api``. Written as
a real user's sessions, then measured (docs/models.md); nothing here was reshaped to make
a night pass:

* commit messages (Claude Code, through her own ``commit-message`` skill, 46 requests, the
  staged diff pasted: ``demo_changes.py``). Her house style is a conventional type, an
  imperative subject under 50 characters, no full stop; the skill she wrote does not say so
  (it says what a message should tell her). The agent usually gets it right; when it slips
  she corrects it in her own words ("too long, keep the subject under 50 chars", "imperative
  please: 'add', not 'added'") and accepts the next answer;
* summaries of failing CI runs (Codex, the log pasted): she wants a few bullet points she
  can read on her phone, under 60 words;
* pytest regression tests for bugs she files (Claude Code and Codex): pytest, never
  unittest;
* one-off requests that recur in nothing.
"""

from __future__ import annotations

import shutil
import sys
from datetime import datetime, timedelta
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from benchmarks.samples.demo_changes import CHANGES, diff_text  # noqa: E402
from benchmarks.samples.writer import Claude, codex_records, uid, write_jsonl  # noqa: E402

OUT = ROOT / "skillopt_sleep" / "data" / "samples"
CWD = "/home/maya/code/ledgerline"
CODEX_CWD = "/home/maya/code/ledgerline-api"

COMMIT_SKILL = """---
name: commit-message
description: Write the commit message for my staged changes, when I ask for one or paste a diff.
---
# Commit messages for ledgerline

I paste `git diff --staged` and ask for the message. I copy your answer straight into
`git commit -F -`, so reply with the message itself, nothing around it.

## Read the diff first

- Work out what the change does for someone who keeps their books with ledgerline,
  not only which lines moved.
- Money code (`money.py`, `fx.py`, `journal.py`) is where a bug costs real cents: say so
  when a change affects amounts or balances.
- If the diff mixes unrelated changes, tell me instead of writing one message for both.

## The subject

- Say what the commit does and name the part it touches: the command, the report,
  the importer, the module.
- One change, one subject: no list of everything that moved.

## The body

- Only when the reason is not obvious from the subject: a sentence or two, wrapped at
  72 columns.
- If I mention an issue, end with `Refs #<number>`.
- Never invent a reason the diff does not show.
"""

COMMIT_ASKS = [
    "commit message for the staged diff please ({topic})\n\n```diff\n{diff}\n```",
    "write the commit msg for the staged diff ({topic})\n\n```diff\n{diff}\n```",
    "staged the {topic}, commit message please\n\n```diff\n{diff}\n```",
    "commit msg for the staged {topic} please\n\n```diff\n{diff}\n```",
]
# (what she said, how the agent's first answer broke it: a function of the accepted message)
COMMIT_CORRECTIONS = [
    ("too long, keep the subject under 50 chars", "long"),
    ("imperative please: 'add', not 'added'", "past"),
    ("no full stop at the end of the subject", "period"),
    ("too long again. 50 chars max for the subject line", "long"),
    ("write it as 'fix', not 'fixed'", "past"),
    ("I said no period at the end", "period"),
    ("use the conventional prefix please, fix: / feat: / docs: etc", "bare"),
    ("subject is way too long, under 50 characters please", "long"),
    ("drop the full stop", "period"),
    ("start the subject with the type, like fix: or docs:", "bare"),
]
CORRECTED_SESSIONS = (2, 6, 10, 14, 18, 23, 27, 31, 36, 41)  # which commit requests slipped
BODIES = {  # the few messages she accepted with a body
    0: "Totals drifted by a cent on large journals.",
    9: "The rates file has no rate for bank holidays.",
    27: "Reversing twice doubled the balance.",
    40: "Equal shares could leave a cent unaccounted for.",
}


def commit_request(i: int) -> str:
    change = CHANGES[i]
    ask = COMMIT_ASKS[i % len(COMMIT_ASKS)]
    return ask.format(topic=change[5], diff=diff_text(*change))


def commit_message(i: int) -> str:
    subject = CHANGES[i][6]
    return f"{subject}\n\n{BODIES[i]}" if i in BODIES else subject


def slipped(i: int, how: str) -> str:
    """The agent's first answer, which breaks the rule she then states."""
    path = CHANGES[i][0]
    kind, _, subject = CHANGES[i][6].partition(": ")
    if how == "long":
        return f"{kind}: {subject} in {path} so the behaviour is correct"
    if how == "past":
        verb, _, rest = subject.partition(" ")
        past = verb + ("d" if verb.endswith("e") else "ped" if verb == "stop" else "ed")
        return f"{kind}: {past} {rest}"
    if how == "period":
        return f"{kind}: {subject}."
    return subject[0].upper() + subject[1:]  # "bare": no type


# -- CI failure summaries (Codex) -------------------------------------------------------------
CI_RUNS = [
    ("test (3.12)", "tests/test_invoices.py::test_total_with_tax", "AssertionError",
     "assert Decimal('107.00') == Decimal('107.01')", "invoice tax rounding"),
    ("lint", "ledgerline_api/routes.py:88:5", "F841", "local variable 'resp' is assigned to but "
     "never used", "unused variable in routes"),
    ("test (3.11)", "tests/test_auth.py::test_token_expiry", "KeyError", "KeyError: 'exp'",
     "token expiry claim"),
    ("typecheck", "ledgerline_api/schemas.py:41", "error", "Incompatible return value type "
     "(got \"str | None\", expected \"str\")", "optional currency field"),
    ("test (3.12)", "tests/test_export.py::test_csv_export_headers", "AssertionError",
     "assert ['date', 'amount'] == ['date', 'account', 'amount']", "export headers"),
    ("build-image", "Dockerfile:12", "error", "failed to solve: python:3.13-slim: not found",
     "docker base image tag"),
    ("test (3.11)", "tests/test_fx.py::test_rate_lookup", "ConnectionError",
     "HTTPSConnectionPool(host='rates.example.test'): Max retries exceeded", "network in fx test"),
    ("migrate", "alembic/versions/0042_add_memo.py", "OperationalError",
     "duplicate column name: memo", "memo migration run twice"),
    ("test (3.12)", "tests/test_accounts.py::test_close_with_balance", "Failed",
     "DID NOT RAISE <class 'LedgerError'>", "closing account check"),
    ("lint", "ledgerline_api/app.py:3:1", "I001", "Import block is un-sorted or un-formatted",
     "import order"),
    ("test (3.13)", "tests/test_dates.py::test_parse_iso_week", "ValueError",
     "ValueError: unconverted data remains: W07", "iso week parsing"),
    ("docs", "docs/api.md:120", "error", "broken link: ./auth.md#tokens", "docs link"),
    ("test (3.12)", "tests/test_reports.py::test_income_statement_year", "AssertionError",
     "assert 14 == 9", "income statement filter"),
    ("publish", "twine upload", "HTTPError", "400 Bad Request: File already exists",
     "version not bumped"),
]  # fmt: skip
CI_ASKS = [
    "CI failed on main, summarize the log:\n\n```\n{log}\n```",
    "CI is red again, summarize the failing log\n\n```\n{log}\n```",
    "summarize the failing CI log for me\n\n```\n{log}\n```",
    "CI failed, summarise the log please\n\n```\n{log}\n```",
]
CI_CORRECTIONS = {
    2: "bullet points please, I read these on my phone",
    6: "too long, keep it under 60 words",
    10: "shorter. under 60 words, as bullets",
}


def ci_log(i: int) -> str:
    job, where, err, message, _topic = CI_RUNS[i]
    return (
        f"Run {job}\n##[group]Run {job.split(' ')[0]}\n{where}: {err}: {message}\n"
        f"##[error]Process completed with exit code 1.\n##[endgroup]"
    )


def ci_summary(i: int) -> str:
    job, where, err, message, topic = CI_RUNS[i]
    return (
        f"- `{job}` failed: {err} at {where}\n- Cause: {topic}\n"
        f"- Next: fix the {topic} and push again"
    )


def ci_slipped(i: int) -> str:
    job, where, err, message, topic = CI_RUNS[i]
    return (
        f"The {job} job failed. Looking at the log, the failure happens at {where}, where "
        f'{err} is raised with the message "{message}". This usually means that the code '
        f"around the {topic} changed without the rest being updated, so the job stops there "
        "and the workflow is marked as failed. You will want to look at the recent commits "
        "that touched this area, reproduce it locally, and fix it before pushing again."
    )


# -- regression tests -------------------------------------------------------------------------
BUGS = [
    ("split_amount", "ledgerline.money", "split_amount(Decimal('10.00'), 3)",
     "the three shares add up to 9.99", "sum(split_amount(Decimal('10.00'), 3)) == "
     "Decimal('10.00')"),
    ("parse_amount", "ledgerline.money", "parse_amount('1,250.00')", "raises InvalidOperation",
     "parse_amount('1,250.00') == Decimal('1250.00')"),
    ("entries_between", "ledgerline.journal", "an entry dated on the start day",
     "is left out of the range", "entry in entries_between(book, day, day)"),
    ("rate_for", "ledgerline.fx", "rate_for(HOLIDAY, 'EURUSD')", "raises KeyError",
     "rate_for(HOLIDAY, 'EURUSD') == latest_rate('EURUSD')"),
    ("read_rows", "ledgerline.importers.csv_bank", "a bank CSV that starts with a BOM",
     "gives a first column named '\\ufeffdate'", "read_rows(path)[0]['date'] == '2026-03-01'"),
    ("close_account", "ledgerline.accounts", "closing 'cash' with 5.00 in it",
     "closes it silently", "pytest.raises(LedgerError)"),
    ("reverse_entry", "ledgerline.journal", "reversing entry 7 twice", "doubles the balance",
     "pytest.raises(LedgerError)"),
    ("export_csv", "ledgerline.reports", "exporting two rows on Windows",
     "writes a blank line between them", "path.read_text().count('\\n') == 3"),
    ("detect_dialect", "ledgerline.importers.csv_bank", "a semicolon-separated sample",
     "detects a comma", "detect_dialect(sample).delimiter == ';'"),
    ("income_statement", "ledgerline.reports", "a book with entries in 2025 and 2026",
     "mixes both years", "income_statement(book, 2026).total == Decimal('900.00')"),
    ("format_amount", "ledgerline.money", "format_amount(Decimal('1234.5'), 'EUR')",
     "prints '1234.5 EUR'", "format_amount(Decimal('1234.5'), 'EUR') == '1,234.50 EUR'"),
    ("open_account", "ledgerline.accounts", "opening ' Cash ' after 'cash'",
     "makes a second account", "len(book.accounts) == 1"),
]  # fmt: skip
BUG_ASKS = [
    "add a pytest regression test for #{n}: {func}: {given} {wrong}",
    "pytest regression test for issue #{n} please, {func}: {given} {wrong}",
    "add a regression test with pytest for #{n} ({func}): {given} {wrong}",
]
BUG_CORRECTIONS = {3: "use pytest, not unittest", 8: "no unittest please, plain pytest"}


def bug_test(i: int) -> str:
    func, module, given, _wrong, check = BUGS[i]
    name = f"test_{func}_regression_{71 + 6 * i}"
    body = (
        f"    with {check}:\n        ...\n" if check.startswith("pytest.raises")
        else f"    assert {check}\n"
    )  # fmt: skip
    return f"```python\nimport pytest\n\nfrom {module} import {func}\n\n\ndef {name}():\n{body}```"


def bug_slipped(i: int) -> str:
    func, module, _given, _wrong, check = BUGS[i]
    return (
        f"```python\nimport unittest\n\nfrom {module} import {func}\n\n\n"
        f"class Test{func.title().replace('_', '')}(unittest.TestCase):\n"
        f"    def test_regression(self):\n        self.assertTrue({check!r})\n```"
    )


ONE_OFFS = [
    ("claude", "rename the --verbose flag to --debug in cli.py"),
    ("codex", "set up dependabot for the docker base image"),
    ("claude", "what's the difference between accrual and cash basis accounting?"),
    ("codex", "why is uvicorn logging every request twice?"),
    ("claude", "draw an ascii sketch of how entries flow into the reports"),
    ("claude", "translate the README intro into German"),
]


# -- the two weeks ---------------------------------------------------------------------------
Row = tuple[int, str, str, str, str | None, str, str]  # day, tool, kind, ask, said, first, kept


def plan() -> list[Row]:
    """(day, tool, kind, request, correction, first answer, accepted answer), by day."""
    rows: list[Row] = []
    for i in range(len(CHANGES)):
        said = None
        first = accepted = commit_message(i)
        if i in CORRECTED_SESSIONS:
            said, how = COMMIT_CORRECTIONS[CORRECTED_SESSIONS.index(i)]
            first = slipped(i, how)
        rows.append((2 + i * 14 // len(CHANGES), "claude", "commit", commit_request(i), said,
                     first, accepted))  # fmt: skip
    for i in range(len(CI_RUNS)):
        ask = CI_ASKS[i % len(CI_ASKS)].format(log=ci_log(i))
        said = CI_CORRECTIONS.get(i)
        first = ci_slipped(i) if said else ci_summary(i)
        rows.append((2 + i, "codex", "ci", ask, said, first, ci_summary(i)))
    for i, (func, _module, given, wrong, _check) in enumerate(BUGS):
        ask = BUG_ASKS[i % len(BUG_ASKS)].format(n=71 + 6 * i, func=func, given=given, wrong=wrong)
        said = BUG_CORRECTIONS.get(i)
        first = bug_slipped(i) if said else bug_test(i)
        rows.append((2 + i, "claude" if i % 3 else "codex", "bug", ask, said, first, bug_test(i)))
    for j, (tool, ask) in enumerate(ONE_OFFS):
        rows.append((3 + 2 * j, tool, "oneoff", ask, None, "Done.", "Done."))
    return sorted(rows, key=lambda r: r[0])


COMMANDS = {
    "ci": ("gh run view --log-failed", "(log shown above)"),
    "bug": ("uv run pytest -q tests", "1 passed in 0.11s"),
    "oneoff": ("ls", "README.md\nledgerline\ntests"),
}


def claude_session(i: int, row: Row) -> None:
    day, _tool, kind, request, said, first, accepted = row
    sid = uid("maya-claude", i)
    c = Claude(sid, datetime(2026, 3, day, 9 + i % 8, 5 * (i % 11), 3), CWD)
    c.user(request)
    if kind == "commit":
        c.skill("commit-message", COMMIT_SKILL)  # the diff is pasted: nothing to run
    else:
        cmd, out = COMMANDS[kind]
        c.tool("Bash", {"command": cmd, "description": "Inspect"}, out,
               {"stdout": out, "stderr": "", "interrupted": False, "isImage": False})  # fmt: skip
    c.text(first)
    if said:
        c.user(said)
        c.text(accepted)
    if i % 3 == 0 or said:
        c.user("thanks")
        c.text("You're welcome.")
    folder = OUT / "claude" / "projects" / CWD.replace("/", "-")
    write_jsonl(folder / f"{sid}.jsonl", c.lines)


def codex_session(i: int, row: Row) -> None:
    day, _tool, kind, request, said, first, accepted = row
    sid = "019c" + uid("maya-codex", i)[4:]
    start = datetime(2026, 3, day, 14 + i % 6, 3 * (i % 17), 41)
    exchanges = [(request, first, COMMANDS[kind])]
    if said:
        exchanges.append((said, accepted, ("", "")))
    lines = codex_records(sid, start, CODEX_CWD, exchanges, lambda what, n: uid(what, sid, n))
    end = datetime.strptime(lines[-1]["timestamp"], "%Y-%m-%dT%H:%M:%S.%fZ")
    local = end.replace(microsecond=0) - timedelta(seconds=len(lines) * 0.4)
    folder = OUT / "codex" / "sessions" / "2026" / "03" / f"{day:02d}"
    write_jsonl(folder / f"rollout-{local.strftime('%Y-%m-%dT%H-%M-%S')}-{sid}.jsonl", lines)


README = """# Demo session logs

Fictional sessions for `skillopt-sleep demo` and the tests: two weeks (2026-03-02 to
2026-03-15) of one user, Maya, who maintains `ledgerline`, a made-up double-entry
bookkeeping CLI (Claude Code), and its web API `ledgerline-api` (Codex). All text is
original, written for this project; no real user data.

* `claude/projects/-home-maya-code-ledgerline/<uuid>.jsonl`: Claude Code 2.1.x transcripts
  (one record per content block, `tool_use`/`tool_result`, the `Skill` tool and the skill
  body it injects, `system/turn_duration`).
* `codex/sessions/2026/03/DD/rollout-<local time>-<uuid>.jsonl`: Codex CLI 0.12x rollouts.
* `skills/commit-message/SKILL.md`: her own commit-message skill.

What she keeps asking for: commit messages for a pasted staged diff (46, through her
skill), summaries of failing CI logs (14), pytest regression tests for bugs she filed (12),
and six one-off requests. When the agent slips she corrects it in her own words ("too long,
keep the subject under 50 chars", "imperative please: 'add', not 'added'", "bullet points
please", "use pytest, not unittest") and accepts the next answer.

Written by `benchmarks/samples/demo_user.py` in the source repository (deterministic; not
part of the installed package).
"""


def main() -> None:
    for sub in ("claude", "codex", "skills"):
        shutil.rmtree(OUT / sub, ignore_errors=True)
    skill = OUT / "skills" / "commit-message" / "SKILL.md"
    skill.parent.mkdir(parents=True)
    skill.write_text(COMMIT_SKILL)
    (OUT / "README.md").write_text(README)
    for i, row in enumerate(plan()):
        (claude_session if row[1] == "claude" else codex_session)(i, row)


if __name__ == "__main__":
    main()
