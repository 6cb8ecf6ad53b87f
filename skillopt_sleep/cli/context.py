"""Shared state for CLI commands: the effective config and the store, opened on first use."""

from __future__ import annotations

import contextlib
import importlib
import json
import sqlite3
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

from skillopt_sleep.errors import ConfigError
from skillopt_sleep.store import StoreError, open_store

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

    @property
    def db(self) -> sqlite_utils.Database:
        if self._db is None:
            self._db = open_store(self.state_dir)
        return self._db

    def close(self) -> None:
        if self._db is not None:
            self._db.close()
            self._db = None


def echo_json(obj: Any) -> None:
    click.echo(json.dumps(obj, indent=2, sort_keys=False, default=str))


class UserError(click.ClickException):
    """A mistake the user can fix: one line, exit 2."""

    exit_code = 2


class StoreFailure(click.ClickException):
    """The store cannot be opened or written: one line, exit 1."""

    exit_code = 1


@contextlib.contextmanager
def translate_errors() -> Iterator[None]:
    """Turn known failures into click exceptions: one line on stderr and a non-zero exit."""
    try:
        yield
    except ConfigError as exc:
        raise UserError(str(exc)) from exc
    except StoreError as exc:
        raise StoreFailure(str(exc)) from exc
    except sqlite3.DatabaseError as exc:
        raise StoreFailure(f"the store cannot be used: {exc}") from exc


class Group(click.Group):
    """A click group whose commands report configuration and store errors as one line.

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

    def invoke(self, ctx: click.Context) -> Any:
        with translate_errors():
            return super().invoke(ctx)
