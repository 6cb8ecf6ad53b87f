"""What a run leaves behind: the best skill and how it came to be, as files a user can keep
next to the skill (best_skill.md, history.json, rejected.json, usage.json, summary.json)."""

from __future__ import annotations

import json
import math
from collections.abc import Mapping
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from trainer.budget import Usage
from trainer.edits import Edit, joined_origin
from trainer.ledger import LedgerRecord
from trainer.shapes import RUN, stamp
from trainer.skill import SkillDoc

SIM_LABEL = "SIMULATION: produced with the simulated world (trainer.sim), not real models."


def paired_interval(d: list[float]) -> tuple[float, float, float]:
    """(mean, low, high): the paired t-interval at 95% over per-task differences `d`
    (NaN bounds for a single task)."""
    arr = np.asarray(d, dtype=float)
    mean = float(arr.mean())
    if len(arr) < 2:
        return mean, math.nan, math.nan
    from scipy import stats  # heavy: loaded only when a test split is measured

    half = float(stats.t.ppf(0.975, len(arr) - 1) * arr.std(ddof=1) / math.sqrt(len(arr)))
    return mean, mean - half, mean + half


@dataclass(frozen=True)
class PassAll:
    """Best vs starting skill on the test split in the share of answers that passed every
    rule judge (what the user would have accepted), paired by task and sample like the
    mean's. Measured on the test tasks that have a rule judge (`n_tasks`)."""

    before: float | None
    after: float | None
    lift: float
    ci_low: float
    ci_high: float
    n_tasks: int

    @classmethod
    def measure(cls, best: list[list[float]], start: list[list[float]]) -> PassAll:
        pairs = [(b, s) for b, s in zip(best, start, strict=True) if b and s]
        if not pairs:
            return cls(None, None, math.nan, math.nan, math.nan, 0)
        lift, low, high = paired_interval([float(np.mean(b) - np.mean(s)) for b, s in pairs])
        before = float(np.mean([np.mean(s) for _b, s in pairs]))
        after = float(np.mean([np.mean(b) for b, _s in pairs]))
        return cls(before, after, lift, low, high, len(pairs))

    def to_dict(self) -> dict[str, Any]:
        return {k: _json_number(v) for k, v in asdict(self).items()}

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> PassAll:
        return cls(before=data.get("before"), after=data.get("after"), **_stored_lift(data))


@dataclass(frozen=True)
class TestLift:
    """Best vs starting skill on the test split, measured once after training: the mean
    score, and pass-all (`PassAll`) beside it.

    The 95% interval is a paired t-interval over tasks on d_i = mean(best) − mean(start):
    tasks are the unit of replication (samples within a task are not independent evidence
    about the population of tasks), and with bounded per-task differences the t-interval is
    accurate from a few dozen tasks on, without a bootstrap's seed or small-n under-coverage.
    """

    start_score: float | None
    best_score: float | None
    lift: float
    ci_low: float
    ci_high: float
    n_tasks: int
    method: str
    pass_all: PassAll | None = None

    @classmethod
    def measure(
        cls,
        best: list[list[float]],
        start: list[list[float]],
        best_pass: list[list[float]] | None = None,
        start_pass: list[list[float]] | None = None,
    ) -> TestLift:
        """Per task, the scores of its samples (and their pass-all as 1/0, leaving out the
        samples no rule judge spoke about)."""
        n = len(best)
        if n == 0:
            why = "not measured: no test task was scored on both sides"
            return cls(None, None, math.nan, math.nan, math.nan, 0, why)
        lift, low, high = paired_interval(
            [float(np.mean(b) - np.mean(s)) for b, s in zip(best, start, strict=True)]
        )
        passes = (
            PassAll.measure(best_pass, start_pass)
            if best_pass is not None and start_pass is not None
            else None
        )
        return cls(
            float(np.mean([np.mean(s) for s in start])),
            float(np.mean([np.mean(b) for b in best])),
            lift,
            low,
            high,
            n,
            "paired t-interval over test tasks",
            passes,
        )

    @classmethod
    def unchanged(cls) -> TestLift:
        return cls(None, None, 0.0, 0.0, 0.0, 0, "unchanged: no edit was accepted")

    @classmethod
    def skipped(cls, reason: str) -> TestLift:
        return cls(None, None, math.nan, math.nan, math.nan, 0, f"not measured: {reason}")

    @property
    def measured(self) -> bool:
        """Whether the test split was measured (some test task was scored on both sides)."""
        return bool(self.n_tasks) and self.start_score is not None and not math.isnan(self.lift)

    @property
    def note(self) -> str:
        """Why the test split was not measured (the trainer's words), else ''."""
        return "" if self.measured else self.method.removeprefix("not measured: ")

    def to_dict(self) -> dict[str, Any]:
        out = {k: _json_number(getattr(self, k)) for k in TEST_FIELDS}
        out["pass_all"] = self.pass_all.to_dict() if self.pass_all else None
        return out

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> TestLift:
        """A stored `to_dict()` (JSON has no NaN: a figure not measured was written null)."""
        pass_all = data.get("pass_all")
        return cls(
            start_score=data.get("start_score"),
            best_score=data.get("best_score"),
            **_stored_lift(data),
            method=str(data.get("method") or ""),
            pass_all=PassAll.from_dict(pass_all) if pass_all else None,
        )


