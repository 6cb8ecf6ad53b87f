"""The embedded default backend: llama.cpp's OpenAI-compatible server on 127.0.0.1.

``LocalServer`` runs ``trainer.backends.local_server`` in a child process (free port), sends
its native logs to a file, waits for ``/health``, and stops it by PID on exit (terminate,
then kill; also at interpreter exit). ``LocalServer.for_model(key)`` serves one of the
embedded models (``trainer.backends.models``): the public way for other code — e.g. an agent
CLI harness — to get a ``base_url`` that speaks ``/v1/chat/completions``, ``/v1/messages``
and ``/v1/responses`` offline.

``LocalModels`` starts one server per distinct model the roles name and builds the three
roles as ``OpenAIBackend``s pointing at them, so the local models go through exactly the
same client code as a remote provider.
"""

from __future__ import annotations

import atexit
import importlib.util
import json
import os
import socket
import subprocess
import sys
import tempfile
import threading
import time
import urllib.error
import urllib.request
from collections.abc import Callable, Mapping
from pathlib import Path
from types import TracebackType
from typing import Any

from trainer.backends.base import Roles
from trainer.backends.config import ROLE_NAMES, LocalConfig, RoleConfig
from trainer.backends.models import (
    INSTALL_HINT,
    LocalModelUnavailable,
    ModelSpec,
    ensure_gguf,
    model_spec,
)
from trainer.backends.openai_backend import OpenAIBackend
from trainer.backends.threads import ThreadChoice, choose_threads

__all__ = [
    "LocalModelUnavailable",
    "LocalModels",
    "LocalServer",
    "local_role_config",
    "local_roles",
    "role_backend",
]

Progress = Callable[[str], None]


