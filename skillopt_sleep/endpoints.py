"""The model endpoints as a user sees them: where each role goes, one real call to check it,
and a failure said in one line (role, model, URL, the provider's own error).

An endpoint failure is wrapped twice on its way up (``InfraError`` from the backend around
the SDK's error around the HTTP library's), and the outer messages say only "Connection
error."; :func:`describe` digs out the part that tells the user what to fix.
"""

from __future__ import annotations

import re
import time
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, replace
from typing import Any
from urllib.parse import urlsplit, urlunsplit

DEFAULT_URL = "https://api.openai.com/v1"
PROBE_TIMEOUT_S = 15.0  # doctor waits at most this long per endpoint
_STATUS_PREFIX = re.compile(r"^Error code: \d+ - ")
_ERRNO = re.compile(r"^\[Errno -?\d+\] ")


@dataclass(frozen=True)
class Probe:
    role: str
    model: str
    url: str
    ok: bool
    detail: str  # "answered in 0.4 s", or the error in words


def url_of(role_config: Any) -> str:
    """The role's endpoint as it may be shown: a password in the URL is not."""
    url = getattr(role_config, "base_url", None) or DEFAULT_URL
    parts = urlsplit(url)
    if parts.username is None and parts.password is None:
        return url
    host = parts.hostname or ""
    netloc = f"***@{host}" + (f":{parts.port}" if parts.port else "")
    return urlunsplit(parts._replace(netloc=netloc))


def _chain(exc: BaseException) -> Iterator[BaseException]:
    seen: set[int] = set()
    current: BaseException | None = exc
    while current is not None and id(current) not in seen:
        seen.add(id(current))
        yield current
        current = current.__cause__ or current.__context__


def describe(exc: BaseException, role_config: Any = None) -> str:
    """The actual error, in one line: ``HTTP 401: Incorrect API key provided (…)``,
    ``connection failed: Connection refused``, ``no answer within 60 s``."""
    import openai

    chain = list(_chain(exc))
    key_env = getattr(role_config, "api_key_env", None)
    for err in chain:
        if isinstance(err, openai.APIStatusError):
            message = _STATUS_PREFIX.sub("", str(err.message)).strip()
            hint = ""
            if err.status_code in (401, 403):
                hint = f" (the key in {key_env} was refused)" if key_env else " (key refused)"
            elif err.status_code == 404:
                hint = " (check the model name and base_url)"
            return f"HTTP {err.status_code}: {message}{hint}"
        if isinstance(err, openai.APITimeoutError):
            seconds = getattr(role_config, "timeout_s", None)
            return f"no answer within {seconds:g} s" if seconds else "no answer (timed out)"
        if isinstance(err, openai.APIConnectionError):
            root = str(chain[-1]).strip() or type(chain[-1]).__name__
            return f"connection failed: {_ERRNO.sub('', root)}"
    return " ".join(str(exc).split()) or type(exc).__name__


def failure_line(role: str, role_config: Any, exc: BaseException) -> str:
    """``target model gpt-4o-mini at https://…/v1: HTTP 401: …`` — what the night prints
    and the report keeps, so it goes through the same redaction as session text."""
    from session_ingest.redact import redact

    model = getattr(role_config, "model", "?")
    return redact(f"{role} model {model} at {url_of(role_config)}: {describe(exc, role_config)}")


def probe_roles(models_cfg: Mapping[str, Any], environ: Mapping[str, str]) -> list[Probe]:
    """One real, tiny call per configured endpoint (roles sharing model, URL and key share
    the call). Empty when the roles are not on the ``openai`` backend (local, sim)."""
    from trainer.backends.base import InfraError
    from trainer.backends.config import resolve_backend, roles_from_config
    from trainer.backends.openai_backend import OpenAIBackend

    if resolve_backend(models_cfg, environ) != "openai":
        return []
    probes: list[Probe] = []
    done: dict[tuple[str, str, str | None], Probe] = {}
    for role, rc in roles_from_config(models_cfg, environ).items():
        url = url_of(rc)
        same = done.get((rc.model, url, rc.api_key))
        if same is not None:
            probes.append(replace(same, role=role, detail=f"{same.detail} (as {same.role})"))
            continue
        quick = replace(rc, max_retries=0, timeout_s=min(rc.timeout_s, PROBE_TIMEOUT_S))
        start = time.monotonic()
        try:
            OpenAIBackend(quick).complete([{"role": "user", "content": "Say OK."}], max_tokens=8)
            seconds = time.monotonic() - start
            probe = Probe(role, rc.model, url, True, f"answered in {seconds:.1f} s")
        except (InfraError, ValueError) as exc:
            probe = Probe(role, rc.model, url, False, describe(exc, quick))
        done[(rc.model, url, rc.api_key)] = probe
        probes.append(probe)
    return probes


def unpriced(config: Mapping[str, Any], environ: Mapping[str, str]) -> list[str]:
    """Each role whose tokens have no known price tonight, as ``target gpt-5`` (or
    ``target its default model in claude-code``): the one answer `doctor`, the night and
    the report give. Its calls count as $0, so a cost budget does not bound them."""
    from skillopt_sleep.replay.settings import SECTION, cli_backend, cli_price, endpoint_mode
    from trainer.backends.config import ROLE_NAMES, resolve_backend, roles_from_config

    models = config["models"]
    chat = (
        roles_from_config(models, environ) if resolve_backend(models, environ) == "openai" else {}
    )
    out = []
    for role in ROLE_NAMES:
        kind = cli_backend(config, role)
        if kind is not None:
            mode = endpoint_mode(config, kind, environ)
            if cli_price(config, kind, role, mode) is None:
                model = config["harness"][SECTION[kind]]["model"] or "its default model"
                out.append(f"{role} {model} in {kind}")
            if role != "target":
                continue  # the target's tasks without a workspace still run as a chat
        if role in chat and chat[role].price is None:
            out.append(f"{role} {chat[role].model}")
    return out


def cost_warning(config: Mapping[str, Any], environ: Mapping[str, str]) -> str | None:
    """One line when a cost budget is set and some role has no known price, else None."""
    limit = (config.get("budget") or {}).get("max_cost_usd")
    missing = unpriced(config, environ) if limit is not None else []
    if not missing:
        return None
    return (
        f"budget.max_cost_usd is ${limit:g}, but no price is known for {', '.join(missing)}: "
        "those calls count as $0 (set models.<role>.price_in_per_mtok and price_out_per_mtok)"
    )
