"""Health checks behind ``skillopt-sleep doctor``: each says what is wrong in plain words."""

from __future__ import annotations

import importlib.util
import os
import sqlite3
import stat
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from skillopt_sleep.running.lock import LOCK_NAME
from skillopt_sleep.settings import config as config_mod
from skillopt_sleep.settings import paths
from skillopt_sleep.store import DB_NAME, StoreError, db_path, integrity_problems, open_store
from trainer.shapes import DOCTOR, stamp, unstamped

OK, WARN, FAIL = "ok", "warn", "fail"


@dataclass(frozen=True)
class Check:
    status: str  # ok | warn | fail
    what: str
    detail: str

    def to_dict(self) -> dict[str, str]:
        return {"status": self.status, "what": self.what, "detail": self.detail}

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Check:
        return cls(data["status"], data["what"], data["detail"])


@dataclass(frozen=True)
class Checks:
    """What ``doctor`` found, in the order it checked (``--json`` prints ``to_json``)."""

    checks: tuple[Check, ...]

    def to_json(self) -> dict[str, Any]:
        return stamp(DOCTOR, {"checks": [c.to_dict() for c in self.checks]})

    @classmethod
    def from_json(cls, stored: Any) -> Checks:
        """A printed doctor's report of any version (``ShapeError`` for a newer one)."""
        return cls(tuple(Check.from_dict(c) for c in unstamped(DOCTOR, stored)["checks"]))


def _private(path: Path) -> bool:
    return stat.S_IMODE(path.stat().st_mode) & 0o077 == 0 if path.exists() else True


def check_config(
    config_path: Path | None, overrides: dict[str, Any] | None = None
) -> tuple[list[Check], dict[str, Any] | None]:
    path = config_path or paths.config_file()
    try:
        cfg = config_mod.load(config_path, overrides=overrides)
    except config_mod.ConfigError as exc:
        return [Check(FAIL, "config", str(exc))], None
    if path.exists():
        return [Check(OK, "config", f"{path} is valid")], cfg
    return [
        Check(
            WARN, "config", f"no config file at {path}; using defaults (run `skillopt-sleep init`)"
        )
    ], cfg


# Entries of the state directory a command opens by name: the wrong kind there (a
# directory where the lock file goes) fails every night.
_STATE_ENTRIES = {DB_NAME: "file", LOCK_NAME: "file", "nights": "directory"}


def _state_dir_problem(state: Path) -> Check | None:
    """Why the state directory cannot be used (another user's, read-only, not a
    directory, an entry of the wrong kind), or None."""
    if not state.exists():
        return None  # the store check creates it, or says why it cannot
    if not state.is_dir():
        return Check(FAIL, "state directory", f"{state} is not a directory")
    owner, me = state.stat().st_uid, os.geteuid()
    if not os.access(state, os.R_OK | os.W_OK | os.X_OK):
        if os.statvfs(state).f_flag & os.ST_RDONLY:
            detail = f"{state} is on a read-only file system: set state_dir to a writable one"
        elif owner != me:
            detail = (
                f"{state} belongs to uid {owner}, not you (uid {me}): chown it to yourself, "
                "or set state_dir to a directory of yours"
            )
        else:
            detail = f"{state} is not writable by you: run chmod 700 {state}"
        return Check(FAIL, "state directory", detail)
    for name, kind in _STATE_ENTRIES.items():
        entry = state / name
        if entry.exists() and entry.is_dir() != (kind == "directory"):
            detail = f"{entry} must be a {kind}: move it out of the way"
            return Check(FAIL, "state directory", detail)
    if owner != me:
        detail = f"{state} belongs to uid {owner}, not you (uid {me}): what you write stays yours"
        return Check(WARN, "state directory", detail)
    return None


def check_state(cfg: dict[str, Any]) -> list[Check]:
    state = config_mod.state_dir(cfg)
    try:
        problem = _state_dir_problem(state)
    except OSError as exc:  # cannot even look inside: a parent is not searchable
        problem = Check(FAIL, "state directory", f"{state}: {exc.strerror}")
    if problem is not None and problem.status == FAIL:
        return [problem]
    db_file = db_path(state)
    checks: list[Check] = [problem] if problem else []
    if not _private(state):
        checks.append(
            Check(FAIL, "permissions", f"{state} is open to others; run: chmod 700 {state}")
        )
    if not _private(db_file):
        checks.append(
            Check(FAIL, "permissions", f"{db_file} is open to others; run: chmod 600 {db_file}")
        )
    if not any(c.what == "permissions" for c in checks):
        checks.append(Check(OK, "permissions", f"{state} and its database are private to you"))
    return [_check_store(state), *checks]


