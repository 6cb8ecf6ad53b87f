"""Tuning request corpus: mining's parameters are chosen on this one (see ``heldout``).

Each planted kind is asked in several paraphrases, with varying details (files, numbers,
names), typos, and spread over sessions and days. One-off requests are built from a large
made-up vocabulary so that two of them rarely ask for the same thing, as in real logs
where most requests are unique. With ``habit_rate`` the user's own filler ("btw", "… for
the client") is said around kinds and one-offs alike; ``zipf`` sizes kinds by a Zipf law.
With ``hard``, each kind is also asked in three paraphrases that share no content word
with its templates, and some one-offs are in common words: tech nouns ("trace the socket
in pet-store") or plain product language about a few screens ("hide bulk delete from the
billing screen"), so unrelated one-offs share topic words as real ones do.
"""

from __future__ import annotations

import random
from collections import Counter

from benchmarks.requests import Request, typo

KINDS: dict[str, list[str]] = {
    "commit-message": [
        "write a conventional commit message for the staged changes",
        "draft a commit msg for what I have staged",
        "give me a commit message for the staged diff in {file}",
        "can you write the commit message for these staged changes please",
        "conventional commit message for my staged work on {file}",
    ],
    "regression-test": [
        "add a pytest regression test for bug #{num}",
        "write a regression test with pytest that reproduces issue {num}",
        "add a test to {file} that catches the regression from bug {num}",
        "please add a pytest regression test covering the crash in {ident}",
        "regression test for bug {num} in {file} using pytest",
    ],
    "ci-log": [
        "summarize the failing CI log",
        "why did CI fail? summarize the log for job {num}",
        "give me a short summary of this failing ci run",
        "summarise the CI failure log and tell me the root cause",
        "read the failing CI log for {file} and summarize what broke",
    ],
    "changelog": [
        "update the changelog for release {ver}",
        "add the changes since v{ver} to CHANGELOG.md",
        "write the changelog entry for version {ver}",
        "prepare changelog notes for the {ver} release",
    ],
    "type-hints": [
        "add type hints to {file}",
        "annotate the functions in {file} with type hints",
        "please add missing type annotations to {ident} in {file}",
        "add python type hints to every function in {file}",
    ],
    "docstrings": [
        "write docstrings for the public functions in {file}",
        "add docstrings to {ident}",
        "document the functions in {file} with google style docstrings",
        "missing docstrings in {file}, please add them",
    ],
    "pr-description": [
        "write a pull request description for this branch",
        "draft the PR description for {branch}",
        "give me a PR summary for the changes on branch {branch}",
        "write up the pull request body for {branch} with a test plan",
    ],
    "flaky-test": [
        "the test {ident} is flaky, find out why",
        "investigate the flaky test in {file}",
        "why is {ident} failing intermittently in CI",
        "debug the flaky test {ident}, it fails one run in {num}",
    ],
    "dependency-bump": [
        "bump {pkg} to the latest version and fix what breaks",
        "upgrade the {pkg} dependency to {ver}",
        "update {pkg} to {ver} in pyproject and run the tests",
        "please upgrade {pkg} and make the test suite pass again",
    ],
    "sql-migration": [
        "write a database migration that adds column {ident} to the {tbl} table",
        "add an alembic migration for the new {ident} column on {tbl}",
        "create a migration adding {ident} to table {tbl}",
        "new db migration: add column {ident} to {tbl}",
    ],
    "explain-error": [
        "explain this error: {err}",
        "what does this error mean {err}",
        "I get {err} when I run the tests, what does it mean",
        "help me understand the error {err}",
    ],
    "rename-symbol": [
        "rename {ident} to {ident2} everywhere",
        "rename the function {ident} to {ident2} across the codebase",
        "please rename {ident} into {ident2} in all files",
        "refactor: rename {ident} -> {ident2} project wide",
    ],
}

