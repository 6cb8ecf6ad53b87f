"""The report's sentences: each question a night answers, in the words every format shares
(Markdown, HTML, `status`, the daemon's log line): the headline, a skill's sentence, its plan,
where its tasks ran, its edits and their evidence, the promotion, the cost, what to do.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from skillopt_sleep.report import advice
from skillopt_sleep.report.document import NightUsage

if TYPE_CHECKING:
    from skillopt_sleep.report.document import (
        EditRow,
        NightSummary,
        PassAll,
        Promotion,
        SkillReport,
    )

OUTCOME_WORDS = {
    "improved": "better",
    "unconfirmed": "better on the val tasks, not confirmed on held-out ones",
    "not_measured": "an edit passed the gate; held-out test not measured",
    "unchanged": "unchanged",
    "not_enough_evidence": "not enough evidence tonight",
    "worse": "worse on held-out tasks (not promoted)",
    "error": "failed",
    "skipped": "skipped",
}


def carried_line(skill: SkillReport) -> str:
    """ "The gate reused 9 val sweeps of this skill from an earlier night (144 calls)." """
    sweeps = int(skill.counters.get("incumbent_sweeps_carried") or 0)
    if not sweeps:
        return ""
    calls = sweeps * int(skill.n_tasks.get("val") or 0)
    return (
        f"The gate reused {sweeps} val sweep{'s' if sweeps != 1 else ''} of this skill from an "
        f"earlier night ({calls} calls not paid again)."
    )


def plan_line(skill: SkillReport) -> str:
    """ "Plan: 2 comparison(s) of up to 2 sweep(s) of 16 val tasks …; about 180 calls." """
    plan = skill.plan
    if not plan:
        return ""
    line = f"Plan: {plan.shows()}; about {plan.calls.total} calls"
    if plan.seconds is not None:
        line += f", {plan.seconds / 60:.1f} min"
    warning = plan.warning()
    return line + (f". Up front: {warning}." if warning else ".")


def replay_line(replay: Mapping[str, Any]) -> str:
    """ "Replayed: 9 tasks in claude-code, 3 as a chat (no workspace: 3)." """
    tasks = replay.get("tasks") or {}
    if not tasks or set(tasks) == {"chat"} and not replay.get("chat_reasons"):
        return ""
    parts = [
        f"{n} task{'s' if n != 1 else ''} " + ("as a chat" if where == "chat" else f"in {where}")
        for where, n in sorted(tasks.items(), key=lambda kv: kv[0] == "chat")
    ]
    reasons = ", ".join(f"{r}: {n}" for r, n in sorted((replay.get("chat_reasons") or {}).items()))
    line = f"Replayed: {', '.join(parts)}" + (f" ({reasons})." if reasons else ".")
    if replay.get("confined") is False:
        line += " The agent ran UNCONFINED (harness.sandbox: false): your files were in its reach."
    return line


def split_counts(n: Mapping[str, int]) -> str:
    return "/".join(str(n.get(split, 0)) for split in ("train", "val", "test"))


def _pct(x: float | None) -> str:
    return "n/a" if x is None else f"{x:+.2f}"


def _points(x: float | None) -> str:
    return "n/a" if x is None else f"{100 * x:+.0f}"


def _share(x: float | None) -> str:
    return "n/a" if x is None else f"{100 * x:.0f}%"


def pass_all_phrase(p: PassAll) -> str:
    """ "answers passing every rule 19% → 75% (+56 points, 95% CI +30 to +81)": the share
    of held-out answers the user would have accepted, before and after."""
    return (
        f"answers passing every rule {_share(p.before)} → {_share(p.after)} "
        f"({_points(p.lift)} points, 95% CI {_points(p.ci_low)} to {_points(p.ci_high)}, "
        f"{p.n_tasks} test tasks)"
    )


# Where an accepted edit came from, in the words the report leads with.
ORIGIN_WORDS = {
    "corrections": "your own corrections",
    "reflection": "the optimizer's reflection on failed answers",
    "example": "a worked example",
    "accepted_answer": "one of your accepted answers",
}


def won_phrase(skill: SkillReport) -> str:
    """ "the edit that won (your own corrections): “- Keep the subject under 50 chars.”":
    each accepted step's edits and where they came from; "" when none was accepted."""
    steps = skill.accepted
    parts = []
    for step in steps:
        texts = [" ".join((e.get("text") or e.get("anchor") or "").split()) for e in step.edits]
        said = "; ".join(t if len(t) <= 160 else t[:157] + "…" for t in texts if t)
        origins = [ORIGIN_WORDS.get(o, o) for o in step.origin.split("+")]
        parts.append(f"({' and '.join(origins)}): “{said}”")
    if not parts:
        return ""
    return ("the edit that won " if len(parts) == 1 else "the edits that won ") + "; ".join(parts)


