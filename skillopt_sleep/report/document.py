"""The night's summary as typed objects: what ``summary.json``, ``report.json``, the store's
``nights.summary`` and every ``--json`` of a finished night hold, and what every report
format, ``status`` and the daemon's log line read.

``night/summary.py`` builds a ``NightSummary`` once, from the night's steps; readers take
it, never the dict. It lives here, not in ``night/``, so ``status`` reads it without the
night's machinery (of the trainer it needs only the typed parts a skill's report holds: its
``Usage`` and its plan's ``Sizing``); ``Promotion`` and ``Skip`` (night steps that are also
parts of the summary) with it. ``to_json`` writes the current version of the ``summary`` shape
(trainer/shapes.py); ``from_json`` reads any stored version through ``shapes.upgrade``. A
summary an older release wrote may lack fields: they read as empty, as the readers used to
default them, and such a copy is written back with them.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import asdict, dataclass, field
from typing import Any

from trainer.budget import Usage
from trainer.shapes import SUMMARY, stamp, unstamped
from trainer.sizing import Sizing

JsonDict = dict[str, Any]


@dataclass(frozen=True)
class Skip:
    """A skill the night sets aside, and why (``error``: the user must act)."""

    skill: str
    reason: str
    error: bool = False

    def to_dict(self) -> dict[str, Any]:
        return {
            "skill": self.skill,
            "reason": self.reason,
            **({"error": True} if self.error else {}),
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Skip:
        return cls(data["skill"], data["reason"], bool(data.get("error", False)))


@dataclass(frozen=True)
class Promotion:
    """What the night did with one trained skill."""

    status: str  # promoted | staged | unchanged | failed
    reason: str
    version: int | None = None
    paths: tuple[str, ...] = ()  # SKILL.md files written
    targets: tuple[dict[str, Any], ...] = ()  # per skill root: status, path, reason
    errors: tuple[str, ...] = ()

    def to_dict(self) -> dict[str, Any]:
        d = asdict(self)
        return {k: list(v) if isinstance(v, tuple) else v for k, v in d.items()}

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Promotion:
        return cls(
            status=data["status"],
            reason=data["reason"],
            version=data.get("version"),
            paths=tuple(data.get("paths", ())),
            targets=tuple(data.get("targets", ())),
            errors=tuple(data.get("errors", ())),
        )


def _dicts(items: Any) -> tuple[JsonDict, ...]:
    return tuple(dict(i) for i in items or ())


@dataclass(frozen=True)
class PassAll:
    """The share of held-out answers that passed every rule judge, before and after, and
    the lift's 95% interval."""

    before: float | None
    after: float | None
    lift: float | None
    ci_low: float | None
    ci_high: float | None
    n_tasks: int

    def to_json(self) -> JsonDict:
        return {
            "before": self.before,
            "after": self.after,
            "lift": self.lift,
            "ci_low": self.ci_low,
            "ci_high": self.ci_high,
            "n_tasks": self.n_tasks,
        }

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> PassAll:
        return cls(data.get("before"), data.get("after"), data.get("lift"), data.get("ci_low"),
                   data.get("ci_high"), int(data.get("n_tasks") or 0))  # fmt: skip


@dataclass(frozen=True)
class HeldOut:
    """The held-out test of a skill: mean score before and after, the lift with its 95%
    interval, and pass-all where the test tasks have rule judges."""

    before: float
    after: float
    lift: float | None
    ci_low: float | None
    ci_high: float | None
    n_tasks: int
    method: str | None  # says how many tasks a budget cut left, if it did
    pass_all: PassAll | None

    def to_json(self) -> JsonDict:
        return {
            "before": self.before,
            "after": self.after,
            "lift": self.lift,
            "ci_low": self.ci_low,
            "ci_high": self.ci_high,
            "n_tasks": self.n_tasks,
            "method": self.method,
            "pass_all": self.pass_all.to_json() if self.pass_all else None,
        }

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> HeldOut:
        pass_all = data.get("pass_all")
        return cls(
            before=data["before"],
            after=data["after"],
            lift=data.get("lift"),
            ci_low=data.get("ci_low"),
            ci_high=data.get("ci_high"),
            n_tasks=int(data.get("n_tasks") or 0),
            method=data.get("method"),
            pass_all=PassAll.from_json(pass_all) if pass_all else None,
        )


