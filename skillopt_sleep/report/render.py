"""Render a night summary. Every format leads with the answer to "did my skills get better?"."""

from __future__ import annotations

import json
from html import escape
from pathlib import Path
from typing import Any

from skillopt_sleep.files import write_private
from skillopt_sleep.report import advice
from skillopt_sleep.report.charts import bar_chart, line_chart

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


def carried_line(skill: dict[str, Any]) -> str:
    """ "The gate reused 9 val sweeps of this skill from an earlier night (144 calls)." """
    sweeps = int((skill.get("counters") or {}).get("incumbent_sweeps_carried") or 0)
    if not sweeps:
        return ""
    calls = sweeps * int((skill.get("n_tasks") or {}).get("val") or 0)
    return (
        f"The gate reused {sweeps} val sweep{'s' if sweeps != 1 else ''} of this skill from an "
        f"earlier night ({calls} calls not paid again)."
    )


def plan_line(skill: dict[str, Any]) -> str:
    """ "Plan: 2 comparison(s) of up to 2 sweep(s) of 16 val tasks …; about 180 calls." """
    plan = skill.get("plan")
    if not plan:
        return ""
    line = f"Plan: {plan['shows']}; about {sum(plan['calls'].values())} calls"
    if plan.get("seconds") is not None:
        line += f", {plan['seconds'] / 60:.1f} min"
    return line + (f". Up front: {plan['warning']}." if plan.get("warning") else ".")


def replay_line(replay: dict[str, Any]) -> str:
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


def _split_counts(n: dict[str, int]) -> str:
    return "/".join(str(n.get(split, 0)) for split in ("train", "val", "test"))


def _pct(x: float | None) -> str:
    return "n/a" if x is None else f"{x:+.2f}"


def _points(x: float | None) -> str:
    return "n/a" if x is None else f"{100 * x:+.0f}"


def pass_all_phrase(p: dict[str, Any]) -> str:
    """ "answers passing every rule 19% → 75% (+56 points, 95% CI +30 to +81)": the share
    of held-out answers the user would have accepted, before and after."""
    return (
        f"answers passing every rule {100 * p['before']:.0f}% → {100 * p['after']:.0f}% "
        f"({_points(p['lift'])} points, 95% CI {_points(p['ci_low'])} to "
        f"{_points(p['ci_high'])}, {p['n_tasks']} test tasks)"
    )


def skill_sentence(skill: dict[str, Any], summary: dict[str, Any] | None = None) -> str:
    """One line per skill: the held-out lift with its interval, or why there is none (in
    the words of :mod:`advice`, which say what the user can act on)."""
    name, outcome = skill["name"], skill.get("outcome", "skipped")
    test = skill.get("test")
    words = OUTCOME_WORDS.get(outcome, outcome)
    if test and outcome in {"improved", "unconfirmed", "worse", "unchanged"}:
        lead = f"{pass_all_phrase(test['pass_all'])}; " if test.get("pass_all") else ""
        then = f"; {advice.consequence(skill)}" if outcome == "unconfirmed" else ""
        return (
            f"{name}: {words} — {lead}held-out score {test['before']:.2f} → "
            f"{test['after']:.2f} (lift {_pct(test['lift'])}, 95% CI {_pct(test['ci_low'])} to "
            f"{_pct(test['ci_high'])}, {test['n_tasks']} test tasks){then}"
        )
    tip = advice.for_skill(skill, summary or {})
    reason = tip.why[:1].lower() + tip.why[1:] if tip else skill.get("reason")
    return f"{name}: {words}" + (f" — {reason}" if reason else "")


def night_date(summary: dict[str, Any]) -> str:
    """``2026-11-29T02-00-00Z`` -> ``2026-11-29 02:00 UTC`` (the id is the start time)."""
    night = str(summary.get("night", ""))
    date, _, time = night.partition("T")
    hhmm = time[:5].replace("-", ":")
    return f"{date} {hhmm} UTC" if len(hhmm) == 5 else night


