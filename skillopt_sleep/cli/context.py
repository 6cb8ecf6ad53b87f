"""Shared state for CLI commands: the effective config and the store, opened on first use."""

from __future__ import annotations

import errno
import importlib
import itertools
import json
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

from skillopt_sleep.cli.failures import CliError, as_failure
from skillopt_sleep.cli.failures import UserError as UserError  # commands import it from here
from skillopt_sleep.store import open_store

if TYPE_CHECKING:
    import sqlite_utils


class App:
    """What every command needs: config (file, env, flags) and the store, loaded lazily."""

    def __init__(self, config_path: Path | None = None, state_dir: Path | None = None) -> None:
        self.config_path = config_path
        self.state_dir_override = state_dir
        self.overrides: dict[str, Any] = {}
        self._config: dict[str, Any] | None = None
        self._db: sqlite_utils.Database | None = None

    def effective_overrides(self) -> dict[str, Any]:
        """Dotted-key overrides from global CLI flags (``--state-dir``) and commands."""
        overrides = dict(self.overrides)
        if self.state_dir_override is not None:
            overrides["state_dir"] = str(self.state_dir_override)
        return overrides

    @property
    def config(self) -> dict[str, Any]:
        if self._config is None:
            from skillopt_sleep import config as config_mod  # PyYAML: not for --help

            self._config = config_mod.load(self.config_path, overrides=self.effective_overrides())
        return self._config

    @property
    def state_dir(self) -> Path:
        from skillopt_sleep import config as config_mod

        return config_mod.state_dir(self.config)

    def known_state_dir(self) -> Path | None:
        """The state directory if it is known without reading the config (which may be
        what failed), else None: errors in it are told apart from errors elsewhere."""
        from skillopt_sleep import config as config_mod

        if self._config is None:
            return self.state_dir_override
        return config_mod.state_dir(self._config)

    @property
    def db(self) -> sqlite_utils.Database:
        if self._db is None:
            self._db = open_store(self.state_dir)
        return self._db

    def close(self) -> None:
        if self._db is not None:
            self._db.close()
            self._db = None


_JSON_ERRORS = "skillopt_sleep.json_errors"  # ctx.meta key: the command was given --json


def echo_json(obj: Any) -> None:
    click.echo(json.dumps(obj, indent=2, sort_keys=False, default=str))


class Group(click.Group):
    """A click group whose commands fail in one line (``failures.as_failure``), as JSON
    when ``--json`` is among the command's arguments.

    ``lazy`` maps a command name to ``"module:attribute"``; the module is imported only
    when that command is run or its help is shown, so ``--version`` and ``status`` do
    not load what ``run`` needs (scikit-learn, the model SDK, the scheduler)."""

    def __init__(self, *args: Any, lazy: Mapping[str, str] | None = None, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.lazy = dict(lazy or {})

    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted({*super().list_commands(ctx), *self.lazy})

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        if cmd_name in self.lazy and cmd_name not in self.commands:
            module, attr = self.lazy[cmd_name].split(":")
            self.add_command(getattr(importlib.import_module(module), attr), cmd_name)
        return super().get_command(ctx, cmd_name)

    def resolve_command(
        self, ctx: click.Context, args: list[str]
    ) -> tuple[str | None, click.Command | None, list[str]]:
        # Read from the arguments, not the parsed flag: a usage error (an unknown option,
        # a bad value) happens before the flag is parsed, and is JSON too.
        if "--json" in itertools.takewhile(lambda a: a != "--", args[1:]):
            ctx.meta[_JSON_ERRORS] = True
        return super().resolve_command(ctx, args)

    def invoke(self, ctx: click.Context) -> Any:
        try:
            return super().invoke(ctx)
        except (click.exceptions.Exit, click.Abort):
            raise
        except Exception as exc:
            if isinstance(exc, OSError) and exc.errno == errno.EPIPE:
                raise  # stdout closed by the reader (`| head`): click ends quietly
            app = ctx.find_object(App)
            failure = as_failure(exc, app.known_state_dir() if app else None)
            if ctx.meta.get(_JSON_ERRORS):
                failure = _as_json(failure)
            if failure is exc:
                raise
            raise failure from exc


def _as_json(failure: click.ClickException) -> CliError:
    if not isinstance(failure, CliError):  # click's own, such as a usage error
        code = "usage" if isinstance(failure, click.UsageError) else "error"
        failure = CliError(failure.format_message(), code)
    failure.as_json = True
    return failure