@dataclass(frozen=True)
class EditRow:
    """One edit the night tried, as the report's table shows it. ``nights``: over how many
    nights an accepted edit's evidence grew; ``reason``: why a rejected or pending edit is
    where it is (each is absent from the other kind's JSON)."""

    status: str  # accepted | rejected | pending | dropped (undecided, its samples let go)
    kind: str
    origin: str  # corrections | reflection | example | accepted_answer | a "+" of them | unknown
    summary: str
    gate: JsonDict | None  # the gate's evidence (trainer.gate), as stored
    nights: int | None = None
    reason: str | None = None

    def to_json(self) -> JsonDict:
        out: JsonDict = {"status": self.status, "kind": self.kind, "origin": self.origin,
                         "summary": self.summary, "gate": self.gate}  # fmt: skip
        if self.nights is not None:
            out["nights"] = self.nights
        if self.reason is not None:
            out["reason"] = self.reason
        return out

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> EditRow:
        gate = data.get("gate")
        return cls(
            status=str(data.get("status") or ""),
            kind=str(data.get("kind") or ""),
            origin=str(data.get("origin") or "unknown"),
            summary=str(data.get("summary") or ""),
            gate=dict(gate) if isinstance(gate, Mapping) else None,
            nights=data.get("nights"),
            reason=str(data["reason"] or "") if "reason" in data else None,
        )


@dataclass(frozen=True)
class AcceptedStep:
    """A step the gate accepted: its edits (kind, text, anchor, section, origin each),
    where they came from, where in the run, their effect, and over how many nights."""

    origin: str  # corrections | reflection | example | accepted_answer | a "+" of them | unknown
    edits: tuple[JsonDict, ...]
    where: str = ""
    effect: float | None = None
    nights: int = 1

    def to_json(self) -> JsonDict:
        return {"origin": self.origin, "edits": list(self.edits), "where": self.where,
                "effect": self.effect, "nights": self.nights}  # fmt: skip

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> AcceptedStep:
        return cls(str(data.get("origin") or "unknown"), _dicts(data.get("edits")),
                   str(data.get("where") or ""), data.get("effect"),
                   int(data.get("nights") or 1))  # fmt: skip


@dataclass(frozen=True)
class PendingCandidate:
    """An undecided candidate carried to the next night: its gate evidence so far (effect,
    e-value of the e-value needed, sweeps over the val tasks) and what would decide it."""

    summary: str
    since: str = ""  # where in a run it was first held
    nights: int = 0
    e_value: float | None = None
    e_needed: float | None = None
    effect: float | None = None
    se: float | None = None
    sweeps: int | None = None
    pairs: int | None = None
    n_tasks: int | None = None
    decides: str = ""
    cut_by: str | None = None  # the budget that ended tonight's sweeps (calls, deadline, …)

    @property
    def kept(self) -> str:
        """What the next night starts from, in words ("" without gate evidence)."""
        if not self.pairs:
            return ""
        return f"still undecided: {self.pairs} paired samples kept for the next night"

    def to_json(self) -> JsonDict:
        return {
            "summary": self.summary,
            "since": self.since,
            "nights": self.nights,
            "e_value": self.e_value,
            "e_needed": self.e_needed,
            "effect": self.effect,
            "se": self.se,
            "sweeps": self.sweeps,
            "pairs": self.pairs,
            "n_tasks": self.n_tasks,
            "decides": self.decides,
            "cut_by": self.cut_by,
            "kept": self.kept,
        }

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> PendingCandidate:
        """A stored candidate (``kept`` is derived, so not read back)."""
        return cls(
            summary=str(data.get("summary") or ""),
            since=str(data.get("since") or ""),
            nights=int(data.get("nights") or 0),
            e_value=data.get("e_value"),
            e_needed=data.get("e_needed"),
            effect=data.get("effect"),
            se=data.get("se"),
            sweeps=data.get("sweeps"),
            pairs=data.get("pairs"),
            n_tasks=data.get("n_tasks"),
            decides=str(data.get("decides") or ""),
            cut_by=data.get("cut_by"),
        )


