"""The root ``skillopt-sleep`` group and its global options; command families add
themselves to ``main`` in their own modules (see ``skillopt_sleep.cli``)."""

from __future__ import annotations

from pathlib import Path

import click

from skillopt_sleep import __version__
from skillopt_sleep.cli.context import App, Group, UserError


@click.group(
    cls=Group, context_settings={"help_option_names": ["-h", "--help"], "max_content_width": 100}
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
        raise UserError(f"config file {config_path} does not exist")
    ctx.obj = App(config_path=config_path, state_dir=state_dir)
    ctx.call_on_close(ctx.obj.close)
