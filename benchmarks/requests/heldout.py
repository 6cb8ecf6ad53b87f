"""Held-out request corpus: nothing in mining was tuned on it.

It is built to contain what made mining fail on corpora written elsewhere:

* kinds of Zipf-distributed size (a few large, a long tail of small ones);
* paraphrases that share no content word with the kind's other templates ("write the
  release notes for 2.4" / "what shipped in 2.4? tell our customers");
* neighbouring kinds (changelog entry / release notes, unit tests / integration test,
  explain an error / explain a function, review a diff / write a commit message);
* object names that differ by one word and share the rest ("habit-tracker" /
  "flight-tracker", "org-chart" / "star-chart"), used by kinds and one-offs alike;
* the user's own filler, repeated across unrelated requests ("quick idea: …",
  "… in the admin panel", "… thx");
* one-off requests written in the same words (object names, filler, verbs the kinds use),
  each asking for something different: a one-off's (shape, feature) key is used at most
  twice, so no three one-offs ask for the same thing;
* typos.
"""

from __future__ import annotations

import random

from benchmarks.requests import Request, typo

# kind -> templates. Slots: {obj} object name, {fn} identifier, {file} path, {ver} version,
# {num} number, {err} error, {tbl} table, {pkg} package, {lang} language, {env} environment,
# {branch} branch, {col} column, {thing} something to match.
KINDS: dict[str, list[str]] = {
    "unit-tests": [
        "write unit tests for {fn}",
        "cover {fn} with tests, edge cases too",
        "add tests for {fn} in {file}",
        "{fn} has zero coverage, fix that",
        "I need a test suite for the {fn} helper",
        "test {fn}: happy path plus failures",
    ],
    "release-notes": [
        "write the release notes for {ver}",
        "what shipped in {ver}? tell our customers in plain words",
        "draft user-facing notes for the {ver} release of {obj}",
        "announce version {ver} to users: new features and fixes",
        "release notes for {obj} {ver} please",
        "prepare the customer announcement for {ver}",
    ],
    "changelog-entry": [
        "add a changelog entry for the {fn} fix",
        "update CHANGELOG.md with the {fn} change",
        "log the {fn} fix under Unreleased in the changelog",
        "changelog line for today's {obj} change",
        "record the {fn} bugfix in the change log",
    ],
    "explain-error": [
        "what does this error mean: {err}",
        "getting {err} when I start {obj}, why?",
        "{err} — any idea what causes it?",
        "explain the error {err}",
        "decode this for me: {err}",
        "why would {err} happen on startup",
    ],
    "explain-function": [
        "explain what {fn} does",
        "walk me through {file} line by line",
        "how does {fn} work?",
        "I don't get {fn}, explain it simply",
        "describe the control flow of {fn}",
    ],
    "code-review": [
        "review my diff before I push",
        "look over the changes on {branch} and point out problems",
        "critique this patch for {obj}",
        "second pair of eyes on {branch} please",
        "any issues with what I changed in {file}?",
        "do a code review of {branch}",
    ],
    "commit-message": [
        "write a commit message for the staged diff",
        "describe my staged changes in one line for git",
        "commit msg for this, conventional style",
        "what should the commit say for {file}",
        "give me a git commit summary of what I changed",
    ],
    "sql-query": [
        "write a sql query that counts {tbl} per day",
        "query for the top ten {tbl} by amount",
        "give me SQL for monthly {tbl} totals",
        "how many {tbl} came in last week? write the select",
        "select statement joining {tbl} with customers",
    ],
    "dockerfile": [
        "write a Dockerfile for {obj}",
        "containerize the {obj} service",
        "make a docker image for {obj}",
        "package {obj} as a container image",
        "dockerize {obj} with a slim base",
    ],
    "upgrade-package": [
        "upgrade {pkg} to {ver}",
        "bump {pkg} and fix whatever breaks",
        "move us to the newest {pkg}",
        "{pkg} is outdated, update it",
        "update the {pkg} dependency to version {ver}",
    ],
    "regex": [
        "write a regex that matches {thing}",
        "pattern to validate {thing}",
        "regular expression for {thing}",
        "regex for {thing} please, with tests",
    ],
    "translate-ui": [
        "translate the {obj} ui strings to {lang}",
        "localize {obj} into {lang}",
        "{lang} version of the onboarding copy",
        "i18n: add {lang} translations for {obj}",
        "make {obj} available in {lang}",
    ],
    "speed-up": [
        "profile {fn}, it is slow",
        "why is {obj} so sluggish",
        "speed up {fn}",
        "find the bottleneck in {file}",
        "make {fn} faster, it takes seconds",
    ],
    "integration-test": [
        "write an integration test that hits the {obj} api end to end",
        "end-to-end test for the {obj} signup flow",
        "e2e test: log in, create an item, delete it in {obj}",
        "integration test covering {obj} with the real database",
    ],
    "readme": [
        "write a README for {obj}",
        "document how to run {obj} locally",
        "getting started guide for {obj}",
        "the {obj} repo needs setup instructions",
        "readme section explaining {obj} configuration",
    ],
    "standup": [
        "write my standup update from yesterday's commits",
        "draft the weekly status for the team",
        "what did I do yesterday? make it a standup note",
        "status report for my manager covering this week",
    ],
    "db-migration": [
        "write a migration adding {col} to {tbl}",
        "schema change: new column {col} on {tbl}",
        "alembic revision that adds {col} to the {tbl} table",
        "add a nullable {col} field to {tbl} with a migration",
    ],
    "lint-fix": [
        "fix the lint errors in {file}",
        "make ruff happy on {file}",
        "clean up the flake8 warnings",
        "the linter complains about {file}, sort it out",
    ],
    "bash-script": [
        "write a bash script that backs up {obj} every night",
        "shell script to rotate the {obj} logs",
        "cron job that cleans old {obj} backups",
        "script that tars the {obj} data dir and uploads it",
    ],
    "log-triage": [
        "summarize these {env} logs",
        "what is going wrong in the {env} logs",
        "scan the {env} log output and tell me the root cause",
        "triage the errors in today's {env} logs",
    ],
}