@dataclass(frozen=True)
class SkillReport:
    """What the night did for one skill: the verdict, the held-out test, the edits tried,
    the promotion, what it cost."""

    name: str
    managed: bool = False
    clusters: tuple[str, ...] = ()
    n_tasks: Mapping[str, int] = field(default_factory=dict)  # per split
    outcome: str = "skipped"  # promotion.verdict's outcome
    reason: str = ""
    action: str = ""  # promote | stage | keep: what the evidence allowed
    metric: str = ""  # the lead figure the outcome read
    test: HeldOut | None = None  # None: not measured
    plan: Sizing | None = None  # the run's settings fitted to the night, and what they show
    edits: tuple[EditRow, ...] = ()
    accepted: tuple[AcceptedStep, ...] = ()
    pending: tuple[PendingCandidate, ...] = ()
    diff: str = ""
    stopped_by: str | None = None  # the budget that stopped training, if one did
    promotion: Promotion | None = None
    usage: Usage = field(default_factory=Usage)
    counters: Mapping[str, int] = field(default_factory=dict)
    replay: JsonDict = field(default_factory=dict)  # where the tasks ran, rollouts per place
    outputs: str = ""  # the folder with the run's files
    skill_tokens: int | None = None

    def to_json(self) -> JsonDict:
        return {
            "name": self.name,
            "managed": self.managed,
            "clusters": list(self.clusters),
            "n_tasks": dict(self.n_tasks),
            "outcome": self.outcome,
            "reason": self.reason,
            "action": self.action,
            "metric": self.metric,
            "test": self.test.to_json() if self.test else None,
            "plan": self.plan.to_dict() if self.plan else None,
            "edits": [e.to_json() for e in self.edits],
            "accepted": [a.to_json() for a in self.accepted],
            "pending": [p.to_json() for p in self.pending],
            "diff": self.diff,
            "stopped_by": self.stopped_by,
            "promotion": self.promotion.to_dict() if self.promotion else None,
            "usage": self.usage.to_dict(),
            "counters": dict(self.counters),
            "replay": self.replay,
            "outputs": self.outputs,
            "skill_tokens": self.skill_tokens,
        }

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> SkillReport:
        test, promo = data.get("test"), dict(data.get("promotion") or {})
        if promo and "paths" not in promo and promo.get("path"):  # one path, before targets
            promo["paths"] = [promo["path"]]
        if promo:  # older reports left out what they did not know
            promo = {"status": "", "reason": "", **promo}
        return cls(
            name=data["name"],
            managed=bool(data.get("managed")),
            clusters=tuple(data.get("clusters") or ()),
            n_tasks=dict(data.get("n_tasks") or {}),
            outcome=str(data.get("outcome") or "skipped"),
            reason=str(data.get("reason") or ""),
            action=str(data.get("action") or ""),
            metric=str(data.get("metric") or ""),
            test=HeldOut.from_json(test) if test else None,
            plan=Sizing.from_dict(data["plan"]) if data.get("plan") else None,
            edits=tuple(EditRow.from_json(e) for e in data.get("edits") or ()),
            accepted=tuple(AcceptedStep.from_json(a) for a in data.get("accepted") or ()),
            pending=tuple(PendingCandidate.from_json(p) for p in data.get("pending") or ()),
            diff=str(data.get("diff") or ""),
            stopped_by=data.get("stopped_by"),
            promotion=Promotion.from_dict(promo) if promo else None,
            usage=Usage.from_dict(data.get("usage") or {}),
            counters=dict(data.get("counters") or {}),
            replay=dict(data.get("replay") or {}),
            outputs=str(data.get("outputs") or ""),
            skill_tokens=data.get("skill_tokens"),
        )


