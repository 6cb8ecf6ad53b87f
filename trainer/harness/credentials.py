"""A harness's credentials, kept out of the sandbox: what the CLI sees, what the relay sends.

Inside the sandbox the CLI gets placeholders: `PLACEHOLDER_KEY` for an API key, and for a
subscription login a copy of the login file whose tokens are replaced by placeholders named
after where they sit (`skillopt-sandbox-login-claudeAiOauth-accessToken`) and whose expiry
is pushed far out, so the CLI never tries to refresh them itself. The relay puts the real
values back into request headers on their way to the endpoint (`Credentials.real`), reading
the user's login file afresh when it changed, so a token the user's own CLI refreshed
during the night is the one used. Nothing of the real file is ever written anywhere.
"""

from __future__ import annotations

import json
import os
import re
import threading
from pathlib import Path
from typing import Any

PREFIX = "skillopt-sandbox"
PLACEHOLDER_KEY = f"{PREFIX}-api-key"
FAR_EXPIRY_MS = 4_102_444_800_000  # 2100-01-01, in the milliseconds Claude's file uses
FAR_REFRESH = "2099-12-31T00:00:00Z"  # Codex's `last_refresh`
_SECRET_KEY = re.compile(r"token|key|secret|password", re.IGNORECASE)
_EXPIRY_KEY = re.compile(r"expire", re.IGNORECASE)
_JWT = re.compile(r"^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$")


class LoginError(ValueError):
    """The login file cannot be read as the CLI's JSON login."""


def _placeholders(value: Any, path: tuple[str, ...], real: dict[str, str]) -> Any:
    """`value` with every secret string replaced (recording placeholder -> real in `real`)."""
    if isinstance(value, dict):
        out = {}
        for k, v in value.items():
            key = str(k)
            if isinstance(v, str) and v and _SECRET_KEY.search(key):
                fake = "-".join((PREFIX, "login", *path, key))
                fake = re.sub(r"[^A-Za-z0-9_-]", "_", fake)
                if _JWT.match(v):  # keep the claims the CLI reads; the signature is the secret
                    head, payload, signature = v.split(".")
                    real[fake] = signature
                    out[key] = f"{head}.{payload}.{fake}"
                else:
                    real[fake] = v
                    out[key] = fake
            elif isinstance(v, int | float) and not isinstance(v, bool) and _EXPIRY_KEY.search(key):
                out[key] = FAR_EXPIRY_MS
            elif key == "last_refresh" and isinstance(v, str):
                out[key] = FAR_REFRESH
            else:
                out[key] = _placeholders(v, (*path, key), real)
        return out
    if isinstance(value, list):
        return [_placeholders(v, path, real) for v in value]
    return value


def _read_login(path: Path) -> tuple[str, dict[str, str]]:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError, UnicodeDecodeError) as exc:
        raise LoginError(f"cannot read the login file {path}: {exc}") from exc
    if not isinstance(data, dict):
        raise LoginError(f"the login file {path} is not a JSON object")
    real: dict[str, str] = {}
    inside = _placeholders(data, (), real)
    return json.dumps(inside, indent=2) + "\n", real


class Credentials:
    """One harness's API key and/or login file, and their placeholders."""

    def __init__(self, api_key: str | None, login_file: str | None) -> None:
        self.api_key = api_key
        self.login_file = Path(login_file).expanduser() if login_file else None
        self._lock = threading.Lock()
        self._seen: tuple[int, int] | None = None
        self._login_real: dict[str, str] = {}
        self._login_inside: str | None = None
        if self.login_file:
            self._refresh()

    @property
    def inside_key(self) -> str | None:
        """What the CLI inside gets for its API key (None: it has none)."""
        return PLACEHOLDER_KEY if self.api_key else None

    def inside_login(self) -> str | None:
        """The login file's text as the CLI inside sees it (placeholders for every token)."""
        return self._login_inside

    def real(self) -> dict[str, str]:
        """placeholder -> real value, with the login file read again if it changed."""
        out = {PLACEHOLDER_KEY: self.api_key} if self.api_key else {}
        if self.login_file:
            self._refresh()
            out.update(self._login_real)
        return out

    def _refresh(self) -> None:
        assert self.login_file is not None
        with self._lock:
            try:
                st = os.stat(self.login_file)
            except OSError as exc:
                raise LoginError(f"cannot read the login file {self.login_file}: {exc}") from exc
            seen = (st.st_mtime_ns, st.st_size)
            if seen != self._seen:
                self._login_inside, self._login_real = _read_login(self.login_file)
                self._seen = seen
