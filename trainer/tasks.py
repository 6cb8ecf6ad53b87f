"""Tasks and judges: the data the trainer learns from. Judges are plain data, so they can be
exported, reviewed and edited by a person, and their provenance travels with them."""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field, fields
from typing import Any

from trainer.checks import CHECK_KINDS, SCOPES, scope_known, value_error

SPLITS = ("train", "val", "test")

# Rule judges are checked exactly against the target's answer (``trainer.checks``: words,
# patterns, starts/ends, counts, features, identifiers, each on a scope of the answer);
# "rubric" goes to the judge model. Scores are in [0, 1].
ANSWER_JUDGES = (*CHECK_KINDS, "rubric")
# Outcome judges check what an agent harness did, not what it said; they do not apply to a
# chat rollout (which runs no tools and changes no files) and are left out of its score.
OUTCOME_JUDGES = (
    "command_ran",  # some command the agent ran matches the Python regex `value`
    "file_changed",  # some changed file matches the glob `value`
    "file_unchanged",  # no changed file matches the glob `value`
    "exit_ok",  # the agent CLI exited 0 (`value` unused)
    "check",  # the shell command `value`, run in the workspace after the rollout, exits 0
)
JUDGE_KINDS = ANSWER_JUDGES + OUTCOME_JUDGES


_SAID = re.compile(r'the user said "(.+)"\Z', re.DOTALL)


def said_source(where: str, text: str) -> str:
    """A judge ``source`` that carries the user's own words (e.g. the correction a rule was
    read from). Reflection shows them to the optimizer: what the user said is knowledge the
    skill may carry, unlike the judge's internals (its regex or literal)."""
    return f'{where}: the user said "{" ".join(text.split())[:240]}"'


def user_said(source: str) -> str | None:
    """The user's words in a ``said_source`` source, else None."""
    match = _SAID.search(source)
    return match.group(1) if match else None


@dataclass(frozen=True)
class Judge:
    kind: str
    value: str
    weight: float = 1.0
    source: str = ""  # where it came from, e.g. "turn abc:3, user correction"
    # The user's own words the judge is built from (a correction, the request): knowledge
    # a skill may state in those very words; the judge firewall guards only the rest.
    quotes: tuple[str, ...] = ()
    # The part of the answer a rule check reads (``trainer.checks.SCOPES``); judges stored
    # before scopes existed read the whole answer.
    scope: str = "answer"

    def __post_init__(self) -> None:
        if self.kind not in JUDGE_KINDS:
            raise ValueError(f"unknown judge kind {self.kind!r}; expected one of {JUDGE_KINDS}")
        if self.weight <= 0:
            raise ValueError("judge weight must be positive")
        if not scope_known(self.scope):  # "code_bare@python": a code scope in some languages
            raise ValueError(f"unknown scope {self.scope!r}; expected one of {SCOPES}")
        problem = value_error(self.kind, self.value)
        if problem:
            raise ValueError(problem)

    def to_dict(self) -> dict[str, Any]:
        # shallow: its fields are plain values (asdict's deep copy was most of a big
        # mining run's time)
        out = {f.name: getattr(self, f.name) for f in fields(self)}
        out["quotes"] = list(self.quotes)
        return out

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Judge:
        return cls(
            kind=data["kind"],
            value=str(data["value"]),
            weight=float(data.get("weight", 1.0)),
            source=str(data.get("source", "")),
            quotes=tuple(str(q) for q in data.get("quotes") or ()),
            scope=str(data.get("scope") or "answer"),
        )


@dataclass(frozen=True)
class TaskWorkspace:
    """Where an agent harness attempts a task: a repository (a path, perhaps on another
    machine) checked out at a commit, after the task's setup commands. A task without one
    is replayed as a chat; so is one whose repository is not on disk
    (``trainer.harness.workspace.workspace_problem``)."""

    repo: str
    commit: str
    setup: tuple[str, ...] = ()

    def to_dict(self) -> dict[str, Any]:
        return {"repo": self.repo, "commit": self.commit, "setup": list(self.setup)}

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> TaskWorkspace:
        """A stored workspace; a missing repo or commit reads as "" (no usable workspace,
        as ``workspace_problem`` says), never an error: the task is still a chat task."""
        return cls(
            repo=str(data.get("repo") or ""),
            commit=str(data.get("commit") or ""),
            setup=tuple(str(c) for c in data.get("setup") or ()),
        )


@dataclass(frozen=True)
class Task:
    id: str
    prompt: str  # what the target is asked: the intent plus the minimal context to attempt it
    split: str  # "train" | "val" | "test"
    judges: tuple[Judge, ...] = ()
    group: str = ""  # near-duplicate group; a group never straddles splits
    meta: dict[str, Any] = field(default_factory=dict, compare=False, hash=False)
    # where an agent harness attempts it; None: no repository, the task is replayed as a chat
    workspace: TaskWorkspace | None = field(default=None, compare=False, hash=False)

    def __post_init__(self) -> None:
        if self.split not in SPLITS:
            raise ValueError(f"unknown split {self.split!r}; expected one of {SPLITS}")

    def to_dict(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "prompt": self.prompt,
            "split": self.split,
            "judges": [j.to_dict() for j in self.judges],
            "group": self.group,
            "meta": dict(self.meta),
            **({"workspace": self.workspace.to_dict()} if self.workspace else {}),
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Task:
        return cls(
            id=str(data["id"]),
            prompt=str(data["prompt"]),
            split=str(data["split"]),
            judges=tuple(Judge.from_dict(j) for j in data.get("judges", [])),
            group=str(data.get("group", "")),
            meta=dict(data.get("meta", {})),
            workspace=TaskWorkspace.from_dict(data["workspace"]) if data.get("workspace") else None,
        )
