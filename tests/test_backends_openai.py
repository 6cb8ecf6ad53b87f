"""OpenAIBackend against a real HTTP server on 127.0.0.1 speaking the chat-completions wire
format: the remote provider is the only edge we fake."""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest

from trainer.backends.base import ContextOverflow, InfraError, seeded_sample
from trainer.backends.config import RoleConfig
from trainer.backends.openai_backend import OpenAIBackend, split_schema, strict_schema

SCHEMA = {
    "type": "object",
    "properties": {"verdict": {"type": "string"}, "score": {"type": "number"}},
    "required": ["verdict"],
}


@dataclass
class Reply:
    status: int = 200
    content: str | None = "ok"
    usage: dict[str, int] | None = field(
        default_factory=lambda: {"prompt_tokens": 10, "completion_tokens": 5}
    )
    headers: dict[str, str] = field(default_factory=dict)
    delay: float = 0.0
    error: str = ""
    meet: int = 0  # hold the reply until this many requests were in flight at once


class FakeProvider:
    """Scripted replies (the last one repeats); records every request body and headers."""

    def __init__(self) -> None:
        self.script: list[Reply] = [Reply()]
        self.requests: list[dict[str, Any]] = []
        self.headers: list[dict[str, str]] = []
        self.in_flight = 0
        self.max_in_flight = 0
        self.reject_response_format = False
        self._lock = threading.Lock()
        self._met = threading.Condition(self._lock)

    def next_reply(self, body: dict[str, Any], headers: dict[str, str]) -> Reply:
        with self._lock:
            self.requests.append(body)
            self.headers.append(headers)
            if self.reject_response_format and "response_format" in body:
                return Reply(status=400, error="Unsupported parameter: 'response_format'")
            return self.script.pop(0) if len(self.script) > 1 else self.script[0]


def _handler(provider: FakeProvider) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        def log_message(self, *args: Any) -> None:  # keep test output quiet
            pass

        def do_POST(self) -> None:  # noqa: N802 - http.server's naming
            body = json.loads(self.rfile.read(int(self.headers["content-length"])))
            reply = provider.next_reply(body, {k.lower(): v for k, v in self.headers.items()})
            with provider._met:
                provider.in_flight += 1
                provider.max_in_flight = max(provider.max_in_flight, provider.in_flight)
                provider._met.notify_all()
                provider._met.wait_for(lambda: provider.max_in_flight >= reply.meet, timeout=10)
            try:
                time.sleep(reply.delay)
                if reply.status == 200:
                    payload: dict[str, Any] = {
                        "id": "chatcmpl-1",
                        "object": "chat.completion",
                        "created": 0,
                        "model": body.get("model", "m"),
                        "choices": [
                            {
                                "index": 0,
                                "finish_reason": "stop",
                                "message": {"role": "assistant", "content": reply.content},
                            }
                        ],
                    }
                    if reply.usage is not None:
                        payload["usage"] = {
                            **reply.usage,
                            "total_tokens": sum(reply.usage.values()),
                        }
                else:
                    msg = reply.error or f"status {reply.status}"
                    payload = {"error": {"message": msg, "type": "x", "code": None}}
                data = json.dumps(payload).encode()
                self.send_response(reply.status)
                self.send_header("content-type", "application/json")
                self.send_header("content-length", str(len(data)))
                for k, v in reply.headers.items():
                    self.send_header(k, v)
                self.end_headers()
                self.wfile.write(data)
            except (BrokenPipeError, ConnectionResetError):
                pass  # the client timed out and left
            finally:
                with provider._lock:
                    provider.in_flight -= 1

    return Handler


@pytest.fixture
def provider() -> Iterator[tuple[FakeProvider, str]]:
    fake = FakeProvider()
    server = ThreadingHTTPServer(("127.0.0.1", 0), _handler(fake))
    server.daemon_threads = True
    thread = threading.Thread(target=server.serve_forever, args=(0.02,), daemon=True)
    thread.start()
    yield fake, f"http://127.0.0.1:{server.server_address[1]}/v1"
    server.shutdown()
    server.server_close()