def skill_sentence(skill: SkillReport, summary: NightSummary | None = None) -> str:
    """One line per skill: the held-out lift with its interval (pass-all first where the
    test has rule judges) and the edit that won, or why there is none (in the words of
    :mod:`advice`, which say what the user can act on)."""
    name, outcome = skill.name, skill.outcome
    test = skill.test
    words = OUTCOME_WORDS.get(outcome, outcome)
    if test and outcome in {"improved", "unconfirmed", "worse", "unchanged"}:
        lead = f"{pass_all_phrase(test.pass_all)}; " if test.pass_all else ""
        then = f"; {advice.consequence(skill)}" if outcome == "unconfirmed" else ""
        won = f"; {won_phrase(skill)}" if won_phrase(skill) else ""
        return (
            f"{name}: {words} — {lead}held-out score {test.before:.2f} → "
            f"{test.after:.2f} (lift {_pct(test.lift)}, 95% CI {_pct(test.ci_low)} to "
            f"{_pct(test.ci_high)}, {test.n_tasks} test tasks){won}{then}"
        )
    tip = advice.for_skill(skill, summary.model_failure if summary else None)
    reason = tip.why[:1].lower() + tip.why[1:] if tip else skill.reason
    return f"{name}: {words}" + (f" — {reason}" if reason else "")


def night_date(summary: NightSummary) -> str:
    """``2026-11-29T02-00-00Z`` -> ``2026-11-29 02:00 UTC`` (the id is the start time)."""
    night = summary.night
    date, _, time = night.partition("T")
    hhmm = time[:5].replace("-", ":")
    return f"{date} {hhmm} UTC" if len(hhmm) == 5 else night


def actions(summary: NightSummary) -> list[str]:
    """What the user should do this morning, most urgent first; [] = nothing."""
    out = []
    for skill in summary.skills:
        promo, name = skill.promotion, skill.name
        if promo is None:
            continue
        if promo.status == "staged":
            why = promo.reason.removesuffix(": staged for review")
            out.append(
                f"{name}: a new version waits for your review"
                + (f" ({why})" if why else "")
                + f": `skillopt-sleep diff {name}`, then `skillopt-sleep adopt {name}` or "
                f"`skillopt-sleep reject {name}`."
            )
        for error in promo.errors:
            out.append(f"{name}: could not be written: {error}.")
    todo: dict[str, list[str]] = {}  # the same advice for several skills is said once
    for skill in summary.skills:
        tip = advice.for_skill(skill, summary.model_failure)
        if tip is not None:
            todo.setdefault(tip.todo, []).append(skill.name)
    out += [f"{', '.join(names)}: {what[:1].upper()}{what[1:]}" for what, names in todo.items()]
    out += advice.for_skips(summary.not_trained)
    return out


def cost_sentence(summary: NightSummary) -> str:
    usage = summary.usage or NightUsage()
    budget = usage.budget
    calls, tokens, cost = (budget.get(k) for k in ("max_calls", "max_tokens", "max_cost_usd"))
    limits = ", ".join(
        [
            "calls unlimited" if calls is None else f"{calls:g} calls",
            "tokens unlimited" if tokens is None else f"{tokens:g} tokens",
            "cost unlimited" if cost is None else f"${cost:g}",
        ]
    )
    unknown = usage.cost_unknown
    cost_note = (
        f" counted; cost unknown for {', '.join(unknown)} (no price known)" if unknown else ""
    )
    return (
        f"{usage.calls} model calls, {usage.tokens} tokens, "
        f"${usage.cost_usd:.4f}{cost_note} (the night's budget: {limits})."
    )


