"""Rollouts: the one seam between the engine and whatever runs the target.

The engine asks a `RolloutAdapter` to attempt a task with a skill and gets an `Outcome`
back; it never knows whether that was one chat call or an agent CLI working in a copy of a
repository. `ChatRollout` is the first adapter (system = the skill, user = the request);
the agent harnesses (`trainer.harness`) are others. Outcomes are plain data, so the call
cache stores and replays them like chat answers, and judges score them (`trainer.scoring`).
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any, Protocol

from trainer.backends.base import ChatBackend, ContextOverflow, Message
from trainer.skill import SkillDoc
from trainer.tasks import Task

CHAT = "chat"
ROLLOUT_SYSTEM = "You are a coding agent. Follow the skill below when it applies.\n\n"


@dataclass(frozen=True)
class ToolCall:
    name: str
    command: str = ""  # the shell command for shell tools, else a short argument summary
    exit_status: int | None = None


@dataclass(frozen=True)
class Outcome:
    """What one attempt at a task produced. Harness fields stay empty for a chat rollout."""

    answer: str
    input_tokens: int = 0
    output_tokens: int = 0
    cost_usd: float = 0.0
    where: str = CHAT  # "chat" or the harness that ran it ("claude-code", "codex")
    tool_calls: tuple[ToolCall, ...] = ()
    files_changed: tuple[str, ...] = ()  # relative to the workspace, against the task's commit
    exit_status: int | None = None  # the agent CLI's own exit status
    checks: dict[str, int] = field(default_factory=dict)  # check command -> its exit status
    skill_injected: bool | None = None  # None where it does not apply (chat)
    seconds: float = 0.0
    detail: dict[str, Any] = field(default_factory=dict)  # harness-specific, e.g. cli_version
    overflow: bool = False  # the attempt did not fit the model's context: the task failed

    @property
    def harness(self) -> bool:
        return self.where != CHAT

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Outcome:
        calls = tuple(ToolCall(**c) for c in data.get("tool_calls", ()))
        return cls(
            answer=str(data.get("answer", data.get("text", ""))),
            input_tokens=int(data.get("input_tokens", 0)),
            output_tokens=int(data.get("output_tokens", 0)),
            cost_usd=float(data.get("cost_usd", 0.0)),
            where=str(data.get("where", CHAT)),
            tool_calls=calls,
            files_changed=tuple(data.get("files_changed", ())),
            exit_status=data.get("exit_status"),
            checks={str(k): int(v) for k, v in dict(data.get("checks", {})).items()},
            skill_injected=data.get("skill_injected"),
            seconds=float(data.get("seconds", 0.0)),
            detail=dict(data.get("detail", {})),
            overflow=bool(data.get("overflow", False)),
        )


class RolloutAdapter(Protocol):
    """Runs the target on one task with one skill. Must be safe to call from threads."""

    identity: str  # everything that changes outcomes (model, CLI, version, flags): cache keys
    concurrency: int  # rollouts in flight at most

    def fingerprint(self, skill: SkillDoc, task: Task, max_tokens: int | None) -> Any:
        """JSON-able: what fixes one attempt besides the skill's hash, the task's id, the
        sample and `identity` (for a chat, the messages; for a harness, the request, the
        workspace and the checks). Part of the cache key."""
        ...

    def rollout(self, skill: SkillDoc, task: Task, *, max_tokens: int | None) -> Outcome:
        """Attempt `task` with `skill`. Raises `InfraError` when the attempt could not be
        made (endpoint down, harness broken): never scored as a failure of the skill."""
        ...


def rollout_messages(skill: SkillDoc, task: Task) -> list[Message]:
    return [
        {"role": "system", "content": ROLLOUT_SYSTEM + skill.render()},
        {"role": "user", "content": task.prompt},
    ]


class ChatRollout:
    """A rollout as one chat call: the skill as system prompt, the request as user turn."""

    def __init__(self, backend: ChatBackend) -> None:
        self.backend = backend
        self.identity = backend.identity
        self.concurrency = backend.concurrency
        self.simulation = getattr(backend, "simulation", False)

    def fingerprint(self, skill: SkillDoc, task: Task, max_tokens: int | None) -> Any:
        # the material a chat Request keys on (calls.Request.key), so chat caches stay valid
        return [rollout_messages(skill, task), None, max_tokens, {}]

    def rollout(self, skill: SkillDoc, task: Task, *, max_tokens: int | None) -> Outcome:
        try:
            comp = self.backend.complete(rollout_messages(skill, task), max_tokens=max_tokens)
        except ContextOverflow:
            return Outcome("", overflow=True)
        return Outcome(comp.text, comp.input_tokens, comp.output_tokens, comp.cost_usd)
