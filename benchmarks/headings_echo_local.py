"""REAL-MODEL benchmark: does the embedded target answer with its skill's section headings,
and what does deleting the headings it repeats do?

The night used to delete, before asking the optimizer anything, every section heading of
the skill that a failed answer repeated (`trainer/echo.py`, retired). It was written from the
0.5B's habit of answering with the demo's sample skill's outline. This measures that habit
on three skills: the sample skill (its "## Steps" / "## Rules" outline), a commit skill
written as a user would (26 lines, three `##` sections, no outline to echo), and a changelog
skill whose `### Added` / `### Fixed` / `### Changed` headings are the output the user
wants. Per skill: answers that meet every rule judge, the mean score, how many failed
answers repeat one of the skill's section headings, and the same after deleting those.

The tasks are 16 of the sample diffs (the 17th to the 32nd) as commit-message requests
(judges: at most 12 words, no `##`, no diff lines) or changelog requests (an entry under
one of the three headings, at most 40 words, no diff lines). The 0.5B at temperature 0.7,
one answer per task drawn with a seed of its task, 60 answer tokens, one thread.

Usage: python benchmarks/headings_echo_local.py [--json]
"""

from __future__ import annotations

import argparse
import json
import runpy
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from trainer.backends.base import seeded_sample  # noqa: E402
from trainer.backends.local import LocalServer, local_roles  # noqa: E402
from trainer.edits import HEADING, Edit, apply_edits, normalized  # noqa: E402
from trainer.rollout import Outcome, rollout_messages  # noqa: E402
from trainer.scoring import rule_score  # noqa: E402
from trainer.skill import SkillDoc  # noqa: E402
from trainer.tasks import Judge, Task  # noqa: E402

LABEL = "REAL MODELS: embedded Qwen2.5-Coder-0.5B (llama.cpp on this machine), no simulation."
SAMPLES = ROOT / "skillopt_sleep" / "data" / "samples"
DIFFS = runpy.run_path(str(SAMPLES / "diffs.py"))
COMMIT = """---
name: commit-message
description: Write the git commit message for the staged changes.
---
# Commit messages

We use conventional commits in this repository. The message is read in `git log --oneline`,
so the first line has to stand on its own.

## Format

- Start with the type: feat, fix, docs, test, refactor, perf, build or ci.
- After the colon, say what the change does in the imperative ("add", not "added").
- Keep the subject short: it should fit on one line of the log.
- Leave out the file names unless the change is about one file.

## What to leave out

- No headings, no bullet lists, no code: it is a commit message, not a document.
- Do not paste the diff back.
- Do not explain how you wrote the message.

## When unsure

If the diff mixes several changes, describe the main one; the reviewer will ask for a
split if needed.
"""
CHANGELOG = """---
name: changelog-entry
description: Write the CHANGELOG.md entry for a change.
---
# Changelog entries

Entries go under the next release in CHANGELOG.md, in the Keep a Changelog style.
Put each entry under one of these headings, exactly as written:

### Added

For new features.

### Fixed

For bug fixes.

### Changed

For changes in existing behaviour.

Write one bullet under the heading, in the past tense, for a user of tidepool.
"""
# A pasted diff line: a sign and then code (no space, or an indent), not "---"/"+++" and not a
# bullet ("- text", one space).
NO_DIFF_LINES = Judge("not_regex", r"^[+-](?![+-])(?:\S|\s{2,})")
COMMIT_JUDGES = (Judge("max_words", "12"), Judge("not_contains", "##"), NO_DIFF_LINES)
CHANGELOG_JUDGES = (
    Judge("regex", r"^### (Added|Fixed|Changed)\s*$"),
    Judge("max_words", "40"),
    NO_DIFF_LINES,
)


def tasks(kind: str) -> list[Task]:
    out = []
    for i, change in enumerate(DIFFS["CHANGES"][16:32]):
        diff = f"```diff\n{DIFFS['diff_text'](*change)}\n```"
        if kind == "commit":
            ask = f"write the commit message for the staged diff below, it's the {change[5]}"
            out.append(Task(f"c{i}", f"{ask}\n\n{diff}", "val", COMMIT_JUDGES))
        else:
            ask = f"write the changelog entry for this change ({change[5]})"
            out.append(Task(f"l{i}", f"{ask}\n\n{diff}", "val", CHANGELOG_JUDGES))
    return out


def headings(text: str, min_level: int = 1) -> dict[str, str]:
    found: dict[str, str] = {}
    for line in map(str.strip, text.splitlines()):
        m = HEADING.match(line)
        if m and len(m.group(1)) >= min_level:
            found.setdefault(normalized(m.group(2)), line)
    return found


def answer_all(target, doc: SkillDoc, todo: list[Task]) -> dict:
    rows = []
    for j, task in enumerate(todo):
        with seeded_sample(1000 + j):
            answer = target.complete(rollout_messages(doc, task), max_tokens=60).text
        scores = [rule_score(judge, Outcome(answer)) for judge in task.judges]
        rows.append((answer, sum(scores) / len(scores), all(s == 1.0 for s in scores)))
    sections = headings(doc.body, 2)
    failed = [a for a, _m, ok in rows if not ok]
    echoing = [a for a in failed if sections.keys() & headings(a).keys()]
    repeated = set().union(*(sections.keys() & headings(a).keys() for a in failed))
    return {
        "pass_all": sum(ok for *_, ok in rows),
        "mean": round(sum(m for _a, m, _ok in rows) / len(rows), 3),
        "failed": len(failed),
        "failed_echoing": len(echoing),
        "deleted": [line for key, line in sections.items() if key in repeated],
        "n": len(rows),
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args()
    sample = (SAMPLES / "skills" / "commit-message" / "SKILL.md").read_text()
    skills = {"sample skill": (sample, "commit"), "commit skill without an outline":
              (COMMIT, "commit"), "changelog template": (CHANGELOG, "changelog")}  # fmt: skip
    out: dict = {"label": LABEL, "skills": {}}
    with LocalServer.for_model("qwen2.5-coder-0.5b", threads=1, parallel=1) as server:
        target = local_roles(server, {"target": {"temperature": 0.7}}).target
        for name, (text, kind) in skills.items():
            doc, todo = SkillDoc.parse(text), tasks(kind)
            row = {"before": answer_all(target, doc, todo)}
            deleted = row["before"]["deleted"]
            if deleted:
                new, _applied, _failed = apply_edits(
                    doc, [Edit("delete", anchor=h) for h in deleted]
                )
                row["headings_deleted"] = answer_all(target, new, todo)
            out["skills"][name] = row
            if not args.json:
                print(name, json.dumps(row), file=sys.stderr)
    if args.json:
        print(json.dumps(out, indent=2))
        return
    print(LABEL)
    print(f"{'skill':<34}{'pass-all':>10}{'mean':>7}{'failed echoing':>16}  deleted")
    for name, row in out["skills"].items():
        for when, r in row.items():
            label = name if when == "before" else "  + headings it repeated deleted"
            deleted = ", ".join(r["deleted"])
            print(f"{label:<34}{r['pass_all']:>6}/{r['n']:<3}{r['mean']:>7.2f}"
                  f"{r['failed_echoing']:>9}/{r['failed']:<6}  {deleted}")  # fmt: skip


if __name__ == "__main__":
    main()