def actions(summary: dict[str, Any]) -> list[str]:
    """What the user should do this morning, most urgent first; [] = nothing."""
    out = []
    for skill in summary.get("skills", []):
        promo = skill.get("promotion") or {}
        name = skill["name"]
        if promo.get("status") == "staged":
            why = str(promo.get("reason") or "").removesuffix(": staged for review")
            out.append(
                f"{name}: a new version waits for your review"
                + (f" ({why})" if why else "")
                + f": `skillopt-sleep diff {name}`, then `skillopt-sleep adopt {name}` or "
                f"`skillopt-sleep reject {name}`."
            )
        for error in promo.get("errors") or []:
            out.append(f"{name}: could not be written: {error}.")
    todo: dict[str, list[str]] = {}  # the same advice for several skills is said once
    for skill in summary.get("skills", []):
        tip = advice.for_skill(skill, summary)
        if tip is not None:
            todo.setdefault(tip.todo, []).append(skill["name"])
    out += [f"{', '.join(names)}: {what[:1].upper()}{what[1:]}" for what, names in todo.items()]
    out += advice.for_skips(summary.get("not_trained", []))
    return out


def cost_sentence(summary: dict[str, Any]) -> str:
    usage = summary.get("usage", {})
    budget = usage.get("budget", {})
    calls, tokens, cost = (budget.get(k) for k in ("max_calls", "max_tokens", "max_cost_usd"))
    limits = ", ".join(
        [
            "calls unlimited" if calls is None else f"{calls:g} calls",
            "tokens unlimited" if tokens is None else f"{tokens:g} tokens",
            "cost unlimited" if cost is None else f"${cost:g}",
        ]
    )
    unknown = usage.get("cost_unknown") or []
    cost_note = (
        f" counted; cost unknown for {', '.join(unknown)} (no price known)" if unknown else ""
    )
    return (
        f"{usage.get('calls', 0)} model calls, {usage.get('tokens', 0)} tokens, "
        f"${usage.get('cost_usd', 0.0):.4f}{cost_note} (the night's budget: {limits})."
    )


def promotion_line(promo: dict[str, Any]) -> str:
    """What happened to the skill's file, where, and why (a staged skill says why)."""
    where = ", ".join(promo.get("paths") or ([promo["path"]] if promo.get("path") else []))
    reason = promo.get("reason")
    return (
        f"Promotion: {promo.get('status')}"
        + (f" {where}" if where else "")
        + (f" — {reason}" if reason else "")
    )


def models_line(summary: dict[str, Any]) -> str:
    """Which model served each role tonight, e.g. "optimizer X (local), target Y (local)"."""
    models = summary.get("models") or {}
    parts = [
        f"{role} {m.get('model', '?')} ({m.get('backend', '?')})" for role, m in models.items()
    ]
    return "Models: " + ", ".join(parts) + "." if parts else ""


def headline(summary: dict[str, Any]) -> str:
    skills = summary.get("skills", [])
    if not skills:
        return "No recurring task was ready for training tonight."
    if all(s.get("outcome") == "error" for s in skills):
        return "Nothing could be trained tonight: the model endpoint failed every call."
    better = sum(1 for s in skills if s.get("outcome") == "improved")
    unconfirmed = sum(1 for s in skills if s.get("outcome") == "unconfirmed")
    staged = sum(1 for s in skills if (s.get("promotion") or {}).get("status") == "staged")
    verb = "waits" if staged == 1 else "wait"
    waiting = f"; {staged} {verb} for your review" if staged else ""
    maybe = (
        f" ({unconfirmed} more passed the gate but not the held-out test's bar)"
        if (unconfirmed)
        else ""
    )
    return f"{better} of {len(skills)} skill(s) got better tonight{maybe}{waiting}."


def _verdict(edit: dict[str, Any]) -> str:
    """The gate's verdict with its reason ("underpowered: only 2 of 9 tasks differ"), or
    why the edit never reached the gate."""
    gate = edit.get("gate") or {}
    verdict, reason = gate.get("verdict"), gate.get("reason") or edit.get("reason") or ""
    if verdict and reason and verdict != "accept":
        return f"{verdict}: {reason}"
    return verdict or reason


def _evidence(gate: dict[str, Any]) -> str:
    if gate.get("e_value") is not None:
        return f"e {gate['e_value']:.3g} of {gate['e_needed']:.3g}"
    return "n/a" if gate.get("p_value") is None else f"{gate['p_value']:.3f}"


