"""The root ``skillopt-sleep`` group and its global options. Each command lives in its
family's module and is imported only when it is used (see ``COMMANDS``)."""

from __future__ import annotations

from pathlib import Path

import click

from skillopt_sleep import __version__
from skillopt_sleep.cli.context import App, Group
from skillopt_sleep.errors import ConfigError

# Command name -> "module:attribute". Importing a command module must stay cheap (heavy
# libraries are imported inside the command function): `--help` imports them all for
# their short help; tests/test_cli_startup.py checks what `--help` loads.
COMMANDS = {
    "adopt": "skillopt_sleep.cli.promote:adopt",
    "daemon": "skillopt_sleep.cli.daemon:daemon",
    "demo": "skillopt_sleep.cli.night:demo",
    "diff": "skillopt_sleep.cli.promote:diff",
    "doctor": "skillopt_sleep.cli.setup:doctor",
    "history": "skillopt_sleep.cli.promote:history",
    "ingest": "skillopt_sleep.cli.ingest:ingest",
    "init": "skillopt_sleep.cli.setup:init",
    "install": "skillopt_sleep.cli.install:install",
    "nights": "skillopt_sleep.cli.report:nights",
    "reject": "skillopt_sleep.cli.promote:reject",
    "report": "skillopt_sleep.cli.report:report",
    "rollback": "skillopt_sleep.cli.promote:rollback",
    "run": "skillopt_sleep.cli.night:run",
    "sessions": "skillopt_sleep.cli.ingest:sessions",
    "status": "skillopt_sleep.cli.report:status",
    "tasks": "skillopt_sleep.cli.tasks:tasks",
    "uninstall": "skillopt_sleep.cli.install:uninstall",
}


@click.group(
    cls=Group,
    lazy=COMMANDS,
    context_settings={"help_option_names": ["-h", "--help"], "max_content_width": 100},
)
@click.version_option(__version__, prog_name="skillopt-sleep")
@click.option(
    "--config",
    "config_path",
    type=click.Path(path_type=Path, dir_okay=False),
    envvar="SKILLOPT_SLEEP_CONFIG",
    help="Config file (default: $XDG_CONFIG_HOME/skillopt-sleep/config.yaml).",
)
@click.option(
    "--state-dir",
    type=click.Path(path_type=Path, file_okay=False),
    help="State directory (database, reports, backups); overrides the config.",
)
@click.pass_context
def main(ctx: click.Context, config_path: Path | None, state_dir: Path | None) -> None:
    """Make your coding agents' skills better while you sleep.

    \b
    Example:
      skillopt-sleep init && skillopt-sleep doctor
      skillopt-sleep ingest && skillopt-sleep tasks list
      skillopt-sleep run --once
    """
    if config_path is not None and not config_path.exists():
        raise ConfigError(f"config file {config_path} does not exist")
    ctx.obj = App(config_path=config_path, state_dir=state_dir)
    ctx.call_on_close(ctx.obj.close)
