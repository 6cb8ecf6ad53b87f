"""Which tasks run in the harness and which as a chat, as one rollout adapter.

A task runs in the agent CLI when its workspace is usable (`workspace_problem`, the
harness's own test: a repository and a commit, the repository a git repository on disk);
otherwise it is replayed as a chat, and the reason is kept for the report. The adapter's
own identity is fixed: the chosen adapter's identity goes into each task's fingerprint,
so a chat task's cache key does not change when the harness's flags do.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from typing import Any

from trainer.harness.workspace import workspace_problem
from trainer.rollout import CHAT, Outcome, RolloutAdapter
from trainer.skill import SkillDoc
from trainer.tasks import Task


def where(task: Task, harness_kind: str) -> tuple[str, str]:
    """(where the task runs, why not in the harness; "" when it does)."""
    problem = workspace_problem(task.workspace)
    return (CHAT, problem) if problem else (harness_kind, "")


class Routed:
    """`RolloutAdapter`: the harness for tasks it can run, the chat adapter for the rest."""

    identity = "routed"

    def __init__(self, harness: RolloutAdapter, kind: str, chat: RolloutAdapter) -> None:
        self.harness, self.kind, self.chat = harness, kind, chat
        self.concurrency = max(harness.concurrency, chat.concurrency)
        self.simulation = getattr(chat, "simulation", False)

    def _pick(self, task: Task) -> RolloutAdapter:
        return self.chat if where(task, self.kind)[0] == CHAT else self.harness

    def fingerprint(self, skill: SkillDoc, task: Task, max_tokens: int | None) -> Any:
        adapter = self._pick(task)
        return [adapter.identity, adapter.fingerprint(skill, task, max_tokens)]

    def rollout(self, skill: SkillDoc, task: Task, *, max_tokens: int | None) -> Outcome:
        return self._pick(task).rollout(skill, task, max_tokens=max_tokens)


def routing(
    tasks: Iterable[Task], harness_kind: str | None, confined: bool = True
) -> dict[str, Any]:
    """For the report: tasks per place they run, why tasks fell back to chat, and (with a
    harness) whether its agents ran in the sandbox."""
    places: Counter[str] = Counter()
    reasons: Counter[str] = Counter()
    for task in tasks:
        place, reason = where(task, harness_kind) if harness_kind else (CHAT, "")
        places[place] += 1
        if reason:
            reasons[reason] += 1
    out: dict[str, Any] = {"tasks": dict(places), "chat_reasons": dict(reasons)}
    if harness_kind:
        out["confined"] = confined
    return out