TEST_FIELDS = ("start_score", "best_score", "lift", "ci_low", "ci_high", "n_tasks", "method")


def _json_number(v: Any) -> Any:
    return None if isinstance(v, float) and math.isnan(v) else v


def _stored_lift(data: Mapping[str, Any]) -> dict[str, Any]:
    """A stored lift, its interval and its task count (JSON has no NaN: null is NaN)."""
    nan = {k: math.nan if data.get(k) is None else float(data[k]) for k in LIFT_FIELDS}
    return {**nan, "n_tasks": int(data.get("n_tasks") or 0)}


LIFT_FIELDS = ("lift", "ci_low", "ci_high")


@dataclass(frozen=True)
class AcceptedEdits:
    """One step the gate accepted: the edits (kept as `Edit`s through the night, so their
    hashes and origins are read, not re-parsed), the incumbent they were made to and the
    candidate they made, the diff, the gate's decision and the runs whose samples decided."""

    where: str
    edits: tuple[Edit, ...]
    edit_hash: str
    evidence: dict[str, Any]  # the gate's Decision.to_dict()
    from_hash: str
    to_hash: str
    diff: str
    runs: tuple[str, ...]

    @property
    def origin(self) -> str:
        """Where the step's edits came from ("reflection", "example", "example+reflection");
        edits recorded before they said are "unknown"."""
        return joined_origin(e.origin for e in self.edits)

    def to_dict(self) -> dict[str, Any]:
        return {
            "where": self.where,
            "edits": [e.to_dict() for e in self.edits],
            "edit_hash": self.edit_hash,
            "evidence": self.evidence,
            "from_hash": self.from_hash,
            "to_hash": self.to_hash,
            "diff": self.diff,
            "runs": list(self.runs),
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> AcceptedEdits:
        return cls(
            where=str(data.get("where") or ""),
            edits=tuple(Edit.from_dict(e) for e in data["edits"]),
            edit_hash=str(data.get("edit_hash") or ""),
            evidence=dict(data.get("evidence") or {}),
            from_hash=str(data.get("from_hash") or ""),
            to_hash=str(data.get("to_hash") or ""),
            diff=str(data.get("diff") or ""),
            runs=tuple(data.get("runs") or ()),
        )


@dataclass
class RunResult:
    start_skill: SkillDoc
    best_skill: SkillDoc
    history: list[AcceptedEdits]  # accepted steps
    rejected: list[LedgerRecord]  # rejected (or dropped) edits, why (gate, anchor, firewall…)
    pending: list[LedgerRecord]  # undecided edits carried to the next run, with evidence
    usage: Usage  # calls (live/cached), tokens, cost, by role
    counters: dict[str, int]  # comparisons, unparseable answers, infra errors, skips...
    stop_reason: str  # "completed" | "budget: <kind>" | "no train or val tasks"
    test: TestLift
    settings: dict[str, Any] = field(default_factory=dict)
    simulation: bool = False

    @property
    def accepted(self) -> int:
        return len(self.history)

    def summary(self) -> dict[str, Any]:
        out = {
            "stop_reason": self.stop_reason,
            "start_skill_hash": self.start_skill.hash,
            "best_skill_hash": self.best_skill.hash,
            "accepted_steps": self.accepted,
            "rejected_edits": len(self.rejected),
            "pending_edits": len(self.pending),
            "test": self.test.to_dict(),
            "counters": dict(self.counters),
            "settings": self.settings,
        }
        if self.simulation:
            out = {"label": SIM_LABEL, **out}
        return out

    def output_files(self) -> dict[str, str]:
        """The run's files by name (what `write_outputs` writes), for a caller that writes
        them its own way (the night keeps them private: they quote the tasks)."""
        label = {"label": SIM_LABEL} if self.simulation else {}
        skill_text = self.best_skill.render()
        if self.simulation:
            skill_text = (
                f"<!-- {SIM_LABEL} -->\n" + skill_text
                if not self.best_skill.name
                else skill_text + f"\n<!-- {SIM_LABEL} -->\n"
            )
        return {
            "best_skill.md": skill_text,
            "history.json": _dump({**label, "accepted": [h.to_dict() for h in self.history]}),
            "rejected.json": _dump({**label, "rejected": [r.listed() for r in self.rejected]}),
            "pending.json": _dump({**label, "pending": [p.listed() for p in self.pending]}),
            "usage.json": _dump({**label, **self.usage.to_dict()}),
            "summary.json": _dump(self.summary()),
        }

    def write_outputs(self, out_dir: str | Path) -> list[Path]:
        """Write the run's files into `out_dir` (created) and return their paths."""
        out = Path(out_dir)
        out.mkdir(parents=True, exist_ok=True)
        paths = []
        for name, text in self.output_files().items():
            path = out / name
            path.write_text(text)
            paths.append(path)
        return paths


def _dump(obj: dict[str, Any]) -> str:
    """A run file's JSON, versioned (its shape is ``run``: nothing here reads it back)."""
    return json.dumps(stamp(RUN, obj), indent=2, ensure_ascii=False, default=str) + "\n"
