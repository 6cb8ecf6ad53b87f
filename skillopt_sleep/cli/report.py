"""``report`` and ``status``: what happened last night, and what happens next."""

from __future__ import annotations

import json

import click

from skillopt_sleep.cli.context import App, UserError, echo_json
from skillopt_sleep.cli.root import main
from skillopt_sleep.report import render_html, render_md, write_reports


@main.command()
@click.argument("night", required=False)
@click.option("--format", "fmt", type=click.Choice(["md", "json", "html"]), default="md",
              show_default=True, help="Output format.")  # fmt: skip
@click.option("--open", "open_", is_flag=True, help="Open the HTML report in a browser.")
@click.pass_obj
def report(app: App, night: str | None, fmt: str, open_: bool) -> None:
    """Print a night's report (default: the last finished night).

    \b
    Example:
      skillopt-sleep report
      skillopt-sleep report 2026-11-29T02-00-00Z --format html > night.html
      skillopt-sleep report --open
    """
    where, args = ("id = ?", [night]) if night else ("status = 'done'", [])
    row = app.db.execute(
        f"SELECT id, summary FROM nights WHERE {where} AND summary IS NOT NULL "
        "ORDER BY started_at DESC LIMIT 1",
        args,
    ).fetchone()
    if row is None:
        raise UserError(f"no report for night {night}" if night else "no finished night yet")
    summary = json.loads(row[1])
    if open_:
        paths = write_reports(summary, app.state_dir / "nights" / row[0])
        click.launch(str(paths["html"]))
        click.echo(str(paths["html"]))
        return
    text = {"md": render_md, "html": render_html}.get(fmt)
    click.echo(text(summary) if text else json.dumps(summary, indent=2))


@main.command()
@click.option("--json", "as_json", is_flag=True, help="Print as JSON.")
@click.pass_obj
def status(app: App, as_json: bool) -> None:
    """One screen: last night's outcome, pending reviews, next run, budget used, daemon alive.

    \b
    Example:
      skillopt-sleep status
    """
    from skillopt_sleep.status import gather, render

    info = gather(app.db, app.state_dir)
    if as_json:
        echo_json(info)
    else:
        click.echo(render(info))
