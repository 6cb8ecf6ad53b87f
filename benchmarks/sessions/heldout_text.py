"""What the held-out developer types: the eight kinds' wordings, one-offs, follow-ups.

Each kind is asked six ways that share few content words ("write a commit message for
what's staged" / "what should the commit say?" / "describe this diff so I can check it
in"); the user's filler, lower-casing and typos are laid on top. One-off requests ask for
something different every time but talk about the same modules, functions and files, and a
few use a kind's words ("link the changelog from the README", "bump the copyright year").
Slots: {feature} {table} {column} {model} {test} {testname} {pkg} {ver} {prev} {branch}
{run} {pr} {bug} {num} {module} {fn} {fn2} {cls}.
"""

from __future__ import annotations

import random
import re

KIND_WAYS: dict[str, tuple[str, ...]] = {
    "commit_message": (
        "write a commit message for what's staged",
        "sum up my staged edits in one line for git",
        "what should the commit say?",
        "describe this diff so I can check it in",
        "need a subject line and body for the stuff in the index",
        "conventional-commits msg for the current changes, keep it short",
    ),
    "changelog_entry": (
        "add a changelog entry for {feature}",
        "note the {feature} work under Unreleased",
        "update CHANGELOG.md with today's {feature} change",
        "log what we just shipped ({feature}) in the changes file",
        "we need a line about {feature} for the next version's history",
        "record {feature} in the keep-a-changelog doc",
    ),
    "alembic_migration": (
        "create an alembic migration that adds {column} to {table}",
        "new db revision: {table}.{column} needs to exist",
        "schema change, {table} gets a {column} column. generate upgrade/downgrade",
        "autogenerate a revision for what I changed on the {model} model",
        "the database is missing {column} on {table}, make the migration",
        "write the upgrade script so prod has {table}.{column}",
    ),
    "flaky_test": (
        "{testname} is flaky, figure out why",
        "{test} passes locally but fails randomly in CI",
        "intermittent failure in {testname} again, can you dig in",
        "this one keeps going red every few runs: {test}",
        "why does {testname} only fail sometimes?",
        "triage the nondeterministic {testname}",
    ),
    "dependency_bump": (
        "bump {pkg} to {ver}",
        "upgrade {pkg} to the latest and make sure nothing breaks",
        "we're behind on {pkg}, move us to {ver}",
        "update the {pkg} pin in pyproject",
        "dependabot flagged {pkg}, take care of it",
        "raise our minimum {pkg} version to {ver}",
    ),
    "ci_summary": (
        "summarize the CI failure on {branch}",
        "why is the build red?",
        "what broke in the last pipeline run",
        "tl;dr of the failing github actions log for #{pr}",
        "check workflow run {run} and tell me what failed",
        "checks are failing on my PR, what's going on",
    ),
    "release_notes": (
        "write release notes for {ver}",
        "draft the announcement for the {ver} release",
        "what's new in {ver}? write it up for users",
        "prepare the notes we publish when tagging {ver}",
        "put together the {ver} summary from merged PRs",
        "user-facing writeup of everything since {prev}",
    ),
    "regression_test": (
        "add a regression test for {bug}",
        "write a pytest that reproduces {bug}",
        "make sure {bug} can't come back, cover it",
        "lock in the fix for {bug} with a unit test",
        "I fixed {bug}, need a case that would have caught it",
        "test for issue #{num}: {bug}",
    ),
}

# What a user types after ``/skill`` when not a whole sentence: the object only.
SHORT_ARGS: dict[str, tuple[str, ...]] = {
    "commit_message": ("", "staged"),
    "changelog_entry": ("{feature}",),
    "alembic_migration": ("add {column} to {table}", "{table}.{column}"),
    "dependency_bump": ("{pkg} {ver}", "{pkg}"),
    "release_notes": ("{ver}", "v{ver}"),
}

