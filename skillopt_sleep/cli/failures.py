"""Every failure a command can meet, as one line and a stable code (``docs/cli.md`` lists
them): the one place that knows the error types of the layers below the CLI.

Classes are matched without importing their modules: an exception of a class can only
exist once its module was imported, so an error costs no import and a light command
(``status``) stays light.
"""

from __future__ import annotations

import errno
import json
import os
import sqlite3
import sys
import traceback
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import click

from skillopt_sleep.errors import ConfigError
from skillopt_sleep.store import StoreError, failure_code
from trainer.shapes import ERROR, stamp, unstamped

# Every code a failure can carry -> (exit status, when). Stable: scripts match on them.
# docs/cli.md lists them from here (docs/make_cli_reference.py).
CODES: dict[str, tuple[int, str]] = {
    "usage": (2, "the command line is wrong: an unknown command or option, a bad value"),
    "invalid_input": (2, "a name, id, file or hook input that cannot be used"),
    "config_invalid": (
        2,
        "a key or value of the config file, a `SKILLOPT_SLEEP_*` variable or a flag is wrong",
    ),
    "model_unavailable": (
        2,
        "the models cannot serve as configured: no API key, the embedded model or an agent "
        "CLI not installed",
    ),
    "sandbox_unavailable": (
        2,
        "replay in an agent CLI needs bubblewrap, which is missing or refused namespaces "
        "(or a Codex ChatGPT login, which cannot run confined); `harness.sandbox: false` opts out",
    ),
    "locked": (3, "another night or the daemon holds the state directory"),
    "state_unwritable": (
        1,
        "the state directory or a file in it cannot be used: another user's, on a read-only "
        "file system, a file where a directory belongs (or the reverse)",
    ),
    "file_error": (1, "another file or directory cannot be read or written"),
    "disk_full": (1, "no space left on the device, or over quota"),
    "database_corrupt": (1, "the store is not a database or is damaged (see below)"),
    "database_busy": (1, "another process kept the store locked past the 30 s busy timeout"),
    "database_incompatible": (
        1,
        "the store's schema, or a night, ledger or promotion record in it, is not one this "
        "version can use (a newer release wrote it)",
    ),
    "database_error": (1, "any other SQLite failure"),
    "skill_unwritable": (1, "a skill directory cannot be written (nothing is half-written)"),
    "rollout_failed": (1, "`tasks replay`: the endpoint or the agent CLI failed"),
    "internal_error": (1, "a bug: please report the message"),
    "error": (1, "any other failure"),
}


@dataclass(frozen=True)
class PrintedError:
    """What a command given ``--json`` prints when it fails: the one-line message and its
    code (``CODES``), a versioned shape read back through ``from_json``."""

    error: str
    code: str

    def to_json(self) -> dict[str, Any]:
        return stamp(ERROR, {"error": self.error, "code": self.code})

    @classmethod
    def from_json(cls, stored: Any) -> PrintedError:
        """A printed failure of any version (``ShapeError`` for a newer release's)."""
        data = unstamped(ERROR, stored)
        return cls(data["error"], data["code"])


class CliError(click.ClickException):
    """A failure shown as one line: ``Error: …`` on stderr, or with ``--json``
    ``{"version": …, "error": …, "code": …}`` on stdout; the exit status is the code's
    (``CODES``)."""

    code = "error"

    def __init__(self, message: str, code: str | None = None) -> None:
        super().__init__(" ".join(message.splitlines()))
        self.code = code or self.code
        # click declares exit_code a ClassVar, but its handler reads it from the instance:
        # that is how each code gets its own exit status
        self.exit_code = CODES[self.code][0]  # type: ignore[misc]
        self.as_json = False

    def show(self, file: Any = None) -> None:
        if self.as_json:
            click.echo(json.dumps(PrintedError(self.format_message(), self.code).to_json()))
        else:
            super().show(file)


class UserError(CliError):
    """A mistake the user can fix (a name, an id, an input): one line, exit 2."""

    code = "invalid_input"


# Error classes of the layers below, by (module, class name) -> code. A class is looked
# up only when its module is loaded; a subclass comes before its base.
_KNOWN: list[tuple[str, str, str]] = [
    ("skillopt_sleep.running.lock", "LockedError", "locked"),
    ("trainer.backends.base", "ModelConfigError", "model_unavailable"),
    ("trainer.backends.models", "LocalModelUnavailable", "model_unavailable"),
    ("trainer.harness.cli", "CliNotFound", "model_unavailable"),
    ("trainer.harness.sandbox", "SandboxUnavailable", "sandbox_unavailable"),
    ("trainer.shapes", "ShapeError", "database_incompatible"),
]
_FULL = {errno.ENOSPC, errno.EDQUOT}
_LONG_PATH = 160  # characters of a path shown in a message (a hook can name a 5,000-char one)


def as_failure(exc: Exception, state_dir: Path | None) -> click.ClickException:
    """``exc`` as the ClickException the user sees. ``state_dir`` (None until the config
    was read) tells a state directory that cannot be used from any other file."""
    if isinstance(exc, click.ClickException):
        return exc
    if isinstance(exc, ConfigError):
        return CliError(str(exc), "config_invalid")
    if isinstance(exc, StoreError):
        return CliError(str(exc), exc.code)
    if isinstance(exc, sqlite3.DatabaseError):
        return CliError(f"the store cannot be used: {exc}", failure_code(exc))
    if isinstance(exc, OSError):
        return _os_failure(exc, state_dir)
    for module, name, code in _KNOWN:
        cls = getattr(sys.modules.get(module), name, None)
        if cls is not None and isinstance(exc, cls):
            return CliError(str(exc), code)
    return _internal(exc)


def _short(thing: object) -> str:
    text = str(thing)
    if len(text) <= _LONG_PATH:
        return text
    return f"{text[:100]}…{text[-50:]} ({len(text)} characters)"


def _os_failure(exc: OSError, state_dir: Path | None) -> CliError:
    reason = exc.strerror or str(exc)
    if exc.filename is None:
        return CliError(reason, "disk_full" if exc.errno in _FULL else "file_error")
    path = Path(str(exc.filename))
    if exc.errno == errno.ENOTDIR:  # name the file that stands where a directory should be
        files = (p for p in reversed(path.parents) if os.path.lexists(p) and not os.path.isdir(p))
        path = next(files, path)
        reason = "a file where a directory should be" if path != Path(exc.filename) else reason
    if state_dir is not None and path.is_relative_to(state_dir) and exc.errno not in _FULL:
        inside = path.relative_to(state_dir)
        where = f"{_short(inside)}: " if inside.parts else ""
        return CliError(
            f"the state directory {_short(state_dir)} cannot be used: {where}{reason}",
            "state_unwritable",
        )
    where = f"{_short(path)} -> {_short(exc.filename2)}" if exc.filename2 else _short(path)
    if exc.errno in _FULL:
        return CliError(f"cannot write {where}: {reason}", "disk_full")
    return CliError(f"cannot use {where}: {reason}", "file_error")


def _internal(exc: Exception) -> CliError:
    """A failure no layer names: a bug. One line still, with where it happened, so a
    report of it is useful."""
    frames = traceback.extract_tb(exc.__traceback__)
    where = f" ({Path(frames[-1].filename).name}:{frames[-1].lineno})" if frames else ""
    text = _short(exc)  # the message of an unknown error can be of any length
    return CliError(
        f"internal error, please report it: {type(exc).__name__}: {text}{where}",
        "internal_error",
    )