OBJECTS = [
    "habit-tracker", "flight-tracker", "expense-tracker", "org-chart", "star-chart",
    "admin panel", "billing service", "billing dashboard", "user dashboard", "auth service",
    "auth gateway", "payment gateway", "recipe app", "recipe importer", "weather app",
    "chat widget", "chat server", "photo uploader", "photo gallery", "invoice mailer",
    "invoice parser", "search index", "search page", "notification worker", "report builder",
]  # fmt: skip
_FNS = [
    "parse_rows", "syncUsers", "load_settings", "RateLimiter", "merge_accounts", "renderChart",
    "fetch_quotes", "normalize_phone", "TokenBucket", "apply_discount",
]  # fmt: skip
_FILES = ["app/models.py", "src/routes.ts", "lib/utils.js", "core/engine.go", "api/views.py",
          "web/index.tsx"]  # fmt: skip
_ERRORS = ["ECONNREFUSED 127.0.0.1:5432", "IndexError: list index out of range",
           "segmentation fault (core dumped)", "OOMKilled", "ImportError: cannot import name",
           "permission denied (publickey)", "ValueError: invalid literal for int()"]  # fmt: skip
_TABLES = ["orders", "signups", "payments", "refunds", "sessions", "tickets"]
_PKGS = ["react", "flask", "pandas", "express", "tokio", "rails", "pytest", "webpack"]
_LANGS = ["German", "Japanese", "Portuguese", "French", "Korean", "Spanish"]
_ENVS = ["staging", "production", "nginx", "kubernetes", "worker", "cron"]
_COLS = ["deleted_at", "currency", "last_login", "referrer", "timezone", "is_admin"]
_THINGS = ["email addresses", "uk postcodes", "iso dates", "semver strings", "ipv4 addresses",
           "hex colours", "phone numbers", "slugs"]  # fmt: skip