def _check_store(state: Path) -> Check:
    """Open (create, migrate) the store and run SQLite's integrity check on it."""
    db_file = db_path(state)
    try:
        db = open_store(state)
        try:
            versions = {r["component"]: r["version"] for r in db["schema_version"].rows}
            problems = integrity_problems(db.conn)
        finally:
            db.close()
    except StoreError as exc:
        return Check(FAIL, "store", str(exc))
    except sqlite3.DatabaseError as exc:
        problems = [str(exc)]
    except OSError as exc:
        return Check(FAIL, "store", f"cannot create the state directory {state}: {exc.strerror}")
    if problems:
        shown = "; ".join(problems[:2]) + ("; …" if len(problems) > 2 else "")
        detail = f"{db_file} is damaged ({shown}): see `A damaged store` in docs/cli.md"
        return Check(FAIL, "store", detail)
    return Check(OK, "store", f"{db_file} opens, integrity ok (schema {versions})")


def _count_logs(root: Path, limit: int = 100_000) -> int:
    count = 0
    for _dirpath, _dirs, files in os.walk(root):
        count += sum(1 for f in files if f.endswith(".jsonl"))
        if count >= limit:
            break
    return count


def check_sources(cfg: dict[str, Any]) -> list[Check]:
    checks: list[Check] = []
    found_any = False
    sources = [
        ("claude", config_mod.claude_roots(cfg), ["projects"]),
        ("codex", config_mod.codex_roots(cfg), ["sessions", "archived_sessions"]),
    ]
    for name, roots, subdirs in sources:
        if not cfg["sources"][name]["enabled"]:
            checks.append(Check(OK, f"source {name}", "disabled in config"))
            continue
        for root in roots:
            dirs = [root / sub for sub in subdirs if (root / sub).is_dir()]
            if not dirs:
                checks.append(
                    Check(WARN, f"source {name}", f"{root}: no {' or '.join(subdirs)}/ folder")
                )
                continue
            unreadable = [d for d in dirs if not os.access(d, os.R_OK | os.X_OK)]
            if unreadable:
                checks.append(Check(FAIL, f"source {name}", f"cannot read {unreadable[0]}"))
                continue
            n = sum(_count_logs(d) for d in dirs)
            found_any = found_any or n > 0
            checks.append(Check(OK, f"source {name}", f"{root}: {n} session files"))
    if not found_any:
        checks.append(Check(WARN, "sources", "no session logs found; nothing to learn from yet"))
    return checks


def check_model(cfg: dict[str, Any]) -> list[Check]:
    """Which model serves each role, and whether it can (no model is started here)."""
    from trainer.backends.config import (
        ROLE_NAMES,
        local_from_config,
        resolve_backend,
        roles_from_config,
    )

    try:
        kind = resolve_backend(cfg["models"], os.environ)
    except ValueError as exc:
        return [Check(FAIL, "models", str(exc))]
    if kind == "sim":
        return [Check(WARN, "models", "backend sim: the simulated world, for tests only")]
    if kind == "openai":
        from skillopt_sleep.health.endpoints import url_of

        roles = roles_from_config(cfg["models"], os.environ)
        return [Check(OK, f"model {r}", f"{rc.model} at {url_of(rc)}") for r, rc in roles.items()]
    from trainer.backends import models

    local = local_from_config(cfg["models"])
    hint = "pip install 'skillopt-sleep[local]'"
    if importlib.util.find_spec("xllamacpp") is None:
        return [
            Check(
                WARN,
                "local model",
                f"xllamacpp is not installed; without an endpoint configured nights cannot "
                f"run ({hint})",
            )
        ]
    checks = []
    for role in ROLE_NAMES:
        spec = models.model_spec(getattr(local, role))
        where = f"{spec.label}, embedded (llama.cpp on 127.0.0.1)"
        if models.joined(spec) is not None:
            checks.append(Check(OK, f"model {role}", f"{where}; verified in {models.cache_dir()}"))
        elif models.installed(spec):
            detail = f"{where}; joined into {models.cache_dir()} on first use"
            checks.append(Check(OK, f"model {role}", f"{detail} ({spec.size / 1e9:.1f} GB)"))
        else:
            detail = f"{spec.label} is not installed ({spec.dist_prefix}1..{spec.parts}): {hint}"
            checks.append(Check(WARN, f"model {role}", detail))
    return checks


