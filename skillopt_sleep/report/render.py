"""Render a night summary. Every format leads with the answer to "did my skills get better?"."""

from __future__ import annotations

import json
from html import escape
from pathlib import Path
from typing import TYPE_CHECKING

from skillopt_sleep.files import write_private
from skillopt_sleep.report.charts import bar_chart, line_chart
from skillopt_sleep.report.document import NightUsage
from skillopt_sleep.report.words import (
    BUDGET_KINDS,
    EDIT_HEADER,
    actions,
    carried_line,
    cost_sentence,
    edit_rows,
    gate_sentence,
    headline,
    models_line,
    night_date,
    pending_lines,
    plan_line,
    promotion_line,
    replay_line,
    skill_sentence,
    split_counts,
)

if TYPE_CHECKING:
    from skillopt_sleep.report.document import NightSummary


def render_md(summary: NightSummary) -> str:
    lines = [f"# skillopt-sleep night {summary.night}", ""]
    if summary.simulation:
        lines += ["> SIMULATION: the models in this night were simulated.", ""]
    lines += ["## Did my skills get better?", "", headline(summary), ""]
    lines += [f"- {skill_sentence(s, summary)}" for s in summary.skills]
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
    ingest, mining = summary.ingest, summary.mining
    lines.append(
        f"{ingest.get('files_changed', 0)} changed files, {ingest.get('new_sessions', 0)} new "
        f"sessions, {ingest.get('new_turns', 0)} new turns; {mining.get('recurring', 0)} "
        f"recurring task clusters of {mining.get('clusters', 0)}."
    )
    for skill in summary.skills:
        lines += ["", f"## {skill.name}", ""]
        lines.append(
            f"{'managed by skillopt-sleep' if skill.managed else 'your skill'}; "
            f"tasks train/val/test: {split_counts(skill.n_tasks)}"
        )
        if ran := replay_line(skill.replay):
            lines.append(ran)
        if reused := carried_line(skill):
            lines.append(reused)
        if plan := plan_line(skill):
            lines.append(plan)
        if skill.promotion:
            lines.append(promotion_line(skill.promotion))
        if skill.stopped_by:
            lines.append(f"Training stopped early: {skill.stopped_by}.")
        rows = edit_rows(skill)
        if rows:
            lines += ["", "| " + " | ".join(EDIT_HEADER) + " |", "|" + "---|" * len(EDIT_HEADER)]
            lines += ["| " + " | ".join(c.replace("|", "\\|") for c in r) + " |" for r in rows]
        pending = pending_lines(skill)
        if pending:
            lines += ["", "Pending (undecided, carried to the next night):", ""]
            lines += [f"- {line}" for line in pending]
        if skill.diff:
            lines += ["", "```diff", skill.diff.rstrip(), "```"]
    if summary.not_trained:
        lines += ["", "## Not trained tonight", ""]
        lines += [f"- {s.skill}: {s.reason}" for s in summary.not_trained]
    problems = summary.problems
    lines += ["", "## What went wrong", ""]
    lines += [f"- {p}" for p in problems] or ["Nothing."]
    return "\n".join(lines) + "\n"


def _charts(summary: NightSummary) -> list[str]:
    """Only charts that have something to show: the score over nights once a skill has two
    nights (else tonight's before/after), edits when some were tried, cost against the
    limits that are set."""
    charts = []
    history = summary.history
    series = {name: [(p["night"], p["score"]) for p in points] for name, points in history.items()}
    if any(len(points) >= 2 for points in series.values()):
        charts.append(line_chart("Held-out score per skill over nights", series))
    else:
        scores = [
            (s.name, [("before", round(s.test.before, 2)), ("after", round(s.test.after, 2))])
            for s in summary.skills
            if s.test
        ]
        if scores:
            charts.append(bar_chart("Held-out score tonight, before and after", scores, top=1))
    passes = [
        (s.name, [(k, round(getattr(s.test.pass_all, k) or 0.0, 2)) for k in ("before", "after")])
        for s in summary.skills
        if s.test and s.test.pass_all
    ]
    if passes:
        title = "Held-out answers passing every rule, before and after"
        charts.insert(0, bar_chart(title, passes, top=1))
    edits = [
        (
            s.name,
            [
                (status, sum(1 for e in s.edits if e.status == status))
                for status in ("accepted", "rejected", "pending")
            ],
        )  # fmt: skip
        for s in summary.skills
        if s.edits
    ]
    if edits:
        charts.append(bar_chart("Edits accepted, rejected and pending", edits))
    usage = summary.usage or NightUsage()
    budget = usage.budget
    cost_rows = [
        (f"{kind} ({spent:.4g} of {limit:g})",
         [("share of the night's budget used", round(100 * spent / limit, 1))])
        for kind, used, key in BUDGET_KINDS
        if (limit := budget.get(key)) and (spent := getattr(usage, used))
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


def render_html(summary: NightSummary) -> str:
    """A single self-contained page: inline CSS and SVG, no external URL of any kind."""
    out = [
        "<!doctype html><html><head><meta charset='utf-8'>",
        f"<title>skillopt-sleep: the night of {escape(night_date(summary))}</title>",
        f"<style>{STYLE}</style></head><body>",
        f"<h1>skillopt-sleep: the night of {escape(night_date(summary))}</h1>",
        f"<div class='id'>night {escape(summary.night)}</div>",
    ]
    if summary.simulation:
        out.append("<p class='sim'>SIMULATION: the models in this night were simulated.</p>")
    out.append(f"<h2>Did my skills get better?</h2><p><b>{escape(headline(summary))}</b></p>")
    out.append("<ul class='answer'>")
    out += [f"<li>{_code(skill_sentence(s, summary))}</li>" for s in summary.skills]
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
    for skill in summary.skills:
        out.append(f"<h2>{escape(skill.name)}</h2>")
        if skill.promotion:
            out.append(f"<p>{escape(promotion_line(skill.promotion))}</p>")
        if reused := carried_line(skill):
            out.append(f"<p>{escape(reused)}</p>")
        if plan := plan_line(skill):
            out.append(f"<p class='plan'>{escape(plan)}</p>")
        rows = edit_rows(skill)
        if rows:
            out.append(_table(EDIT_HEADER, rows))
        pending = pending_lines(skill)
        if pending:
            out.append("<p>Pending (undecided, carried to the next night):</p><ul>")
            out += [f"<li>{escape(line)}</li>" for line in pending]
            out.append("</ul>")
        if skill.diff:
            out.append(f"<pre>{escape(skill.diff)}</pre>")
    if summary.not_trained:
        out.append("<h2>Not trained tonight</h2><ul>")
        out += [f"<li>{escape(s.skill)}: {escape(s.reason)}</li>" for s in summary.not_trained]
        out.append("</ul>")
    problems = summary.problems
    out.append("<h2>What went wrong</h2>")
    out.append(
        "<ul>" + "".join(f"<li>{escape(p)}</li>" for p in problems) + "</ul>"
        if problems
        else "<p>Nothing.</p>"
    )
    out.append("</body></html>")
    return "\n".join(out)


def write_reports(summary: NightSummary, out_dir: Path) -> dict[str, Path]:
    """Write report.md, report.json and report.html (private files); return their paths."""
    reports = {
        "md": (out_dir / "report.md", render_md(summary)),
        "json": (out_dir / "report.json", json.dumps(summary.to_json(), indent=2, default=str)),
        "html": (out_dir / "report.html", render_html(summary)),
    }
    for path, text in reports.values():
        write_private(path, text)
    return {fmt: path for fmt, (path, _) in reports.items()}
