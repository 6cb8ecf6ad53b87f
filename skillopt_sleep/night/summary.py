"""The night's summary (``document.NightSummary``) built once from the night's steps: the
data every report format renders, stored with the night."""

from __future__ import annotations

import json
import math
import textwrap
from collections.abc import Iterable, Mapping
from typing import Any

import sqlite_utils

from skillopt_sleep.night.model import Job, Plan, Promotion, TrainedSkill, infra_errors
from skillopt_sleep.night.settings import NightSettings
from skillopt_sleep.promotion.verdict import Verdict, decide
from skillopt_sleep.report.document import (
    AcceptedStep,
    EditRow,
    HeldOut,
    NightSummary,
    NightUsage,
    PassAll,
    PendingCandidate,
    SkillReport,
)
from trainer.edits import joined_origin
from trainer.gate import controls
from trainer.result import PassAll as TrainerPassAll
from trainer.skill import SkillDoc

# Infra failures are counted by the trainer; these outcomes mean the user must act.
ACTION_OUTCOMES = {"error"}


def usage_total(results: Iterable[TrainedSkill]) -> dict[str, float]:
    """Calls, tokens and cost charged so far by finished training runs (replays included)."""
    total = {"calls": 0.0, "tokens": 0.0, "cost_usd": 0.0, "live_calls": 0.0}
    for r in results:
        u = r.usage
        total["calls"] += u.calls
        total["live_calls"] += u.live_calls
        total["tokens"] += u.input_tokens + u.output_tokens
        total["cost_usd"] += u.cost_usd
    return total


def _num(x: Any) -> float | None:
    return None if x is None or (isinstance(x, float) and math.isnan(x)) else float(x)


def verdict_of(result: TrainedSkill) -> Verdict:
    """What tonight means for this skill (the one decision: `promotion.verdict`)."""
    infra = infra_errors(result.usage, result.counters)
    none_ran = not result.usage.live_calls and not result.usage.cached_calls
    failed = f"the model endpoint failed every call ({infra} errors)" if none_ran else ""
    return decide(
        accepted=result.accepted,
        undecided=sum(1 for p in result.pending if p.gate),
        endpoint_failed=failed if infra else "",
        stop_reason=result.stop_reason,
        test=result.test,
    )


def _pass_all(measured: TrainerPassAll | None) -> PassAll | None:
    """The share of test answers that passed every rule judge, before and after, with the
    lift's 95% interval, as the report holds it; None when no test task has a rule judge."""
    return PassAll.from_json(measured.to_dict()) if measured and measured.n_tasks else None


def _edit_text(edits: list[dict[str, Any]]) -> str:
    """The edits' own words, whole (reports wrap them); only a very long one is shortened,
    at a word boundary."""
    texts = (" ".join((e.get("text") or e.get("anchor") or "").split()) for e in edits)
    return "; ".join(textwrap.shorten(t, width=300, placeholder=" …") for t in texts if t)


def _edit_row(status: str, step: dict[str, Any], **extra: Any) -> EditRow:
    edits = step["edits"]
    origin = joined_origin(e.get("origin") for e in edits)
    return EditRow(status, ",".join(e["kind"] for e in edits), origin,
                   _edit_text(edits), step.get("evidence"), **extra)  # fmt: skip


def _edits(result: TrainedSkill) -> tuple[EditRow, ...]:
    return (
        *(_edit_row("accepted", h.to_dict(), nights=len(h.runs) or 1) for h in result.history),
        *(_edit_row(r.status, r.listed(), reason=r.reason) for r in result.rejected),
        *(_edit_row("pending", p.listed(), reason=p.reason) for p in result.pending),
    )


def _accepted(result: TrainedSkill) -> tuple[AcceptedStep, ...]:
    """The accepted steps, each with where its edits came from and the edits themselves."""
    return tuple(
        AcceptedStep(
            origin=h.origin,
            edits=tuple(
                {k: getattr(e, k) for k in ACCEPTED_EDIT_KEYS} | {"origin": e.origin or "unknown"}
                for e in h.edits
            ),
            where=h.where,
            effect=h.evidence.get("effect"),
            nights=len(h.runs) or 1,
        )
        for h in result.history
    )


ACCEPTED_EDIT_KEYS = ("kind", "text", "anchor", "section")


def replay_summary(result: TrainedSkill) -> dict[str, Any]:
    """Which tasks ran where (agent CLI or chat, and why not the CLI), and the rollouts
    made in each place (the trainer's `rollouts_<where>` counters)."""
    made = {
        k.removeprefix("rollouts_"): v
        for k, v in result.counters.items()
        if k.startswith("rollouts_")
    }
    return {**result.replay, "rollouts": made}


def _pending(result: TrainedSkill) -> tuple[PendingCandidate, ...]:
    """Undecided candidates carried to the next night: their evidence so far and what
    would decide them."""
    out = []
    for p in result.pending:
        ev = p.gate
        out.append(
            PendingCandidate(
                summary=_edit_text(list(p.edits)),
                since=p.where,
                nights=len(p.runs),
                e_value=ev.get("e_value"),
                e_needed=ev.get("e_needed"),
                effect=ev.get("effect"),
                se=ev.get("se"),
                sweeps=ev.get("sweeps"),
                pairs=ev.get("pairs"),
                n_tasks=ev.get("n_tasks"),
                decides=ev.get("decides") or p.reason,
                cut_by=p.comparison.get("cut_by"),
            )
        )
    return tuple(out)