# With ``hard``: paraphrases sharing no content word with the kind's other templates.
PARAPHRASES: dict[str, list[str]] = {
    "commit-message": [
        "describe what I did for git log",
        "one line for the history about this work",
        "sum up my pending edits so I can record them",
    ],
    "regression-test": [
        "make sure bug {num} never comes back",
        "guard against #{num} returning",
        "lock in the fix for {num} so nobody reintroduces it",
    ],
    "ci-log": [
        "why is the pipeline red",
        "the build broke again, what happened",
        "tell me what went wrong on the build server",
    ],
    "changelog": [
        "what is new since {ver}? note it in the history file",
        "list user-visible improvements shipped in {ver}",
        "what changed in {ver}, for users",
    ],
    "type-hints": [
        "make {file} pass mypy",
        "static typing for {file}",
        "annotate signatures so the checker is happy with {file}",
    ],
    "docstrings": [
        "explain each public function of {file} in its header comment",
        "{ident} has no comments, describe what it does",
        "every exported helper in {file} needs a short explanation",
    ],
    "pr-description": [
        "text for the merge page of {branch}",
        "help reviewers of {branch} understand it",
        "what should reviewers know about {branch}",
    ],
    "flaky-test": [
        "{ident} passes locally but randomly dies on the build server",
        "{ident} is unreliable, sometimes red sometimes green",
        "intermittent failure in {ident}, find the race",
    ],
    "dependency-bump": [
        "move {pkg} forward to {ver}",
        "we are behind on {pkg}, get us current",
        "newer {pkg} please, {ver} or later",
    ],
    "sql-migration": [
        "schema change: {ident} on {tbl}",
        "{tbl} needs a {ident} field",
        "store {ident} for each row of {tbl}",
    ],
    "explain-error": ["I keep seeing {err}", "{err} ??", "got {err} on startup, no idea"],
    "rename-symbol": [
        "{ident} should be called {ident2} from now on",
        "{ident} is a bad name, go with {ident2}",
        "call it {ident2} instead of {ident}",
    ],
}
# With ``hard``: project names said with kinds and one-offs alike, sharing words.
PROJECTS = ["pet-clinic", "pet-store", "todo-api", "todo-web", "blog-engine", "blog-admin",
            "data-lake", "data-portal", "side-project", "client-portal"]  # fmt: skip

_FILES = ["foo.py", "src/app/models.py", "lib/parser.ts", "tests/test_api.py", "cli/main.go"]
_IDENTS = ["parse_config", "loadUser", "FooBarBaz", "compute_total", "retry_later", "httpClient"]
_PKGS = ["requests", "pydantic", "numpy", "django", "fastapi", "sqlalchemy", "click"]
_TABLES = ["users", "orders", "invoices", "events", "accounts"]
_ERRORS = [
    "KeyError: 'id'",
    "TypeError: NoneType object is not subscriptable",
    "ModuleNotFoundError: No module named yaml",
    "AttributeError: module has no attribute run",
]
_CONSONANTS = "bcdfghjklmnprstvwz"
_VOWELS = "aeiou"
_NOUNS = [
    "cache",
    "endpoint",
    "schema",
    "widget",
    "parser",
    "queue",
    "worker",
    "token",
    "session",
    "layout",
    "button",
    "router",
    "index",
    "report",
    "export",
    "import",
    "banner",
    "sidebar",
    "modal",
    "tooltip",
    "webhook",
    "cron",
    "lambda",
    "bucket",
    "socket",
    "stream",
    "buffer",
    "thread",
    "mutex",
    "pool",
    "proxy",
    "gateway",
    "ledger",
    "invoice",
    "cart",
    "checkout",
    "coupon",
    "avatar",
    "profile",
    "badge",
    "feed",
    "comment",
    "thread",
    "upload",
    "thumbnail",
    "font",
    "palette",
    "theme",
    "locale",
    "timezone",
    "calendar",
    "reminder",
    "alarm",
    "sensor",
    "firmware",
    "driver",
    "kernel",
    "shader",
    "texture",
    "sprite",
]
_FILLER = ["please", "can you", "could you", "I need you to", "quickly", "now", ""]
_ONEOFF_VERBS = [
    "make", "teach", "let", "move", "turn", "wire", "hook", "port", "split", "merge",
    "sort", "cache", "log", "draw", "plot", "ship", "stub", "mock", "trace", "tune",
]  # fmt: skip


