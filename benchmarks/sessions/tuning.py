"""Tuning session corpus: the logs mining's fingerprint (what was asked *and* done) is tuned on.

    truth = write(root, seed=0, n_sessions=300)

Nine recurring kinds of work, each asked in four phrasing families that share no content
word with each other ("write a commit message for the staged changes" / "sum up my pending
edits so I can record them"), with the user's filler and typos. Each kind is a *procedure*:
the agent runs its characteristic commands and touches its characteristic files, each with a
probability (``git diff --staged`` in 90% of commit messages, ``git commit -m`` in half),
plus the commands every request runs now and then (``ls``, ``git status``, reading the
README, a grep). Five kinds have the user's skill, invoked in 45-75% of their requests: by
the agent (the ``Skill`` tool), by the user (``/name`` in Claude Code, ``$name`` in Codex).

About 45% of requests are one-offs in five areas of work (backend, frontend, infra, docs,
data) plus questions. A one-off uses 1-4 of its area's tools (``terraform plan``, a
component's ``.tsx`` file …), so one-offs in one area share tools as real ones do, but not
one procedure. Now and then a one-off runs a kind's command ("… and commit it"), and a
request invokes a skill that is not its kind's (a stray invocation). Some requests draw a
follow-up: a thank-you or a correction ("no, …"), which is no request.

A quarter of the sessions are Codex rollouts, which read and search with the shell
(``sed -n``, ``rg``) and edit with ``apply_patch``. Deterministic by seed.
"""

from __future__ import annotations

import random
from collections import Counter
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

from benchmarks.requests import tuning as request_tuning
from benchmarks.requests import typo
from benchmarks.sessions.tuning_kinds import KINDS, Step
from benchmarks.sessions.tuning_logs import Call, Session, Turn, new_id, write_claude, write_codex

# Every request runs some of these, whatever it is about.
GENERIC: tuple[Step, ...] = (
    (0.25, "bash", "ls"), (0.35, "bash", "git status"), (0.15, "read", "README.md"),
    (0.15, "glob", "**/*.py"), (0.3, "grep", "{func}"), (0.1, "bash", "git log --oneline -n 5"),
    (0.12, "bash", "pytest -q"), (0.05, "read", "pyproject.toml"),
)  # fmt: skip

# One-offs: each area's tools (a one-off uses 1-4 of them) and its asks.
AREAS: dict[str, dict[str, Any]] = {
    "backend": {
        "projects": ("ledger-api", "shop-backend", "notify-service"),
        "tools": (("read", "src/{pkg}/{mod}.py"), ("edit", "src/{pkg}/{mod}.py"),
                  ("read", "src/{pkg}/api/routes.py"), ("edit", "src/{pkg}/api/routes.py"),
                  ("read", "src/{pkg}/settings.py"), ("edit", "src/{pkg}/settings.py"),
                  ("bash", "pytest tests/test_{mod}.py"), ("bash", "python -m {pkg}.cli {verb}"),
                  ("write", "src/{pkg}/{mod}_utils.py"), ("bash", "curl -s localhost:8000/{mod}")),
    },
    "frontend": {
        "projects": ("shop-web", "admin-ui"),
        "tools": (("bash", "npm run dev"), ("bash", "npm run build"),
                  ("bash", "npx vitest run src/components/{comp}.test.tsx"),
                  ("read", "src/components/{comp}.tsx"), ("edit", "src/components/{comp}.tsx"),
                  ("read", "package.json"), ("edit", "src/styles/{mod}.css"),
                  ("read", "vite.config.ts"), ("bash", "npm install {jsdep}"),
                  ("write", "src/components/{comp}Panel.tsx")),
    },
    "infra": {
        "projects": ("platform-infra",),
        "tools": (("bash", "terraform plan"), ("bash", "terraform fmt"),
                  ("bash", "terraform validate"), ("read", "modules/{tfmod}/main.tf"),
                  ("edit", "modules/{tfmod}/main.tf"), ("edit", "envs/{env}/variables.tf"),
                  ("bash", "docker compose up -d"), ("bash", "docker build -t {tfmod} ."),
                  ("read", "Dockerfile"), ("edit", ".github/workflows/deploy.yml"),
                  ("bash", "kubectl get pods -n {env}")),
    },
    "docs": {
        "projects": ("handbook",),
        "tools": (("read", "docs/{page}.md"), ("edit", "docs/{page}.md"),
                  ("write", "docs/{page}-faq.md"), ("bash", "mkdocs build"), ("read", "mkdocs.yml"),
                  ("edit", "mkdocs.yml"), ("edit", "README.md")),
    },
    "data": {
        "projects": ("etl-jobs",),
        "tools": (("bash", "python scripts/{script}.py"), ("read", "data/{dataset}.csv"),
                  ("edit", "scripts/{script}.py"),
                  ("bash", 'duckdb -c "select count(*) from {dataset}"'),
                  ("read", "notebooks/{script}.ipynb"), ("write", "scripts/{script}_check.py")),
    },
}  # fmt: skip
KIND_PROJECTS = ("ledger-api", "shop-backend", "notify-service", "etl-jobs")

