"""Seeded tasks for benchmarks/learning_local.py: four kinds of request a coding-agent user
repeats, each with the user's house rules, as a night would have them after mining.

Written for this benchmark (not the demo's samples, not tuned on any night's result): four
made-up projects, and per kind a generator of requests with their pasted content (a diff, a
pull request, a CI log, a bug report), the answer the user accepted, and the first answer
the user corrected. Each kind has four house rules; the user said each one in their own
words, a different phrasing in a train, a val and a test session. What mining would make of
it is built directly:

* every task of a kind carries the kind's rule judges (``trainer.checks``), each with the
  words of the correction it came from (``Judge.quotes``, a source saying "the user said")
  from the sessions its split may learn from: train tasks the train phrasing, val tasks the
  train and val ones, test tasks the train and test ones (mining's ``EVIDENCE_SPLITS``);
* every task has its content check (``skillopt_sleep.mining.content``, read against the
  requests its split may learn from) and its accepted answer in ``meta.accepted``;
* every judge is verified as mining verifies it: the answer the user corrected fails the
  rule it corrected, every accepted answer passes every judge of its task; generation stops
  with an error if one does not (a content check the accepted answer fails is dropped).

No rubric judges: the rules and the content check are free and exact.
"""

from __future__ import annotations

import random
import re
from dataclasses import dataclass, replace

from skillopt_sleep.mining.content import content_judge
from trainer.checks import CONTENT_KIND, passes
from trainer.skill import SkillDoc
from trainer.tasks import Judge, Task, said_source

SPLITS = {"train": 8, "val": 16, "test": 16}
EVIDENCE = {"train": ("train",), "val": ("train", "val"), "test": ("train", "test")}


@dataclass(frozen=True)
class Rule:
    kind: str
    value: str
    scope: str
    said: tuple[str, str, str]  # the user's words in a train, a val and a test session


@dataclass(frozen=True)
class Case:
    prompt: str
    accepted: str
    corrected: tuple[str, ...]  # first answers the user corrected: each rule breaks in one


@dataclass(frozen=True)
class Kind:
    name: str
    skill: str  # the user's SKILL.md, as they wrote it: no house rule in it
    rules: tuple[Rule, ...]
    max_answer_tokens: int


# -- the projects -------------------------------------------------------------------------
PROJECTS = [
    ("ferrypass", "ferrypass/booking.py",
     [("reserve_seat", "seat"), ("cancel_booking", "refund"), ("price_for", "fare"),
      ("load_timetable", "timetable"), ("next_departure", "departure")]),
    ("quillmark", "quillmark/render.py",
     [("render_table", "table"), ("slugify", "slug"), ("parse_front_matter", "front matter"),
      ("wrap_lines", "line width"), ("escape_html", "entity")]),
    ("orebase", "orebase/ingest.py",
     [("read_batch", "batch size"), ("dedupe_rows", "duplicate"), ("parse_timestamp", "timezone"),
      ("write_parquet", "compression"), ("retry_upload", "retry")]),
    ("hearthlog", "hearthlog/handlers.py",
     [("rotate_file", "rotation"), ("format_record", "timestamp"), ("flush_buffer", "buffer"),
      ("set_level", "level"), ("redact_fields", "secret")]),
]  # fmt: skip

# (type, summary of the change, the line before, the line after): {f} the function, {n} its noun
CHANGES = [
    ("fix", "handle empty {n} in {f}", "    return items[0]",
     "    return items[0] if items else None"),
    ("feat", "add {n} option to {f}", "def {f}(path):", "def {f}(path, {u}=None):"),
    ("perf", "cache {n} lookups in {f}", "    value = lookup(key)",
     "    value = _cache.get(key) or lookup(key)"),
    ("fix", "stop {f} crashing on bad {n}", "    value = int(raw)",
     "    value = int(raw) if raw.strip().isdigit() else 0"),
    ("refactor", "split {n} parsing out of {f}", "    parts = raw.split(',')",
     "    parts = _split_{u}(raw)"),
    ("feat", "log {n} changes in {f}", "    state.update(new)",
     "    log.info('{u} changed: %s', new)\n+    state.update(new)"),
]  # fmt: skip


