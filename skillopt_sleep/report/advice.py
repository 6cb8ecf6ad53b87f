"""Why a night could not decide, and what the user can do about it, in plain words.

The summary records what happened (verdicts, stop reasons, counters); this turns the
undecided cases into the cause a user can act on — the model is too weak to follow a
skill, there are too few tasks of that kind, the budget or the morning deadline ran out,
the endpoint failed — and the one thing to do next. Computed when rendering, so reports of
older nights get it too.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from trainer.sizing import ROLES

if TYPE_CHECKING:
    from skillopt_sleep.report.document import SkillReport, Skip
    from trainer.sizing import Sizing

_VAL_TASKS = re.compile(r"(\d+) val tasks")


_LATER = (
    "start nights earlier (daemon.schedule) or move the morning deadline "
    "(daemon.deadline / budget.deadline)."
)


@dataclass(frozen=True)
class Advice:
    why: str
    todo: str


def _gate_looks(skill: SkillReport) -> list[Mapping[str, Any]]:
    return [e.gate for e in skill.edits if e.gate is not None]


def _model_too_weak(skill: SkillReport) -> bool:
    """The gate saw (almost) no difference on most comparisons: candidate and incumbent
    score alike on nearly every task, so the target is not following the skill's text. An
    edit that passed the gate shows the opposite. A comparison that does not say how many
    tasks differed (`n_differ`) is not counted as flat."""
    looks = _gate_looks(skill)
    if not looks or any(g.get("verdict") == "accept" for g in looks):
        return False

    def flat(g: Mapping[str, Any]) -> bool:
        differ = g.get("n_differ")
        return bool(g.get("n_tasks")) and differ is not None and differ * 4 <= g["n_tasks"]

    return sum(map(flat, looks)) * 2 > len(looks)


def _slower_than_planned(skill: SkillReport) -> str:
    """Why the deadline came when the models answered too slowly for the plan to fit: the
    seconds per call measured tonight, and the time the plan's calls need at that pace (the
    roles measured so far only, so a lower bound), or '' when the plan fitted at that pace.
    A busy machine does this: the plan assumed the configured or last night's pace."""
    plan = skill.plan
    if plan is None or not plan.available_seconds:
        return ""
    pace = {
        role: float(used["seconds"]) / float(used["timed_calls"])
        for role, used in skill.usage.by_role.items()
        if used.get("timed_calls") and role in ROLES
    }
    need = sum(getattr(plan.calls, role) * s for role, s in pace.items())
    if need <= plan.available_seconds:
        return ""
    each = ", ".join(f"{role} {s:.1f} s" for role, s in sorted(pace.items()))
    return (
        f"the models took {each} per call tonight, and at that pace the plan's "
        f"{plan.calls.total} calls need at least {need / 60:.0f} minutes of the "
        f"{plan.available_seconds / 60:.0f} it had"
    )


def _short(plan: Sizing) -> str:
    """What to do about a plan that cannot show a gain worth having tonight: more time or
    calls when those were short, else more tasks, sweeps or a smaller gain worth having."""
    if not plan.can_detect:
        return (
            "nothing now: each recurring request adds val tasks; or give a night more "
            "sweeps (trainer.max_samples) and time, or accept smaller gains "
            "(night.worth_effect)."
        )
    if plan.short_of_calls and not plan.short_of_time:
        return "raise budget.max_calls, or train fewer skills per night (night.max_skills)."
    return _LATER


def consequence(skill: SkillReport) -> str:
    """What promotion did with a candidate the held-out test did not confirm, in the words
    the promotion line agrees with."""
    status = skill.promotion.status if skill.promotion else ""
    return {
        "promoted": "it was written, since the test did not go down",
        "staged": "it waits for your review (`skillopt-sleep diff`, `adopt` or `reject`)",
    }.get(status, "it was not written")


def _written_or_staged(skill: SkillReport, reason: str) -> Advice:
    """An edit passed the gate but the held-out test did not confirm it: say what the
    verdict allowed and what promotion then did, as the promotion line says it."""
    done = consequence(skill)
    if "deadline" in reason and "not measured" in reason:
        todo = _LATER
    elif "budget" in reason and "not measured" in reason:
        todo = "raise the night's budget (budget.max_calls, budget.max_cost_usd) so the test fits."
    else:
        todo = "nothing now; later nights measure the skill again as more sessions arrive."
    return Advice(f"{reason[:1].upper()}{reason[1:]}; {done}.", todo)