def skill_summary(job: Job, result: TrainedSkill, promotion: Promotion) -> SkillReport:
    verdict = verdict_of(result)
    test = result.test
    before, after = _num(test.start_score), _num(test.best_score)
    return SkillReport(
        name=job.skill,
        managed=job.managed,
        clusters=tuple(job.clusters),
        n_tasks=job.n_tasks,
        outcome=verdict.outcome,
        reason=verdict.reason,
        action=verdict.action,
        metric=verdict.metric,
        test=HeldOut(
            before=before,
            after=after,
            lift=_num(test.lift),
            ci_low=_num(test.ci_low),
            ci_high=_num(test.ci_high),
            n_tasks=test.n_tasks,
            method=test.method,
            pass_all=_pass_all(test.pass_all),
        )
        if before is not None and after is not None
        else None,
        plan=job.sizing,
        edits=_edits(result),
        accepted=_accepted(result),
        pending=_pending(result),
        diff=result.diff,
        stopped_by=result.stop_reason if result.stop_reason.startswith("budget") else None,
        promotion=promotion,
        usage=result.usage,
        counters=result.counters,
        replay=replay_summary(result),
        outputs=result.outputs,
        skill_tokens=SkillDoc.parse(result.best_text).n_tokens,
    )


def _history(
    db: sqlite_utils.Database, night_id: str, skills: tuple[SkillReport, ...]
) -> dict[str, list[dict[str, Any]]]:
    """Held-out score per skill over the done nights, tonight included."""
    series: dict[str, list[dict[str, Any]]] = {}
    rows = db.execute(
        "SELECT id, summary FROM nights WHERE status = 'done' AND NOT dry_run AND id != ? "
        "ORDER BY id",
        [night_id],
    ).fetchall()
    past = [(nid, NightSummary.from_json(json.loads(s)).skills) for nid, s in rows if s]
    for nid, night_skills in [*past, (night_id, skills)]:
        for skill in night_skills:
            if skill.test:
                series.setdefault(skill.name, []).append({"night": nid, "score": skill.test.after})
    return series


def _gate(alpha: float) -> dict[str, Any]:
    """What the gate's level controls tonight, and at which level."""
    return {"controls": "family-wise false-accept rate per skill and night", "alpha": alpha,
            "words": controls(alpha)}  # fmt: skip


def build_summary(
    db: sqlite_utils.Database,
    settings: NightSettings,
    night_id: str,
    ingested: Mapping[str, Any],
    mined: Mapping[str, Any],
    plan: Plan,
    trained: Mapping[str, TrainedSkill],
    promoted: Mapping[str, Promotion],
    *,
    models: Mapping[str, Any],
    model_failure: str | None = None,
    cost_unknown: list[str] | None = None,
) -> NightSummary:
    """``models``: role -> what served it tonight. ``model_failure``: the night's first
    failed model call in one line (role, model, URL, error), reported first: it is usually
    why everything after it went wrong. ``cost_unknown``: the roles whose model has no known
    price (their calls count as $0)."""
    skills = tuple(skill_summary(j, trained[j.skill], promoted[j.skill]) for j in plan.jobs)
    total = usage_total(trained.values())
    budget = settings.train.budget
    problems = [f"first failed model call: {model_failure}"] if model_failure else []
    problems += [f"{e}" for e in ingested.get("errors", [])][:20]
    if ingested.get("bad_lines"):
        problems.append(f"{ingested['bad_lines']} malformed log line(s) skipped during ingest")
    for s in skills:
        if unparseable := s.counters.get("unparseable_proposals"):
            problems.append(f"{s.name}: {unparseable} unparseable optimizer answer(s)")
        if infra := infra_errors(s.usage, s.counters):
            problems.append(f"{s.name}: {infra} model call(s) failed after retries")
        if s.outcome == "error":
            problems.append(f"{s.name}: {s.reason}")
        problems += [f"{s.name}: {e}" for e in promoted[s.name].errors]
    unreadable = [s for s in plan.skipped if s.error]
    problems += [f"{s.skill}: {s.reason}" for s in unreadable]
    return NightSummary(
        night=night_id,
        status="done",
        simulation=any(t.simulation for t in trained.values()),
        ingest=dict(ingested),
        mining=dict(mined),
        skills=skills,
        not_trained=plan.skipped,
        usage=NightUsage(
            calls=int(total["calls"]),
            live_calls=int(total["live_calls"]),
            tokens=int(total["tokens"]),
            cost_usd=total["cost_usd"],
            cost_unknown=tuple(cost_unknown or ()),
            budget={k: getattr(budget, k) for k in ("max_calls", "max_tokens", "max_cost_usd")},
        ),
        history=_history(db, night_id, skills),
        gate=_gate(settings.train.alpha),
        model_failure=model_failure,
        problems=tuple(problems),
        problems_need_action=bool(unreadable)
        or any(s.outcome in ACTION_OUTCOMES or promoted[s.name].errors for s in skills),
        models=dict(models),
    )