def _edit_rows(skill: dict[str, Any]) -> list[list[str]]:
    rows = []
    for edit in skill.get("edits", []):
        gate = edit.get("gate") or {}
        rows.append(
            [
                edit.get("status", ""),
                edit.get("kind", ""),
                edit.get("origin") or "unknown",
                edit.get("summary", ""),
                _pct(gate.get("effect")),
                _evidence(gate),
                _verdict(edit)
                + (f" (evidence of {edit['nights']} nights)" if edit.get("nights", 1) > 1 else ""),
            ]
        )
    return rows


def pending_lines(skill: dict[str, Any]) -> list[str]:
    """One line per candidate carried to the next night: its evidence and what decides it."""
    out = []
    for p in skill.get("pending", []):
        if p.get("e_value") is None:
            out.append(f"{p['summary'][:80]} — {p['decides']}")
            continue
        se = f" ± {p['se']:.3f}" if p.get("se") is not None else ""
        out.append(
            f"{p['summary'][:80]} — effect {_pct(p['effect'])}{se}, e {p['e_value']:.3g} of "
            f"{p['e_needed']:.3g} after {p['sweeps']} sweep(s) of {p['n_tasks']} val tasks "
            f"over {p['nights']} night(s); {p['decides']}"
        )
    return out


BUDGET_KINDS = (
    ("calls", "calls", "max_calls"),
    ("tokens", "tokens", "max_tokens"),
    ("cost $", "cost_usd", "max_cost_usd"),
)
EDIT_HEADER = ["status", "kind", "origin", "edit", "effect", "evidence", "verdict"]


def gate_sentence(summary: dict[str, Any]) -> str:
    """What the gate controls, with its level ("" for reports written before it said)."""
    words = (summary.get("gate") or {}).get("words")
    return f"The gate controls the {words}." if words else ""


def render_md(summary: dict[str, Any]) -> str:
    lines = [f"# skillopt-sleep night {summary['night']}", ""]
    if summary.get("simulation"):
        lines += ["> SIMULATION: the models in this night were simulated.", ""]
    lines += ["## Did my skills get better?", "", headline(summary), ""]
    lines += [f"- {skill_sentence(s, summary)}" for s in summary.get("skills", [])]
    if gate_sentence(summary):
        lines += ["", gate_sentence(summary)]
    lines += ["", "## What to do", ""]
    lines += [f"- {a}" for a in actions(summary)] or ["Nothing."]
    if models_line(summary):
        lines += ["", models_line(summary)]
    lines += [
        "",
        "## Cost",
        "",
        cost_sentence(summary),
        "",
        "## What was ingested and mined",
        "",
    ]
    ingest, mining = summary.get("ingest", {}), summary.get("mining", {})
    lines.append(
        f"{ingest.get('files_changed', 0)} changed files, {ingest.get('new_sessions', 0)} new "
        f"sessions, {ingest.get('new_turns', 0)} new turns; {mining.get('recurring', 0)} "
        f"recurring task clusters of {mining.get('clusters', 0)}."
    )
    for skill in summary.get("skills", []):
        lines += ["", f"## {skill['name']}", ""]
        lines.append(
            f"{'managed by skillopt-sleep' if skill.get('managed') else 'your skill'}; "
            f"tasks train/val/test: {_split_counts(skill.get('n_tasks', {}))}"
        )
        if ran := replay_line(skill.get("replay") or {}):
            lines.append(ran)
        if reused := carried_line(skill):
            lines.append(reused)
        if plan := plan_line(skill):
            lines.append(plan)
        promo = skill.get("promotion") or {}
        if promo:
            lines.append(promotion_line(promo))
        if skill.get("stopped_by"):
            lines.append(f"Training stopped early: {skill['stopped_by']}.")
        rows = _edit_rows(skill)
        if rows:
            lines += ["", "| " + " | ".join(EDIT_HEADER) + " |", "|" + "---|" * len(EDIT_HEADER)]
            lines += ["| " + " | ".join(c.replace("|", "\\|") for c in r) + " |" for r in rows]
        pending = pending_lines(skill)
        if pending:
            lines += ["", "Pending (undecided, carried to the next night):", ""]
            lines += [f"- {line}" for line in pending]
        if skill.get("diff"):
            lines += ["", "```diff", skill["diff"].rstrip(), "```"]
    not_trained = summary.get("not_trained", [])
    if not_trained:
        lines += ["", "## Not trained tonight", ""]
        lines += [f"- {s['skill']}: {s['reason']}" for s in not_trained]
    problems = summary.get("problems", [])
    lines += ["", "## What went wrong", ""]
    lines += [f"- {p}" for p in problems] or ["Nothing."]
    return "\n".join(lines) + "\n"