def _changes(rng: random.Random) -> list[dict[str, str]]:
    out = []
    for project, path, funcs in PROJECTS:
        for func, noun in funcs:
            for typ, summary, old, new in rng.sample(CHANGES, 2):
                u = noun.replace(" ", "_")
                out.append({
                    "project": project, "path": path, "func": func, "noun": noun, "type": typ,
                    "summary": summary.format(f=func, n=noun),
                    "old": old.format(f=func, u=u), "new": new.format(f=func, u=u),
                })  # fmt: skip
    rng.shuffle(out)
    return out


def _diff(c: dict[str, str], line: int) -> str:
    path = c["path"]
    return (
        f"diff --git a/{path} b/{path}\n--- a/{path}\n+++ b/{path}\n"
        f"@@ -{line},3 +{line},3 @@ def {c['func']}(\n     # {c['noun']}\n-{c['old']}\n"
        f"+{c['new']}\n"
    )


# -- commit messages -------------------------------------------------------------------------
COMMIT_SKILL = """---
name: commit-message
description: Write the git commit message for a staged diff. Use when asked for a commit message.
---
# Commit messages

I paste the staged diff and ask for the message. Read the diff before you write.

## What the message says

- What changed, in the words of the code: the function or module it touches.
- Why, when the diff makes it clear (a crash fixed, an option added).
- Nothing the diff does not show; do not guess at tickets or authors.

## How I use it

I copy your answer straight into `git commit -m`, so answer with the message itself.
If the diff mixes unrelated changes, say so instead of writing one message for both.
"""
COMMIT_ASKS = [
    "write the commit message for this diff:\n\n```diff\n{d}```",
    "commit message please\n\n```diff\n{d}```",
    "can you write a commit msg for the staged changes?\n\n```diff\n{d}```",
    "draft the commit message for the diff below\n\n```diff\n{d}```",
]
COMMIT_RULES = (
    Rule("max_chars", "50", "first_line",
         ("too long, keep the subject under 50 chars", "subject line must be under 50 characters",
          "I said under 50 chars for the subject")),
    Rule("regex", r"^(?:feat|fix|docs|refactor|perf|test|build|ci|chore)(?:\([\w-]+\))?!?: ",
         "first_line",
         ("use conventional commits, like fix: or feat: at the start",
          "start the subject with the type, e.g. fix:",
          "no, prefix it with feat: or fix: or whatever the type is")),
    Rule("no", "trailing_punctuation", "first_line",
         ("no period at the end of the subject", "drop the full stop at the end",
          "don't end the subject with a period")),
    Rule("max_lines", "1", "answer",
         ("just the one line please, no body", "only the subject line, nothing else",
          "one line. no explanation under it")),
)  # fmt: skip


def _commit(c: dict[str, str], i: int, rng: random.Random) -> Case:
    subject = f"{c['type']}: {c['summary']}"
    if len(subject) > 50:  # the user's own subjects leave a detail out then
        subject = re.sub(r" (?:in|to|out of|on bad) [\w ]+$", "", subject)
    prompt = rng.choice(COMMIT_ASKS).format(d=_diff(c, 10 + 7 * i))
    corrected = (
        f"Updated {c['func']} in {c['path']} so that it can {c['summary']}.\n\n"
        f"This change makes {c['func']} more robust."
    )
    return Case(prompt, subject, (corrected,))


