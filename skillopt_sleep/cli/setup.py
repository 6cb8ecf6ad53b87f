"""``init`` and ``doctor``: get a user from nothing to a checked setup."""

from __future__ import annotations

import click

from skillopt_sleep.cli.context import App, UserError, echo_json
from skillopt_sleep.settings import paths

# The starter config: the keys most users change, each at its default and commented out
# (so a later default still reaches them). tests/cli/test_cli_setup.py holds it to the defaults.
STARTER = """\
# skillopt-sleep: the settings most users change. Uncomment a line to change it; what you
# leave commented keeps its default. Every key, with what it does and its default:
# `skillopt-sleep init --show-defaults`. A misspelt key or a bad value stops every command
# with one line.

# Session logs to read ([] = where the agents keep them).
# sources:
#   claude: {roots: []}   # [] = $CLAUDE_CONFIG_DIR, else ~/.claude and ~/.config/claude
#   codex: {roots: []}    # [] = $CODEX_HOME, else ~/.codex

# The model of each role. Without an endpoint, nights run on the embedded local models;
# with one (OPENAI_API_KEY, or <ROLE>_BASE_URL / _API_KEY / _MODEL in the environment),
# these models are asked. Keys never go here: models.<role>.api_key_env names the variable.
# models:
#   optimizer: {model: gpt-4o-mini}   # reflects on failures, proposes edits
#   target: {model: gpt-4o-mini}      # answers the tasks with the skill, as your agent does
#   judge: {model: gpt-4o-mini}       # grades answers against rubric judges

# When nights start (cron, local time), and by when they must have stopped.
# daemon:
#   schedule: "0 2 * * *"
#   deadline: "07:00"

# The most one night may spend, in USD (null = no limit).
# budget:
#   max_cost_usd: 4.0

# Where validated skills are written ([] = every agent found on this machine), and which
# are written without your review (the rest wait: `skillopt-sleep diff NAME`, then adopt).
# promotion:
#   targets: []
#   auto_promote_managed: true        # skills skillopt-sleep created
#   auto_promote_user_skills: false   # skills you wrote
"""


@click.command()
@click.option("--force", is_flag=True, help="Overwrite an existing config file.")
@click.option("--show-defaults", is_flag=True, help="Print every key with its default and exit.")
@click.pass_obj
def init(app: App, force: bool, show_defaults: bool) -> None:
    """Write a starter config file.

    \b
    Example:
      skillopt-sleep init
      skillopt-sleep init --show-defaults > ~/.config/skillopt-sleep/config.yaml
    """
    from skillopt_sleep.settings.config import default_text

    if show_defaults:
        click.echo(default_text(), nl=False)
        return
    path = app.config_path or paths.config_file()
    if path.exists() and not force:
        raise UserError(f"{path} already exists (use --force to overwrite)")
    paths.ensure_private_dir(path.parent)
    path.write_text(STARTER)
    path.chmod(0o600)
    click.echo(f"wrote {path}")
    click.echo("next: skillopt-sleep doctor")


@click.command()
@click.option("--json", "as_json", is_flag=True, help="Print the checks as JSON.")
@click.option(
    "--no-rollout", is_flag=True, help="Skip the harness rollout (models.target.backend)."
)
@click.pass_obj
def doctor(app: App, as_json: bool, no_rollout: bool) -> None:
    """Check config, state directory, permissions, sources, the model and the agent CLIs.

    With models.target.backend claude-code or codex, also runs one real rollout of that
    harness on a throwaway repository (minutes on the embedded model: its first prompt is
    long). Exits 1 when a check fails.

    \b
    Example:
      skillopt-sleep doctor
      skillopt-sleep doctor --no-rollout --json
    """
    from skillopt_sleep.health.doctor import FAIL, Checks, harness_rollout_check, run_checks

    checks = run_checks(app.config_path, app.effective_overrides())
    if not no_rollout and not any(c.status == FAIL for c in checks):
        checks += harness_rollout_check(app.config)
    if as_json:
        echo_json(Checks(tuple(checks)).to_json())
    else:
        for check in checks:
            click.echo(f"{check.status:>4}  {check.what}: {check.detail}")
    if any(c.status == FAIL for c in checks):
        raise SystemExit(1)
