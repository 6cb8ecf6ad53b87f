"""The embedded llama.cpp server with a Qwen model, for tests that need a real model.

The model comes from the packaged embedded models (`LocalServer.for_model`), or from a
GGUF file named by `SKILLOPT_TEST_GGUF`. Without either the test skips with the reason;
once the embedded models are packaged, a model that cannot be had under
`SKILLOPT_REQUIRE_HARNESS=1` (CI) fails instead.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Iterator

import pytest

from trainer.backends.local import LocalServer
from trainer.backends.threads import idle_cores


def threads_now() -> int:
    """Threads for a test server: both cores when both are idle now, else one (a single
    thread never falls off the cliff next to a busy process: trainer.backends.threads)."""
    return 2 if idle_cores() >= 1.5 else 1


@contextlib.contextmanager
def embedded_server(model: str, *, n_ctx: int, max_tokens: int) -> Iterator[LocalServer]:
    """One slot (the harness tests want one prompt cache). The CLIs' first prompt is a
    4-6k-token prefill: on an idle machine (CI) both cores take it, on a busy one a single
    thread (llama.cpp's threads spin at barriers, several times slower next to a busy
    process). Idle cores are measured now: the load average still counts the tests before
    (after the demo it says 2 on an idle machine, and one thread took 690 s here)."""
    opts = {"n_ctx": n_ctx, "parallel": 1, "threads": threads_now(), "max_tokens": max_tokens}
    gguf = os.environ.get("SKILLOPT_TEST_GGUF")
    if gguf:
        server = LocalServer(model_path=gguf, **opts)
    elif hasattr(LocalServer, "for_model"):
        server = LocalServer.for_model(model, **opts)
    else:
        pytest.skip(f"the embedded model {model} is not packaged here; set SKILLOPT_TEST_GGUF")
    try:
        server.start()
    except Exception as exc:  # noqa: BLE001 - any reason: shown in the skip or failure
        reason = f"embedded model {model} unavailable: {exc}"
        if os.environ.get("SKILLOPT_REQUIRE_HARNESS") == "1":
            pytest.fail(reason)
        pytest.skip(reason)
    try:
        yield server
    finally:
        server.stop()