# -- changelog entries -----------------------------------------------------------------------
CHANGELOG_SKILL = """---
name: changelog-entry
description: Write the CHANGELOG entry for a merged pull request, when asked for a changelog line.
---
# Changelog entries

Our CHANGELOG.md is read by users upgrading the package, not by the team.

- Say what a user of the package notices, not how the code does it.
- Name the feature, option or command the change is about.
- Leave out refactors and test-only changes that users cannot notice; say so instead.

I give you the PR number, its title and the summary from its description.
"""
CHANGELOG_ASKS = [
    "changelog entry for PR #{p}: {t}\n\nSummary: {s}",
    "write the CHANGELOG line for #{p} ({t})\n\nWhat it does: {s}",
    'we merged #{p} "{t}", add the changelog entry\n\n{s}',
]
CHANGELOG_RULES = (
    Rule("starts_with", "- ", "answer",
         ("it's a list item, start with a dash", "should start with '- ' like the others",
          "make it a bullet, starting with -")),
    Rule("identifier_like", "(#123)", "answer",
         ("put the PR number at the end, like (#123)", "you forgot the PR number in brackets",
          "end it with the pr number e.g. (#88)")),
    Rule("no", "past_tense", "answer",
         ("present tense: Add, not Added", "don't write Added or Fixed, write Add, Fix",
          "no past tense please")),
    Rule("max_words", "15", "answer",
         ("too long, under 15 words", "keep entries under 15 words",
          "shorter, max 15 words")),
)  # fmt: skip


def _changelog(c: dict[str, str], i: int, rng: random.Random) -> Case:
    pr = 100 + 13 * i + rng.randrange(9)
    summary = c["summary"]
    title = f"{c['func']}: {summary}"
    body = (f"Changes {c['func']} in {c['path']} ({c['project']}) to {summary}; "
            f"users saw problems with the {c['noun']}.")  # fmt: skip
    prompt = rng.choice(CHANGELOG_ASKS).format(p=pr, t=title, s=body)
    accepted = f"- {summary[0].upper()}{summary[1:]} (#{pr})"
    corrected = (
        f"### Changed\n\nUpdated {c['func']} to {summary}. This was done in {c['path']} "
        f"because users of {c['project']} reported problems with the {c['noun']}."
    )
    return Case(prompt, accepted, (corrected,))


# -- CI log summaries ------------------------------------------------------------------------
CI_SKILL = """---
name: ci-log-summary
description: Summarize a failing CI log. Use when asked why CI failed or to summarize a CI log.
---
# CI failure summaries

I paste the failing part of the log and read your summary on my phone, between meetings.

## What I need to know

- Which job failed, and at which step.
- The first real error, not the noise after it.
- The likely cause, if the log shows it, and what to do next.

Ignore retries that passed and warnings that did not fail the job.
"""
CI_ASKS = [
    "CI failed, summarize:\n\n{log}",
    "why did the pipeline fail? log below\n\n{log}",
    "summarise this failing ci log\n\n{log}",
]
CI_RULES = (
    Rule("has", "bullet", "answer",
         ("as bullet points please", "use bullets, not a paragraph", "bullet points!")),
    Rule("max_bullets", "3", "answer",
         ("three bullets max", "no more than 3 bullets", "at most 3 points")),
    Rule("no", "code_fence", "answer",
         ("don't paste the log back in a code block", "no code blocks",
          "no ``` blocks, I have the log")),
    Rule("max_words", "60", "answer",
         ("too long. under 60 words", "keep it under 60 words", "60 words max")),
)  # fmt: skip
JOBS = ["test (3.11)", "test (3.12)", "lint", "typecheck", "build-wheel", "integration"]
ERRORS = [
    ("AssertionError", "assert {f}(sample) == expected"),
    ("KeyError", "KeyError: '{u}'"),
    ("TypeError", "TypeError: {f}() got an unexpected keyword argument '{u}'"),
    ("ValueError", "ValueError: invalid {n}: ''"),
]


