"""The environment file scheduled nights read: the endpoint variables of the user's shell.

systemd user units and cron start nights without the shell's environment, so a user who
exports ``OPENAI_API_KEY`` (as the README shows) would get nights that quietly fall back
to the embedded model. ``install`` writes the role variables into
``$XDG_CONFIG_HOME/skillopt-sleep/env`` (0600); the units read it with
``EnvironmentFile=-…`` and the cron line sources it. Lines are ``NAME='value'``, which
systemd and ``sh`` read the same way.
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from skillopt_sleep.settings import paths

ROLE_PREFIXES = ("OPENAI_", "OPTIMIZER_", "TARGET_", "JUDGE_")
_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")


class EnvFileError(Exception):
    """A value the file cannot hold, or a file that cannot be written; one line."""


def path() -> Path:
    return paths.config_file().parent / "env"


def wanted(environ: Mapping[str, str], config: Mapping[str, Any]) -> dict[str, str]:
    """The shell's variables a night needs: every ``OPENAI_*``, ``OPTIMIZER_*``,
    ``TARGET_*``, ``JUDGE_*`` and the key variables the config names (``api_key_env``)."""
    named = {
        str(section.get("api_key_env"))
        for section in config.get("models", {}).values()
        if isinstance(section, Mapping) and section.get("api_key_env")
    }
    return {
        name: value
        for name, value in sorted(environ.items())
        if value and (name.startswith(ROLE_PREFIXES) or name in named)
    }


def read(file: Path) -> dict[str, str]:
    """``NAME=value`` lines (``export``, quotes and comments allowed); {} when absent."""
    try:
        text = file.read_text()
    except FileNotFoundError:
        return {}
    out: dict[str, str] = {}
    for line in text.splitlines():
        line = line.strip()
        if not line or line.startswith("#") or "=" not in line:
            continue
        name, _, value = line.removeprefix("export ").partition("=")
        value = value.strip()
        if len(value) >= 2 and value[0] == value[-1] and value[0] in "'\"":
            value = value[1:-1]
        out[name.strip()] = value
    return out


def write(file: Path, values: Mapping[str, str]) -> list[str]:
    """Merge ``values`` into the file (0600, written atomically); return the names written.
    Values with a newline or a single quote are refused: no quoting both readers agree on."""
    merged = {**read(file), **values}
    for name, value in merged.items():
        if not _NAME.match(name):
            raise EnvFileError(f"{file}: {name!r} is not a variable name")
        if "\n" in value or "'" in value:
            raise EnvFileError(f"{name} holds a newline or a single quote; set it by hand")
    body = "".join(f"{name}='{value}'\n" for name, value in sorted(merged.items()))
    paths.ensure_private_dir(file.parent)
    tmp = file.with_name(f".{file.name}.tmp")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "w") as out:
        out.write("# Read by skillopt-sleep's systemd units and cron line (NAME='value').\n")
        out.write(body)
    os.replace(tmp, file)
    return sorted(values)


def missing(environ: Mapping[str, str], config: Mapping[str, Any], file: Path) -> list[str]:
    """Variables this shell sets for the night that the file lacks or holds differently:
    scheduled nights would not see them as the shell does."""
    have = read(file)
    return [name for name, value in wanted(environ, config).items() if have.get(name) != value]
