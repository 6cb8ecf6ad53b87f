"""``report`` and ``status``: what happened last night, and what happens next."""

from __future__ import annotations

import json

import click

from skillopt_sleep.cli.context import App, UserError, echo_json


def _list_nights(app: App, as_json: bool) -> None:
    from skillopt_sleep.health.status import nights

    rows = nights(app.db, app.state_dir)
    if as_json:
        echo_json([r.to_json() for r in rows])
        return
    if not rows:
        click.echo("no nights yet: skillopt-sleep run --once (or install the daemon)")
        return
    for r in rows:
        click.echo(f"{r.id:24} {r.status:12} {r.headline or ''}".rstrip())


def _unknown_night(app: App, night: str) -> UserError:
    """No report for ``night``: say why (no such id, or that night has not finished)."""
    import difflib

    row = app.db.execute("SELECT status FROM nights WHERE id = ?", [night]).fetchone()
    if row is not None:
        return UserError(f"night {night} has no report yet ({row[0]}; the next run resumes it)")
    ids = [r[0] for r in app.db.execute("SELECT id FROM nights ORDER BY started_at DESC")]
    close = difflib.get_close_matches(night, ids, n=1, cutoff=0.5)
    hint = f"did you mean {close[0]}? " if close else ""
    return UserError(f"no night {night!r}; {hint}`skillopt-sleep nights` lists them")


@click.command()
@click.option("--json", "as_json", is_flag=True, help="Print a JSON list.")
@click.pass_obj
def nights(app: App, as_json: bool) -> None:
    """List the nights, newest first: id, status, and what each one answered.

    \b
    Example:
      skillopt-sleep nights
      skillopt-sleep report "$(skillopt-sleep nights --json | jq -r '.[1].id')"
    """
    _list_nights(app, as_json)


@click.command()
@click.argument("night", required=False)
@click.option("--format", "fmt", type=click.Choice(["md", "json", "html"]), default="md",
              show_default=True, help="Output format.")  # fmt: skip
@click.option("--open", "open_", is_flag=True, help="Open the HTML report in a browser.")
@click.option("--list", "list_", is_flag=True, help="List the nights instead (as `nights`).")
@click.option("--json", "as_json", is_flag=True, help="With --list: a JSON list.")
@click.pass_obj
def report(app: App, night: str | None, fmt: str, open_: bool, list_: bool, as_json: bool) -> None:
    """Print a night's report (default: the last finished night).

    \b
    Example:
      skillopt-sleep report
      skillopt-sleep report 2026-11-29T02-00-00Z --format html > night.html
      skillopt-sleep report --open
      skillopt-sleep report --list
    """
    from skillopt_sleep.report import render_html, render_md, write_reports

    if list_:
        _list_nights(app, as_json)
        return
    if as_json:
        fmt = "json"
    where, args = ("id = ?", [night]) if night else ("status = 'done'", [])
    row = app.db.execute(
        f"SELECT id, summary FROM nights WHERE {where} AND summary IS NOT NULL "
        "ORDER BY started_at DESC LIMIT 1",
        args,
    ).fetchone()
    if row is None:
        raise _unknown_night(app, night) if night else UserError("no finished night yet")
    from skillopt_sleep.report.document import NightSummary

    summary = NightSummary.from_json(json.loads(row[1]))
    if open_:
        paths = write_reports(summary, app.state_dir / "nights" / row[0])
        click.launch(str(paths["html"]))
        click.echo(str(paths["html"]))
        return
    text = {"md": render_md, "html": render_html}.get(fmt)
    click.echo(text(summary) if text else json.dumps(summary.to_json(), indent=2))


@click.command()
@click.option("--json", "as_json", is_flag=True, help="Print as JSON.")
@click.option("--brief", is_flag=True, help="A few lines: last night, reviews, next night.")
@click.pass_obj
def status(app: App, as_json: bool, brief: bool) -> None:
    """One screen: last night's outcome, pending reviews, next run, budget used, daemon alive.

    \b
    Example:
      skillopt-sleep status
      skillopt-sleep status --brief      # what the agent plugins show
    """
    from skillopt_sleep.health.status import gather_fast, render, render_brief

    info = gather_fast(app.state_dir, lambda: app.db)
    if as_json:
        echo_json(info.to_json())
    else:
        click.echo(render_brief(info) if brief else render(info))
