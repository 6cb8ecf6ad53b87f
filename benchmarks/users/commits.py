"""Staged diffs the user pastes for a commit message, and the agent's messages for them.

Each change is drawn from a family (a constant raised, a guard added, a dependency bumped…)
with its own parameters, so every pasted diff differs. ``message`` writes the agent's
answer: the house style (``[LED-123] Subject``, subject at most 60 characters, body wrapped
at 72, no trailer), or the same message breaking exactly the rules it is given.
"""

from __future__ import annotations

import random
import textwrap
from dataclasses import dataclass

BRACKETS, SUBJECT_60, WRAP_72, NO_TRAILER = (
    "commit-ticket-brackets",
    "commit-subject-max-60",
    "commit-body-wrap-72",
    "commit-no-ai-trailer",
)


@dataclass(frozen=True)
class Change:
    repo: str  # "ledgerline" or "ledgerline-web"
    path: str
    hunk: str  # the unified-diff hunk, from its @@ line
    subject: str  # short enough for the house style with the key in front
    long_subject: str  # what the agent writes when it runs long
    body: str  # one or two sentences, longer than 72 characters
    ticket: str = ""

    def diff(self, rng: random.Random) -> str:
        index = f"index {rng.randbytes(4).hex()[:7]}..{rng.randbytes(4).hex()[:7]} 100644"
        head = (
            f"diff --git a/{self.path} b/{self.path}\n{index}\n--- a/{self.path}\n+++ b/{self.path}"
        )
        return f"{head}\n{self.hunk}"


def _span(at: int, n: int) -> str:
    return str(at) if n == 1 else f"{at},{n}"  # git leaves out a count of one


def _hunk(
    at: int, ctx: str, old: list[str], new: list[str], before: str = "", after: str = ""
) -> str:
    pre = [f" {before}"] if before else []
    post = [f" {after}"] if after else []
    n_old, n_new = len(pre) + len(old) + len(post), len(pre) + len(new) + len(post)
    lines = [f"@@ -{_span(at, n_old)} +{_span(at, n_new)} @@ {ctx}".rstrip(), *pre]
    return "\n".join(lines + [f"-{x}" for x in old] + [f"+{x}" for x in new] + post)


def _constants() -> list[Change]:
    specs = [
        (
            "ledgerline/payments/retry.py",
            "MAX_DELIVERY_ATTEMPTS",
            [(3, 5), (5, 8), (3, 6)],
            "Raise webhook delivery attempts to {new}",
            "Raise the maximum number of webhook delivery attempts from {old} to {new}",
            "Merchants with slow endpoints missed events after {old} failed tries. {new} attempts "
            "with the existing backoff cover about an hour of downtime.",
        ),
        (
            "ledgerline/ledger/batch.py",
            "BATCH_SIZE",
            [(500, 2000), (2000, 5000), (1000, 250)],
            "Set ledger write batch size to {new}",
            "Change the ledger writer's batch size from {old} rows to {new} rows per transaction",
            "Profiling the nightly import showed where {old}-row batches spent their time. {new} "
            "rows per transaction keeps replica lag under a second.",
        ),
        (
            "ledgerline/payouts/schedule.py",
            "PAYOUT_CUTOFF_HOUR",
            [(16, 15), (15, 14), (17, 16)],
            "Move the payout cutoff to {new}:00",
            "Move the daily payout cutoff from {old}:00 to {new}:00 local time to match the bank",
            "The bank now closes its same-day window at {new}:30, so payouts queued after {new}:00 "
            "were silently carried over to the next business day.",
        ),
        (
            "ledgerline/api/limits.py",
            "EXPORT_MAX_ROWS",
            [(50000, 200000), (100000, 250000)],
            "Allow exports of up to {new} rows",
            "Raise the maximum number of rows in a single CSV export from {old} to {new}",
            "Larger merchants hit the {old}-row cap every month end and had to split their exports "
            "by hand. Streaming the export keeps memory flat at {new}.",
        ),
    ]
    out = []
    for path, name, pairs, subj, long, body in specs:
        for old, new in pairs:
            hunk = _hunk(12, "", [f"{name} = {old}"], [f"{name} = {new}"], "", "")
            out.append(
                Change(
                    "ledgerline",
                    path,
                    hunk,
                    subj.format(old=old, new=new),
                    long.format(old=old, new=new),
                    body.format(old=old, new=new),
                )
            )
    return out