def backend(base_url: str, **kw: Any) -> OpenAIBackend:
    settings: dict[str, Any] = {"model": "m1", "base_url": base_url, "timeout_s": 5.0}
    settings.update(kw)
    return OpenAIBackend(RoleConfig(**settings, api_key="sk-test"))


FAST = {"retry-after-ms": "1"}  # the SDK honours it: keeps retry tests fast
USER = [{"role": "user", "content": "hi"}]


def test_success_usage_and_cost(provider: tuple[FakeProvider, str]) -> None:
    fake, url = provider
    fake.script = [Reply(content="hello", usage={"prompt_tokens": 1000, "completion_tokens": 500})]
    b = backend(url, price_in_per_mtok=2.0, price_out_per_mtok=10.0, temperature=0.3)
    c = b.complete(USER, max_tokens=7)
    assert (c.text, c.input_tokens, c.output_tokens) == ("hello", 1000, 500)
    assert c.cost_usd == pytest.approx(0.002 + 0.005)
    body = fake.requests[0]
    assert body["model"] == "m1" and body["max_tokens"] == 7 and body["temperature"] == 0.3
    assert "response_format" not in body
    assert fake.headers[0]["authorization"] == "Bearer sk-test"
    assert b.usage["calls"] == 1 and b.usage["cost_usd"] == pytest.approx(0.007)
    assert "m1" in b.identity and url in b.identity and "t=0.3" in b.identity


def test_a_sampled_answer_carries_the_trainers_paired_seed(
    provider: tuple[FakeProvider, str],
) -> None:
    """The seed of the task and sample reaches a sampling endpoint; a greedy one (temperature
    0) and a call outside any sample get none."""
    fake, url = provider
    with seeded_sample(1234):
        backend(url, temperature=0.7).complete(USER)
        backend(url, temperature=0.0).complete(USER)
    backend(url, temperature=0.7).complete(USER)
    assert [body.get("seed") for body in fake.requests] == [1234, None, None]


def test_missing_usage_and_null_content(provider: tuple[FakeProvider, str]) -> None:
    fake, url = provider
    fake.script = [Reply(content=None, usage=None)]
    c = backend(url, price_in_per_mtok=5.0).complete(USER)
    assert (c.text, c.input_tokens, c.output_tokens, c.cost_usd) == ("", 0, 0, 0.0)


def test_retries_429_and_500_then_success(provider: tuple[FakeProvider, str]) -> None:
    fake, url = provider
    fake.script = [Reply(429, headers=FAST), Reply(500, headers=FAST), Reply(content="done")]
    c = backend(url, max_retries=3).complete(USER)
    assert c.text == "done"
    assert [h["x-stainless-retry-count"] for h in fake.headers] == ["0", "1", "2"]


def test_backoff_without_retry_after(provider: tuple[FakeProvider, str]) -> None:
    """No server hint: the SDK waits 0.5 s x jitter (0.75-1.0) before the first retry."""
    fake, url = provider
    fake.script = [Reply(503), Reply(content="late")]
    t0 = time.monotonic()
    assert backend(url, max_retries=1).complete(USER).text == "late"
    assert 0.35 <= time.monotonic() - t0 < 3.0


def test_persistent_5xx_raises_infra_error(provider: tuple[FakeProvider, str]) -> None:
    fake, url = provider
    fake.script = [Reply(502, headers=FAST)]
    b = backend(url, max_retries=2)
    with pytest.raises(InfraError, match="HTTP 502"):
        b.complete(USER)
    assert len(fake.requests) == 3 and b.usage["failures"] == 1


def test_timeouts_raise_infra_error_after_retries(provider: tuple[FakeProvider, str]) -> None:
    fake, url = provider
    fake.script = [Reply(delay=1.0)]
    t0 = time.monotonic()
    with pytest.raises(InfraError):
        backend(url, timeout_s=0.1, max_retries=1).complete(USER)
    assert len(fake.requests) == 2
    assert time.monotonic() - t0 < 2.5


def test_connection_refused_raises_infra_error() -> None:
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]  # closed again when the block ends: nothing listens
    with pytest.raises(InfraError):
        backend(f"http://127.0.0.1:{port}/v1", max_retries=0).complete(USER)