def _charts(summary: dict[str, Any]) -> list[str]:
    """Only charts that have something to show: the score over nights once a skill has two
    nights (else tonight's before/after), edits when some were tried, cost against the
    limits that are set."""
    charts = []
    history = summary.get("history", {})
    series = {name: [(p["night"], p["score"]) for p in points] for name, points in history.items()}
    if any(len(points) >= 2 for points in series.values()):
        charts.append(line_chart("Held-out score per skill over nights", series))
    else:
        scores = [
            (
                s["name"],
                [
                    ("before", round(s["test"]["before"], 2)),
                    ("after", round(s["test"]["after"], 2)),
                ],
            )  # fmt: skip
            for s in summary.get("skills", [])
            if s.get("test")
        ]
        if scores:
            charts.append(bar_chart("Held-out score tonight, before and after", scores, top=1))
    passes = [
        (s["name"], [(k, round(s["test"]["pass_all"][k], 2)) for k in ("before", "after")])
        for s in summary.get("skills", [])
        if (s.get("test") or {}).get("pass_all")
    ]
    if passes:
        title = "Held-out answers passing every rule, before and after"
        charts.insert(0, bar_chart(title, passes, top=1))
    edits = [
        (
            s["name"],
            [
                ("accepted", sum(1 for e in s.get("edits", []) if e.get("status") == "accepted")),
                ("rejected", sum(1 for e in s.get("edits", []) if e.get("status") == "rejected")),
                ("pending", sum(1 for e in s.get("edits", []) if e.get("status") == "pending")),
            ],
        )
        for s in summary.get("skills", [])
        if s.get("edits")
    ]
    if edits:
        charts.append(bar_chart("Edits accepted, rejected and pending", edits))
    usage = summary.get("usage", {})
    budget = usage.get("budget", {})
    cost_rows = [
        (f"{kind} ({usage.get(used, 0):.4g} of {budget[limit]:g})",
         [("share of the night's budget used", round(100 * usage.get(used, 0) / budget[limit], 1))])
        for kind, used, limit in BUDGET_KINDS
        if budget.get(limit) and usage.get(used)
    ]  # fmt: skip
    if cost_rows:
        charts.append(bar_chart("Cost against budget", cost_rows, top=100, unit="%"))
    return charts


def _table(header: list[str], rows: list[list[str]]) -> str:
    head = "".join(f"<th>{escape(h)}</th>" for h in header)
    body = "".join("<tr>" + "".join(f"<td>{escape(c)}</td>" for c in r) + "</tr>" for r in rows)
    return f"<table><tr>{head}</tr>{body}</table>"


STYLE = (
    "body{font:14px/1.45 system-ui,sans-serif;max-width:60rem;margin:1.5rem auto;padding:0 1rem}"
    "h1{font-size:1.5rem;margin:.2rem 0}h2{font-size:1.15rem;margin:1.2rem 0 .4rem}"
    ".id{color:#666;font-size:12px}"
    "table{border-collapse:collapse;width:100%;table-layout:fixed}"
    "td,th{border:1px solid #ccc;padding:2px 6px;text-align:left;vertical-align:top;"
    "overflow-wrap:anywhere}"
    "th:nth-child(1),th:nth-child(2),th:nth-child(3){width:5.5rem}"
    "th:nth-child(5),th:nth-child(6){width:4rem}th:nth-child(7){width:14rem}"
    "pre{background:#f6f6f6;padding:.5rem;overflow:auto}.sim{background:#fff3cd;padding:.5rem}"
    ".answer li,.todo li{font-size:15px;margin:.15rem 0}"
    ".todo{background:#eef4ff;padding:.4rem 1.6rem}"
    "figure{margin:.5rem 0}.charts{display:flex;flex-wrap:wrap;gap:0 1rem}"
    "code{background:#f0f0f0;padding:0 .2rem}"
)


