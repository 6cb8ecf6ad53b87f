"""A scripted model provider for harness tests: the agent CLIs are real, the remote model
is replaced (the one edge we do not own).

It speaks just enough of Anthropic's `/v1/messages` (streamed) and OpenAI's `/v1/responses`
(streamed) for `claude -p` and `codex exec`: each request is answered with the next step of
a fixed script, chosen by how many assistant turns the request already holds, so the
server keeps no state between requests. A step is ``{"bash": "<command>"}`` (one shell
tool call), ``{"text": "<final answer>"}``, or ``{"cut": "<text>"}`` (text stopped by the
request's output-token cap). Every request body is kept in ``requests`` and its headers
in ``headers``, for assertions; ``on_request`` (if given) is called with each request's
path while the client waits for the answer.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

USAGE_IN, USAGE_OUT = 100, 10


class ScriptedEndpoint:
    def __init__(
        self,
        script: list[dict[str, str]],
        host: str = "127.0.0.1",
        on_request: Callable[[str], None] | None = None,
    ) -> None:
        self.script = script
        self.on_request = on_request
        self.requests: list[tuple[str, dict[str, Any]]] = []
        self.headers: list[dict[str, str]] = []
        self._arrived = threading.Condition()
        self._server = ThreadingHTTPServer((host, 0), _handler(self))
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)

    @property
    def base_url(self) -> str:
        host, port = self._server.server_address[:2]
        return f"http://{host}:{port}"

    def __enter__(self) -> ScriptedEndpoint:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._server.shutdown()
        self._server.server_close()

    def first_requests(self) -> int:
        """Requests that start an agent's conversation: one per rollout (or chat call)."""
        return sum(1 for _p, body in self.requests if _turns_done(body) == 0)

    def wait_for_first_requests(self, n: int, timeout: float) -> bool:
        with self._arrived:
            return self._arrived.wait_for(lambda: self.first_requests() >= n, timeout)

    def _record(self, path: str, body: dict[str, Any], headers: dict[str, str]) -> None:
        if self.on_request is not None:
            self.on_request(path)
        with self._arrived:
            self.requests.append((path, body))
            self.headers.append(headers)
            self._arrived.notify_all()

    def step(self, n_done: int) -> dict[str, str]:
        return self.script[min(n_done, len(self.script) - 1)]


def _words(step: dict[str, str]) -> str:
    """The text of a text step, or of one cut at the output cap."""
    return step.get("text", step.get("cut", ""))


def _turns_done(req: dict[str, Any]) -> int:
    """Assistant turns already in a request: Anthropic messages, or Responses tool calls."""
    if "messages" in req:
        return sum(1 for m in req["messages"] if m.get("role") == "assistant")
    items = req.get("input") or []
    kinds = ("function_call", "custom_tool_call")
    return sum(1 for it in items if isinstance(it, dict) and it.get("type") in kinds)


