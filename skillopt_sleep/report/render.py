"""Render a night summary. Every format leads with the answer to "did my skills get better?"."""

from __future__ import annotations

import json
from html import escape
from pathlib import Path
from typing import Any

from skillopt_sleep.files import write_private
from skillopt_sleep.report.charts import bar_chart, line_chart

OUTCOME_WORDS = {
    "improved": "better",
    "unchanged": "unchanged",
    "not_enough_evidence": "not enough evidence tonight",
    "worse": "worse on held-out tasks (not promoted)",
    "error": "failed",
    "skipped": "skipped",
}


def _limit(x: Any, unit: str = "") -> str:
    return "no limit" if x is None else f"{unit}{x}"


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
    return f"Replayed: {', '.join(parts)}" + (f" ({reasons})." if reasons else ".")


def _split_counts(n: dict[str, int]) -> str:
    return "/".join(str(n.get(split, 0)) for split in ("train", "val", "test"))


def _pct(x: float | None) -> str:
    return "n/a" if x is None else f"{x:+.2f}"


def skill_sentence(skill: dict[str, Any]) -> str:
    """One line per skill: the held-out lift with its interval, or why there is none."""
    name, outcome = skill["name"], skill.get("outcome", "skipped")
    test = skill.get("test")
    words = OUTCOME_WORDS.get(outcome, outcome)
    if test and outcome in {"improved", "worse", "unchanged"}:
        return (
            f"{name}: {words} — held-out score {test['before']:.2f} → {test['after']:.2f} "
            f"(lift {_pct(test['lift'])}, 95% CI {_pct(test['ci_low'])} to {_pct(test['ci_high'])},"
            f" {test['n_tasks']} test tasks)"
        )
    reason = skill.get("reason")
    return f"{name}: {words}" + (f" — {reason}" if reason else "")


def promotion_line(promo: dict[str, Any]) -> str:
    """What happened to the skill's file, where, and why (a staged skill says why)."""
    where = ", ".join(promo.get("paths") or ([promo["path"]] if promo.get("path") else []))
    reason = promo.get("reason")
    return (
        f"Promotion: {promo.get('status')}"
        + (f" {where}" if where else "")
        + (f" — {reason}" if reason else "")
    )


def headline(summary: dict[str, Any]) -> str:
    skills = summary.get("skills", [])
    if not skills:
        return "No recurring task was ready for training tonight."
    better = sum(1 for s in skills if s.get("outcome") == "improved")
    return f"{better} of {len(skills)} skill(s) got better tonight."


def _edit_rows(skill: dict[str, Any]) -> list[list[str]]:
    rows = []
    for edit in skill.get("edits", []):
        gate = edit.get("gate") or {}
        rows.append(
            [
                edit.get("status", ""),
                edit.get("kind", ""),
                edit.get("summary", "")[:80],
                _pct(gate.get("effect")),
                "n/a" if gate.get("p_value") is None else f"{gate['p_value']:.3f}",
                gate.get("verdict", edit.get("reason", "")),
            ]
        )
    return rows


BUDGET_KINDS = (
    ("calls", "calls", "max_calls"),
    ("tokens", "tokens", "max_tokens"),
    ("cost $", "cost_usd", "max_cost_usd"),
)
EDIT_HEADER = ["status", "kind", "edit", "effect", "p-value", "verdict"]


