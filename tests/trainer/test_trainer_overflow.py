"""A skill too long for the target's context has failed the task; it is not an outage.

The target is the real OpenAIBackend against an endpoint on 127.0.0.1 (the remote provider
is the only edge faked) that answers like the simulated target and refuses, as llama.cpp
does, a request longer than its context.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from dataclasses import replace
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest

from trainer import TrainSettings, optimize
from trainer.backends.base import Completion, Roles
from trainer.backends.config import RoleConfig
from trainer.backends.openai_backend import OpenAIBackend
from trainer.rollout import ROLLOUT_SYSTEM
from trainer.sim import SimWorld
from trainer.sim.agents import SimTarget

WORLD = SimWorld.generate(4, n_rules=4, n_harmful=2, n_train=8, n_val=12, n_test=6)
CONTEXT_CHARS = len(ROLLOUT_SYSTEM + WORLD.start_skill.render()) + 300
LONG_LINE = "- Write the summary of every change in full sentences, " + "carefully " * 40


def _handler(sim: SimTarget) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        def log_message(self, *args: Any) -> None:
            pass

        def do_POST(self) -> None:  # noqa: N802 - http.server's naming
            body = json.loads(self.rfile.read(int(self.headers["content-length"])))
            prompt = "".join(m["content"] for m in body["messages"])
            if len(prompt) > CONTEXT_CHARS:
                status, payload = (
                    400,
                    {
                        "error": {
                            "code": 400,
                            "message": f"request ({len(prompt) // 4} tokens) exceeds the "
                            f"available context size ({CONTEXT_CHARS // 4} tokens)",
                            "type": "exceed_context_size_error",
                        }
                    },
                )
            else:
                text = sim.complete(body["messages"]).text
                status, payload = (
                    200,
                    {
                        "id": "c",
                        "object": "chat.completion",
                        "created": 0,
                        "model": "m",
                        "choices": [
                            {
                                "index": 0,
                                "finish_reason": "stop",
                                "message": {"role": "assistant", "content": text},
                            }
                        ],
                        "usage": {"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2},
                    },
                )
            data = json.dumps(payload).encode()
            self.send_response(status)
            self.send_header("content-type", "application/json")
            self.send_header("content-length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

    return Handler


@pytest.fixture
def endpoint() -> Iterator[str]:
    server = ThreadingHTTPServer(("127.0.0.1", 0), _handler(SimTarget(WORLD)))
    server.daemon_threads = True
    thread = threading.Thread(target=server.serve_forever, args=(0.02,), daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}/v1"
    server.shutdown()
    server.server_close()


class Proposes:
    """An optimizer that always proposes the same long line."""

    simulation, concurrency, identity = False, 1, "proposes-long-line"

    def complete(self, messages, *, json_schema=None, max_tokens=None) -> Completion:
        return Completion(json.dumps({"edits": [{"kind": "add", "text": LONG_LINE}]}))


def test_a_candidate_that_overflows_the_context_fails_its_tasks(endpoint: str) -> None:
    target = OpenAIBackend(
        RoleConfig(model="m", base_url=endpoint, api_key="sk-test", max_retries=0)
    )
    roles = Roles(Proposes(), target, WORLD.roles().judge)
    settings = replace(TrainSettings(epochs=1, steps_per_epoch=1, seed=3), screen=False)
    r = optimize(WORLD.start_skill, WORLD.tasks, roles, settings=settings)
    assert r.usage.infra_errors == 0  # the endpoint answered every call
    assert r.counters["context_overflows"] > 0 and r.accepted == 0
    (rejected,) = r.rejected
    ev = rejected.gate
    assert rejected.reason.startswith("gate: reject")
    assert ev["effect"] < -0.1 and ev["pairs"] == ev["n_tasks"] * ev["sweeps"]  # none dropped
