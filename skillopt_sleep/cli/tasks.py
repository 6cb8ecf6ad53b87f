"""``skillopt-sleep tasks …``: the user's recurring tasks and their replay set.

Mining runs on demand: ``tasks list``/``show``/``export`` first mine when ingest has new
input since the last mining run (so they never show stale clusters); ``tasks mine``
forces a run.
"""

from __future__ import annotations

from pathlib import Path

import click

from skillopt_sleep.cli.context import App, Group, UserError, echo_json


def _fresh(app: App) -> None:
    from skillopt_sleep.mining import mine_if_stale

    mine_if_stale(app.db, app.config)


@click.group(
    cls=Group,
    lazy={
        "replay": "skillopt_sleep.cli.replay:replay_cmd",
        "check": "skillopt_sleep.cli.check:check_cmd",
    },
)
def tasks() -> None:
    """Recurring tasks mined from your sessions, and the replay tasks that test a skill.

    \b
    Example:
      skillopt-sleep tasks list
      skillopt-sleep tasks show c-1a2b3c4d5e
      skillopt-sleep tasks export tasks.yaml && $EDITOR tasks.yaml
      skillopt-sleep tasks import tasks.yaml
      skillopt-sleep tasks check t-0f1e2d3c4b5a --answer-text "Fix parser crash"
    """


@tasks.command("mine")
@click.option("--json", "as_json", is_flag=True, help="Print the run's counts as JSON.")
@click.pass_obj
def mine_cmd(app: App, as_json: bool) -> None:
    """Mine now, even if nothing was ingested since the last run.

    \b
    Example:
      skillopt-sleep tasks mine --json
    """
    from skillopt_sleep.mining import mine
    from skillopt_sleep.mining.compiler import judge_model
    from skillopt_sleep.settings.config import state_dir

    with judge_model(app.config, log_dir=state_dir(app.config)) as model:
        r = mine(app.db, app.config, model)
    if as_json:
        from skillopt_sleep.mining.printed import MiningRun

        echo_json(MiningRun(r).to_json())
        return
    click.echo(
        f"{r.n_requests} requests -> {r.n_clusters} clusters, {r.n_recurring} recurring, "
        f"{r.n_tasks} tasks"
    )
    rep = r.report
    if rep.get("too_small_to_split"):
        click.echo(f"too small to split (all train): {', '.join(rep['too_small_to_split'])}")
    skipped = rep.get("skipped_no_request", 0)
    if skipped:
        click.echo(f"skipped {skipped} turn(s) with no human request left after cleaning")
    judges = rep.get("judges", {})
    if judges:
        click.echo(f"corrections compiled by {judges['compiled_by']}; "
                   f"{judges.get('dropped_by_verification', 0)} judge(s) dropped by verification "
                   f"against the sessions")  # fmt: skip


@tasks.command("list")
@click.option("--json", "as_json", is_flag=True, help='One object: {"clusters": [...]}.')
@click.option("--all", "show_all", is_flag=True, help="Also list one-off (non-recurring) clusters.")
@click.pass_obj
def list_cmd(app: App, as_json: bool, show_all: bool) -> None:
    """Clusters of similar requests, most frequent pain first.

    Mines first when ingest has new input. --json always includes every cluster, each
    with id, skill, recurring, n_turns, n_sessions, n_days, failure_rate, members,
    sample_intents and tasks.

    \b
    Example:
      skillopt-sleep tasks list
      skillopt-sleep tasks list --json | jq '.clusters[] | select(.recurring) | .skill'
    """
    from skillopt_sleep.mining import load_clusters

    _fresh(app)
    clusters = load_clusters(app.db)
    if as_json:
        from skillopt_sleep.mining.printed import ClusterList

        echo_json(ClusterList(tuple(clusters)).to_json())
        return
    shown = [c for c in clusters if c.recurring or show_all]
    if not shown:
        n = len(clusters)
        click.echo(f"no recurring tasks yet ({n} one-off cluster(s); --all to list them)")
        return
    for c in shown:
        mark = "*" if c.recurring else " "
        splits = {s: sum(t.split == s for t in c.tasks) for s in ("train", "val", "test")}
        click.echo(
            f"{mark} {c.id}  {c.skill:<32} turns {c.n_turns:>4}  sessions "
            f"{c.n_sessions:>3}  days {c.n_days:>3}  fail {c.failure_rate:.0%}  "
            f"tasks {splits['train']}/{splits['val']}/{splits['test']}"
        )
        if c.sample_intents:
            click.echo(f"    e.g. {c.sample_intents[0][:90]}")
    hidden = len(clusters) - len(shown)
    if hidden:
        click.echo(f"({hidden} one-off cluster(s) hidden; --all to list them)")