def render_md(summary: dict[str, Any]) -> str:
    lines = [f"# skillopt-sleep night {summary['night']}", ""]
    if summary.get("simulation"):
        lines += ["> SIMULATION: the models in this night were simulated.", ""]
    lines += ["## Did my skills get better?", "", headline(summary), ""]
    lines += [f"- {skill_sentence(s)}" for s in summary.get("skills", [])]
    usage = summary.get("usage", {})
    budget = usage.get("budget", {})
    lines += [
        "",
        "## Cost",
        "",
        f"{usage.get('calls', 0)} model calls, {usage.get('tokens', 0)} tokens, "
        f"${usage.get('cost_usd', 0.0):.4f} (budget: {_limit(budget.get('max_calls'))} calls, "
        f"{_limit(budget.get('max_tokens'))} tokens, {_limit(budget.get('max_cost_usd'), '$')}).",
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
        promo = skill.get("promotion") or {}
        if promo:
            lines.append(promotion_line(promo))
        if skill.get("stopped_by"):
            lines.append(f"Training stopped early: {skill['stopped_by']}.")
        rows = _edit_rows(skill)
        if rows:
            lines += ["", "| " + " | ".join(EDIT_HEADER) + " |", "|" + "---|" * len(EDIT_HEADER)]
            lines += ["| " + " | ".join(c.replace("|", "\\|") for c in r) + " |" for r in rows]
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
    history = summary.get("history", {})
    series = {name: [(p["night"], p["score"]) for p in points] for name, points in history.items()}
    edits = [
        (
            s["name"],
            [
                ("accepted", sum(1 for e in s.get("edits", []) if e.get("status") == "accepted")),
                ("rejected", sum(1 for e in s.get("edits", []) if e.get("status") != "accepted")),
            ],
        )
        for s in summary.get("skills", [])
    ]
    usage = summary.get("usage", {})
    budget = usage.get("budget", {})
    cost_rows = [
        (f"{kind} ({usage.get(used, 0):g} of {budget[limit]:g})",
         [("% of budget used", round(100 * usage.get(used, 0) / budget[limit], 1))])
        for kind, used, limit in BUDGET_KINDS
        if budget.get(limit)
    ]  # fmt: skip
    return [
        line_chart("Held-out score per skill over nights", series),
        bar_chart("Edits accepted and rejected", edits),
        bar_chart("Cost against budget", cost_rows, top=100),
    ]


def _table(header: list[str], rows: list[list[str]]) -> str:
    head = "".join(f"<th>{escape(h)}</th>" for h in header)
    body = "".join("<tr>" + "".join(f"<td>{escape(c)}</td>" for c in r) + "</tr>" for r in rows)
    return f"<table><tr>{head}</tr>{body}</table>"


STYLE = (
    "body{font:14px/1.45 system-ui,sans-serif;max-width:60rem;margin:2rem auto;padding:0 1rem}"
    "table{border-collapse:collapse}td,th{border:1px solid #ccc;padding:2px 6px;text-align:left}"
    "pre{background:#f6f6f6;padding:.5rem;overflow:auto}.sim{background:#fff3cd;padding:.5rem}"
    ".answer li{font-size:15px}"
)


def render_html(summary: dict[str, Any]) -> str:
    """A single self-contained page: inline CSS and SVG, no external URL of any kind."""
    out = [
        "<!doctype html><html><head><meta charset='utf-8'>",
        f"<title>skillopt-sleep night {escape(summary['night'])}</title>",
        f"<style>{STYLE}</style></head><body>",
        f"<h1>Night {escape(summary['night'])}</h1>",
    ]
    if summary.get("simulation"):
        out.append("<p class='sim'>SIMULATION: the models in this night were simulated.</p>")
    out.append(f"<h2>Did my skills get better?</h2><p><b>{escape(headline(summary))}</b></p>")
    out.append("<ul class='answer'>")
    out += [f"<li>{escape(skill_sentence(s))}</li>" for s in summary.get("skills", [])]
    out.append("</ul><h2>Charts</h2>")
    out += [f"<figure>{svg}</figure>" for svg in _charts(summary)]
    for skill in summary.get("skills", []):
        out.append(f"<h2>{escape(skill['name'])}</h2>")
        promo = skill.get("promotion") or {}
        if promo:
            out.append(f"<p>{escape(promotion_line(promo))}</p>")
        rows = _edit_rows(skill)
        if rows:
            out.append(_table(EDIT_HEADER, rows))
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
