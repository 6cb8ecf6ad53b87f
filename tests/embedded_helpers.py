"""The embedded llama.cpp server with a Qwen model, for tests that need a real model.

Skips with the reason when the 'local' extra or the model is missing; CI installs both.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Iterator

import pytest

from trainer.backends.local import LocalServer


@contextlib.contextmanager
def embedded_server(model: str, *, n_ctx: int) -> Iterator[LocalServer]:
    """One slot (the harness tests want one prompt cache). The CLIs' first prompt is a
    4-6k-token prefill: on an idle machine (CI) both cores take it, on a busy one a single
    thread (llama.cpp's threads spin at barriers, several times slower next to a busy
    process)."""
    gguf = os.environ.get("SKILLOPT_TEST_GGUF")
    idle = (os.cpu_count() or 1) - os.getloadavg()[0]
    threads = 2 if idle >= 1.5 else 1
    try:
        server = LocalServer(model_path=gguf, n_ctx=n_ctx, parallel=1, threads=threads)
        server.start()
    except Exception as exc:  # noqa: BLE001 - any reason means: skip, with the reason shown
        pytest.skip(f"embedded model {model} unavailable: {exc}")
    try:
        yield server
    finally:
        server.stop()
