"""A fake OpenAI-compatible endpoint for tests (not collected by pytest).

    python tests/fake_openai_server.py     # prints its port, serves until killed

The first path segment picks the behaviour, so one server plays every broken provider:
``/ok/v1`` answers, ``/unauthorized/v1`` says 401 invalid key, ``/no-model/v1`` says 404
model not found, ``/hang-up/v1`` closes the connection without an answer. Every request
line is appended to the file named by ``$FAKE_OPENAI_LOG`` when set.
"""

from __future__ import annotations

import json
import os
import sys
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

ERRORS = {
    "unauthorized": (
        401,
        {"message": "Incorrect API key provided: sk-test***", "code": "invalid_api_key"},
    ),
    "no-model": (
        404,
        {"message": "The model `no-such-model` does not exist", "code": "model_not_found"},
    ),
}


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *args: object) -> None:
        pass

    def _send(self, status: int, body: dict) -> None:
        data = json.dumps(body).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def do_POST(self) -> None:  # noqa: N802 - http.server's name
        length = int(self.headers.get("Content-Length") or 0)
        request = json.loads(self.rfile.read(length) or b"{}")
        if os.environ.get("FAKE_OPENAI_LOG"):
            with open(os.environ["FAKE_OPENAI_LOG"], "a") as log:
                log.write(f"{self.path} {request.get('model')}\n")
        mode = self.path.strip("/").split("/")[0]
        if mode == "hang-up":
            self.close_connection = True
            self.connection.close()
            return
        if mode in ERRORS:
            status, error = ERRORS[mode]
            self._send(status, {"error": {**error, "type": "invalid_request_error"}})
            return
        self._send(
            200,
            {
                "id": "chatcmpl-fake",
                "object": "chat.completion",
                "created": 0,
                "model": request.get("model"),
                "choices": [
                    {
                        "index": 0,
                        "message": {"role": "assistant", "content": "OK"},
                        "finish_reason": "stop",
                    }
                ],
                "usage": {"prompt_tokens": 5, "completion_tokens": 1, "total_tokens": 6},
            },
        )


def main() -> None:
    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    print(server.server_address[1], flush=True)
    sys.stdout.close()
    server.serve_forever()


if __name__ == "__main__":
    main()