# The user's habits: said before or after any request, whatever it asks.
PREFIXES = ["quick idea:", "hey,", "ok so", "small thing:", "when you have a sec,",
            "one more:", "for the record,"]  # fmt: skip
SUFFIXES = ["in the admin panel", "thx", "asap", "when you get a chance", "no rush",
            "for the demo tomorrow", "before friday"]  # fmt: skip

# One-off request shapes: a verb and little else, so that what a one-off asks is the
# (shape, feature) pair; several use the verbs and words the kinds use.
ONE_OFF_SHAPES = [
    "add {feature} to the {obj}", "remove {feature} from {obj}", "fix {feature} in {obj}",
    "explain {feature} to me", "design {feature}", "prototype {feature} for the {obj}",
    "estimate {feature}", "announce {feature}", "document {feature}", "review {feature}",
    "test {feature} on the {obj}", "translate {feature}", "speed up {feature}",
    "refactor {feature} in {obj}", "disable {feature}", "enable {feature} for {obj}",
    "hide {feature}", "restyle {feature}", "rename {feature}", "deprecate {feature}",
    "price {feature}", "measure {feature}", "sketch {feature}", "plan {feature}",
    "ship {feature} to the {obj}", "revert {feature}", "debug {feature} in {obj}",
    "simplify {feature}", "localize {feature}", "mock {feature}", "audit {feature}",
    "secure {feature}", "cache {feature}", "animate {feature}", "move {feature} into {obj}",
    "split {feature} out of {obj}", "port {feature} to the {obj}", "polish {feature}",
    "benchmark {feature}", "validate {feature}", "monitor {feature}", "backfill {feature}",
    "can we get {feature}?", "what about {feature} for {obj}", "let's drop {feature}",
]  # fmt: skip
FEATURES = [
    "dark mode", "csv export", "password reset", "rate limiting", "push notifications",
    "search bar", "onboarding tour", "avatar upload", "audit log", "two factor login",
    "keyboard shortcuts", "infinite scroll", "bulk delete", "drag and drop", "undo button",
    "offline mode", "share link", "email digest", "coupon codes", "gift cards", "wishlist",
    "referral program", "usage quotas", "team invites", "sso login", "webhooks", "api keys",
    "map view", "calendar sync", "pdf invoices", "price alerts", "tag cloud", "emoji reactions",
    "voice notes", "read receipts", "typing indicator", "session timeout", "cookie banner",
    "image cropping", "video previews", "comment threads", "mentions", "saved filters",
    "sorting options", "pagination", "autosave", "version history", "trash bin",
    "print layout", "qr codes", "barcode scanner", "geo fencing", "currency switcher",
    "tax calculator", "shipping estimates", "return labels", "loyalty points", "streak counter",
    "leaderboard", "achievement badges", "daily reminders", "snooze button", "focus timer",
    "heatmap", "progress bar", "skeleton loaders", "retry banner", "maintenance page",
    "status page", "changelog widget", "feedback form", "nps survey", "chat handoff",
    "typo tolerance", "spell check", "markdown preview", "code highlighting", "file previews",
    "zip download", "folder sharing", "guest access", "role permissions", "ip allowlist",
    "login alerts", "device list", "magic links", "captcha", "account merge", "data export",
    "account deletion", "birthday emails", "time tracking", "invoice reminders",
    "recurring payments", "split payments", "tip jar", "seat picker", "waitlist",
    "countdown timer", "weather widget", "currency rates", "stock ticker", "news feed",
    "rss import", "ical export", "contact import", "duplicate detection", "smart folders",
    "color themes", "font picker", "high contrast", "reduced motion", "left handed layout",
]  # fmt: skip