def promotion_line(promo: Promotion) -> str:
    """What happened to the skill's file, where, and why (a staged skill says why)."""
    where = ", ".join(promo.paths)
    reason = promo.reason
    return (
        f"Promotion: {promo.status}"
        + (f" {where}" if where else "")
        + (f" — {reason}" if reason else "")
    )


def models_line(summary: NightSummary) -> str:
    """Which model served each role tonight, e.g. "optimizer X (local), target Y (local)"."""
    models = summary.models
    parts = [
        f"{role} {m.get('model', '?')} ({m.get('backend', '?')})" for role, m in models.items()
    ]
    return "Models: " + ", ".join(parts) + "." if parts else ""


def headline(summary: NightSummary) -> str:
    skills = summary.skills
    if not skills:
        return "No recurring task was ready for training tonight."
    if all(s.outcome == "error" for s in skills):
        return "Nothing could be trained tonight: the model endpoint failed every call."
    better = sum(1 for s in skills if s.outcome == "improved")
    unconfirmed = sum(1 for s in skills if s.outcome == "unconfirmed")
    staged = sum(1 for s in skills if s.promotion and s.promotion.status == "staged")
    verb = "waits" if staged == 1 else "wait"
    waiting = f"; {staged} {verb} for your review" if staged else ""
    maybe = (
        f" ({unconfirmed} more passed the gate but not the held-out test's bar)"
        if (unconfirmed)
        else ""
    )
    return f"{better} of {len(skills)} skill(s) got better tonight{maybe}{waiting}."


def _verdict(edit: EditRow) -> str:
    """The gate's verdict with its reason ("underpowered: only 2 of 9 tasks differ"), or
    why the edit never reached the gate."""
    gate = edit.gate or {}
    if edit.status == "dropped":  # its gate evidence is what was let go, not a verdict
        return edit.reason or "dropped"
    verdict, reason = gate.get("verdict"), gate.get("reason") or edit.reason or ""
    if verdict and reason and verdict != "accept":
        return f"{verdict}: {reason}"
    return verdict or reason


def _evidence(gate: Mapping[str, Any]) -> str:
    if gate.get("e_value") is not None:
        return f"e {gate['e_value']:.3g} of {gate['e_needed']:.3g}"
    return "n/a" if gate.get("p_value") is None else f"{gate['p_value']:.3f}"


def edit_rows(skill: SkillReport) -> list[list[str]]:
    rows = []
    for edit in skill.edits:
        gate = edit.gate or {}
        nights = edit.nights or 1
        rows.append(
            [
                edit.status,
                edit.kind,
                edit.origin,
                edit.summary,
                _pct(gate.get("effect")),
                _evidence(gate),
                _verdict(edit) + (f" (evidence of {nights} nights)" if nights > 1 else ""),
            ]
        )
    return rows


def pending_lines(skill: SkillReport) -> list[str]:
    """One line per candidate carried to the next night: its evidence and what decides it."""
    out = []
    for p in skill.pending:
        if p.e_value is None:
            out.append(f"{p.summary[:80]} — {p.decides}")
            continue
        se = f" ± {p.se:.3f}" if p.se is not None else ""
        cut = f"the {p.cut_by} budget ended tonight's sweeps" if p.cut_by else ""
        evidence = (
            f"effect {_pct(p.effect)}{se}, e {p.e_value:.3g} of {p.e_needed:.3g} after "
            f"{p.sweeps} sweep(s) of {p.n_tasks} val tasks over {p.nights} night(s)"
        )
        said = "; ".join(x for x in (p.kept, cut, evidence, p.decides) if x)
        out.append(f"{p.summary[:80]} — {said}")
    return out


BUDGET_KINDS = (
    ("calls", "calls", "max_calls"),
    ("tokens", "tokens", "max_tokens"),
    ("cost $", "cost_usd", "max_cost_usd"),
)
EDIT_HEADER = ["status", "kind", "origin", "edit", "effect", "evidence", "verdict"]


def gate_sentence(summary: NightSummary) -> str:
    """What the gate controls, with its level ("" for reports written before it said)."""
    words = summary.gate.get("words")
    return f"The gate controls the {words}." if words else ""