def _free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class LocalServer:
    """Context manager for one llama.cpp server process. ``base_url`` is ready on entry.

    ``parallel`` slots decode at once (batched together); backends built on a server share a
    limiter of that size, so callers never queue inside llama.cpp. ``threads``: see
    ``trainer.backends.threads`` for why it is measured rather than taken from ``nproc``.
    ``max_tokens`` caps every request's output on the server's side, for clients that send
    no cap of their own (Codex 0.171 has none: a rambling answer ran to the context's end).
    """

    def __init__(
        self,
        model_path: str | Path,
        *,
        n_ctx: int = 8192,
        parallel: int = 2,
        threads: int = 1,
        max_tokens: int | None = None,
        log_path: str | Path | None = None,
        startup_timeout_s: float = 180.0,
        spec: ModelSpec | None = None,
    ) -> None:
        self.model_path = Path(model_path)
        self.spec = spec
        self.n_ctx = n_ctx
        self.parallel = parallel
        self.threads = threads
        self.max_tokens = max_tokens
        self.log_path = Path(log_path) if log_path else None
        self.startup_timeout_s = startup_timeout_s
        self.port: int | None = None
        self.proc: subprocess.Popen[bytes] | None = None
        self.start_seconds: float | None = None
        self.limiter = threading.BoundedSemaphore(parallel)
        self._own_log = False  # a temp log we created is removed after a clean stop

    @classmethod
    def for_model(
        cls, model: str | ModelSpec, *, progress: Progress | None = None, **kwargs: Any
    ) -> LocalServer:
        """A (not yet started) server for an embedded model, by key (``qwen2.5-coder-0.5b``)
        or spec; the GGUF is joined and verified first (``models.ensure_gguf``)."""
        spec = model_spec(model) if isinstance(model, str) else model
        return cls(ensure_gguf(spec, progress=progress), spec=spec, **kwargs)

    @property
    def base_url(self) -> str:
        if self.port is None:
            raise RuntimeError("the local server is not running")
        return f"http://127.0.0.1:{self.port}/v1"

    @property
    def pid(self) -> int | None:
        return self.proc.pid if self.proc else None

    def start(self) -> LocalServer:
        """Start the child and wait until ``/health`` says ok (or raise with the log tail)."""
        if importlib.util.find_spec("xllamacpp") is None:
            raise LocalModelUnavailable(f"xllamacpp is not installed; {INSTALL_HINT}")
        if not self.model_path.is_file():
            raise LocalModelUnavailable(f"{self.model_path} is missing; {INSTALL_HINT}")
        if self.log_path is None:
            fd, name = tempfile.mkstemp(prefix="skillopt-llama-", suffix=".log")
            os.close(fd)
            self.log_path = Path(name)
            self._own_log = True
        self.port = _free_port()
        cmd = [sys.executable, "-m", "trainer.backends.local_server", "--port", str(self.port)]
        cmd += ["--model", str(self.model_path), "--n-ctx", str(self.n_ctx)]
        cmd += ["--parallel", str(self.parallel), "--threads", str(self.threads)]
        if self.max_tokens is not None:
            cmd += ["--max-tokens", str(self.max_tokens)]
        cmd += ["--parent-pid", str(os.getpid())]
        # The child must import this package even when it is not installed (a checkout).
        env = dict(os.environ)
        root = str(Path(__file__).resolve().parents[2])
        env["PYTHONPATH"] = os.pathsep.join(p for p in (root, env.get("PYTHONPATH")) if p)
        # llama.cpp's CPU threads are OpenMP threads; spinning at barriers while another
        # process holds a core was measured 2.6x slower than one thread. Passive waiting
        # removes that cliff (docs/models.md).
        env.setdefault("OMP_WAIT_POLICY", "PASSIVE")
        t0 = time.monotonic()
        # private, like everything under the state directory (llama.cpp may log prompts)
        fd = os.open(self.log_path, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600)
        with os.fdopen(fd, "ab") as log:
            self.proc = subprocess.Popen(
                cmd, stdin=subprocess.DEVNULL, stdout=log, stderr=subprocess.STDOUT, env=env
            )
        atexit.register(self.stop)
        try:
            self._wait_healthy(t0)
        except BaseException:
            self._own_log = False  # keep the log: it says why the server failed
            self.stop()
            raise
        self.start_seconds = time.monotonic() - t0
        return self

    def _wait_healthy(self, t0: float) -> None:
        url = f"http://127.0.0.1:{self.port}/health"
        while time.monotonic() - t0 < self.startup_timeout_s:
            assert self.proc is not None
            if self.proc.poll() is not None:
                raise LocalModelUnavailable(
                    f"local model server exited with code {self.proc.returncode}: "
                    f"{self._log_tail()}"
                )
            try:
                with urllib.request.urlopen(url, timeout=2) as resp:
                    if json.load(resp).get("status") == "ok":
                        return
            except (OSError, ValueError):
                pass  # not listening yet, or 503 while the model loads
            time.sleep(0.05)
        raise LocalModelUnavailable(
            f"local model server not healthy after {self.startup_timeout_s:.0f}s: "
            f"{self._log_tail()}"
        )

    def _log_tail(self, n: int = 5) -> str:
        try:
            lines = Path(self.log_path or "").read_text(errors="replace").splitlines()
        except OSError:
            return "(no log)"
        return " | ".join(lines[-n:]) + f" (log: {self.log_path})"

    def stop(self, timeout_s: float = 5.0) -> None:
        """Terminate the child by PID, kill it if it does not exit in time. Idempotent."""
        proc, self.proc = self.proc, None
        atexit.unregister(self.stop)
        if proc is not None and proc.poll() is None:
            proc.terminate()
            try:
                proc.wait(timeout_s)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait(timeout_s)
        if self._own_log and self.log_path is not None:
            self.log_path.unlink(missing_ok=True)
            self._own_log = False

    def rss_mb(self) -> float | None:
        """Resident memory of the server process (Linux), for reports and tests."""
        if self.proc is None:
            return None
        try:
            for line in Path(f"/proc/{self.proc.pid}/status").read_text().splitlines():
                if line.startswith("VmRSS:"):
                    return int(line.split()[1]) / 1024
        except OSError:
            return None
        return None

    def __enter__(self) -> LocalServer:
        return self.start()

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.stop()


def local_role_config(server: LocalServer, **overrides: object) -> RoleConfig:
    """A RoleConfig for a local server: dummy key, zero prices, its slot count."""
    name = server.spec.label if server.spec else server.model_path.stem
    settings: dict[str, object] = {
        "model": name,
        "api_key_env": "SKILLOPT_LOCAL_API_KEY",
        "concurrency": server.parallel,
        "timeout_s": 900.0,  # a 1.5B proposal on one busy core takes minutes
        "max_retries": 1,  # the server is ours: a retry only helps after a dropped connection
        "max_tokens": 512,
    }
    settings.update(overrides)
    settings.update(base_url=server.base_url, price_in_per_mtok=0.0, price_out_per_mtok=0.0)
    return RoleConfig(**settings, api_key="local")  # type: ignore[arg-type]