_GLUE = [
    "the",
    "a",
    "so",
    "and",
    "with",
    "into",
    "for",
    "before",
    "after",
    "when",
    "because",
    "but",
    "then",
    "of",
    "on",
    "at",
    "by",
    "from",
    "to",
    "my",
    "our",
    "this",
    "that",
    "it",
    "its",
]


def _word(rng: random.Random) -> str:
    """A made-up project noun (a name nobody else uses), e.g. "vobrakel"."""
    return "".join(rng.choice(_CONSONANTS) + rng.choice(_VOWELS) for _ in range(rng.randint(3, 4)))


def planted(kind: str, rng: random.Random, hard: bool = False) -> str:
    template = rng.choice(KINDS[kind] + (PARAPHRASES[kind] if hard else []))
    text = template.format(
        file=rng.choice(_FILES),
        num=rng.randint(2, 9999),
        ident=rng.choice(_IDENTS),
        ident2=rng.choice(_IDENTS) + "_v2",
        ver=f"{rng.randint(0, 9)}.{rng.randint(0, 30)}.{rng.randint(0, 9)}",
        pkg=rng.choice(_PKGS),
        tbl=rng.choice(_TABLES),
        branch=f"feature/{_word(rng)}",
        err=rng.choice(_ERRORS),
    )
    filler = rng.choice(_FILLER)
    return f"{filler} {text}".strip() if rng.random() < 0.3 else text


def one_off(rng: random.Random, used: set[tuple[str, str]] | None = None) -> str:
    """A request unlike any other: made-up nouns, random verb, random shape.

    Now and then a common word appears, as in real one-offs; ``used`` remembers which
    (verb, common word) pairs were taken, so the generator does not plant a recurring
    task ("cache the router" five times) by accident in a large corpus.
    """
    nouns = [_word(rng) for _ in range(rng.randint(2, 4))]
    verb = rng.choice(_ONEOFF_VERBS)
    if rng.random() < 0.2:
        common = rng.choice(_NOUNS)
        if used is None or (verb, common) not in used:
            nouns.insert(rng.randrange(len(nouns)), common)
            if used is not None:
                used.add((verb, common))
    glue = rng.sample(_GLUE, 2)
    words = [verb, *nouns]
    rng.shuffle(words)
    words.insert(rng.randrange(1, len(words)), glue[0])
    words.insert(rng.randrange(1, len(words)), glue[1])
    return " ".join(words)


def common_one_off(rng: random.Random, used: Counter[tuple[str, str]]) -> str | None:
    """A one-off in common words ("trace the socket in pet-store"); a (verb, noun) pair is
    used at most twice, fewer than the three sessions a recurring task needs."""
    pair = _rare_pair(rng, used, _ONEOFF_VERBS, _NOUNS)
    if pair is None:
        return None
    verb, noun = pair
    return f"{verb} the {noun} {rng.choice(['in', 'of', 'for'])} {rng.choice(PROJECTS)}"


def _rare_pair(
    rng: random.Random, used: Counter[tuple[str, str]], firsts: list[str], seconds: list[str]
) -> tuple[str, str] | None:
    """A (first, second) pair drawn at random and taken at most twice in ``used``, so a
    one-off is never said in the three sessions a recurring task needs; None when 20
    draws find none free."""
    for _ in range(20):
        pair = rng.choice(firsts), rng.choice(seconds)
        if used[pair] < 2:
            used[pair] += 1
            return pair
    return None


# With ``hard``: one-offs in plain product language. Each names a screen and something
# about it, so unrelated one-offs share topic words ("the billing screen"), as real ones do.
_ASKS = [
    "add {feature} to the {screen}",
    "why does the {screen} {symptom}",
    "the {screen} {symptom} on {platform}, can you look",
    "show {feature} on the {screen} for {audience}",
    "hide {feature} from the {screen} for {audience}",
    "make the {screen} feel {quality}",
    "what would it take to support {feature} in the {screen}",
    "redesign the {screen} so it looks {quality}",
]
_SCREENS = ["billing screen", "signup form", "search results page", "onboarding wizard",
            "team settings", "notification center", "admin dashboard", "invoice list",
            "profile editor", "file browser", "chat window", "map view", "calendar widget",
            "pricing table", "order history", "help center", "activity log",
            "media gallery"]  # fmt: skip