def _fill(template: str, rng: random.Random) -> str:
    return template.format(
        obj=rng.choice(OBJECTS),
        fn=rng.choice(_FNS),
        file=rng.choice(_FILES),
        ver=f"{rng.randint(1, 6)}.{rng.randint(0, 20)}",
        num=rng.randint(2, 999),
        err=rng.choice(_ERRORS),
        tbl=rng.choice(_TABLES),
        pkg=rng.choice(_PKGS),
        lang=rng.choice(_LANGS),
        env=rng.choice(_ENVS),
        branch=f"feat/{rng.choice(['nav', 'sync', 'login', 'cart', 'ui'])}-{rng.randint(1, 99)}",
        col=rng.choice(_COLS),
        thing=rng.choice(_THINGS),
    )


def _habits(text: str, rng: random.Random, rate: float) -> str:
    """The user's filler before or after the request."""
    if rng.random() < rate:
        text = f"{rng.choice(PREFIXES)} {text}"
    if rng.random() < rate:
        text = f"{text} {rng.choice(SUFFIXES)}"
    return text


def zipf_weights(n: int, exponent: float = 1.0) -> list[float]:
    raw = [1.0 / (r**exponent) for r in range(1, n + 1)]
    total = sum(raw)
    return [w / total for w in raw]


class _OneOffs:
    """One-off requests whose (shape, feature) key is used at most twice: fewer than the
    three sessions that make a task recurring, so no one-off kind is planted by accident.
    When every key is used twice (corpora past ~10,000 one-offs), a one-off is about a
    coined name of its own ("the vobrakel flow"), used once."""

    def __init__(self, rng: random.Random) -> None:
        self.rng = rng
        keys = [(s, f) for s in ONE_OFF_SHAPES for f in FEATURES]
        rng.shuffle(keys)
        self.keys = keys + keys
        self.coined: set[str] = set()

    def next(self) -> str:
        if self.keys:
            shape, feature = self.keys.pop()
        else:
            shape, feature = self.rng.choice(ONE_OFF_SHAPES), self._coin()
        return shape.format(feature=feature, obj=self.rng.choice(OBJECTS))

    def _coin(self) -> str:
        while True:
            word = "".join(
                self.rng.choice("bdfgklmnprstvz") + self.rng.choice("aeiou") for _ in range(4)
            )
            if word not in self.coined:
                self.coined.add(word)
                return f"the {word} {self.rng.choice(['flow', 'page', 'widget', 'job', 'form'])}"


def corpus(
    n_requests: int,
    *,
    seed: int = 0,
    kinds: int = len(KINDS),
    one_off_share: float = 0.38,
    days: int = 90,
    habit_rate: float = 0.3,
    typo_rate: float = 0.06,
) -> list[Request]:
    """``n_requests`` requests in sessions of 1-3 requests over ``days`` days; the kinds
    used are a seeded choice of ``kinds`` of the twenty, sized by a Zipf law."""
    rng = random.Random(seed)
    names = rng.sample(list(KINDS), kinds)
    weights = zipf_weights(len(names))
    one_offs = _OneOffs(rng)
    out: list[Request] = []
    session = 0
    while len(out) < n_requests:
        session += 1
        day = rng.randrange(days)
        for _ in range(rng.choice((1, 1, 2, 2, 3))):
            if len(out) >= n_requests:
                break
            if rng.random() < one_off_share:
                text, kind = one_offs.next(), None
            else:
                kind = rng.choices(names, weights)[0]
                text = _fill(rng.choice(KINDS[kind]), rng)
            text = typo(_habits(text, rng, habit_rate), rng, typo_rate)
            out.append(Request(text, kind, f"h{seed}-s{session}", day))
    return out


def planted_sessions(n_sessions: int, *, seed: int = 0, kinds: int = 8) -> list[Request]:
    """A small corpus of ``n_sessions`` sessions (1-3 requests each) over 30 days with
    ``kinds`` planted kinds, as one person's few weeks of use."""
    out: list[Request] = []
    for r in corpus(4 * n_sessions, seed=seed, kinds=kinds, days=30):
        if int(r.session_id.rsplit("s", 1)[1]) > n_sessions:
            break
        out.append(r)
    return out
