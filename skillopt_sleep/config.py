"""Configuration: packaged defaults, then the user's YAML file, then environment, then CLI flags.

Every key must exist in the defaults (``configs/default.yaml``), so a typo is reported
instead of being silently ignored; every value must pass its key's ``# valid:`` line there
(``skillopt_sleep.constraints``), so a bad value stops the command at load with one line,
not a night later with a traceback.
"""

from __future__ import annotations

import copy
import difflib
import functools
import os
from collections.abc import Callable, Mapping
from importlib import resources
from pathlib import Path
from typing import Any

import yaml

from skillopt_sleep import constraints, paths
from skillopt_sleep.errors import ConfigError

ENV_PREFIX = "SKILLOPT_SLEEP_"


def default_text() -> str:
    return resources.files("skillopt_sleep").joinpath("data/default.yaml").read_text()


# libyaml's loader when PyYAML has it: parsing the defaults is ten times faster (~3 ms
# against ~30 ms), which is most of what a light command (`status`) spends on its config.
_Loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


def _load_yaml(text: str) -> Any:
    return yaml.load(text, Loader=_Loader)


def defaults() -> dict[str, Any]:
    return _load_yaml(default_text())


@functools.cache
def default_rules() -> dict[str, constraints.Rule]:
    """``{dotted key: Rule}`` from the defaults file's ``# valid:`` lines."""
    return constraints.rules_from_text(default_text())


def _type_ok(default: Any, value: Any) -> bool:
    if isinstance(default, bool):
        return isinstance(value, bool)
    if isinstance(default, float):
        return constraints.is_number(value)
    if isinstance(default, int):
        return isinstance(value, int) and not isinstance(value, bool)
    return isinstance(value, type(default))


def _key_error(dotted: str, origin: Callable[[str], str] | None, problem: str) -> ConfigError:
    where = f" (from {origin(dotted)})" if origin else ""
    return ConfigError(f"config key '{dotted}'{where} {problem}")


def validate(
    override: Mapping[str, Any],
    schema: Mapping[str, Any],
    where: str = "",
    *,
    origin: Callable[[str], str] | None = None,
) -> None:
    """Refuse keys the defaults do not have, and values their ``valid:`` line (else the
    default's type) does not accept. ``origin(dotted)`` names where a value came from."""
    rules = default_rules()
    for key, value in override.items():
        dotted = f"{where}{key}"
        if key not in schema:
            close = difflib.get_close_matches(str(key), [str(k) for k in schema], n=1)
            hint = f" (did you mean '{where}{close[0]}'?)" if close else ""
            raise ConfigError(f"unknown config key '{dotted}'{hint}")
        default = schema[key]
        rule = rules.get(dotted)
        if isinstance(default, dict) and default:
            if not isinstance(value, Mapping):
                raise _key_error(dotted, origin, "must be a mapping")
            validate(value, default, f"{dotted}.", origin=origin)
        elif rule is not None:
            if problem := rule.problem(value):
                raise _key_error(dotted, origin, problem)
        elif not _type_ok(default, value):
            want = type(default).__name__
            raise _key_error(dotted, origin, f"must be a {want}, got {value!r}")


def merge(base: dict[str, Any], override: Mapping[str, Any]) -> dict[str, Any]:
    """Deep-merge ``override`` into a copy of ``base``."""
    out = copy.deepcopy(base)
    for key, value in override.items():
        if isinstance(out.get(key), dict) and isinstance(value, Mapping):
            out[key] = merge(out[key], value)
        else:
            out[key] = copy.deepcopy(value)
    return out


def env_name(dotted: str) -> str:
    """``daemon.schedule`` -> ``SKILLOPT_SLEEP_DAEMON__SCHEDULE``."""
    return ENV_PREFIX + dotted.upper().replace(".", "__")


def _env_value(name: str, raw: str, dotted: str, schema: Mapping[str, Any]) -> Any:
    """A variable's text as the key's value: as it is where the key takes only strings
    (``*/5 * * * *`` is a schedule, not a YAML alias; ``07:00`` a time, not 420), else
    read as YAML (numbers, booleans, null, lists)."""
    node: Any = schema
    for key in dotted.split("."):
        node = node.get(key) if isinstance(node, Mapping) else None
    rule = default_rules().get(dotted)
    if rule is not None and rule.string_only:
        return None if rule.nullable and raw.strip() in ("", "null", "~") else raw
    if rule is None and isinstance(node, str):
        return raw
    try:
        return _load_yaml(raw)
    except yaml.YAMLError:
        if node is None and rule is None:
            return raw  # an unknown key: validate() names it and suggests the right one
        raise ConfigError(f"{name}={raw!r} cannot be read as a value for '{dotted}'") from None


def _env_overrides(environ: Mapping[str, str], schema: Mapping[str, Any]) -> dict[str, Any]:
    """SKILLOPT_SLEEP_MINING__MIN_DAYS=3 -> {"mining": {"min_days": 3}}."""
    tree: dict[str, Any] = {}
    for name, raw in environ.items():
        if not name.startswith(ENV_PREFIX) or "__" not in name:
            continue
        keys = name[len(ENV_PREFIX) :].lower().split("__")
        node = tree
        for key in keys[:-1]:
            node = node.setdefault(key, {})
        node[keys[-1]] = _env_value(name, raw, ".".join(keys), schema)
    return tree


def set_dotted(tree: dict[str, Any], dotted: str, value: Any) -> None:
    keys = dotted.split(".")
    node = tree
    for key in keys[:-1]:
        node = node.setdefault(key, {})
    node[keys[-1]] = value


def load(
    path: Path | None = None,
    *,
    overrides: Mapping[str, Any] | None = None,
    environ: Mapping[str, str] | None = None,
) -> dict[str, Any]:
    """Load the effective configuration.

    ``path`` given explicitly must exist; the default user file is optional.
    ``overrides`` maps dotted keys (``"mining.min_days"``) to values, as CLI flags do.
    """
    schema = defaults()
    config = schema
    explicit = path is not None
    path = path or paths.config_file()
    if path.exists():
        try:
            user = _load_yaml(path.read_text()) or {}
        except yaml.YAMLError as exc:
            mark = getattr(exc, "problem_mark", None)
            line = f" line {mark.line + 1}" if mark else ""
            raise ConfigError(f"config file {path}{line} is not valid YAML") from exc
        except OSError as exc:
            raise ConfigError(f"cannot read config file {path}: {exc.strerror}") from exc
        if not isinstance(user, Mapping):
            raise ConfigError(f"config file {path} must hold a mapping of keys")
        validate(user, schema, origin=lambda _dotted: str(path))
        config = merge(config, user)
    elif explicit:
        raise ConfigError(f"config file {path} does not exist")
    env_tree = _env_overrides(os.environ if environ is None else environ, schema)
    validate(env_tree, schema, origin=env_name)
    config = merge(config, env_tree)
    if overrides:
        tree: dict[str, Any] = {}
        for dotted, value in overrides.items():
            set_dotted(tree, dotted, value)
        validate(tree, schema)
        config = merge(config, tree)
    return config


def state_dir(config: Mapping[str, Any]) -> Path:
    configured = config.get("state_dir")
    return Path(configured).expanduser() if configured else paths.default_state_dir()


def claude_roots(config: Mapping[str, Any]) -> list[Path]:
    roots = config["sources"]["claude"]["roots"]
    return [Path(r).expanduser() for r in roots] if roots else paths.claude_roots()


def codex_roots(config: Mapping[str, Any]) -> list[Path]:
    roots = config["sources"]["codex"]["roots"]
    return [Path(r).expanduser() for r in roots] if roots else paths.codex_roots()
