"""Review commands: ``adopt``, ``reject``, ``rollback``, ``diff``, ``history``.

A night stages what it may not write by itself; these commands are how the user answers.
Errors are one line: a name or version that does not exist exits 2, a skill directory
that cannot be written exits 1 (and nothing is half-written).
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from types import ModuleType
from typing import Any

import click

from skillopt_sleep.cli.context import App, CliError, UserError, echo_json


@contextlib.contextmanager
def _errors() -> Iterator[ModuleType]:
    """Yield ``skillopt_sleep.promotion`` (imported here, not when `--help` lists this
    module) and turn its errors into one line."""
    from skillopt_sleep import promotion
    from skillopt_sleep.promotion.dirs import SkillPathError, SkillWriteError

    try:
        yield promotion
    except (SkillPathError, promotion.PromotionError) as exc:
        raise UserError(str(exc)) from exc
    except SkillWriteError as exc:
        raise CliError(str(exc), "skill_unwritable") from exc


def _line(row: dict[str, Any]) -> str:
    version = f"v{row['version']}" if row.get("version") else "-"
    return f"{row['name']} {version} {row['status']}: {row.get('path') or row['target']}"


@click.command()
@click.argument("name", required=False)
@click.option("--all", "all_", is_flag=True, help="Adopt every staged skill.")
@click.pass_obj
def adopt(app: App, name: str | None, all_: bool) -> None:
    """Write a staged skill into its skill directory.

    \b
    Example:
      skillopt-sleep diff review-pr && skillopt-sleep adopt review-pr
      skillopt-sleep adopt --all
    """
    if bool(name) == all_:
        raise UserError("give a skill NAME or --all")
    with _errors() as promotion:
        for row in promotion.adopt(app.db, app.config, name):
            click.echo(f"adopted {_line(row)}")


@click.command()
@click.argument("name", required=False)
@click.option("--all", "all_", is_flag=True, help="Reject every staged skill.")
@click.pass_obj
def reject(app: App, name: str | None, all_: bool) -> None:
    """Decline a staged skill; the skill directory is left as it is.

    \b
    Example:
      skillopt-sleep reject review-pr
    """
    if bool(name) == all_:
        raise UserError("give a skill NAME or --all")
    with _errors() as promotion:
        for row in promotion.reject(app.db, app.config, name):
            click.echo(f"rejected {_line(row)}")


@click.command()
@click.argument("name")
@click.option("--to", "to_version", type=int, metavar="VERSION", help="Restore this version.")
@click.pass_obj
def rollback(app: App, name: str, to_version: int | None) -> None:
    """Undo the last promotion of a skill (or restore --to VERSION, see `history`).

    \b
    Example:
      skillopt-sleep rollback review-pr
      skillopt-sleep history review-pr && skillopt-sleep rollback review-pr --to 2
    """
    with _errors() as promotion:
        for row in promotion.rollback(app.db, app.config, name, to_version):
            click.echo(f"{row['name']}: {row['reason']} in {row['target']}")


@click.command()
@click.argument("name")
@click.pass_obj
def diff(app: App, name: str) -> None:
    """Show what a staged skill would change (or what the last promotion changed).

    \b
    Example:
      skillopt-sleep diff review-pr
    """
    with _errors() as promotion:
        text = promotion.diff(app.db, app.config, name)
    click.echo(text.rstrip("\n") if text else f"{name}: no difference")


@click.command()
@click.argument("name", required=False)
@click.option("--json", "as_json", is_flag=True, help="Machine-readable output.")
@click.pass_obj
def history(app: App, name: str | None, as_json: bool) -> None:
    """What happened to skills, oldest first: promoted, staged, superseded, adopted,
    rejected, rolled back; with the time, the version (v1 is the oldest text kept: the
    original) and why.

    \b
    Example:
      skillopt-sleep history
      skillopt-sleep history review-pr --json
    """
    with _errors() as promotion:
        if name:
            promotion.check_name(name)
        rows = promotion.history(app.db, name)
    if as_json:
        echo_json(promotion.History(rows).to_json())
        return
    if not rows:
        click.echo("no promotions yet")
    for row in rows:
        version = f"v{row.version}" if row.version else "-"
        night = f"  night {row.night_id}" if row.night_id else ""
        click.echo(
            f"{row.at}  {row.name:<24} {row.event:<11} {version:<4} {row.reason}"
            f"  [{row.target}]{night}"
        )