# Corrections after the agent's answer, per kind (the user's feedback).
CORRECTIONS: dict[str, tuple[str, ...]] = {
    "commit_message": (
        "no, imperative mood please",
        "too long, subject under 50 chars",
        "drop the body, one line is enough",
        "mention ticket {num} too",
    ),
    "changelog_entry": (
        "put it under Fixed, not Added",
        "shorter, one bullet",
        "link PR #{pr} in it",
    ),
    "alembic_migration": (
        "the downgrade should drop the index too",
        "don't include the enum change autogenerate picked up",
        "use server_default, not default",
    ),
    "flaky_test": (
        "don't just add a retry, find the actual race",
        "no sleeps, freeze the clock instead",
    ),
    "dependency_bump": (
        "don't touch the lock entries of other packages",
        "pin it exactly, no range",
    ),
    "ci_summary": ("which job exactly?", "just the first error pls"),
    "release_notes": (
        "less marketing-y please",
        "group it by features and fixes",
        "the breaking change goes first",
    ),
    "regression_test": (
        "use parametrize instead of three copies",
        "put it in the existing test file, not a new one",
    ),
}
ACKS = ("thanks!", "perfect, thx", "lgtm", "great", "nice one", "ok cool", "ty")

# One-off asks: (template, style). Styles pick the agent's work (heldout_plans.py):
# explain (read), change (read, edit, run the suite), search (grep, read), look (ls, git
# status, README), chat (no tools). The last group shares a word with a kind.
ONE_OFFS: tuple[tuple[str, str], ...] = (
    ("what does {fn} in {module} actually do?", "explain"),
    ("rename {fn} to something clearer, it's used all over", "change"),
    ("add type hints to {module}", "change"),
    ("there's a TODO about caching in {module}, is it still relevant", "explain"),
    ("make the log lines in {module} less noisy", "change"),
    ("why is {fn} so slow on big inputs", "search"),
    ("turn the options dict in {module} into a dataclass", "change"),
    ("delete the dead code in {module}", "change"),
    ("where do we read the DATABASE_URL env var", "search"),
    ("show me the layout of the repo", "look"),
    ("add a --dry-run flag to the cli", "change"),
    ("the install steps in the README are outdated, fix them", "change"),
    ("is {fn} thread safe?", "explain"),
    ("replace the print calls in {module} with logging", "change"),
    ("split {module} in two, it's getting huge", "change"),
    ("how many http routes do we expose", "search"),
    ("find every place we catch a bare Exception", "search"),
    ("explain the retry logic in {fn}", "explain"),
    ("add a docstring to {fn}", "change"),
    ("sort the imports in {module}", "change"),
    ("make {fn} async", "change"),
    ("write a small script that counts rows per month in exports/latest.csv", "change"),
    ("add a /healthz endpoint", "change"),
    ("why does make dev hang on my machine", "search"),
    ("{fn} should raise ValueError on empty input", "change"),
    ("the error message in {fn} is confusing, reword it", "change"),
    ("list the env vars the app reads and put them in the README", "change"),
    ("add an .editorconfig", "change"),
    ("what's in the docs folder?", "look"),
    ("pull the magic numbers in {module} out into constants", "change"),
    ("can {fn} handle unicode input?", "explain"),
    ("remove unused imports across the repo", "change"),
    ("sketch a mermaid diagram of how {module} talks to other modules", "explain"),
    ("the docker image builds slowly, any quick wins", "search"),
    ("profile {fn} and tell me where the time goes", "search"),
    ("add a __repr__ to {cls}", "change"),
    ("clean up the .gitignore, it has duplicates", "change"),
    ("what's the difference between {fn} and {fn2}?", "explain"),
    ("set a 10s default timeout on outgoing http calls", "change"),
    ("make the cli print its version with -V", "change"),
    ("what's a good name for a module that holds {fn} and {fn2}", "chat"),
    ("is it worth switching {module} to pathlib", "explain"),
    ("give {cls} a from_dict classmethod", "change"),
    ("how do I profile memory in python without installing anything", "chat"),
    ("which files did I touch most this month", "look"),
    ("explain {cls} to me like I'm new to the codebase", "explain"),
    ("inline the helper that {fn} calls, it's only used once", "change"),
    ("add a makefile target that formats everything", "change"),
    ("check whether {module} still imports anything deprecated", "search"),
    ("rewrite the loop in {fn} as a comprehension if it stays readable", "change"),
    # shares words with a kind, asks for something else
    ("what's uncommitted right now", "look"),
    ("set up a pre-commit config with ruff", "change"),
    ("link the changelog from the README", "change"),
    ("why is there a migrations folder here at all", "look"),
    ("the CI badge in the README points at the old workflow, fix the url", "change"),
    ("bump the copyright year in LICENSE", "change"),
    ("how do I run a single test file again?", "chat"),
    ("which python version does the project need", "explain"),
    ("my commit got rejected by a hook, what is it checking", "search"),
    ("the release checklist in CONTRIBUTING.md is missing the tagging step", "change"),
)