def _timeouts() -> list[Change]:
    out = []
    for bank, old, new in [
        ("kontor", 10, 30),
        ("pennyworth", 5, 15),
        ("sterling", 15, 45),
        ("northpay", 8, 20),
    ]:
        path = f"ledgerline/clients/{bank}.py"
        hunk = _hunk(
            27,
            f"class {bank.title()}Client:",
            [f"        self.http = httpx.Client(timeout={old})"],
            [f"        self.http = httpx.Client(timeout={new})"],
            "    def __init__(self, base_url: str) -> None:",
        )
        out.append(
            Change(
                "ledgerline",
                path,
                hunk,
                f"Raise the {bank.title()} client timeout to {new}s",
                f"Increase the HTTP timeout of the {bank.title()} bank client from {old}s to "
                f"{new}s",
                f"{bank.title()} settlement reports take up to {new - 2} seconds at month end, so "
                f"the {old}-second timeout failed the reconciliation job.",
            )
        )
    return out


def _guards() -> list[Change]:
    specs = [
        ("ledgerline/refunds/service.py", "refund_fee", "payment.fee", "payment", "Decimal(0)"),
        ("ledgerline/payouts/report.py", "payout_line", "payout.merchant", "merchant", '""'),
        ("ledgerline/disputes/evidence.py", "attach_receipt", "dispute.receipt", "receipt", "None"),
        ("ledgerline/accounts/balance.py", "available", "account.hold", "hold", "account.total"),
    ]
    out = []
    for path, func, attr, var, ret in specs:
        hunk = _hunk(
            41,
            f"def {func}(",
            [],
            [f"    if {attr} is None:", f"        return {ret}"],
            f'    """{func.replace("_", " ").capitalize()}."""',
            f"    {var} = {attr}",
        )
        out.append(
            Change(
                "ledgerline",
                path,
                hunk,
                f"Handle a missing {var} in {func}()",
                f"Return early from {func}() when the {var} is missing instead of raising",
                f"Records imported from the old ledger have no {var}, and {func}() raised an "
                f"AttributeError on them, which failed the whole batch.",
            )
        )
    return out


def _bumps() -> list[Change]:
    specs = [
        ("requirements.txt", "httpx", "0.27.0", "0.27.2", "a connection pool leak on retries"),
        ("requirements.txt", "sqlalchemy", "2.0.30", "2.0.31", "a regression in bulk upserts"),
        ("requirements.txt", "pydantic", "2.7.1", "2.8.2", "slow validation of large models"),
        ("requirements.txt", "cryptography", "42.0.7", "42.0.8", "an OpenSSL advisory"),
        ("package.json", "vite", "5.2.11", "5.3.1", "a dev-server crash on Node 22"),
        ("package.json", "@tanstack/react-query", "5.40.0", "5.51.1", "stale refetch on focus"),
    ]
    out = []
    for path, pkg, old, new, why in specs:
        repo = "ledgerline-web" if path == "package.json" else "ledgerline"
        if repo == "ledgerline":
            old_l, new_l = f"{pkg}=={old}", f"{pkg}=={new}"
        else:
            old_l, new_l = f'    "{pkg}": "^{old}",', f'    "{pkg}": "^{new}",'
        hunk = _hunk(9, "", [old_l], [new_l])
        out.append(
            Change(
                repo,
                path,
                hunk,
                f"Bump {pkg} to {new}",
                f"Upgrade the {pkg} dependency from version {old} to version {new}",
                f"{new} fixes {why}, which we have been working around in production "
                "since the last release.",
            )
        )
    return out