@tasks.command("show")
@click.argument("ident")
@click.option("--json", "as_json", is_flag=True, help="Print the cluster or task as JSON.")
@click.pass_obj
def show_cmd(app: App, ident: str, as_json: bool) -> None:
    """Show one cluster (c-…) or one task (t-…) with its judges and their sources.

    \b
    Example:
      skillopt-sleep tasks show c-1a2b3c4d5e
      skillopt-sleep tasks show t-0f1e2d3c4b5a --json
    """
    from skillopt_sleep.mining import load_clusters
    from skillopt_sleep.mining.printed import ShownCluster, ShownTask
    from skillopt_sleep.mining.query import all_tasks

    _fresh(app)
    found = all_tasks(app.db).get(ident)
    if found is not None:
        task, reviewed = found
        if as_json:
            echo_json(ShownTask(task, reviewed).to_json())
            return
        click.echo(f"task {task.id}  split {task.split}  group {task.group}"
                   f"{'  (reviewed)' if reviewed else ''}")  # fmt: skip
        click.echo(
            f"cluster {task.meta.get('cluster_id', '?')}  turn {task.meta.get('turn_id', '?')}"
        )
        click.echo("prompt:\n  " + task.prompt.replace("\n", "\n  "))
        click.echo("judges:")
        for j in task.judges:
            value = j.value if j.kind != "rubric" else j.value.split("\n")[0][:80] + " …"
            scope = f" ({j.scope})" if j.scope != "answer" else ""
            click.echo(f"  {j.kind:<12} {value!s:<40}{scope} w={j.weight:g}  [{j.source}]")
        for d in task.meta.get("dropped_judges", []):
            scope = f" ({d['scope']})" if d.get("scope", "answer") != "answer" else ""
            click.echo(f"  dropped: {d['reason']}: {d['kind']} {d['value']}{scope}  "
                       f"[{d.get('source', '')}]")  # fmt: skip
        return
    cluster = next((c for c in load_clusters(app.db, include_inactive=True) if c.id == ident),
                   None)  # fmt: skip
    if cluster is None:
        raise UserError(f"no cluster or task {ident!r}; see `skillopt-sleep tasks list --all`")
    if as_json:
        echo_json(ShownCluster(cluster).to_json())
        return
    c = cluster
    click.echo(f"cluster {c.id}  skill {c.skill}{' (managed)' if c.managed_skill else ''}  "
               f"{'recurring' if c.recurring else 'one-off'}")  # fmt: skip
    click.echo(c.description)
    click.echo(f"turns {c.n_turns}  sessions {c.n_sessions}  days {c.n_days}  "
               f"failure rate {c.failure_rate:.0%}  last seen {c.last_seen}")  # fmt: skip
    for s in c.sample_intents:
        click.echo(f"  - {s[:100]}")
    for t in c.tasks:
        click.echo(f"  {t.id}  {t.split:<5}  {len(t.judges)} judges  {t.intent[:60]}")


@tasks.command("export")
@click.argument("file", type=click.Path(path_type=Path, dir_okay=False))
@click.option("--cluster", "cluster_id", help="Only the tasks of this cluster.")
@click.pass_obj
def export_cmd(app: App, file: Path, cluster_id: str | None) -> None:
    """Write the replay tasks to FILE (.yaml/.yml or .json) for review and editing.

    \b
    Example:
      skillopt-sleep tasks export tasks.yaml
      skillopt-sleep tasks export --cluster c-1a2b3c4d5e one.json
    """
    from skillopt_sleep.mining import load_tasks
    from skillopt_sleep.mining.taskfile import TaskFileError, export

    _fresh(app)
    try:
        n = export(load_tasks(app.db, cluster_id=cluster_id), file)
    except TaskFileError as exc:
        raise UserError(str(exc)) from exc
    except OSError as exc:
        raise UserError(f"cannot write {file}: {exc.strerror}") from exc
    click.echo(f"wrote {n} task(s) to {file}")


@tasks.command("import")
@click.argument("file", type=click.Path(path_type=Path, dir_okay=False))
@click.pass_obj
def import_cmd(app: App, file: Path) -> None:
    """Read FILE back as reviewed tasks; they win over re-mined ones.

    The whole file is checked first: a mistake is reported as FILE:LINE: reason and
    nothing is stored.

    \b
    Example:
      skillopt-sleep tasks import tasks.yaml
    """
    from skillopt_sleep.mining.taskfile import TaskFileError, import_file

    if not file.exists():
        raise UserError(f"{file} does not exist")
    try:
        n = import_file(app.db, file)
    except TaskFileError as exc:
        raise UserError(str(exc)) from exc
    click.echo(f"imported {n} reviewed task(s) from {file}")