# First words of requests that read as orders, so "can you …" / "pls …" fit before them.
VERBS = frozenset(
    ("write", "sum", "describe", "add", "note", "update", "log", "record", "create",
     "autogenerate", "triage", "bump", "upgrade", "raise", "summarize", "check", "draft",
     "prepare", "put", "lock", "rename", "delete", "show", "replace", "split", "find",
     "explain", "sort", "make", "turn", "pull", "remove", "sketch", "profile", "clean", "set",
     "give", "inline", "rewrite", "link", "fix", "list")
)  # fmt: skip
PREFIXES = ("hey ", "ok ", "quick one: ", "so ", "alright, ", "morning! ", "hmm ")
ASK_PREFIXES = ("pls ", "can you ", "could you ", "please ")
SUFFIXES = (" thx", " pls", " thanks!", " when you have a sec", " :)", " ty", "!")
_WORD = re.compile(r"[A-Za-z]{4,}")
_NEAR = {
    "a": "s",
    "e": "r",
    "i": "o",
    "o": "p",
    "n": "m",
    "s": "a",
    "t": "r",
    "r": "e",
    "l": "k",
    "m": "n",
    "u": "y",
    "c": "v",
    "d": "s",
    "g": "h",
    "h": "j",
}


def typo(word: str, rng: random.Random) -> str:
    """One keyboard slip: swapped, dropped, doubled or neighbouring letter."""
    i = rng.randrange(1, len(word) - 1)
    op = rng.randrange(4)
    if op == 0:
        return word[:i] + word[i + 1] + word[i] + word[i + 2 :]
    if op == 1:
        return word[:i] + word[i + 1 :]
    if op == 2:
        return word[:i] + word[i] + word[i:]
    return word[:i] + _NEAR.get(word[i], word[i]) + word[i + 1 :]


def habits(text: str, rng: random.Random) -> str:
    """The user's way of typing: filler, case, the odd typo (words only, never paths)."""
    if rng.random() < 0.3:
        text = rng.choice(PREFIXES) + text
    elif text.split(" ", 1)[0] in VERBS and rng.random() < 0.25:
        text = rng.choice(ASK_PREFIXES) + text
    if rng.random() < 0.25 and not text.endswith(("?", "!")):
        text += rng.choice(SUFFIXES)
    if rng.random() < 0.2:
        text = text[:1].upper() + text[1:]
    if rng.random() < 0.22:
        words = [m for m in _WORD.finditer(text) if _plain(text, m.start(), m.end())]
        picked = rng.sample(words, min(len(words), rng.choice((1, 1, 2))))
        for m in sorted(picked, key=lambda m: m.start(), reverse=True):
            text = text[: m.start()] + typo(m.group(), rng) + text[m.end() :]
    return text.strip()


def _plain(text: str, start: int, end: int) -> bool:
    """A word not glued to a path, identifier or dotted name."""
    before = text[start - 1] if start else " "
    after = text[end] if end < len(text) else " "
    return before not in "/._-#" and after not in "/._-(" and not after.isdigit()
