"""Build the run's Roles from the ``models:`` config section and the environment.

A context manager, because the ``local`` backend owns server processes that must be stopped
when the run ends, however it ends.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import replace
from pathlib import Path
from typing import Any

from trainer.backends.base import ChatBackend, Roles
from trainer.backends.config import (
    ROLE_NAMES,
    local_from_config,
    resolve_backend,
    roles_from_config,
)
from trainer.backends.openai_backend import OpenAIBackend

# Settings of a role that still apply when it runs on the local model; the endpoint, model,
# prices, concurrency, timeout and retries are the local server's own (a remote API's 60 s
# timeout and 5 retries would abandon and repeat a long proposal on a busy CPU).
_LOCAL_KEEPS = ("temperature", "max_tokens")


@contextmanager
def build_roles(
    models_cfg: Mapping[str, Any] | None,
    environ: Mapping[str, str] = os.environ,
    *,
    local_log_dir: str | Path | None = None,
    sim_world: Any | None = None,
    progress: Callable[[str], None] | None = None,
) -> Iterator[Roles]:
    """Yield Roles for ``models.backend``: openai, local (servers started here, stopped on
    exit; ``models.local`` picks the model per role), or sim (SIMULATION, for tests and
    benchmarks: ``sim_world.roles()``, e.g. a ``trainer.sim.SimWorld``; the world is passed
    in because it also owns the tasks). ``progress`` hears about slow local start-up work
    (first-use model join, thread measurement)."""
    kind = resolve_backend(models_cfg, environ)
    if kind == "openai":
        cfgs = roles_from_config(models_cfg, environ)
        yield Roles(**{role: OpenAIBackend(cfgs[role]) for role in ROLE_NAMES})
    elif kind == "local":
        from trainer.backends.local import LocalModels

        local = local_from_config(models_cfg)
        overrides = local_overrides(models_cfg)
        with LocalModels(local, overrides, log_dir=local_log_dir, progress=progress) as models:
            yield models.roles()
    else:  # sim: the world owns the tasks too, so the caller builds it and passes it in
        if sim_world is None:
            raise ValueError(
                "models.backend 'sim' needs the simulated world: "
                "build_roles(..., sim_world=trainer.sim.SimWorld...)"
            )
        yield sim_world.roles()


def check_roles(models_cfg: Mapping[str, Any] | None, environ: Mapping[str, str]) -> None:
    """Raise ModelConfigError for what `build_roles` would refuse, without starting or
    calling anything: a night says so before it spends its ingest and mining."""
    if resolve_backend(models_cfg, environ) == "openai":
        from trainer.backends.openai_backend import api_key

        for cfg in roles_from_config(models_cfg, environ).values():
            api_key(cfg)


@contextmanager
def build_judge(
    models_cfg: Mapping[str, Any] | None,
    environ: Mapping[str, str] = os.environ,
    *,
    local_log_dir: str | Path | None = None,
    **settings: Any,
) -> Iterator[ChatBackend]:
    """The judge role alone (for work outside a night: compiling corrections, checking an
    answer), with ``settings`` (temperature, max_tokens) over the configured ones. On the
    local backend it gets a server of its own with one slot; the simulated backend has no
    judge to lend (ValueError)."""
    kind = resolve_backend(models_cfg, environ)
    if kind == "openai":
        cfg = replace(roles_from_config(models_cfg, environ)["judge"], **settings)
        yield OpenAIBackend(cfg)
    elif kind == "local":
        from trainer.backends.local import LocalServer, role_backend
        from trainer.backends.threads import idle_cores

        local = local_from_config(models_cfg)
        threads = local.threads or (2 if idle_cores() >= 1.5 else 1)
        log = (
            Path(local_log_dir) / f"local-model-{local.judge}-judge.log" if local_log_dir else None
        )
        with LocalServer.for_model(
            local.judge, threads=threads, parallel=1, n_ctx=4096, log_path=log
        ) as server:
            yield role_backend(
                server, "judge", {**local_overrides(models_cfg)["judge"], **settings}
            )
    else:
        raise ValueError("models.backend 'sim' has no judge model outside a simulated night")


def describe_config(
    models_cfg: Mapping[str, Any] | None, environ: Mapping[str, str] = os.environ
) -> dict[str, dict[str, Any]]:
    """What would serve each role, read from the config alone (nothing is started): for a
    report of a night that never built its roles. ``base.describe_roles`` says it for
    roles that were built."""
    kind = resolve_backend(models_cfg, environ)
    if kind == "sim":
        return {r: {"model": "simulated", "backend": "sim"} for r in ROLE_NAMES}
    if kind == "openai":
        cfgs = roles_from_config(models_cfg, environ)
        return {r: OpenAIBackend.describe(cfgs[r]) for r in ROLE_NAMES}
    from trainer.backends.models import model_spec

    local = local_from_config(models_cfg)
    return {
        r: {"model": model_spec(getattr(local, r)).label, "backend": "local"} for r in ROLE_NAMES
    }


def local_overrides(models_cfg: Mapping[str, Any] | None) -> dict[str, dict[str, Any]]:
    """Per role, the configured settings that still apply on the embedded models
    (temperature, max_tokens): a benchmark that starts `LocalModels` itself passes these to
    run the roles as a night does."""
    out = {}
    for role in ROLE_NAMES:
        raw = dict((models_cfg or {}).get(role) or {})
        out[role] = {k: raw[k] for k in _LOCAL_KEEPS if k in raw}
    return out
