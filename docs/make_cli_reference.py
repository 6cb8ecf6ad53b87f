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


def render() -> str:
    parts = [HEADER]
    for path, cmd in _walk(main, ["skillopt-sleep"]):
        with click.Context(cmd, info_name=" ".join(path), terminal_width=100) as ctx:
            text = cmd.get_help(ctx)
        level = "#" * min(len(path) + 1, 4)
        parts.append(f"\n{level} `{' '.join(path)}`\n\n```text\n{text}\n```\n")
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