_FEATURES = ["dark mode", "keyboard shortcuts", "bulk delete", "a csv download",
             "inline editing", "drag and drop", "an undo button", "infinite scroll",
             "a progress bar", "saved filters", "emoji reactions", "a share link",
             "two factor prompts", "offline support", "a usage chart", "live previews"]  # fmt: skip
_SYMPTOMS = ["flicker on load", "lose my input", "freeze after a minute", "show stale data",
             "jump to the top", "render twice", "crash when empty", "ignore my clicks"]  # fmt: skip
_PLATFORMS = ["safari", "android", "an old ipad", "firefox", "windows", "slow networks"]
_AUDIENCES = ["guests", "admins", "new users", "paying customers", "managers", "everyone"]
_QUALITIES = ["snappier", "calmer", "more modern", "less cluttered", "friendlier", "denser"]


def plain_one_off(rng: random.Random, used: Counter[tuple[str, str]]) -> str | None:
    """A one-off in plain product language ("add dark mode to the billing screen"); an
    (ask, screen) pair is used at most twice, fewer than a recurring task's sessions."""
    pair = _rare_pair(rng, used, _ASKS, _SCREENS)
    if pair is None:
        return None
    ask, screen = pair
    return ask.format(
        screen=screen, feature=rng.choice(_FEATURES), symptom=rng.choice(_SYMPTOMS),
        platform=rng.choice(_PLATFORMS), audience=rng.choice(_AUDIENCES),
        quality=rng.choice(_QUALITIES),
    )  # fmt: skip


HABIT_PREFIXES = ["btw", "real quick,", "fyi", "alright,", "question:"]
HABIT_SUFFIXES = ["for the client", "in prod", "if possible", "cheers", "today"]


def _habits(text: str, rng: random.Random, rate: float) -> str:
    if rng.random() < rate:
        text = f"{rng.choice(HABIT_PREFIXES)} {text}"
    if rng.random() < rate:
        text = f"{text} {rng.choice(HABIT_SUFFIXES)}"
    return text


def corpus(
    n_turns: int,
    *,
    seed: int = 0,
    kinds: int = len(KINDS),
    one_off_share: float = 0.4,
    days: int = 30,
    turns_per_session: int = 6,
    typo_rate: float = 0.08,
    habit_rate: float = 0.0,
    zipf: bool = False,
    hard: bool = False,
) -> list[Request]:
    """``n_turns`` requests in sessions of about ``turns_per_session`` over ``days`` days.
    ``hard`` adds paraphrases without shared words, project names and common-word one-offs."""
    rng = random.Random(seed)
    names = list(KINDS)[:kinds]
    weights = [1.0 / (r + 1) if zipf else 1.0 for r in range(len(names))]
    out: list[Request] = []
    used: set[tuple[str, str]] = set()
    used_common: Counter[tuple[str, str]] = Counter()
    used_plain: Counter[tuple[str, str]] = Counter()
    session = 0
    while len(out) < n_turns:
        session += 1
        day = rng.randrange(days)
        for _ in range(rng.randint(1, 2 * turns_per_session - 1)):
            if len(out) >= n_turns:
                break
            if rng.random() < one_off_share or not names:
                text, kind = None, None
                if hard and rng.random() < 0.5:
                    text = common_one_off(rng, used_common)
                elif hard and rng.random() < 0.5:
                    text = plain_one_off(rng, used_plain)
                text = text or one_off(rng, used)
            else:
                kind = rng.choices(names, weights)[0]
                text = planted(kind, rng, hard)
                if hard and rng.random() < 0.3:
                    text = f"{text} in {rng.choice(PROJECTS)}"
                text = typo(text, rng, typo_rate)
            text = _habits(text, rng, habit_rate) if habit_rate else text
            out.append(Request(text, kind, f"s{session}", day))
    return out