def _indexes() -> list[Change]:
    out = []
    for rev, table, col in [
        ("4f2a91c0", "refunds", "created_at"),
        ("b71e03d5", "payouts", "merchant_id"),
        ("0c9d44ae", "ledger_entries", "account_id"),
        ("e5a8127f", "disputes", "status"),
    ]:
        path = f"migrations/versions/{rev}_index_{table}_{col}.py"
        body = [
            f'revision = "{rev}"',
            "",
            "",
            "def upgrade() -> None:",
            f'    op.create_index("ix_{table}_{col}", "{table}", ["{col}"])',
            "",
            "",
            "def downgrade() -> None:",
            f'    op.drop_index("ix_{table}_{col}", "{table}")',
        ]
        hunk = f"@@ -0,0 +1,{len(body)} @@\n" + "\n".join(f"+{x}" for x in body)
        out.append(
            Change(
                "ledgerline",
                path,
                hunk,
                f"Index {table}.{col}",
                f"Add a database index on {table}.{col} to speed up the admin list views",
                f"The admin views filter {table} by {col} and were doing sequential scans "
                "once the table passed a few million rows.",
            )
        )
    return out


def _web() -> list[Change]:
    out = []
    for comp, label in [
        ("RefundButton", "Refund payment"),
        ("ExportMenu", "Export options"),
        ("PayoutTable", "Payouts"),
        ("MerchantSwitcher", "Switch merchant"),
    ]:
        path = f"src/components/{comp}.tsx"
        tag = "table" if comp == "PayoutTable" else "button"
        hunk = _hunk(
            18,
            f"export function {comp}(props: Props) {{",
            [f"    <{tag} className={{styles.root}}>"],
            [f'    <{tag} className={{styles.root}} aria-label="{label}">'],
            "  return (",
        )
        out.append(
            Change(
                "ledgerline-web",
                path,
                hunk,
                f"Add an aria-label to {comp}",
                f"Give the {comp} component an aria-label so screen readers announce it",
                f"VoiceOver read the {comp} {tag} as an unlabelled {tag}, which the accessibility "
                "audit flagged as a blocker.",
            )
        )
    for res in ("refunds", "payouts", "invoices"):
        path = f"src/api/{res}.ts"
        hunk = _hunk(
            33,
            f"export async function list{res.title()}(page: number, size: number) {{",
            ["  const offset = page * size"],
            ["  const offset = (page - 1) * size"],
        )
        out.append(
            Change(
                "ledgerline-web",
                path,
                hunk,
                f"Fix the {res} list skipping its first page",
                f"Fix the off-by-one in the {res} list offset that skipped the first page of "
                "results",
                f"Pages are numbered from 1 in the UI, so page * size skipped the first {res} "
                "page and showed an empty last page.",
            )
        )
    return out


def _misc() -> list[Change]:
    out = []
    for mod, msg_old, msg_new in [
        ("refunds/errors.py", "Refund too large", "Refund amount exceeds the original payment"),
        ("payouts/errors.py", "Bad IBAN", "The IBAN is not valid for the payout country"),
        ("accounts/errors.py", "Frozen", "The account is frozen and cannot send payouts"),
    ]:
        hunk = _hunk(
            8,
            "",
            [f'        super().__init__("{msg_old}")'],
            [f'        super().__init__("{msg_new}")'],
        )
        out.append(
            Change(
                "ledgerline",
                f"ledgerline/{mod}",
                hunk,
                f'Reword the "{msg_old}" error',
                f'Replace the terse "{msg_old}" error message with a sentence merchants understand',
                "Support kept forwarding tickets about this message because merchants could "
                "not tell what to change.",
            )
        )
    for flag in ("instant_payouts", "new_refund_flow", "batch_exports"):
        hunk = _hunk(
            52,
            "",
            [
                f'    if flags.enabled("{flag}"):',
                "        return new_path(request)",
                "    return old_path(request)",
            ],
            ["    return new_path(request)"],
        )
        out.append(
            Change(
                "ledgerline",
                "ledgerline/api/routes.py",
                hunk,
                f"Remove the {flag} flag",
                f"Remove the {flag} feature flag now that it is enabled for every merchant",
                f"The {flag} flag has been on for all merchants for six weeks, and the old code "
                "path is no longer tested.",
            )
        )
    for test, event in [
        ("test_webhooks.py", "delivered"),
        ("test_exports.py", "finished"),
        ("test_payouts.py", "settled"),
    ]:
        hunk = _hunk(64, "", ["    time.sleep(0.5)"], [f"    assert {event}.wait(timeout=5)"])
        out.append(
            Change(
                "ledgerline",
                f"tests/{test}",
                hunk,
                f"Wait on the {event} event in {test}",
                f"Replace the fixed half-second sleep in {test} with a wait on the {event} event",
                "The sleep was too short on busy CI runners, so the test failed about one run in "
                "twenty.",
            )
        )
    for image, old, new in [
        ("Dockerfile", "python:3.12.3-slim", "python:3.12.4-slim"),
        ("web.Dockerfile", "node:20-alpine", "node:22-alpine"),
    ]:
        hunk = _hunk(1, "", [f"FROM {old}"], [f"FROM {new}"])
        repo = "ledgerline-web" if image.startswith("web") else "ledgerline"
        out.append(
            Change(
                repo,
                image,
                hunk,
                f"Move the base image to {new}",
                f"Update the container base image from {old} to {new} for security fixes",
                f"The {old} image has open advisories in its system libraries, and {new} is "
                "what the staging cluster already runs.",
            )
        )
    return out