def check_endpoints(cfg: dict[str, Any], environ: Mapping[str, str] = os.environ) -> list[Check]:
    """One real call per configured endpoint: a wrong URL, key or model shows here, not
    after a night of failed calls."""
    from skillopt_sleep.health.endpoints import probe_roles

    try:
        probes = probe_roles(cfg["models"], environ)
    except ValueError as exc:
        return [Check(FAIL, "models", str(exc))]
    return [
        Check(OK if p.ok else FAIL, f"model {p.role}", f"{p.model} at {p.url}: {p.detail}")
        for p in probes
    ]


def check_cost(cfg: dict[str, Any], environ: Mapping[str, str] = os.environ) -> list[Check]:
    """A cost budget over a model with no known price would not bound it: say so."""
    from skillopt_sleep.health.endpoints import cost_warning

    try:
        line = cost_warning(cfg, environ)
    except ValueError:  # a bad models section: check_model and check_harness say it
        return []
    return [Check(WARN, "cost budget", line)] if line else []


def check_harness(cfg: dict[str, Any]) -> list[Check]:
    from skillopt_sleep.replay.doctor import check_clis

    try:
        return [Check(*c) for c in check_clis(cfg)]
    except ValueError as exc:  # a models.<role>.backend the harness does not know
        return [Check(FAIL, "harness", str(exc))]


def check_scheduled_env(
    cfg: dict[str, Any], environ: Mapping[str, str] = os.environ
) -> list[Check]:
    """Scheduled nights (systemd, cron) read the environment file, not this shell: a key
    set only here would leave them on the embedded model."""
    from skillopt_sleep.settings import envfile

    file = envfile.path()
    if file.exists() and not _private(file):
        return [Check(FAIL, "environment file", f"{file} is open to others; run: chmod 600 {file}")]
    absent = envfile.missing(environ, cfg, file)
    if absent:
        return [
            Check(
                WARN,
                "environment file",
                f"{', '.join(absent)} set in this shell but not in {file}: scheduled nights "
                "will not see them (skillopt-sleep install systemd --env-file writes it)",
            )
        ]
    if envfile.wanted(environ, cfg):
        return [Check(OK, "environment file", f"{file} holds this shell's endpoint variables")]
    return []


def run_checks(config_path: Path | None, overrides: dict[str, Any] | None = None) -> list[Check]:
    checks, cfg = check_config(config_path, overrides)
    if cfg is None:
        return checks
    return [
        *checks,
        *check_state(cfg),
        *check_sources(cfg),
        *check_model(cfg),
        *check_endpoints(cfg),
        *check_cost(cfg),
        *check_scheduled_env(cfg),
        *check_harness(cfg),
    ]


def harness_rollout_check(cfg: dict[str, Any]) -> list[Check]:
    """One real rollout of the target harness, when the target runs in an agent CLI."""
    from skillopt_sleep.replay.doctor import doctor_rollout
    from skillopt_sleep.replay.settings import cli_backend
    from trainer.backends.base import InfraError

    kind = cli_backend(cfg, "target")
    if kind is None:
        return []
    try:
        out = doctor_rollout(cfg)
    except (InfraError, OSError) as exc:
        return [Check(FAIL, f"harness rollout ({kind})", str(exc))]
    detail = (
        f"skill injected, {out['seconds']:.0f}s, {out['tokens']['input']} prompt tokens "
        f"({out['tokens']['cached_input']} cached), {out['tokens']['output']} output; "
        f"answer {out['answer'][:60]!r}"
    )
    return [Check(OK, f"harness rollout ({kind} {out['cli_version']})", detail)]