def test_client_errors_are_not_retried(provider: tuple[FakeProvider, str]) -> None:
    fake, url = provider
    fake.script = [Reply(401, error="bad key")]
    with pytest.raises(InfraError, match="HTTP 401"):
        backend(url, max_retries=3).complete(USER)
    assert len(fake.requests) == 1


def test_response_format_json_schema_sent(provider: tuple[FakeProvider, str]) -> None:
    fake, url = provider
    fake.script = [Reply(content='{"verdict": "pass", "score": 1}')]
    b = backend(url)
    c = b.complete(USER, json_schema={**SCHEMA, "title": "grade me"})
    assert json.loads(c.text)["verdict"] == "pass"
    rf = fake.requests[0]["response_format"]
    assert rf["type"] == "json_schema" and rf["json_schema"]["strict"] is True
    assert rf["json_schema"]["name"] == "grade_me"
    sent = rf["json_schema"]["schema"]
    assert sent["additionalProperties"] is False and sent["required"] == ["verdict", "score"]
    assert SCHEMA["required"] == ["verdict"]  # the caller's schema is not modified
    assert fake.requests[0]["messages"] == USER


def test_response_format_rejected_falls_back_and_remembers(
    provider: tuple[FakeProvider, str],
) -> None:
    fake, url = provider
    fake.reject_response_format = True
    fake.script = [Reply(content='{"verdict": "fail"}')]
    b = backend(url)
    system = [{"role": "system", "content": "You grade."}, *USER]
    assert b.complete(system, json_schema=SCHEMA).text == '{"verdict": "fail"}'
    assert "response_format" in fake.requests[0]
    plain = fake.requests[1]
    assert "response_format" not in plain
    assert plain["messages"][0]["content"].startswith("You grade.")
    assert '"verdict"' in plain["messages"][0]["content"]  # schema in the instruction
    assert b.json_mode is False
    b.complete(USER, json_schema=SCHEMA)  # remembered: straight to the prompt form
    assert len(fake.requests) == 3 and "response_format" not in fake.requests[2]
    assert fake.requests[2]["messages"][0]["role"] == "system"


BOUNDED = {
    "title": "edits",
    "type": "object",
    "properties": {
        "edits": {
            "type": "array",
            "maxItems": 2,
            "items": {
                "type": "object",
                "properties": {
                    "kind": {"type": "string", "enum": ["add", "delete"]},
                    "text": {"type": "string", "maxLength": 40},
                    "n": {"type": "integer", "minimum": 0, "maximum": 10},
                },
            },
        }
    },
}


def test_schema_bounds_and_enums_reach_the_endpoint(provider: tuple[FakeProvider, str]) -> None:
    """llama.cpp turns them into the grammar that keeps a small model's answer complete."""
    fake, url = provider
    fake.script = [Reply(content='{"edits": []}')]
    backend(url).complete(USER, json_schema=BOUNDED)
    rf = fake.requests[0]["response_format"]["json_schema"]
    assert rf["name"] == "edits"
    edits = rf["schema"]["properties"]["edits"]
    item = edits["items"]["properties"]
    assert edits["maxItems"] == 2 and item["text"]["maxLength"] == 40
    assert item["kind"]["enum"] == ["add", "delete"] and item["n"]["maximum"] == 10
    assert edits["items"]["required"] == ["kind", "text", "n"]


def test_openai_style_wrapper_is_unwrapped(provider: tuple[FakeProvider, str]) -> None:
    """{"name", "schema"} (OpenAI's own wrapper) must not be sent as the schema itself: it
    has no type, so it would constrain nothing."""
    fake, url = provider
    fake.script = [Reply(content="{}")]
    wrapped = {"name": "verdict", "schema": SCHEMA}
    assert split_schema(wrapped) == ("verdict", SCHEMA)
    assert split_schema({**SCHEMA, "title": "a b"}) == ("a_b", {**SCHEMA, "title": "a b"})
    backend(url).complete(USER, json_schema=wrapped)
    rf = fake.requests[0]["response_format"]["json_schema"]
    assert rf["name"] == "verdict" and rf["schema"]["type"] == "object"
    assert set(rf["schema"]["properties"]) == {"verdict", "score"}