# One-off asks: a verb, an object and sometimes a detail, each (verb, object) pair said at
# most twice (``_rare``): fewer than the three sessions a recurring task needs. Objects are
# shared by different verbs, as real one-offs share what they are about.
ASKS: dict[str, tuple[tuple[str, ...], tuple[str, ...], tuple[str, ...]]] = {
    "infra": (
        ("add", "resize", "shrink", "rotate", "move", "retire", "tag", "pin", "monitor",
         "encrypt", "expose", "harden", "rename", "split", "snapshot", "restart", "autoscale",
         "audit", "migrate", "document"),
        ("the log archive bucket", "the mailer queue", "the staging node pool",
         "the eu-west dns zone", "the search redis", "the thumbnailer workers",
         "the webhook gateway", "the nightly backup job", "the grafana alerts",
         "the vpn endpoint", "the preview environments", "the ingress controller",
         "the postgres replica", "the artifact registry", "the cdn distribution",
         "the secrets vault", "the batch cluster", "the ci runners", "the smtp relay",
         "the status page", "the bastion host", "the kafka brokers", "the feature flag service",
         "the image proxy"),
        ("in prod", "for the new region", "before the audit", "so costs drop",
         "after last week's outage", "without downtime", "for the load test"),
    ),
    "docs": (
        ("rewrite", "shorten", "illustrate", "translate", "proofread", "split", "reorder",
         "refresh", "archive", "expand", "summarize", "restructure", "simplify", "retitle"),
        ("the onboarding guide", "the on-call runbook", "the expense policy",
         "the deploy checklist", "the code review guidelines", "the incident template",
         "the vacation policy", "the security faq", "the api style guide",
         "the architecture overview", "the glossary", "the release process page",
         "the hiring handbook", "the support playbook", "the laptop setup notes",
         "the travel policy", "the design principles", "the escalation matrix",
         "the interview rubric", "the data retention policy", "the brand voice notes",
         "the accessibility checklist"),
        ("for new hires", "for contractors", "before the offsite", "in plain language",
         "for the auditors"),
    ),
    "data": (
        ("load", "dedupe", "backfill", "plot", "validate", "export", "join", "reconcile",
         "sample", "archive", "anonymize", "aggregate", "profile", "forecast", "bucket"),
        ("the orders feed", "the clickstream", "the shipment events", "the refund ledger",
         "the signup funnel", "the sensor readings", "the churn table",
         "the marketing spend sheet", "the inventory snapshot", "the support tickets dump",
         "the payroll export", "the ab test results", "the warehouse temperatures",
         "the courier invoices", "the app store reviews", "the fraud flags",
         "the loyalty points", "the survey answers", "the ad impressions",
         "the partner payouts"),
        ("per week", "for the board deck", "since january", "by region", "into the warehouse",
         "before the nightly job"),
    ),
    "frontend": (
        ("restyle", "lazy-load", "memoize", "localize", "animate", "paginate", "virtualize",
         "debounce", "hide", "reorder", "simplify", "theme", "split", "test", "fix"),
        ("the checkout drawer", "the search bar", "the user menu", "the price tags",
         "the toast messages", "the avatar upload", "the date picker", "the file drop zone",
         "the pager", "the sidebar", "the signup stepper", "the settings tabs", "the tooltips",
         "the order table", "the plan cards", "the invite form", "the cookie banner",
         "the breadcrumbs", "the colour swatches", "the empty states"),
        ("on mobile", "for dark mode", "on safari", "for screen readers", "before the demo",
         "on slow networks"),
    ),
    "question": (
        ("how does {t} work", "what is {t} for", "is {t} worth it for us",
         "pros and cons of {t}", "should we drop {t}", "{t} vs the alternatives?",
         "who maintains {t}", "can {t} run on a raspberry pi", "what license is {t} under",
         "explain {t} to a product manager", "does {t} still have a future",
         "how would we migrate off {t}"),
        ("asyncio", "threads", "celery", "rq", "postgres", "sqlite", "grpc", "graphql", "redis",
         "memcached", "poetry", "uv", "kafka", "rabbitmq", "nginx", "caddy", "htmx", "svelte",
         "duckdb", "polars", "terraform", "pulumi", "k3s", "nomad", "sentry", "opentelemetry",
         "pgbouncer", "timescale", "clickhouse", "meilisearch"),
        (),
    ),
}  # fmt: skip
_SLOTS = {
    "func": ["parse_config", "load_user", "compute_total", "retry_later", "render_row",
             "split_batch", "apply_discount"],
    "dep": ["requests", "pydantic", "sqlalchemy", "fastapi", "httpx", "celery", "boto3"],
    "tbl": ["users", "orders", "invoices", "events", "accounts", "payments"],
    "col": ["archived_at", "currency", "external_id", "retry_count", "timezone", "deleted_by"],
    "comp": ["Checkout", "CartDrawer", "SearchBar", "UserMenu", "PriceTag", "Toast", "Avatar",
             "DatePicker", "FileDrop", "Pager", "Sidebar", "Stepper", "Tabs", "Tooltip",
             "OrderTable", "PlanCard", "InviteForm", "Banner", "Breadcrumbs", "ColorSwatch"],
    "jsdep": ["zod", "dayjs", "clsx", "swr", "immer", "nanoid", "ky", "valibot"],
    "tfmod": ["network", "storage", "cluster", "dns", "queues", "iam", "cdn", "monitoring",
              "bastion", "registry"],
    "page": ["onboarding", "oncall", "deploys", "expenses", "style-guide", "travel", "hiring",
             "security", "retention", "glossary", "escalation", "laptops", "brand", "a11y"],
    "script": ["load_orders", "backfill", "daily_report", "dedupe", "forecast", "payouts",
               "reviews", "fraud_scores", "loyalty", "surveys", "impressions", "couriers"],
    "dataset": ["orders", "clicks", "shipments", "refunds", "signups", "sensors", "churn",
                "spend", "inventory", "tickets", "payroll", "abtests", "reviews", "payouts"],
    "verb": ["sync", "export", "reindex"], "env": ["staging", "prod", "sandbox"],
}  # fmt: skip
FILLER_PREFIX = ("hey,", "ok so", "quick one:", "when you get a chance,", "")
FILLER_SUFFIX = ("thanks", "for the release", "before lunch", "pls", "")
ACKS = ("thanks!", "perfect, thanks", "great, that works", "lgtm")
START = datetime(2026, 3, 2, 8, 0, 0)


