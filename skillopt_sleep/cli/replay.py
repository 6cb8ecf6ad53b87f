"""``skillopt-sleep tasks replay``: run one task now and see what the target did."""

from __future__ import annotations

from pathlib import Path

import click

from skillopt_sleep.cli.context import App, CliError, UserError, echo_json


@click.command("replay")
@click.argument("task_id")
@click.option(
    "--backend",
    type=click.Choice(["claude-code", "codex", "chat"]),
    help="Where to run it (default: as configured by models.target.backend).",
)
@click.option(
    "--skill",
    "skill_file",
    type=click.Path(path_type=Path, dir_okay=False, exists=True),
    help="SKILL.md to use (default: the task's skill as the night would start it).",
)
@click.option("--json", "as_json", is_flag=True, help="Print the outcome and judges as JSON.")
@click.pass_obj
def replay_cmd(app: App, task_id: str, backend: str | None, skill_file: Path | None,
               as_json: bool) -> None:  # fmt: skip
    """Run one rollout of TASK_ID now and print what the target did and how it scored.

    In the agent CLI (claude-code, codex) the task runs in a throwaway copy of its
    repository at its commit, with the skill installed and invoked; nothing is cached,
    promoted or written to your repository.

    \b
    Example:
      skillopt-sleep tasks replay t-3f2a9c01b7 --backend claude-code --json
      skillopt-sleep tasks replay t-3f2a9c01b7 --backend chat --skill ./SKILL.md
    """
    from skillopt_sleep.mining import mine_if_stale
    from skillopt_sleep.replay.one import (
        ReplayError,
        ReplayReport,
        find_task,
        replay,
        task_skill,
    )
    from trainer.backends.base import InfraError
    from trainer.harness import CliNotFound
    from trainer.harness.sandbox import SandboxUnavailable

    mine_if_stale(app.db, app.config)
    try:
        task = find_task(app.db, task_id)
        text = skill_file.read_text() if skill_file else task_skill(app.db, app.config, task)
        out = replay(app.config, task, text, backend=backend)
    except ReplayError as exc:
        raise UserError(str(exc)) from None
    except (CliNotFound, SandboxUnavailable):
        raise  # not this rollout's failure: its own code says what to install (failures.py)
    except InfraError as exc:
        raise CliError(f"the rollout could not be made: {exc}", "rollout_failed") from None
    if as_json:
        echo_json(ReplayReport(out).to_json())
        return
    _print(out)


def _print(out: dict) -> None:
    version = f" {out['cli_version']}" if out.get("cli_version") else ""
    click.echo(f"task {out['task']} in {out['backend']}{version}: {out['seconds']:.1f}s, "
               f"{out['tokens']['input']} in / {out['tokens']['output']} out tokens")  # fmt: skip
    if out["skill_injected"] is not None:
        click.echo(f"skill {out['skill']['name']} injected: {out['skill_injected']}")
    for call in out["tool_calls"]:
        click.echo(f"  ran: {call['command'][:100]}  (exit {call['exit_status']})")
    if out["files_changed"]:
        click.echo(f"  changed: {', '.join(out['files_changed'])}")
    click.echo(f"answer: {out['answer'][:500]}")
    for j in out["judges"]:
        verdict = "n/a " if not j["applies"] else ("pass" if j["pass"] else "FAIL")
        click.echo(f"  {verdict} {j['kind']} {j['value'][:60]}")
    score = "n/a" if out["score"] is None else f"{out['score']:.2f}"
    click.echo(f"score: {score}")
