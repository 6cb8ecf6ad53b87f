"""``init`` and ``doctor``: get a user from nothing to a checked setup."""

from __future__ import annotations

import click

from skillopt_sleep import paths
from skillopt_sleep.cli.context import App, UserError, echo_json

STARTER = """\
# skillopt-sleep configuration. Every key and its default: `skillopt-sleep init --show-defaults`.
# Uncomment and change what you need; unknown keys are reported as errors.

# state_dir: ~/.local/state/skillopt-sleep
# sources:
#   claude: {enabled: true, roots: []}  # [] = $CLAUDE_CONFIG_DIR, else ~/.claude, ~/.config/claude
#   codex:  {enabled: true, roots: []}    # [] = $CODEX_HOME, else ~/.codex
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
    from skillopt_sleep.config import default_text

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
    from skillopt_sleep.doctor import FAIL, harness_rollout_check, run_checks

    checks = run_checks(app.config_path, app.effective_overrides())
    if not no_rollout and not any(c.status == FAIL for c in checks):
        checks += harness_rollout_check(app.config)
    if as_json:
        echo_json({"checks": [c.to_dict() for c in checks]})
    else:
        for check in checks:
            click.echo(f"{check.status:>4}  {check.what}: {check.detail}")
    if any(c.status == FAIL for c in checks):
        raise SystemExit(1)