def role_backend(server: LocalServer, role: str, overrides: Mapping[str, object]) -> OpenAIBackend:
    cfg = local_role_config(server, **overrides)
    key = server.spec.key if server.spec else server.model_path.name
    # Stable across runs (the port is not; threads do not change what is said), so cached
    # answers replay.
    identity = f"local:{key}:t={cfg.temperature:g}"
    backend = OpenAIBackend(cfg, limiter=server.limiter, identity=identity)
    backend.description = {
        "model": cfg.model,
        "backend": "local",
        "server": f"llama.cpp (xllamacpp) on 127.0.0.1, {server.threads} thread(s), "
        f"{server.parallel} slot(s)",
    }
    return backend


def local_roles(
    server: LocalServer, overrides: Mapping[str, Mapping[str, object]] | None = None
) -> Roles:
    """Optimizer, target and judge, all on one server and sharing its slot limit."""
    overrides = overrides or {}
    return Roles(**{r: role_backend(server, r, overrides.get(r) or {}) for r in ROLE_NAMES})


class LocalModels:
    """The embedded models serving the three roles: one server per distinct model.

    Entering starts the servers (threads measured once, see ``threads.choose_threads``);
    leaving stops them. ``roles()`` builds the roles; ``describe()`` says what serves each.
    """

    def __init__(
        self,
        config: LocalConfig,
        overrides: Mapping[str, Mapping[str, object]] | None = None,
        *,
        log_dir: str | Path | None = None,
        progress: Progress | None = None,
    ) -> None:
        self.config = config
        self.overrides = {r: dict((overrides or {}).get(r) or {}) for r in ROLE_NAMES}
        self.log_dir = Path(log_dir) if log_dir else None
        self.progress = progress
        self.servers: dict[str, LocalServer] = {}
        self.threads: ThreadChoice | None = None

    def _log_path(self, key: str) -> Path | None:
        if self.log_dir is None:
            return None
        self.log_dir.mkdir(parents=True, exist_ok=True)
        return self.log_dir / f"local-model-{key}.log"

    def start(self) -> LocalModels:
        cfg = self.config
        keys = list(dict.fromkeys(getattr(cfg, role) for role in ROLE_NAMES))
        paths = {k: ensure_gguf(model_spec(k), progress=self.progress) for k in keys}
        try:
            if cfg.threads is None:
                probe = cfg.target  # the model that makes almost every call
                self.threads = choose_threads(
                    lambda n: LocalServer(
                        paths[probe], spec=model_spec(probe), threads=n, parallel=1,
                        n_ctx=2048, log_path=self._log_path(f"{probe}-probe"),
                    ),
                    progress=self.progress,
                )  # fmt: skip
            else:
                self.threads = ThreadChoice(cfg.threads, {}, None, "configured")
            for k in keys:
                if self.progress:
                    self.progress(f"starting {model_spec(k).label} ({self.threads.threads} thr)")
                self.servers[k] = LocalServer(
                    paths[k],
                    spec=model_spec(k),
                    threads=self.threads.threads,
                    parallel=cfg.parallel,
                    n_ctx=cfg.n_ctx,
                    log_path=self._log_path(k),
                ).start()
        except BaseException:
            self.stop()
            raise
        return self

    def stop(self) -> None:
        for server in self.servers.values():
            server.stop()
        self.servers.clear()

    def server(self, role: str) -> LocalServer:
        return self.servers[getattr(self.config, role)]

    def roles(self) -> Roles:
        """Optimizer, target and judge; roles on one model share its server's slots."""
        backends = {r: role_backend(self.server(r), r, self.overrides[r]) for r in ROLE_NAMES}
        return Roles(**backends)

    def describe(self) -> dict[str, Any]:
        """Threads and their measurement, for reports and benchmarks."""
        choice = self.threads
        return {
            "threads": choice.to_dict() if choice else None,
            "servers": {
                k: {"start_seconds": s.start_seconds, "rss_mb": s.rss_mb()}
                for k, s in self.servers.items()
            },
        }

    def __enter__(self) -> LocalModels:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()