@dataclass(frozen=True)
class NightUsage:
    """What the night's training spent (replays included), against the night's budget."""

    calls: int = 0
    live_calls: int = 0  # calls a model answered (not from the cache)
    tokens: int = 0
    cost_usd: float = 0.0
    cost_unknown: tuple[str, ...] = ()  # roles whose model has no known price (counted $0)
    # max_calls, max_tokens, max_cost_usd; None: unlimited
    budget: Mapping[str, float | None] = field(default_factory=dict)

    def to_json(self) -> JsonDict:
        return {
            "calls": self.calls,
            "live_calls": self.live_calls,
            "tokens": self.tokens,
            "cost_usd": self.cost_usd,
            "cost_unknown": list(self.cost_unknown),
            "budget": dict(self.budget),
        }

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> NightUsage:
        return cls(
            calls=int(data.get("calls") or 0),
            live_calls=int(data.get("live_calls") or 0),
            tokens=int(data.get("tokens") or 0),
            cost_usd=float(data.get("cost_usd") or 0.0),
            cost_unknown=tuple(data.get("cost_unknown") or ()),
            budget=dict(data.get("budget") or {}),
        )


@dataclass(frozen=True)
class NightSummary:
    """A finished night: what was ingested and mined, each skill's report, what was not
    trained and why, the cost against the budget, the held-out score over nights, what the
    gate controls, which models served, and what went wrong."""

    night: str
    status: str = "done"
    simulation: bool = False
    ingest: JsonDict = field(default_factory=dict)  # session_ingest's report
    mining: JsonDict = field(default_factory=dict)  # clusters, recurring, tasks, requests
    skills: tuple[SkillReport, ...] = ()
    not_trained: tuple[Skip, ...] = ()
    usage: NightUsage | None = None  # None only in a summary that recorded none
    history: Mapping[str, list[JsonDict]] = field(default_factory=dict)  # skill -> scores
    gate: JsonDict = field(default_factory=dict)  # what the gate's level controls
    model_failure: str | None = None  # the night's first failed model call
    problems: tuple[str, ...] = ()
    problems_need_action: bool = False
    models: JsonDict = field(default_factory=dict)  # role -> what served it

    def to_json(self) -> JsonDict:
        return stamp(
            SUMMARY,
            {
                "night": self.night,
                "status": self.status,
                "simulation": self.simulation,
                "ingest": self.ingest,
                "mining": self.mining,
                "skills": [s.to_json() for s in self.skills],
                "not_trained": [s.to_dict() for s in self.not_trained],
                "usage": self.usage.to_json() if self.usage else {},
                "history": dict(self.history),
                "gate": self.gate,
                "model_failure": self.model_failure,
                "problems": list(self.problems),
                "problems_need_action": self.problems_need_action,
                "models": self.models,
            },
        )

    @classmethod
    def from_json(cls, stored: Any) -> NightSummary:
        """A stored summary of any version (``ShapeError`` for a newer release's)."""
        data = unstamped(SUMMARY, stored)
        return cls(
            night=str(data.get("night") or ""),
            status=str(data.get("status") or "done"),
            simulation=bool(data.get("simulation")),
            ingest=dict(data.get("ingest") or {}),
            mining=dict(data.get("mining") or {}),
            skills=tuple(SkillReport.from_json(s) for s in data.get("skills") or ()),
            not_trained=tuple(Skip.from_dict(s) for s in data.get("not_trained") or ()),
            usage=NightUsage.from_json(data["usage"]) if data.get("usage") else None,
            history=dict(data.get("history") or {}),
            gate=dict(data.get("gate") or {}),
            model_failure=data.get("model_failure"),
            problems=tuple(data.get("problems") or ()),
            problems_need_action=bool(data.get("problems_need_action")),
            models=dict(data.get("models") or {}),
        )
