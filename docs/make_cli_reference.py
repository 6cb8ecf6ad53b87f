"""Write docs/cli.md from the CLI's own --help texts, so the reference never drifts.

    python docs/make_cli_reference.py          # rewrite docs/cli.md
    python docs/make_cli_reference.py --check  # exit 1 if docs/cli.md is out of date

tests/test_docs.py runs the check.
"""

from __future__ import annotations

import sys
from pathlib import Path

import click

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from skillopt_sleep.cli import main  # noqa: E402
from skillopt_sleep.cli.failures import CODES  # noqa: E402

OUT = Path(__file__).with_name("cli.md")
HEADER = (
    "# CLI reference\n\n"
    "Generated from `--help` by `docs/make_cli_reference.py`; do not edit by hand.\n"
)


def _walk(cmd: click.Command, path: list[str]) -> list[tuple[list[str], click.Command]]:
    out = [(path, cmd)]
    if isinstance(cmd, click.Group):
        for name in sorted(cmd.list_commands(click.Context(cmd))):
            sub = cmd.get_command(click.Context(cmd), name)
            if sub is not None and not sub.hidden:
                out += _walk(sub, [*path, name])
    return out


ERRORS = """
## Errors

A command that fails says so in one line on stderr, `Error: <what and why>`, and exits
non-zero: 2 when the command line, the config or the model settings must change, 1 when
something on the machine must (a file, the store), 3 when another night or the daemon holds
the state directory. With `--json` among a command's arguments the failure is one JSON
object on stdout instead, with the same exit status: the `error` shape, whose `"version"`
comes first (docs/operations.md). Match on `code`, which is stable; the message is for
people and may change.

```text
$ skillopt-sleep run --once --json; echo "exit $?"
{"version": 1, "error": "the state directory /home/me/.local/state/skillopt-sleep cannot be \
used: nights: a file where a directory should be", "code": "state_unwritable"}
exit 1
```

| code | exit | when |
|---|---|---|
{rows}

### A damaged store

`skillopt-sleep doctor` runs SQLite's `PRAGMA integrity_check` on the store (not the faster
`quick_check`, which does not compare indexes with their tables: one flipped bit in an
index page passes it, and queries through that index can then miss rows or return wrong
ones). When it reports the store as damaged, or a command fails with `database_corrupt`:

1. Stop the daemon (`systemctl --user stop skillopt-sleep.service`) so nothing writes.
2. Copy the state directory somewhere safe.
3. Save what SQLite can still read into a new file, and put it in place:
   `sqlite3 skillopt-sleep.db .dump > saved.sql && sqlite3 new.db < saved.sql`, then
   replace `skillopt-sleep.db` by `new.db` (and delete `skillopt-sleep.db-wal` and `-shm`);
   `skillopt-sleep doctor` should now say `integrity ok`. If `.dump` stops early, the
   shell's `.recover` command may save more.
4. If nothing can be saved, move the database away: the next `skillopt-sleep ingest`
   rebuilds the sessions from the logs still on disk and mining re-mines the tasks; the
   nights' history, reviewed tasks and promotion history (what `rollback` restores) are
   lost. Skill directories are not touched.
"""


def render_errors() -> str:
    rows = "\n".join(f"| `{code}` | {exit_} | {when} |" for code, (exit_, when) in CODES.items())
    return ERRORS.replace("{rows}", rows)


def render() -> str:
    parts = [HEADER]
    for path, cmd in _walk(main, ["skillopt-sleep"]):
        with click.Context(cmd, info_name=" ".join(path), terminal_width=100) as ctx:
            text = cmd.get_help(ctx)
        level = "#" * min(len(path) + 1, 4)
        parts.append(f"\n{level} `{' '.join(path)}`\n\n```text\n{text}\n```\n")
    parts.append(render_errors())
    return "".join(parts)


def main_(argv: list[str]) -> int:
    text = render()
    if "--check" in argv:
        if not OUT.exists() or OUT.read_text() != text:
            print(f"{OUT} is out of date: run python {Path(__file__).name}", file=sys.stderr)
            return 1
        return 0
    OUT.write_text(text)
    return 0


if __name__ == "__main__":
    raise SystemExit(main_(sys.argv[1:]))