def _config() -> list[Change]:
    out = []
    for old, new, what in [
        ("REDIS", "REDIS_URL", "Redis"),
        ("DB_DSN", "DATABASE_URL", "database"),
        ("SENTRY", "SENTRY_DSN", "Sentry"),
        ("BANK_HOST", "BANK_API_URL", "bank API"),
    ]:
        hunk = _hunk(
            20,
            "",
            [f'{old.lower()} = os.environ["{old}"]'],
            [f'{old.lower()} = os.environ["{new}"]'],
        )
        out.append(
            Change(
                "ledgerline",
                "ledgerline/settings.py",
                hunk,
                f"Read the {what} setting from {new}",
                f"Read the {what} connection setting from {new} instead of the old {old} variable",
                f"The deploy manifests and the new Helm chart only set {new}, so staging started "
                f"with an empty {what} setting.",
            )
        )
    for mod, event in [
        ("payouts/worker.py", "payout batch"),
        ("ledger/sync.py", "ledger sync"),
        ("webhooks/sender.py", "webhook attempt"),
        ("exports/csv.py", "export chunk"),
    ]:
        hunk = _hunk(
            71,
            "",
            [f'        log.info("{event} done", extra=ctx)'],
            [f'        log.debug("{event} done", extra=ctx)'],
        )
        out.append(
            Change(
                "ledgerline",
                f"ledgerline/{mod}",
                hunk,
                f"Log each {event} at debug level",
                f"Lower the per-{event.split()[-1]} log line in {mod} from info to debug level",
                f"Every {event} logged at info, which was most of our log volume and pushed the "
                "useful lines out of the retention window.",
            )
        )
    return out


def changes(rng: random.Random, n: int) -> list[Change]:
    """``n`` different changes, each with its own ticket key."""
    pool = _constants() + _timeouts() + _guards() + _bumps() + _indexes() + _web() + _misc()
    pool += _config()
    picked = rng.sample(pool, n)
    keys = rng.sample(range(120, 980), n)
    return [
        Change(c.repo, c.path, c.hunk, c.subject, c.long_subject, c.body, f"LED-{k}")
        for c, k in zip(picked, keys, strict=True)
    ]


def message(
    change: Change, broken: frozenset[str], rng: random.Random, tool: str, with_body: bool
) -> str:
    """The agent's commit message, breaking exactly the house rules in ``broken``."""
    key, subject = change.ticket, change.long_subject if SUBJECT_60 in broken else change.subject
    if BRACKETS in broken:
        styles = [f"{key}: {subject}", f"{subject} ({key})", subject]
        first = rng.choice(styles if SUBJECT_60 in broken else styles[:2])
    else:
        first = f"[{key}] {subject}"
    parts = [first]
    if with_body or WRAP_72 in broken:
        wrapped = change.body if WRAP_72 in broken else textwrap.fill(change.body, 72)
        parts.append(wrapped)
    if NO_TRAILER in broken:
        if tool == "claude":
            trailer = rng.choice(
                [
                    "Co-Authored-By: Claude <noreply@anthropic.com>",
                    "🤖 Generated with [Claude Code](https://claude.com/claude-code)\n\n"
                    "Co-Authored-By: Claude <noreply@anthropic.com>",
                ]
            )
        else:
            trailer = "Co-authored-by: Codex <noreply@openai.com>"
        parts.append(trailer)
    return "\n\n".join(parts)
