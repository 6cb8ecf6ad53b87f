"""What the generated user asks after an answer: new requests of no kind (commit it, rerun
the failed jobs, tag the release) and questions about the answer. Each is built from its
session's context (message, branch, run id, version…), with the commands the agent ran."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from benchmarks.users.logs import Command

# A follow-up: (message, agent's answer, commands it ran), from the session's context.
FollowUp = Callable[[dict[str, Any]], tuple[str, str, tuple[Command, ...]]]


def _commit_followups() -> list[FollowUp]:
    def commit(c: dict) -> Command:
        first = c["message"].split("\n", 1)[0]
        return Command(
            f"git commit -q -F - <<'EOF'\n{c['message']}\nEOF\ngit log --oneline -1",
            f"{c['sha']} {first}",
        )

    return [
        lambda c: ("ok commit it", f"Committed as {c['sha']}.", (commit(c),)),
        lambda c: (
            "commit that and push the branch",
            f"Committed {c['sha']} and pushed {c['branch']}.",
            (
                commit(c),
                Command(
                    f"git push -u origin {c['branch']}",
                    f"branch '{c['branch']}' set up to track 'origin/{c['branch']}'.",
                ),
            ),
        ),
        lambda c: (
            "go ahead and commit, then open a draft PR",
            f"Committed {c['sha']} and opened draft PR #{c['pr']}.",
            (
                commit(c),
                Command(
                    "gh pr create --draft --fill",
                    f"https://github.com/ledgerline/{c['repo']}/pull/{c['pr']}",
                ),
            ),
        ),
        lambda c: (
            "commit it and run the unit tests once more",
            f"Committed {c['sha']}; all 214 tests pass.",
            (commit(c), Command("pytest -q", "214 passed in 22.10s")),
        ),
        lambda c: (
            "can you also write the PR description for it?",
            f"## Summary\n{c['body']}\n\nTicket: {c['key']}",
            (),
        ),
        lambda c: (
            "commit it, then rebase the branch on main",
            f"Committed {c['sha']} and rebased {c['branch']} onto main; no conflicts.",
            (
                commit(c),
                Command(
                    "git fetch -q origin && git rebase origin/main",
                    f"Successfully rebased and updated refs/heads/{c['branch']}.",
                ),
            ),
        ),
    ]


def _ci_followups() -> list[FollowUp]:
    return [
        lambda c: (
            "rerun the failed jobs",
            f"Rerunning the failed jobs of run {c['run']}.",
            (Command(f"gh run rerun {c['run']} --failed", ""),),
        ),
        lambda c: (
            "open an issue with that summary",
            f"Opened issue #{c['issue']} with the summary.",
            (
                Command(
                    f"gh issue create --title 'CI: {c['job']} failing' --body-file -",
                    f"https://github.com/ledgerline/ledgerline/issues/{c['issue']}",
                ),
            ),
        ),
        lambda c: (
            "which commit started this?",
            f"{c['sha']} from this morning is the first failing run.",
            (
                Command(
                    "gh run list --workflow ci.yml --limit 3",
                    f"X  {c['job']} failing  main  {c['sha']}\n✓  ok  main  e91b0c4",
                ),
            ),
        ),
        lambda c: (
            "can you check if main is also red?",
            "Yes, main fails the same way since this morning.",
            (
                Command(
                    "gh run list --branch main --limit 2",
                    f"X  ci  main  {c['run']}\n✓  ci  main  {c['run'] - 7}",
                ),
            ),
        ),
    ]


def _changelog_followups() -> list[FollowUp]:
    return [
        lambda c: (
            "add it to the top of CHANGELOG.md",
            f"Added the {c['version']} section at the top of CHANGELOG.md.",
            (Command("head -1 CHANGELOG.md", f"## {c['version']} - {c['day']}"),),
        ),
        lambda c: (
            "tag the release too",
            f"Tagged v{c['version']} and pushed the tag.",
            (
                Command(
                    f"git tag -a v{c['version']} -m 'Release {c['version']}' && git push origin "
                    f"v{c['version']}",
                    f" * [new tag]         v{c['version']} -> v{c['version']}",
                ),
            ),
        ),
        lambda c: (
            "now a two-line note for the customer newsletter about this release",
            f"Version {c['version']} is out: {c['highlight']}. The full list of changes is in "
            "the changelog.",
            (),
        ),
        lambda c: (
            "open the release PR with that as the body",
            f"Opened PR #{c['pr']} from release/{c['version']}.",
            (
                Command(
                    f"gh pr create --base main --head release/{c['version']} --body-file -",
                    f"https://github.com/ledgerline/ledgerline/pull/{c['pr']}",
                ),
            ),
        ),
    ]


QUESTIONS: dict[str, list[FollowUp]] = {
    "commit-message": [
        lambda c: (
            "how many lines does that touch?",
            f"{c['lines']} changed lines in {c['path']}.",
            (),
        )
    ],
    "ci-summary": [
        lambda c: ("is that the only failing job in the run?", "Yes, the other jobs passed.", ())
    ],
    "changelog-entry": [
        lambda c: ("how many PRs went into this one?", f"{c['n_prs']} merged pull requests.", ()),
        lambda c: ("what was the previous version again?", f"{c['previous']}.", ()),
    ],
}


FOLLOW_UPS: dict[str, Callable[[], list[FollowUp]]] = {
    "commit-message": _commit_followups,
    "ci-summary": _ci_followups,
    "changelog-entry": _changelog_followups,
}
