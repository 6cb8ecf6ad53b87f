"""Failing CI logs the user pastes (``gh run view --log-failed`` output), and the summaries.

A failure is a job, the log lines of its failing step, the short summary the user accepts
(at most 60 words, no emoji, no headings) and the background the agent adds when it runs
long. ``summary`` breaks exactly the house rules it is given.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from datetime import datetime, timedelta

MAX_60_WORDS, NO_EMOJI, NO_HEADINGS = "ci-max-60-words", "ci-no-emoji", "ci-no-headings"
EMOJI = ("❌", "🔴", "🚨", "💥")


@dataclass(frozen=True)
class Failure:
    job: str
    step: str
    lines: tuple[str, ...]
    summary: str
    background: str  # what a long answer adds

    def log(self, t: datetime, rng: random.Random) -> str:
        out = []
        for line in self.lines:
            t += timedelta(milliseconds=rng.randint(1, 900))
            stamp = t.strftime("%Y-%m-%dT%H:%M:%S.%f") + f"{rng.randrange(10)}Z"
            out.append(f"{self.job}\t{self.step}\t{stamp} {line}")
        return "\n".join(out)


_EXIT = "##[error]Process completed with exit code 1."


def _pytest() -> list[Failure]:
    specs = [
        (
            "refunds",
            "partial_refund_fee",
            "Decimal('3.34')",
            "Decimal('3.33')",
            "refund_fee() now rounds half-even since the Decimal change.",
            "Round half-up in refund_fee() or update the expected fee.",
        ),
        (
            "payouts",
            "cutoff_moves_to_next_day",
            "date(2026, 4, 8)",
            "date(2026, 4, 7)",
            "The payout cutoff hour moved but the test still uses the old one.",
            "Update the test to the new cutoff.",
        ),
        (
            "webhooks",
            "retry_schedule",
            "[1, 2, 4, 8, 16]",
            "[1, 2, 4]",
            "MAX_DELIVERY_ATTEMPTS went up and the schedule test was not updated.",
            "Update the expected schedule.",
        ),
        (
            "balance",
            "available_with_hold",
            "Decimal('80.00')",
            "Decimal('100.00')",
            "available() ignores the hold when it is loaded lazily.",
            "Load the hold before computing the balance.",
        ),
        (
            "exports",
            "export_respects_timezone",
            "'2026-04-07 09:00'",
            "'2026-04-07 07:00'",
            "The export formats timestamps in UTC instead of the account zone.",
            "Pass the account zone to the formatter.",
        ),
    ]
    out = []
    for i, (mod, case, want, got, cause, fix) in enumerate(specs):
        py, n = 11 + i % 2, 180 + 17 * i
        test = f"tests/test_{mod}.py::test_{case}"
        lines = (
            "============================= test session starts ==============================",
            f"platform linux -- Python 3.{py}.9, pytest-8.2.2, pluggy-1.5.0",
            f"collected {n} items",
            f"tests/test_{mod}.py ...F....",
            "=================================== FAILURES ===================================",
            f"___________________________ test_{case} ___________________________",
            f"E       AssertionError: assert {got} == {want}",
            f"tests/test_{mod}.py:{40 + 7 * i}: AssertionError",
            f"FAILED {test} - AssertionError: assert {got} == {want}",
            f"======================== 1 failed, {n - 1} passed in {20 + 3 * i}.41s "
            "========================",
            _EXIT,
        )
        out.append(
            Failure(
                f"test (3.{py})",
                "Run pytest",
                lines,
                f"`test (3.{py})` failed: {test} expected {want} but got {got}. {cause} {fix}",
                "The rest of the suite passed, so the failure is isolated to this test and "
                "the code it covers. It reproduces locally with the same command, which rules "
                "out a flaky runner or a cache problem in the workflow.",
            )
        )
    return out


def _static() -> list[Failure]:
    out = []
    for path, line, func, got, want in [
        ("ledgerline/refunds/service.py", 88, "refund_fee", "Decimal | None", "Decimal"),
        ("ledgerline/payouts/report.py", 41, "payout_line", "str | None", "str"),
        ("ledgerline/clients/kontor.py", 27, "Client", "float | None", "float"),
    ]:
        lines = (
            f'{path}:{line}: error: Argument 1 to "{func}" has incompatible type "{got}"; '
            f'expected "{want}"  [arg-type]',
            "Found 1 error in 1 file (checked 212 source files)",
            _EXIT,
        )
        out.append(
            Failure(
                "typecheck",
                "Run mypy",
                lines,
                f"`typecheck` failed: mypy says {path}:{line} passes {got} to {func}(), which "
                f"expects {want}. Narrow the value with a None check before the call.",
                "Nothing else in the type check failed, and the tests pass, so this is a typing "
                "gap rather than a runtime bug today. It became visible when the argument was "
                "made optional in the model.",
            )
        )
    for path, line, code, msg, fix in [
        (
            "ledgerline/ledger/batch.py",
            3,
            "F401",
            "[*] `itertools` imported but unused",
            "Remove the import.",
        ),
        (
            "ledgerline/api/routes.py",
            57,
            "F841",
            "Local variable `flag` is assigned to but never used",
            "Drop the leftover assignment from the flag removal.",
        ),
        (
            "tests/test_payouts.py",
            12,
            "E712",
            "Avoid equality comparisons to `True`",
            "Use `assert settled`.",
        ),
        (
            "ledgerline/settings.py",
            22,
            "B008",
            "Do not perform function call `os.getenv` in argument defaults",
            "Read the variable inside the function.",
        ),
    ]:
        lines = (f"{path}:{line}:5: {code} {msg}", "Found 1 error.", _EXIT)
        out.append(
            Failure(
                "lint",
                "Run ruff check .",
                lines,
                f"`lint` failed: ruff {code} at {path}:{line}. {fix}",
                "Only the lint job failed; tests and the type check are green. The rule was "
                "enabled in the shared ruff config last week, which is why it shows up on "
                "code that has not changed for a while.",
            )
        )
    return out


def _web() -> list[Failure]:
    out = []
    for comp, behaviour, want, got in [
        ("RefundButton", "disables itself while the refund is pending", "true", "false"),
        ("PayoutTable", "shows the newest payout first", '"2026-04-07"', '"2026-04-01"'),
        ("ExportMenu", "lists the CSV option", "3", "2"),
    ]:
        lines = (
            f"FAIL src/components/{comp}.test.tsx",
            f"  ● {comp} › {behaviour}",
            "    expect(received).toBe(expected) // Object.is equality",
            f"    Expected: {want}",
            f"    Received: {got}",
            "Tests:       1 failed, 143 passed, 144 total",
            _EXIT,
        )
        out.append(
            Failure(
                "web / test",
                "Run npm test -- --ci",
                lines,
                f"`web / test` failed: {comp} › {behaviour} expected {want}, received {got}. "
                f"Check the last change to {comp}.tsx against the test.",
                "Jest ran the whole suite and only this case failed, so the component change "
                "and its test disagree. Snapshots are unaffected, and the build step before it "
                "passed, so the bundle itself is fine.",
            )
        )
    for file, prop, typ in [
        ("api/refunds", "cursor", "RefundPage"),
        ("api/payouts", "nextPage", "PayoutList"),
        ("hooks/useMerchant", "iban", "Merchant"),
    ]:
        lines = (
            "> ledgerline-web@2.9.0 build",
            "> tsc -b && vite build",
            f"src/{file}.ts(33,18): error TS2339: Property '{prop}' does not exist on type "
            f"'{typ}'.",
            "##[error]Process completed with exit code 2.",
        )
        out.append(
            Failure(
                "web / build",
                "Run npm run build",
                lines,
                f"`web / build` failed: tsc says {typ} has no property {prop} in src/{file}.ts. "
                f"Regenerate the API types or add {prop} to {typ}.",
                "The types are generated from the backend schema, and the generated file in "
                "the repository is older than the last API change. Vite never ran because the "
                "type check runs first in the build script.",
            )
        )
    for page, title, selector in [
        ("checkout", "pays with a saved card", "[data-test=pay-button]"),
        ("refunds", "issues a partial refund", "text=Refund issued"),
        ("login", "logs in with SSO", "#sso-callback"),
    ]:
        lines = (
            f"  1) [chromium] › tests/{page}.spec.ts:14:5 › {title}",
            "    TimeoutError: page.waitForSelector: Timeout 30000ms exceeded.",
            f"      - waiting for locator('{selector}') to be visible",
            "  1 failed",
            "  61 passed (2.3m)",
            _EXIT,
        )
        out.append(
            Failure(
                "e2e (chromium)",
                "Run npx playwright test",
                lines,
                f"`e2e (chromium)` failed: tests/{page}.spec.ts ({title}) timed out waiting "
                f"for {selector}. Check whether the element still renders on that page.",
                "Playwright retried the step until the 30-second timeout, and the other 61 "
                "tests passed, so the environment was up. A trace is attached to the run as an "
                "artifact if you want to see the page at the time.",
            )
        )
    return out


def _build() -> list[Failure]:
    out = []
    for h1, h2 in [("4f2a91c0", "b71e03d5"), ("0c9d44ae", "e5a8127f"), ("7d13b2f9", "a0c4e611")]:
        lines = (
            "INFO  [alembic.runtime.migration] Context impl PostgresqlImpl.",
            "FAILED: Multiple head revisions are present for given argument 'head'; please "
            "specify a specific target revision",
            f"{h1} (head)",
            f"{h2} (head)",
            _EXIT,
        )
        out.append(
            Failure(
                "migrations",
                "Check migration heads",
                lines,
                f"`migrations` failed: Alembic has two heads, {h1} and {h2}, after two branches "
                f"merged migrations. Add a merge revision: `alembic merge {h1} {h2}`.",
                "Neither migration is wrong on its own; they were written on separate branches "
                "from the same parent. The deploy would refuse to run with two heads, so this "
                "check is doing its job.",
            )
        )
    for pkg, ver in [("httpx", "0.27.9"), ("pydantic", "2.8.9"), ("sqlalchemy", "2.0.99")]:
        lines = (
            "#12 [builder 5/7] RUN pip install --no-cache-dir -r requirements.txt",
            "#12 2.914 ERROR: Could not find a version that satisfies the requirement "
            f"{pkg}=={ver}",
            f"#12 2.915 ERROR: No matching distribution found for {pkg}=={ver}",
            '#12 ERROR: process "/bin/sh -c pip install --no-cache-dir -r requirements.txt" did '
            "not complete successfully: exit code: 1",
            _EXIT,
        )
        out.append(
            Failure(
                "image",
                "Build and push",
                lines,
                f"`image` failed: pip cannot find {pkg}=={ver} while building the image; that "
                "version does not exist. Pin a released version in requirements.txt.",
                "The tests did not catch it because they install from the lock file, which "
                "still has the old version. Only the Docker build reads requirements.txt "
                "directly.",
            )
        )
    return out


def failures(rng: random.Random, n: int) -> list[Failure]:
    return rng.sample(_pytest() + _static() + _web() + _build(), n)


def summary(f: Failure, broken: frozenset[str], rng: random.Random) -> tuple[str, str]:
    """The agent's summary breaking exactly ``broken``, and the emoji it used ("" if none)."""
    text = f.summary
    if MAX_60_WORDS in broken:
        text = (
            f"I went through the failing step of the {f.job} job. {f.summary} {f.background} "
            "Once that is fixed, rerun the workflow; nothing else in the run needs attention."
        )
    emoji = rng.choice(EMOJI) if NO_EMOJI in broken else ""
    if emoji:
        text = f"{emoji} {text}"
    if NO_HEADINGS in broken:
        text = rng.choice([f"## CI failure: {f.job}\n\n{text}", f"### Summary\n{text}"])
    return text, emoji
