"""Per-role endpoint settings, from the ``models:`` config section and the environment.

The optimizer, the target and the judge may live at different providers, so every role has
its own endpoint. Keys never live in the config file: it names the environment variable
that holds the key, and the process environment supplies the value.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass, field, fields, replace
from typing import Any

from trainer.backends.base import ModelConfigError
from trainer.backends.prices import Price, role_price

ROLE_NAMES: tuple[str, ...] = ("optimizer", "target", "judge")
BACKEND_KINDS: tuple[str, ...] = ("auto", "openai", "local", "sim")
MODELS_KEYS = {"backend", "local", *ROLE_NAMES}


@dataclass(frozen=True)
class RoleConfig:
    """One role's endpoint. ``api_key_env`` is the NAME of the variable holding the key."""

    model: str = "gpt-4o-mini"
    base_url: str | None = None  # None = the SDK default (api.openai.com)
    api_key_env: str = "OPENAI_API_KEY"
    temperature: float = 0.0
    max_tokens: int = 1024
    concurrency: int = 4
    # USD per million input / output tokens; None = from trainer.backends.prices by model
    price_in_per_mtok: float | None = None
    price_out_per_mtok: float | None = None
    timeout_s: float = 60.0
    max_retries: int = 5
    # Resolved key value; never read from a file, never printed (repr=False).
    api_key: str | None = field(default=None, repr=False, compare=False)

    def __post_init__(self) -> None:
        if self.concurrency < 1:
            raise ModelConfigError(f"concurrency must be >= 1, got {self.concurrency}")
        if self.max_retries < 0:
            raise ModelConfigError(f"max_retries must be >= 0, got {self.max_retries}")
        if self.timeout_s <= 0:
            raise ModelConfigError(f"timeout_s must be > 0, got {self.timeout_s}")
        if not self.model:
            raise ModelConfigError("model must not be empty")

    @property
    def price(self) -> Price | None:
        """What this role's tokens cost; None when neither the config nor the price table
        knows (the calls then count as $0 and the cost is reported unknown)."""
        return role_price(
            self.model, self.base_url, self.price_in_per_mtok, self.price_out_per_mtok
        )

    def to_dict(self) -> dict[str, Any]:
        """The settings without the key: safe to write into run outputs and logs."""
        return {name: getattr(self, name) for name in sorted(_CONFIG_FIELDS)}


_CONFIG_FIELDS = {f.name for f in fields(RoleConfig)} - {"api_key"}


def role_from_dict(cfg: Mapping[str, Any] | None) -> RoleConfig:
    """A RoleConfig from one role's mapping; unknown keys are an error, never ignored."""
    cfg = dict(cfg or {})
    # `backend` says where the role runs (a chat backend or an agent harness); the
    # settings here are its chat endpoint either way (a task without a workspace is a chat).
    cfg.pop("backend", None)
    unknown = set(cfg) - _CONFIG_FIELDS
    if "api_key" in unknown:
        raise ModelConfigError("put the key in an environment variable and name it in api_key_env")
    if unknown:
        raise ModelConfigError(f"unknown model setting(s): {', '.join(sorted(unknown))}")
    return RoleConfig(**cfg)


def _env(environ: Mapping[str, str], name: str) -> str | None:
    value = environ.get(name, "").strip()
    return value or None


def roles_from_config(
    models_cfg: Mapping[str, Any] | None, environ: Mapping[str, str] = os.environ
) -> dict[str, RoleConfig]:
    """RoleConfig per role from the ``models:`` section, with environment overrides.

    Per role R in OPTIMIZER / TARGET / JUDGE: ``R_BASE_URL``, ``R_API_KEY`` and ``R_MODEL``
    win; otherwise ``OPENAI_BASE_URL`` fills a base_url the config leaves empty, and the key
    comes from the variable named by ``api_key_env`` (default ``OPENAI_API_KEY``).
    """
    models_cfg = models_cfg or {}
    unknown = set(models_cfg) - MODELS_KEYS
    if unknown:
        raise ModelConfigError(f"unknown models setting(s): {', '.join(sorted(unknown))}")
    out: dict[str, RoleConfig] = {}
    for role in ROLE_NAMES:
        rc = role_from_dict(models_cfg.get(role))
        prefix = role.upper()
        base_url = _env(environ, f"{prefix}_BASE_URL") or rc.base_url
        base_url = base_url or _env(environ, "OPENAI_BASE_URL")
        model = _env(environ, f"{prefix}_MODEL") or rc.model
        # A role that names its own key variable never falls back to OPENAI_API_KEY: that
        # would send one provider's key to another provider.
        key = _env(environ, f"{prefix}_API_KEY") or _env(environ, rc.api_key_env)
        out[role] = replace(rc, base_url=base_url, model=model, api_key=key)
    return out


def resolve_backend(models_cfg: Mapping[str, Any] | None, environ: Mapping[str, str]) -> str:
    """``openai``, ``local`` or ``sim``. ``auto`` = openai when any role has an endpoint or a
    key configured (config or environment), else the embedded local model."""
    kind = str((models_cfg or {}).get("backend", "auto")).strip().lower()
    if kind not in BACKEND_KINDS:
        raise ModelConfigError(
            f"models.backend must be one of {', '.join(BACKEND_KINDS)}: {kind!r}"
        )
    roles = roles_from_config(models_cfg, environ)  # validates the section, whatever the kind
    local_from_config(models_cfg)
    if kind != "auto":
        return kind
    if any(rc.base_url or rc.api_key for rc in roles.values()):
        return "openai"
    return "local"


@dataclass(frozen=True)
class LocalConfig:
    """``models.local``: which embedded model serves each role, and how the servers run.

    Defaults (measured, docs/models.md): the 1.5B proposes edits (the 0.5B cannot answer the
    optimizer's JSON reliably); the 0.5B answers the tasks, 2.5x as many calls per minute.
    """

    optimizer: str = "qwen2.5-coder-1.5b"
    target: str = "qwen2.5-coder-0.5b"
    judge: str = "qwen2.5-coder-1.5b"
    threads: int | None = None  # None = measured when the servers start
    parallel: int = 2  # slots per server, decoded together
    n_ctx: int = 8192  # context shared by the slots; its bound is the config's `valid:` line

    def __post_init__(self) -> None:
        from trainer.backends.models import MODELS

        for role in ROLE_NAMES:
            key = getattr(self, role)
            if key not in MODELS:
                known = ", ".join(MODELS)
                raise ModelConfigError(
                    f"models.local.{role}: unknown model {key!r}; known: {known}"
                )
        if self.threads is not None and not _whole(self.threads, 1):
            raise ModelConfigError(
                f"models.local.threads must be null or >= 1, got {self.threads!r}"
            )
        if not _whole(self.parallel, 1):
            raise ModelConfigError(f"models.local.parallel must be >= 1, got {self.parallel!r}")


def _whole(value: object, minimum: int) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and value >= minimum


_LOCAL_FIELDS = {f.name for f in fields(LocalConfig)}


def local_from_config(models_cfg: Mapping[str, Any] | None) -> LocalConfig:
    """The ``models.local`` section; unknown keys and unknown models are errors."""
    section = dict((models_cfg or {}).get("local") or {})
    unknown = set(section) - _LOCAL_FIELDS
    if unknown:
        raise ModelConfigError(f"unknown models.local setting(s): {', '.join(sorted(unknown))}")
    return LocalConfig(**section)
