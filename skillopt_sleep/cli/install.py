"""``skillopt-sleep install systemd|cron`` and ``uninstall [systemd|cron]``."""

from __future__ import annotations

from pathlib import Path

import click

from skillopt_sleep import install as installer
from skillopt_sleep.cli.context import App, UserError
from skillopt_sleep.cli.root import main
from skillopt_sleep.promotion.dirs import SkillPathError


@main.command()
@click.argument("kind", type=click.Choice(["systemd", "cron"]))
@click.option(
    "--exe",
    type=click.Path(path_type=Path, dir_okay=False, exists=True),
    help="The skillopt-sleep executable the units run (default: the one running now).",
)
@click.pass_obj
def install(app: App, kind: str, exe: Path | None) -> None:
    """Run skillopt-sleep every night for the current user.

    `systemd` writes user units to $XDG_CONFIG_HOME/systemd/user (a daemon service, and a
    oneshot service + timer) and prints the systemctl commands to enable them; `cron`
    adds a marked block to your crontab (or prints it when crontab is not installed).

    \b
    Example:
      skillopt-sleep install systemd
      systemctl --user daemon-reload && systemctl --user enable --now skillopt-sleep.service
    """
    try:
        exe = exe.absolute() if exe else installer.current_executable()
        config = app.config
        if kind == "systemd":
            written, notes = installer.install_systemd(config, exe)
            for path in written:
                click.echo(f"wrote {path}")
        else:
            done, block = installer.install_cron(config, exe)
            if done:
                click.echo("added to your crontab:")
                notes = [
                    "cron does not run nights missed while the machine was off; the "
                    "systemd timer does (install systemd)"
                ]
            else:
                click.echo("crontab is not installed; add these lines with `crontab -e`:")
                notes = []
            click.echo(block.rstrip("\n"))
    except (installer.InstallError, SkillPathError) as exc:
        raise UserError(str(exc)) from exc
    except OSError as exc:
        raise click.ClickException(f"cannot install: {exc}") from exc
    for note in notes:
        click.echo(note)


@main.command()
@click.argument("kind", type=click.Choice(["systemd", "cron"]), required=False)
def uninstall(kind: str | None) -> None:
    """Remove what `install` wrote (both kinds when none is given).

    \b
    Example:
      skillopt-sleep uninstall systemd
    """
    try:
        if kind in (None, "systemd"):
            removed, notes = installer.uninstall_systemd()
            for path in removed:
                click.echo(f"removed {path}")
            if removed:
                for note in notes:
                    click.echo(note)
            elif kind == "systemd":
                click.echo("no skillopt-sleep systemd units installed")
        if kind in (None, "cron"):
            if installer.uninstall_cron():
                click.echo("removed the skillopt-sleep block from your crontab")
            elif kind == "cron":
                click.echo("no skillopt-sleep block in your crontab (or no crontab command)")
    except installer.InstallError as exc:
        raise UserError(str(exc)) from exc
    except OSError as exc:
        raise click.ClickException(f"cannot uninstall: {exc}") from exc