def _word(rng: random.Random) -> str:
    return "".join(rng.choice("bcdfgklmnprstvz") + rng.choice("aeiou") for _ in range(3))


# Each project has its own modules, as real repositories do.
MODULES = {
    "ledger-api": [
        "ledger",
        "accounts",
        "journal",
        "fx",
        "audit",
        "exports",
        "periods",
        "balances",
        "closing",
        "entities",
        "rates",
        "postings",
        "tax",
        "vouchers",
    ],
    "shop-backend": [
        "cart",
        "checkout",
        "pricing",
        "coupons",
        "inventory",
        "refunds",
        "search",
        "shipping",
        "catalog",
        "reviews",
        "wishlist",
        "orders",
        "payments",
        "returns",
    ],
    "notify-service": [
        "mailer",
        "webhooks",
        "templates",
        "throttle",
        "digest",
        "sms",
        "queue",
        "push",
        "bounces",
        "optout",
        "locale",
        "render",
        "retry",
        "schedule",
    ],
    "etl-jobs": [
        "loader",
        "scheduler",
        "dedupe",
        "warehouse",
        "parser",
        "backfill",
        "quality",
        "lineage",
        "partitions",
        "snapshots",
        "joins",
        "exports",
        "alerts",
        "catalog",
    ],
}
OTHER_MODULES = ["app", "utils", "config", "main", "helpers", "models", "views"]