def _ci(c: dict[str, str], i: int, rng: random.Random) -> Case:
    job = rng.choice(JOBS)
    err, line = rng.choice(ERRORS)
    u = c["noun"].replace(" ", "_")
    message = line.format(f=c["func"], u=u, n=c["noun"])
    test = f"tests/test_{c['func']}.py::test_{u}_{i}"
    log = (
        f"Run {job}\n##[group]Run pytest -q\n....F....\n=== FAILURES ===\n"
        f"___ test_{u}_{i} ___\n    def test_{u}_{i}():\n>       {c['func']}(sample)\n"
        f"{c['path']}:{40 + i}: in {c['func']}\nE   {message}\n"
        f"FAILED {test} - {err}\n1 failed, 8 passed in 3.{i % 10}1s\n"
        f"##[error]Process completed with exit code 1."
    )
    prompt = rng.choice(CI_ASKS).format(log=log)
    accepted = (
        f"- Job {job} failed in {test}\n- {err} in {c['func']} ({c['path']}), about the "
        f"{c['noun']}\n- Next: check how {c['func']} handles it"
    )
    pasted = (
        f"The CI run failed. Here is the log:\n\n```\n{log}\n```\n\n"
        f"The job {job} ran pytest and one test failed with {err}. " + "This needs a look. " * 6
    )
    listed = "\n".join(
        f"- {x}" for x in (f"job {job}", f"test {test}", err, message, f"file {c['path']}")
    )
    return Case(prompt, accepted, (pasted, listed))


# -- pytest regression tests -----------------------------------------------------------------
PYTEST_SKILL = """---
name: regression-test
description: Write a regression test for a reported bug. Use when asked for a regression test.
---
# Regression tests

A regression test pins a bug we fixed so it never comes back.

- Reproduce the exact input from the bug report.
- Assert the behaviour the report says is right, not just that nothing raises.
- One bug, one test; keep the test small enough to read at a glance.
- Import the function from the package, never copy its code into the test.

The bug report names the function and the input; the module path is in the report.
"""
PYTEST_ASKS = [
    "write a regression test for bug #{b}: {report}",
    "add a test that catches bug #{b} again\n\n{report}",
    "regression test please, bug #{b}:\n{report}",
]
PYTEST_RULES = (
    Rule("not_contains", "unittest", "answer",
         ("use pytest, not unittest", "no unittest, we're on pytest",
          "I said pytest not unittest")),
    Rule("regex", r"def test_regression_\w+", "code",
         ("name it test_regression_something", "call the test test_regression_<what>",
          "prefix test names with test_regression_")),
    Rule("not_regex", r"(?m)^\s*class\s", "code",
         ("no test classes, plain functions", "don't wrap it in a class",
          "just a function, no class")),
    Rule("regex", r"(?m)^\s*```python\s*$", "answer",
         ("put the code in a ```python block", "code goes in a python code block",
          "fence it as ```python")),
)  # fmt: skip


def _pytest(c: dict[str, str], i: int, rng: random.Random) -> Case:
    bug = 200 + 7 * i + rng.randrange(5)
    module = c["path"].removesuffix(".py").replace("/", ".")
    u = c["noun"].replace(" ", "_")
    report = (f"{c['func']} in {module} raises on an empty {c['noun']}; it should return "
              f"None. Input: {c['func']}('')")  # fmt: skip
    prompt = rng.choice(PYTEST_ASKS).format(b=bug, report=report)
    accepted = (
        f"```python\nfrom {module} import {c['func']}\n\n\n"
        f"def test_regression_empty_{u}():\n    assert {c['func']}('') is None\n```"
    )
    corrected = (
        f"```\nimport unittest\nfrom {module} import {c['func']}\n\n\n"
        f"class TestBug{bug}(unittest.TestCase):\n    def test_empty(self):\n"
        f"        self.assertIsNone({c['func']}(''))\n```"
    )
    return Case(prompt, accepted, (corrected,))