def _code(text: str) -> str:
    """Escape, then show `backticked` commands as code."""
    parts = escape(text).split("`")
    return "".join(f"<code>{p}</code>" if i % 2 else p for i, p in enumerate(parts))


def render_html(summary: dict[str, Any]) -> str:
    """A single self-contained page: inline CSS and SVG, no external URL of any kind."""
    out = [
        "<!doctype html><html><head><meta charset='utf-8'>",
        f"<title>skillopt-sleep: the night of {escape(night_date(summary))}</title>",
        f"<style>{STYLE}</style></head><body>",
        f"<h1>skillopt-sleep: the night of {escape(night_date(summary))}</h1>",
        f"<div class='id'>night {escape(summary['night'])}</div>",
    ]
    if summary.get("simulation"):
        out.append("<p class='sim'>SIMULATION: the models in this night were simulated.</p>")
    out.append(f"<h2>Did my skills get better?</h2><p><b>{escape(headline(summary))}</b></p>")
    out.append("<ul class='answer'>")
    out += [f"<li>{_code(skill_sentence(s, summary))}</li>" for s in summary.get("skills", [])]
    out.append("</ul>")
    if gate_sentence(summary):
        out.append(f"<p class='gate'>{escape(gate_sentence(summary))}</p>")
    if models_line(summary):
        out.append(f"<p class='models'>{escape(models_line(summary))}</p>")
    out.append("<h2>What to do</h2>")
    todo = actions(summary)
    out.append(
        "<ul class='todo'>" + "".join(f"<li>{_code(a)}</li>" for a in todo) + "</ul>"
        if todo
        else "<p>Nothing: what got better is already in place.</p>"
    )
    out.append(f"<p>Cost: {escape(cost_sentence(summary))}</p>")
    charts = _charts(summary)
    if charts:
        out.append("<h2>Charts</h2><div class='charts'>")
        out += [f"<figure>{svg}</figure>" for svg in charts]
        out.append("</div>")
    for skill in summary.get("skills", []):
        out.append(f"<h2>{escape(skill['name'])}</h2>")
        promo = skill.get("promotion") or {}
        if promo:
            out.append(f"<p>{escape(promotion_line(promo))}</p>")
        if reused := carried_line(skill):
            out.append(f"<p>{escape(reused)}</p>")
        if plan := plan_line(skill):
            out.append(f"<p class='plan'>{escape(plan)}</p>")
        rows = _edit_rows(skill)
        if rows:
            out.append(_table(EDIT_HEADER, rows))
        pending = pending_lines(skill)
        if pending:
            out.append("<p>Pending (undecided, carried to the next night):</p><ul>")
            out += [f"<li>{escape(line)}</li>" for line in pending]
            out.append("</ul>")
        if skill.get("diff"):
            out.append(f"<pre>{escape(skill['diff'])}</pre>")
    not_trained = summary.get("not_trained", [])
    if not_trained:
        out.append("<h2>Not trained tonight</h2><ul>")
        out += [f"<li>{escape(s['skill'])}: {escape(s['reason'])}</li>" for s in not_trained]
        out.append("</ul>")
    problems = summary.get("problems", [])
    out.append("<h2>What went wrong</h2>")
    out.append(
        "<ul>" + "".join(f"<li>{escape(p)}</li>" for p in problems) + "</ul>"
        if problems
        else "<p>Nothing.</p>"
    )
    out.append("</body></html>")
    return "\n".join(out)


def write_reports(summary: dict[str, Any], out_dir: Path) -> dict[str, Path]:
    """Write report.md, report.json and report.html (private files); return their paths."""
    reports = {
        "md": (out_dir / "report.md", render_md(summary)),
        "json": (out_dir / "report.json", json.dumps(summary, indent=2, default=str)),
        "html": (out_dir / "report.html", render_html(summary)),
    }
    for path, text in reports.values():
        write_private(path, text)
    return {fmt: path for fmt, (path, _) in reports.items()}
