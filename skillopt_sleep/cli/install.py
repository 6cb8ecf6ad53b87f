"""``skillopt-sleep install systemd|cron`` and ``uninstall [systemd|cron]``."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import click

from skillopt_sleep.cli.context import App, UserError


def _offer_env_file(config: dict, choice: bool | None) -> list[str]:
    """Write the shell's endpoint variables where scheduled nights read them: with
    --env-file, or after asking on a terminal. Names are printed, values never."""
    from skillopt_sleep import envfile

    file = envfile.path()
    values = envfile.wanted(os.environ, config)
    if not values:
        return [f"no endpoint variables in this shell; scheduled nights read {file} if you add any"]
    todo = envfile.missing(os.environ, config, file)
    if not todo:
        return [f"{file} already holds this shell's endpoint variables"]
    names = ", ".join(todo)
    if choice is None and sys.stdin.isatty():
        choice = click.confirm(
            f"Scheduled nights do not see your shell. Write {names} to {file} (0600)?",
            default=True,
        )
    if not choice:
        return [
            f"scheduled nights will not see {names}: run `skillopt-sleep install ... --env-file`"
            f" or put them in {file} (NAME='value', mode 0600)"
        ]
    try:
        envfile.write(file, {name: values[name] for name in todo})
    except envfile.EnvFileError as exc:
        raise UserError(str(exc)) from exc
    return [f"wrote {names} to {file} (mode 0600): scheduled nights read it"]


KINDS = ["systemd", "cron", "claude-plugin", "codex-plugin"]


def _install_schedule(app: App, kind: str, exe: Path, env_file: bool | None) -> list[str]:
    from skillopt_sleep import install as installer

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
    return _offer_env_file(config, env_file) + notes


@click.command()
@click.argument("kind", type=click.Choice(KINDS))
@click.option(
    "--exe",
    type=click.Path(path_type=Path, dir_okay=False, exists=True),
    help="The skillopt-sleep executable the units, cron line or hooks run "
    "(default: the one running now).",
)
@click.option(
    "--env-file/--no-env-file",
    "env_file",
    default=None,
    help="Write this shell's endpoint variables (OPENAI_*, OPTIMIZER_*, TARGET_*, JUDGE_*, "
    "the config's api_key_env) to ~/.config/skillopt-sleep/env for scheduled nights "
    "(default: ask on a terminal).",
)
@click.pass_obj
def install(app: App, kind: str, exe: Path | None, env_file: bool | None) -> None:
    """Run skillopt-sleep every night, or bring it inside your agent.

    `systemd` writes user units to $XDG_CONFIG_HOME/systemd/user (a daemon service, and a
    oneshot service + timer) and prints the systemctl commands to enable them; `cron`
    adds a marked block to your crontab (or prints it when crontab is not installed).
    Both read the environment file $XDG_CONFIG_HOME/skillopt-sleep/env, which this
    command offers to fill from your shell's endpoint variables.

    `claude-plugin` / `codex-plugin` install a plugin into Claude Code / Codex (through
    their own `plugin` commands): a hook that ingests each session as it ends, and
    /skillopt-sleep:last-night (Claude Code) or $last-night (Codex) to see last night's
    outcome from inside the agent.

    \b
    Example:
      OPENAI_API_KEY=... skillopt-sleep install systemd --env-file
      systemctl --user daemon-reload && systemctl --user enable --now skillopt-sleep.service
      skillopt-sleep install claude-plugin
    """
    from skillopt_sleep import agent_plugins
    from skillopt_sleep import install as installer
    from skillopt_sleep.promotion.dirs import SkillPathError

    try:
        exe = exe.absolute() if exe else installer.current_executable()
        if kind.endswith("-plugin"):
            root, notes = agent_plugins.install(kind.removesuffix("-plugin"), exe)
            click.echo(f"wrote {root}")
        else:
            notes = _install_schedule(app, kind, exe, env_file)
    except (installer.InstallError, SkillPathError, agent_plugins.PluginError) as exc:
        raise UserError(str(exc)) from exc
    for note in notes:
        click.echo(note)


@click.command()
@click.argument("kind", type=click.Choice(KINDS), required=False)
def uninstall(kind: str | None) -> None:
    """Remove what `install` wrote (every kind when none is given).

    \b
    Example:
      skillopt-sleep uninstall systemd
      skillopt-sleep uninstall claude-plugin
    """
    from skillopt_sleep import agent_plugins, envfile
    from skillopt_sleep import install as installer

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
        for agent in ("claude", "codex"):
            if kind in (None, f"{agent}-plugin"):
                notes = agent_plugins.uninstall(agent, only_if_installed=kind is None)
                for note in notes or ([] if kind is None else ["no plugin installed"]):
                    click.echo(note)
        if kind is None and envfile.path().exists():
            click.echo(f"kept {envfile.path()} (your endpoint variables); delete it if unused")
    except (installer.InstallError, agent_plugins.PluginError) as exc:
        raise UserError(str(exc)) from exc
