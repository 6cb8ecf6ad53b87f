"""`skillopt-sleep tasks replay TASK_ID`: one rollout of one task, now, and how it scored.

Nothing is cached or promoted: this is for a person checking that a task, its workspace
and its judges mean what they should, and that the harness works on their machine.
"""

from __future__ import annotations

import contextlib
import copy
import os
import time
from collections.abc import Mapping
from dataclasses import dataclass, replace
from typing import Any

import sqlite_utils

from skillopt_sleep.replay.build import with_clis
from skillopt_sleep.replay.route import where
from trainer.backends.base import Roles
from trainer.rollout import CHAT, ChatRollout, Outcome
from trainer.scoring import (
    JUDGE_MAX_TOKENS,
    VERDICT_SCHEMA,
    Rollout,
    read_verdict,
    rubric_request,
    rule_score,
)
from trainer.shapes import REPLAY, stamp, unstamped
from trainer.skill import SkillDoc
from trainer.tasks import Task


@dataclass(frozen=True)
class ReplayReport:
    """``tasks replay --json``: the rollout (answer, tool calls, files, tokens, time) and
    each judge's score, as ``report`` makes it, with the shape's version."""

    report: dict[str, Any]

    def to_json(self) -> dict[str, Any]:
        return stamp(REPLAY, self.report)

    @classmethod
    def from_json(cls, stored: Any) -> ReplayReport:
        """A printed replay of any version (``ShapeError`` for a newer release's)."""
        return cls(unstamped(REPLAY, stored))


class ReplayError(Exception):
    """The task cannot be replayed as asked (one line for the user)."""


def find_task(db: sqlite_utils.Database, task_id: str) -> Task:
    from skillopt_sleep.mining.query import all_tasks

    found = all_tasks(db).get(task_id)
    if found is None:
        raise ReplayError(f"no task {task_id!r} (see: skillopt-sleep tasks list)")
    return found[0]


def task_skill(db: sqlite_utils.Database, config: Mapping[str, Any], task: Task) -> str:
    """The text the night would start this task's skill from: the night's own answer
    (`night.plan.job_start`), so a replay never tries a skill the night would not train."""
    from skillopt_sleep.mining import load_clusters
    from skillopt_sleep.night import Skip
    from skillopt_sleep.night.plan import job_start
    from skillopt_sleep.night.settings import train_settings

    cluster = next((c for c in load_clusters(db) if c.id == task.meta.get("cluster_id")), None)
    if cluster is None:
        raise ReplayError(f"task {task.id} belongs to no known cluster; pass --skill FILE")
    start = job_start(db, config, cluster, train_settings(config).max_skill_tokens)
    if isinstance(start, Skip):
        raise ReplayError(
            f"a night would not train skill {start.skill!r} ({start.reason}); pass --skill FILE"
        )
    return str(start["start_text"])


def replay(
    config: Mapping[str, Any],
    task: Task,
    skill_text: str,
    *,
    backend: str | None = None,
    roles_factory: Any = None,
    environ: Mapping[str, str] = os.environ,
) -> dict[str, Any]:
    """Run one rollout (`backend` None = as configured) and score it with the task's judges."""
    from skillopt_sleep.night.roles import default_roles
    from skillopt_sleep.night.settings import train_settings

    cfg = copy.deepcopy(dict(config))
    if backend in ("claude-code", "codex"):
        if where(task, backend)[0] == CHAT:
            raise ReplayError(f"task {task.id} has no workspace on disk; use --backend chat")
        cfg["models"]["target"]["backend"] = backend
    skill = SkillDoc.parse(skill_text)
    with contextlib.ExitStack() as stack:
        chat_roles = stack.enter_context((roles_factory or default_roles)(cfg, [task]))
        roles, adapter = stack.enter_context(with_clis(cfg, chat_roles, environ))
        if backend == CHAT:
            adapter = ChatRollout(roles.target)
        max_tokens = train_settings(cfg).max_answer_tokens
        started = time.monotonic()
        outcome = adapter.rollout(skill, task, max_tokens=max_tokens)
        if not outcome.seconds:  # a chat rollout does not time itself
            outcome = replace(outcome, seconds=round(time.monotonic() - started, 3))
        judges = score_judges(task, outcome, skill, roles)
    applicable = [j for j in judges if j["applies"]]
    weight = sum(j["weight"] for j in applicable)
    score = sum(j["weight"] * j["score"] for j in applicable) / weight if weight else None
    return report(task, skill, outcome, judges, score)


def score_judges(task: Task, outcome: Outcome, skill: SkillDoc, roles: Roles) -> list[dict]:
    out = []
    for judge in task.judges:
        if judge.kind == "rubric":
            req = rubric_request(Rollout(task, 0, skill.hash, outcome), judge)
            comp = roles.judge.complete(
                req.messages, json_schema=VERDICT_SCHEMA, max_tokens=JUDGE_MAX_TOKENS
            )
            verdict, _ = read_verdict(comp.text)
            score = verdict[0] if verdict else None
        else:
            score = rule_score(judge, outcome)
        out.append({
            "kind": judge.kind, "value": judge.value, "weight": judge.weight,
            "applies": score is not None, "score": score,
            "pass": None if score is None else score >= 0.5,
        })  # fmt: skip
    return out


def report(
    task: Task, skill: SkillDoc, outcome: Outcome, judges: list[dict], score: float | None
) -> dict[str, Any]:
    return {
        "task": task.id,
        "skill": {"name": skill.name, "hash": skill.hash},
        "backend": outcome.where,
        "cli_version": outcome.detail.get("cli_version"),
        "answer": outcome.answer,
        "tool_calls": [
            {"name": c.name, "command": c.command, "exit_status": c.exit_status}
            for c in outcome.tool_calls
        ],
        "files_changed": list(outcome.files_changed),
        "exit_status": outcome.exit_status,
        "skill_injected": outcome.skill_injected,
        "checks": outcome.checks,
        "judges": judges,
        "score": score,
        "tokens": {
            "input": outcome.input_tokens,
            "cached_input": int(outcome.detail.get("cached_input_tokens", 0)),
            "output": outcome.output_tokens,
        },
        "cost_usd": outcome.cost_usd,
        "seconds": outcome.seconds,
        "workspace": task.workspace.to_dict() if task.workspace else None,
        "detail": outcome.detail,
    }