def _values(rng: random.Random, project: str) -> dict[str, str]:
    maj, mnr = rng.randint(1, 4), rng.randint(0, 20)
    v = {k: rng.choice(opts) for k, opts in _SLOTS.items()}
    v["mod"] = rng.choice(MODULES.get(project, OTHER_MODULES))
    v.update(
        pkg=project.replace("-", "_"), num=str(rng.randint(10, 4999)),
        ver=f"{maj}.{mnr + 1}.0", prev=f"{maj}.{mnr}.0", n=str(rng.choice([5, 10, 20, 50])),
        run=str(rng.randint(10**9, 10**10)),
        branch=f"{rng.choice(['feature', 'fix'])}/{_word(rng)}",
        hash=f"{rng.getrandbits(48):012x}", msg=f"update {v['mod']}",
    )  # fmt: skip
    v["test"] = f"test_{v['mod']}_{rng.choice(['roundtrip', 'empty', 'retry', 'limits'])}"
    v["file"] = f"src/{v['pkg']}/{v['mod']}.py"
    return v


def _calls(steps: Any, rng: random.Random, v: dict[str, str]) -> list[Call]:
    return [Call(kind, arg.format(**v)) for p, kind, arg in steps if rng.random() < p]


def _rare(rng: random.Random, used: Counter[tuple[str, str]], area: str) -> str | None:
    """A one-off ask of ``area``; None when 20 draws find no (verb, object) pair free. A
    question form says more than its topic ("how does X work" for every X is a recurring
    ask), so each form is used twice at most, whatever its topic."""
    verbs, objects, details = ASKS[area]
    for _ in range(20):
        verb, obj = rng.choice(verbs), rng.choice(objects)
        key = (verb, "") if "{t}" in verb else (verb, obj)
        if used[key] < 2:
            used[key] += 1
            text = verb.format(t=obj) if "{t}" in verb else f"{verb} {obj}"
            if details and rng.random() < 0.5:
                text = f"{text} {rng.choice(details)}"
            return text
    return None