def _handler(ep: ScriptedEndpoint) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, *args: object) -> None:
            pass

        def do_GET(self) -> None:  # model listings and health probes
            body = json.dumps({"object": "list", "data": [{"id": "scripted"}]}).encode()
            self._reply(200, "application/json", body)

        def do_HEAD(self) -> None:
            self._reply(200, "application/json", b"")

        def do_POST(self) -> None:
            length = int(self.headers.get("content-length") or 0)
            req = json.loads(self.rfile.read(length) or b"{}")
            path = self.path.split("?")[0]
            ep._record(path, req, {k.lower(): v for k, v in self.headers.items()})
            if path.endswith("/messages/count_tokens"):
                self._reply(200, "application/json", b'{"input_tokens": 100}')
            elif path.endswith("/messages"):
                self._messages(req)
            elif path.endswith("/responses"):
                self._responses(req)
            else:
                self._reply(404, "application/json", b'{"error": {"message": "no route"}}')

        def _reply(self, code: int, ctype: str, body: bytes) -> None:
            self.send_response(code)
            self.send_header("content-type", ctype)
            self.send_header("content-length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def _sse(self, events: list[tuple[str, dict[str, Any]]]) -> None:
            body = "".join(f"event: {name}\ndata: {json.dumps(data)}\n\n" for name, data in events)
            self._reply(200, "text/event-stream", body.encode())

        # -- Anthropic Messages --------------------------------------------------------
        def _messages(self, req: dict[str, Any]) -> None:
            step = ep.step(_turns_done(req))
            n = len(ep.requests)
            if "bash" in step:
                block = {"type": "tool_use", "id": f"toolu_{n}", "name": "Bash", "input": {}}
                delta = {"type": "input_json_delta", "partial_json": json.dumps(
                    {"command": step["bash"], "description": "run"})}  # fmt: skip
                stop = "tool_use"
            else:
                text = _words(step)
                stop = "max_tokens" if "cut" in step else "end_turn"
                block = {"type": "text", "text": ""}
                delta = {"type": "text_delta", "text": text}
            usage = {"input_tokens": USAGE_IN, "output_tokens": USAGE_OUT}
            message = {"id": f"msg_{n}", "type": "message", "role": "assistant",
                       "model": req.get("model", "scripted"), "content": [],
                       "stop_reason": None, "stop_sequence": None, "usage": usage}  # fmt: skip
            if not req.get("stream"):
                full = dict(block)
                if "bash" in step:
                    full["input"] = json.loads(delta["partial_json"])
                else:
                    full["text"] = text
                message.update(content=[full], stop_reason=stop)
                self._reply(200, "application/json", json.dumps(message).encode())
                return
            self._sse([
                ("message_start", {"type": "message_start", "message": message}),
                ("content_block_start",
                 {"type": "content_block_start", "index": 0, "content_block": block}),
                ("content_block_delta",
                 {"type": "content_block_delta", "index": 0, "delta": delta}),
                ("content_block_stop", {"type": "content_block_stop", "index": 0}),
                ("message_delta", {"type": "message_delta",
                                   "delta": {"stop_reason": stop, "stop_sequence": None},
                                   "usage": {"output_tokens": USAGE_OUT}}),
                ("message_stop", {"type": "message_stop"}),
            ])  # fmt: skip

        # -- OpenAI Responses ----------------------------------------------------------
        def _responses(self, req: dict[str, Any]) -> None:
            step = ep.step(_turns_done(req))
            n = len(ep.requests)
            if "bash" in step:
                args = {"cmd": step["bash"], "yield_time_ms": 30000}  # no early yield
                item = {"type": "function_call", "id": f"fc_{n}", "call_id": f"call_{n}",
                        "name": "exec_command", "status": "completed",
                        "arguments": json.dumps(args)}  # fmt: skip
            else:
                text = {"type": "output_text", "text": _words(step), "annotations": []}
                item = {"type": "message", "id": f"msg_{n}", "role": "assistant",
                        "status": "completed", "content": [text]}  # fmt: skip
            usage = {"input_tokens": USAGE_IN, "input_tokens_details": {"cached_tokens": 0},
                     "output_tokens": USAGE_OUT, "output_tokens_details": {"reasoning_tokens": 0},
                     "total_tokens": USAGE_IN + USAGE_OUT}  # fmt: skip
            resp = {"id": f"resp_{n}", "object": "response", "status": "in_progress",
                    "model": req.get("model", "scripted"), "output": []}  # fmt: skip
            done = {"type": "response.completed", "response": dict(
                resp, status="completed", output=[item], usage=usage)}  # fmt: skip
            if "cut" in step:
                done = {"type": "response.incomplete", "response": dict(
                    done["response"], status="incomplete",
                    incomplete_details={"reason": "max_output_tokens"})}  # fmt: skip
            self._sse([
                ("response.created", {"type": "response.created", "response": resp}),
                ("response.output_item.added",
                 {"type": "response.output_item.added", "output_index": 0, "item": item}),
                ("response.output_item.done",
                 {"type": "response.output_item.done", "output_index": 0, "item": item}),
                (done["type"], done),
            ])  # fmt: skip

    return Handler