KINDS = {
    "commit-message": (Kind("commit-message", COMMIT_SKILL, COMMIT_RULES, 48), _commit),
    "changelog-entry": (Kind("changelog-entry", CHANGELOG_SKILL, CHANGELOG_RULES, 48), _changelog),
    "ci-log-summary": (Kind("ci-log-summary", CI_SKILL, CI_RULES, 120), _ci),
    "regression-test": (Kind("regression-test", PYTEST_SKILL, PYTEST_RULES, 120), _pytest),
}


def _rule_judge(rule: Rule, split: str, turn: str) -> Judge:
    words = rule.said[("train", "val", "test").index(split)]
    return Judge(rule.kind, rule.value, 1.0, said_source(f"turn {turn}: user correction", words),
                 (words,), rule.scope)  # fmt: skip


def _rules_for(kind: Kind, split: str) -> list[Judge]:
    """The kind's rule judges a task of `split` carries: one per rule and session it may
    learn from (as mining dedupes them: the latest statement of each check)."""
    latest: dict[tuple[str, str, str], Judge] = {}
    for source in EVIDENCE[split]:
        for r in kind.rules:
            latest[(r.kind, r.value, r.scope)] = _rule_judge(r, source, f"{kind.name}-{source}")
    return list(latest.values())


@dataclass(frozen=True)
class Generated:
    kind: Kind
    tasks: list[Task]
    dropped_content_checks: int

    @property
    def start(self) -> SkillDoc:
        return SkillDoc.parse(self.kind.skill)

    def said(self, split: str = "train") -> list[str]:
        """The user's correction sentences of `split`'s sessions, as they said them."""
        return [r.said[("train", "val", "test").index(split)] for r in self.kind.rules]


def generate(name: str, seed: int = 0, sizes: dict[str, int] = SPLITS) -> Generated:
    """The tasks of one kind: train/val/test as in `sizes`, verified (see the docstring)."""
    kind, make = KINDS[name]
    rng = random.Random(f"learning-local:{name}:{seed}")
    changes = _changes(rng)
    n = sum(sizes.values())
    cases = [make(c, i, rng) for i, c in enumerate(changes[:n])]
    splits = [s for s, k in sizes.items() for _ in range(k)]
    rng.shuffle(splits)
    allowed = {s: [c.prompt for c, sp in zip(cases, splits, strict=True) if sp in EVIDENCE[s]]
               for s in SPLITS}  # fmt: skip
    tasks, dropped = [], 0
    for i, (case, split) in enumerate(zip(cases, splits, strict=True)):
        judges = _rules_for(kind, split)
        for rule in kind.rules:  # an answer the user corrected breaks each rule
            if all(passes(rule.kind, rule.value, rule.scope, a) for a in case.corrected):
                raise ValueError(f"{name} {i}: every corrected answer passes {rule}")
        content = content_judge(case.prompt, allowed[split], f"{name}-{i}")
        if content is not None and passes(content.kind, content.value, content.scope,
                                          case.accepted):  # fmt: skip
            judges.append(content)
        elif content is not None:
            dropped += 1
        for j in judges:
            if not passes(j.kind, j.value, j.scope, case.accepted):
                raise ValueError(f"{name} {i}: the accepted answer fails {j.kind} {j.value}")
        meta = {"accepted": case.accepted, "kind": name, "real": True}
        tasks.append(Task(f"{name}-{seed}-{i:02d}", case.prompt, split, tuple(judges),
                          f"{name}-{i}", meta))  # fmt: skip
    return Generated(kind, tasks, dropped)


def pasted(gen: Generated) -> SkillDoc:
    """The start skill with the user's train corrections appended as they said them."""
    body = gen.start.body.rstrip("\n") + "\n\n" + "\n".join(gen.said("train")) + "\n"
    return replace(gen.start, body=body)


def has_content_check(task: Task) -> bool:
    return any(j.kind == CONTENT_KIND for j in task.judges)