def for_skill(skill: SkillReport, failure: str | None = None) -> Advice | None:
    """None when there is nothing to explain (the skill got better and was written).
    ``failure``: the night's first failed model call, if one failed."""
    outcome = skill.outcome
    reason = skill.reason
    stopped = skill.stopped_by or ""
    counters = skill.counters
    if outcome == "improved":
        return None
    if outcome == "error":
        return Advice(
            "The model endpoint failed every call"
            + (f" (first failure: {failure})." if failure else "."),
            "fix the URL, key or model name the failure names, check with "
            "`skillopt-sleep doctor`, then `skillopt-sleep run --once`.",
        )
    if outcome in ("unconfirmed", "not_measured"):
        return _written_or_staged(skill, reason)
    if outcome == "worse":
        return Advice(
            "The best edit scored lower on the held-out test tasks than the skill you had, "
            "so nothing was written.",
            "nothing; tomorrow's night tries other edits (this one is remembered as tried).",
        )
    accepted = any(e.status == "accepted" for e in skill.edits)
    warning = skill.plan.warning() if skill.plan else ""
    if warning and not accepted and skill.plan:
        return Advice(
            f"Tonight could not show what is worth having: {warning}.", _short(skill.plan)
        )
    if stopped.startswith("budget") and not accepted:
        kind = stopped.split(":", 1)[-1].strip() or "budget"
        cut = next((p for p in skill.pending if p.cut_by and p.pairs), None)
        kept = f" ({cut.pairs} paired samples of the comparison it cut are kept)" if cut else ""
        if kind == "deadline" and (slow := _slower_than_planned(skill)):
            return Advice(
                f"The night's deadline came before an edit could pass the gate{kept}: {slow}.",
                "run the night when the machine is less busy, or give it more time "
                "(daemon.deadline / budget.deadline; the demo: --minutes).",
            )
        if kind == "deadline":
            return Advice(
                f"The night's deadline came before an edit could pass the gate{kept}.", _LATER
            )
        key = {"calls": "budget.max_calls", "tokens": "budget.max_tokens"}.get(
            kind, "budget.max_cost_usd"
        )
        return Advice(
            f"The night's {kind} budget ran out before an edit could pass the gate{kept}.",
            f"raise {key}, or train fewer skills per night (night.max_skills).",
        )
    if m := _VAL_TASKS.search(reason):
        return Advice(
            f"Too few tasks of this kind to decide: {m[1]} validation tasks cannot show an "
            "improvement at the night's false-accept rate.",
            "keep using your agent for this task (each request of this kind adds a task).",
        )
    pending = [p for p in skill.pending if p.e_value is not None]
    if pending and outcome == "not_enough_evidence" and not accepted:
        best = max(pending, key=lambda p: p.e_value or 0.0)
        return Advice(
            f"{len(pending)} edit(s) still undecided after tonight's sweeps; the closest has "
            f"effect {best.effect:+.2f} on the val tasks, e = {best.e_value:.1f} of the "
            f"{best.e_needed:.0f} needed.",
            "nothing; the next night adds sweeps on the same val tasks and decides (more "
            "sweeps a night: raise trainer.max_samples).",
        )
    if _model_too_weak(skill) or "differ" in reason:
        return Advice(
            "The target model answered (nearly) the same with and without each edit: it is "
            "probably too weak to follow a skill's instructions, or the edits did not change what "
            "it does.",
            "point the target role at a stronger model (TARGET_MODEL, TARGET_BASE_URL, "
            "TARGET_API_KEY; `skillopt-sleep doctor` checks it).",
        )
    proposals = counters.get("parsed_proposals", 0) + counters.get("repaired_proposals", 0)
    if counters.get("unparseable_proposals", 0) > proposals:
        return Advice(
            "Most of the optimizer model's answers could not be read as edits.",
            "use a stronger optimizer model (OPTIMIZER_MODEL, OPTIMIZER_BASE_URL).",
        )
    if not skill.edits:
        return Advice(
            "The optimizer proposed no edit that could be tried.",
            "nothing; if this repeats, use a stronger optimizer model (OPTIMIZER_MODEL).",
        )
    return Advice(
        "Every edit tried was no better on the validation tasks than the skill you have.",
        "nothing; the skill may already be as good as this model allows.",
    )


_TOO_FEW = re.compile(r"too few tasks: (\d+) val tasks, the gate needs >= (\d+)")


def for_skips(skips: Iterable[Skip]) -> list[str]:
    """One line per kind of reason a skill was not trained tonight; the common one (too
    few tasks yet) is one line for all such skills, since the answer is the same."""
    skips = list(skips)
    few = [(s.skill, m) for s in skips if (m := _TOO_FEW.search(s.reason))]
    out = []
    if few:
        listed = ", ".join(f"{name} ({m[1]} of {m[2]})" for name, m in few)
        out.append(
            f"Not trained yet, too few validation tasks so far: {listed}. Nothing to do: "
            "each time you ask your agent for one of these, a task is added."
        )
    for skip in skips:
        if _TOO_FEW.search(skip.reason):
            continue
        reason = skip.reason
        if "no skill target" in reason:
            todo = "add the folder that holds it to promotion.targets."
        elif "max_skill_tokens" in reason:
            todo = "shorten the skill, or raise trainer.max_skill_tokens."
        elif "max_skills" in reason:
            todo = "nothing; it gets its turn on another night, or raise night.max_skills."
        else:
            todo = "`skillopt-sleep tasks list` shows the task kinds found."
        out.append(f"{skip.skill} was not trained: {reason}. What to do: {todo}")
    return out