def test_schema_bounds_rejected_retries_lean_then_remembers(
    provider: tuple[FakeProvider, str],
) -> None:
    fake, url = provider
    calls = {"n": 0}
    original = fake.next_reply

    def refuse_bounds(body: dict[str, Any], headers: dict[str, str]) -> Reply:
        calls["n"] += 1
        if "maxLength" in json.dumps(body.get("response_format", {})):
            original(body, headers)
            return Reply(400, error="Invalid schema for response_format 'edits': maxLength")
        return original(body, headers)

    fake.next_reply = refuse_bounds  # type: ignore[method-assign]
    fake.script = [Reply(content='{"edits": []}')]
    b = backend(url)
    assert b.complete(USER, json_schema=BOUNDED).text == '{"edits": []}'
    sent = [json.dumps(r.get("response_format")) for r in fake.requests]
    assert len(sent) == 2 and "maxLength" in sent[0] and "maxLength" not in sent[1]
    assert '"enum"' in sent[1]  # enums are not bounds: kept
    assert b.json_mode is True and b.schema_bounds is False
    b.complete(USER, json_schema=BOUNDED)  # remembered: straight to the lean schema
    assert len(fake.requests) == 3 and "maxLength" not in json.dumps(fake.requests[2])


def test_other_bad_request_is_infra_error(provider: tuple[FakeProvider, str]) -> None:
    fake, url = provider
    fake.script = [Reply(400, error="Invalid 'temperature': must be at most 2")]
    b = backend(url)
    with pytest.raises(InfraError, match="HTTP 400"):
        b.complete(USER, json_schema=SCHEMA)
    assert b.json_mode is True and len(fake.requests) == 1


@pytest.mark.parametrize(
    "error",
    [
        "request (4476 tokens) exceeds the available context size (4096 tokens)",  # llama.cpp
        "This model's maximum context length is 8192 tokens. However, your messages "
        "resulted in 9000 tokens.",  # OpenAI, vLLM
        "prompt is too long: 210000 tokens > 200000 maximum",  # Anthropic-style
        "context length exceeded",
    ],
)
def test_a_prompt_that_does_not_fit_is_an_overflow_not_an_outage(
    provider: tuple[FakeProvider, str], error: str
) -> None:
    fake, url = provider
    fake.script = [Reply(400, error=error)]
    b = backend(url)
    with pytest.raises(ContextOverflow) as info:
        b.complete(USER)
    assert not isinstance(info.value, InfraError) and len(fake.requests) == 1  # no retry


def test_concurrency_limit_is_enforced(provider: tuple[FakeProvider, str]) -> None:
    """Replies wait until two requests were in flight together (no clock): the limit lets
    exactly two through at once, never a third."""
    fake, url = provider
    fake.script = [Reply(meet=2)]
    b = backend(url, concurrency=2, max_retries=0)  # a retry would count twice
    with ThreadPoolExecutor(6) as pool:
        texts = list(pool.map(lambda _: b.complete(USER).text, range(6)))
    assert texts == ["ok"] * 6
    assert fake.max_in_flight == 2 and b.usage["calls"] == 6


def test_no_key_and_no_endpoint_is_a_config_error() -> None:
    with pytest.raises(ValueError, match="OPENAI_API_KEY"):
        OpenAIBackend(RoleConfig(model="gpt-x"))
    keyless = OpenAIBackend(RoleConfig(model="m", base_url="http://127.0.0.1:9/v1"))
    assert keyless.concurrency == 4


def test_strict_schema_nested() -> None:
    schema = {
        "type": "object",
        "properties": {
            "edits": {
                "type": "array",
                "items": {"type": "object", "properties": {"op": {"type": "string"}}},
            }
        },
    }
    out = strict_schema(schema)
    item = out["properties"]["edits"]["items"]
    assert item["required"] == ["op"] and item["additionalProperties"] is False
    assert "required" not in schema
