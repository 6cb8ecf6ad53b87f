"""What a run leaves behind: the best skill and how it came to be, as files a user can keep
next to the skill (best_skill.md, history.json, rejected.json, usage.json, summary.json)."""

from __future__ import annotations

import json
import math
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

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
        lift, low, high = paired_interval([np.mean(b) - np.mean(s) for b, s in pairs])
        before = float(np.mean([np.mean(s) for _b, s in pairs]))
        after = float(np.mean([np.mean(b) for b, _s in pairs]))
        return cls(before, after, lift, low, high, len(pairs))

    def to_dict(self) -> dict[str, Any]:
        return {k: _json_number(v) for k, v in asdict(self).items()}


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
            [np.mean(b) - np.mean(s) for b, s in zip(best, start, strict=True)]
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

    def to_dict(self) -> dict[str, Any]:
        out = {k: _json_number(getattr(self, k)) for k in TEST_FIELDS}
        out["pass_all"] = self.pass_all.to_dict() if self.pass_all else None
        return out


TEST_FIELDS = ("start_score", "best_score", "lift", "ci_low", "ci_high", "n_tasks", "method")


def _json_number(v: Any) -> Any:
    return None if isinstance(v, float) and math.isnan(v) else v


@dataclass
class RunResult:
    start_skill: SkillDoc
    best_skill: SkillDoc
    history: list[dict[str, Any]]  # accepted steps: edits, diff, gate evidence
    rejected: list[dict[str, Any]]  # rejected edits with the reason (gate, anchor, firewall...)
    pending: list[dict[str, Any]]  # undecided edits carried to the next run, with evidence
    usage: dict[str, Any]  # calls (live/cached), tokens, cost, by role
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
            "history.json": _dump({**label, "accepted": self.history}),
            "rejected.json": _dump({**label, "rejected": self.rejected}),
            "pending.json": _dump({**label, "pending": [_brief(p) for p in self.pending]}),
            "usage.json": _dump({**label, **self.usage}),
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


def _brief(pending: dict[str, Any]) -> dict[str, Any]:
    """A pending record without its raw scores (those stay in the ledger)."""
    return {k: v for k, v in pending.items() if k != "scores"}


def _dump(obj: Any) -> str:
    return json.dumps(obj, indent=2, ensure_ascii=False, default=str) + "\n"