class _Maker:
    """Draws requests (kind or one-off), their tool calls and follow-ups."""

    def __init__(self, rng: random.Random) -> None:
        self.rng = rng
        self.names = list(KINDS)
        self.weights = [1.0 / (r + 1) ** 0.8 for r in range(len(self.names))]
        self.skills = sorted({k.skill for k in KINDS.values() if k.skill})
        self.used: dict[str, Counter] = {a: Counter() for a in ASKS}
        self.used_common: Counter = Counter()
        self.used_made: set = set()

    def _decorate(self, text: str) -> str:
        rng = self.rng
        if rng.random() < 0.25:
            text = f"{rng.choice(FILLER_PREFIX)} {text}".strip()
        if rng.random() < 0.2:
            text = f"{text} {rng.choice(FILLER_SUFFIX)}".strip()
        return typo(text, rng, 0.06)

    def _skill(self, own: str | None, rate: float, codex: bool) -> tuple[str | None, str]:
        rng = self.rng
        skill = own if own and rng.random() < rate else None
        if skill is None and rng.random() < 0.03:  # a stray invocation
            skill = rng.choice([s for s in self.skills if s != own])
        if codex:
            return skill, "dollar"
        return skill, "command" if rng.random() < 0.25 else "tool"

    def kind_turn(self, name: str, project: str, codex: bool) -> Turn:
        rng, k = self.rng, KINDS[name]
        v = _values(rng, project)
        template = rng.choice(rng.choice(k.families))
        text = self._decorate(template.format(**v))
        calls = _calls(GENERIC, rng, v) + _calls(k.steps, rng, v)
        rng.shuffle(calls)  # the generic ones come anywhere in the work
        skill, via = self._skill(k.skill, k.skill_rate, codex)
        return Turn(text, calls, k.answer.format(**v), skill, via)

    def one_off(self, area: str, project: str, codex: bool) -> Turn:
        rng = self.rng
        v = _values(rng, project)
        if area in ASKS:
            text = _rare(rng, self.used[area], area)
        elif rng.random() < 0.5:
            text = request_tuning.common_one_off(rng, self.used_common)
        else:
            text = request_tuning.one_off(rng, self.used_made)
        text = text or request_tuning.one_off(rng, self.used_made)
        tools = AREAS[area]["tools"]
        picked = rng.sample(tools, rng.randint(1, min(4, len(tools))))
        calls = [Call(kind, arg.format(**v)) for kind, arg in picked] + _calls(GENERIC, rng, v)
        if rng.random() < 0.05:  # "... and commit it": a kind's command in a one-off
            k = KINDS[rng.choice(self.names)]
            calls += _calls([(1.0, *s[1:]) for s in rng.sample(k.steps, 1)], rng, v)
        rng.shuffle(calls)
        skill, via = self._skill(None, 0.0, codex)
        return Turn(self._decorate(text), calls, "Done: see the changes above.", skill, via)

    def question(self, codex: bool) -> Turn:
        text = _rare(self.rng, self.used["question"], "question")
        text = text or request_tuning.one_off(self.rng, self.used_made)
        skill, via = self._skill(None, 0.0, codex)
        return Turn(self._decorate(text), [], "In short: it depends on the workload.", skill, via)

    def follow_up(self, kind: str | None) -> Turn | None:
        rng = self.rng
        r = rng.random()
        if r < 0.12:
            return Turn(rng.choice(ACKS), [], "Glad it helps.")
        if r < 0.22:
            said = KINDS[kind].corrections if kind else ("no, don't touch the tests",)
            return Turn(rng.choice(said), [Call("edit", "src/app.py")], "Fixed.")
        return None


def write(root: Path, seed: int, n_sessions: int = 300) -> dict:
    """Write ``n_sessions`` sessions under ``root``; the planted kinds and every request."""
    rng = random.Random(seed)
    maker = _Maker(rng)
    requests: list[dict[str, Any]] = []
    areas = list(AREAS) + ["question"]
    for _ in range(n_sessions):
        codex = rng.random() < 0.25
        start = START + timedelta(days=rng.randrange(45), minutes=rng.randrange(12 * 60))
        planned: list[tuple[str | None, str]] = []
        for _ in range(rng.choices([1, 2, 3], [0.55, 0.3, 0.15])[0]):
            if rng.random() < 0.55:
                planned.append((rng.choices(maker.names, maker.weights)[0], ""))
            else:
                planned.append((None, rng.choice(areas)))
        area = next((a for k, a in planned if k is None and a in AREAS), "")
        project = rng.choice(AREAS[area]["projects"] if area else KIND_PROJECTS)
        session = Session(new_id(rng), "codex" if codex else "claude", f"/home/dev/src/{project}",
                          rng.choice(["main", "main", f"feature/{_word(rng)}"]), start)  # fmt: skip
        for kind, where in planned:
            if kind is not None:
                turn = maker.kind_turn(kind, project, codex)
            elif where == "question":
                turn = maker.question(codex)
            else:
                turn = maker.one_off(where, project, codex)
            session.turns.append(turn)
            requests.append({"session_id": session.id, "text": turn.logged, "kind": kind})
            extra = maker.follow_up(kind)
            if extra is not None:
                session.turns.append(extra)
        (write_codex if codex else write_claude)(root, session, rng)
    return {"kinds": {n: {"skill": k.skill} for n, k in KINDS.items()}, "requests": requests}
