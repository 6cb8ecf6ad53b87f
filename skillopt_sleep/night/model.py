"""The objects a night hands from step to step: the plan's jobs, a trained skill, a
promotion, the night's outcome.

Each step's result is checkpointed in the store as JSON (``night_steps``), so every object
here round-trips through ``to_dict`` / ``from_dict``; in between, the steps pass the typed
objects, never loose dicts. The summary they end in (``NightSummary``) and its parts a step
also makes (``Promotion``, ``Skip``) live in ``report.document``, which ``status`` reads
without loading the trainer.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from session_ingest.passes import IngestReport
from skillopt_sleep.report.document import NightSummary, Promotion, Skip
from trainer.budget import Usage
from trainer.ledger import LedgerRecord
from trainer.result import AcceptedEdits, TestLift
from trainer.shapes import DRY_RUN, SUMMARY, stamp, unstamped
from trainer.sizing import Sizing
from trainer.tasks import SPLITS, Task

__all__ = [
    "DryRun",
    "Job",
    "NightOutcome",
    "Plan",
    "Promotion",
    "Skip",
    "TrainedSkill",
    "WouldTrain",
    "infra_errors",
]


@dataclass(frozen=True)
class Job:
    """One skill the night trains: its tasks and the text it starts from."""

    skill: str
    managed: bool
    clusters: tuple[str, ...]
    start_text: str
    base_hash: dict[str, str | None]  # skill root -> hash of its SKILL.md at plan time
    tasks: tuple[Task, ...]
    # its run fitted to tonight (trainer.sizing); None in plans checkpointed before sizing
    sizing: Sizing | None = None

    @property
    def n_tasks(self) -> dict[str, int]:
        return {s: sum(1 for t in self.tasks if t.split == s) for s in SPLITS}

    @property
    def exists(self) -> bool:
        """Whether some skill target already holds this skill."""
        return any(self.base_hash.values())

    def to_dict(self) -> dict[str, Any]:
        return {
            "skill": self.skill,
            "managed": self.managed,
            "clusters": list(self.clusters),
            "start_text": self.start_text,
            "base_hash": dict(self.base_hash),
            "tasks": [t.to_dict() for t in self.tasks],
            "n_tasks": self.n_tasks,
            "sizing": self.sizing.to_dict() if self.sizing else None,
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Job:
        return cls(
            skill=data["skill"],
            managed=bool(data["managed"]),
            clusters=tuple(data["clusters"]),
            start_text=data["start_text"],
            base_hash=dict(data["base_hash"]),
            tasks=tuple(Task.from_dict(t) for t in data["tasks"]),
            sizing=Sizing.from_dict(data["sizing"]) if data.get("sizing") else None,
        )


@dataclass(frozen=True)
class Plan:
    jobs: tuple[Job, ...]
    skipped: tuple[Skip, ...]

    def to_dict(self) -> dict[str, Any]:
        return {
            "jobs": [j.to_dict() for j in self.jobs],
            "skipped": [s.to_dict() for s in self.skipped],
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Plan:
        return cls(
            tuple(Job.from_dict(j) for j in data["jobs"]),
            tuple(Skip.from_dict(s) for s in data["skipped"]),
        )


def infra_errors(usage: Usage, counters: Mapping[str, Any]) -> int:
    """Calls that failed after retries: the trainer counts them in its usage."""
    return int(usage.infra_errors or counters.get("infra_errors") or 0)


@dataclass(frozen=True)
class TrainedSkill:
    """What training did for one job (the trainer's RunResult, as stored)."""

    skill: str
    start_text: str
    best_text: str
    diff: str
    accepted: int
    stop_reason: str
    test: TestLift
    usage: Usage
    counters: dict[str, int]
    history: tuple[AcceptedEdits, ...] = ()  # accepted steps
    rejected: tuple[LedgerRecord, ...] = ()  # rejected or dropped edits, and why
    pending: tuple[LedgerRecord, ...] = ()  # undecided, with evidence (without raw scores)
    simulation: bool = False
    outputs: str = ""  # the folder with the run's files
    # where the tasks ran: {"tasks": {"claude-code": n, "chat": n}, "chat_reasons": {...}}
    replay: dict[str, Any] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        """As a night's checkpoint stores it (the test and the steps as their own dicts)."""
        out = asdict(self)
        out.update(
            test=self.test.to_dict(),
            usage=self.usage.to_dict(),
            history=[h.to_dict() for h in self.history],
            rejected=[r.listed() for r in self.rejected],
            pending=[p.listed() for p in self.pending],
        )
        return out

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> TrainedSkill:
        def records(key: str) -> tuple[LedgerRecord, ...]:
            return tuple(LedgerRecord.from_dict(r) for r in data.get(key) or ())

        return cls(
            **{
                **data,
                "test": TestLift.from_dict(data["test"]),
                "usage": Usage.from_dict(data.get("usage") or {}),
                "history": tuple(AcceptedEdits.from_dict(h) for h in data.get("history") or ()),
                "rejected": records("rejected"),
                "pending": records("pending"),
            }
        )


@dataclass(frozen=True)
class WouldTrain:
    """A skill a dry run would train: on how many tasks per split, and its run's plan."""

    skill: str
    managed: bool
    n_tasks: Mapping[str, int]
    exists: bool
    sizing: Sizing | None

    @property
    def estimated_calls(self) -> int | None:
        return self.sizing.calls.total if self.sizing else None

    def to_json(self) -> dict[str, Any]:
        return {
            "skill": self.skill,
            "managed": self.managed,
            "n_tasks": dict(self.n_tasks),
            "exists": self.exists,
            "estimated_calls": self.estimated_calls,
            "plan": self.sizing.to_dict() if self.sizing else None,
        }

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> WouldTrain:
        plan = data.get("plan")
        return cls(data["skill"], bool(data["managed"]), dict(data["n_tasks"]),
                   bool(data["exists"]), Sizing.from_dict(plan) if plan else None)  # fmt: skip


@dataclass(frozen=True)
class DryRun:
    """What ``run --dry-run`` found a night would do (``--json`` prints ``to_json``)."""

    ingest: IngestReport
    mining: Mapping[str, int]  # clusters, recurring
    would_train: tuple[WouldTrain, ...]
    skipped: tuple[Skip, ...]
    budget: Mapping[str, Any]  # the config's budget section

    def to_json(self) -> dict[str, Any]:
        return stamp(
            DRY_RUN,
            {
                "night": "dry-run",
                "status": "dry_run",
                "ingest": self.ingest.to_dict(),
                "mining": dict(self.mining),
                "would_train": [w.to_json() for w in self.would_train],
                "skipped": [s.to_dict() for s in self.skipped],
                "budget": dict(self.budget),
            },
        )

    @classmethod
    def from_json(cls, stored: Any) -> DryRun:
        """A printed dry run of any version (``ShapeError`` for a newer release's)."""
        data = unstamped(DRY_RUN, stored)
        return cls(
            ingest=IngestReport.from_dict(data["ingest"]),
            mining=dict(data["mining"]),
            would_train=tuple(WouldTrain.from_json(w) for w in data["would_train"]),
            skipped=tuple(Skip.from_dict(s) for s in data["skipped"]),
            budget=dict(data["budget"]),
        )


@dataclass
class NightOutcome:
    """How a night ended: its id, status (done | stopped | dry_run), a finished night's
    summary and reports, or a dry run's plan."""

    night_id: str
    status: str
    summary: NightSummary | None = None  # a finished night's (status done)
    reports: dict[str, Path] = field(default_factory=dict)
    dry_run: DryRun | None = None  # what a dry run would do (status dry_run)

    @property
    def exit_code(self) -> int:
        """0 unless the user must act (a provider failed, a skill could not be written)."""
        return 1 if self.summary and self.summary.problems_need_action else 0

    def to_json(self) -> dict[str, Any]:
        """What ``run --json`` prints: the summary, the dry run's plan, or the night's id
        and status (a stopped night has no summary yet: a ``summary`` shape with only
        those, which ``NightSummary.from_json`` reads)."""
        if self.summary is not None:
            return self.summary.to_json()
        if self.dry_run is not None:
            return self.dry_run.to_json()
        return stamp(SUMMARY, {"night": self.night_id, "status": self.status})
