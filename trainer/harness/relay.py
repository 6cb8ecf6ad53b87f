"""Outside the sandbox: the one way from a sandboxed agent CLI to its model endpoint.

The CLI inside the sandbox talks plain HTTP to `bridge.py` on its own loopback; the bridge
carries each connection to this relay's Unix socket. The relay forwards every request to
the configured endpoint (http or https) and streams the answer back. It is also where the
credentials live: the CLI is given placeholders (an API key, or a login file whose tokens
were swapped for placeholders), and the relay puts the real values into the request
headers on their way out. So no credential is ever in the sandbox — not in the CLI's
environment, which every command the agent runs inherits, and not in a file it can read.

Nothing but the endpoint is reachable this way: the upstream is fixed when the relay
starts; the request only chooses the path.
"""

from __future__ import annotations

import http.client
import json
import shutil
import socketserver
import ssl
import tempfile
import threading
from collections.abc import Callable, Mapping
from http.server import BaseHTTPRequestHandler
from pathlib import Path
from urllib.parse import urlsplit

# Request headers that belong to one hop (RFC 9110 §7.6.1), never forwarded as they are.
HOP_BY_HOP = {
    "connection", "keep-alive", "proxy-authenticate", "proxy-authorization", "te",
    "trailer", "transfer-encoding", "upgrade", "host", "proxy-connection",
}  # fmt: skip
CHUNK = 65536


class _Server(socketserver.ThreadingMixIn, socketserver.UnixStreamServer):
    daemon_threads = True
    relay: ModelRelay


class ModelRelay:
    """A Unix socket that forwards HTTP requests to `upstream` (scheme, host, port; the
    path comes from each request), replacing each placeholder that `secrets()` maps (asked
    once per request, so a refreshed login is used at once) by its value."""

    def __init__(
        self, upstream: str, secrets: Callable[[], Mapping[str, str]], timeout_s: float
    ) -> None:
        parts = urlsplit(upstream)
        if parts.scheme not in ("http", "https") or not parts.hostname:
            raise ValueError(f"not an http(s) endpoint: {upstream!r}")
        self.scheme, self.host = parts.scheme, parts.hostname
        self.port = parts.port or (443 if parts.scheme == "https" else 80)
        self.netloc = parts.netloc.rsplit("@", 1)[-1]
        self.secrets = secrets
        self.timeout_s = timeout_s
        # The sandbox's run directory: this socket and the bridge that reaches it. Short
        # (a Unix socket's path is limited to 107 bytes) and the user's alone (0700).
        self.run_dir = Path(tempfile.mkdtemp(prefix="skillopt-relay-"))
        shutil.copyfile(Path(__file__).with_name("bridge.py"), self.run_dir / "bridge.py")
        self.socket_path = self.run_dir / "model.sock"
        self._server = _Server(str(self.socket_path), _Handler)
        self._server.relay = self
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)
        self._thread.start()

    def connect(self) -> http.client.HTTPConnection:
        if self.scheme == "https":
            ctx = ssl.create_default_context()
            return http.client.HTTPSConnection(
                self.host, self.port, timeout=self.timeout_s, context=ctx
            )
        return http.client.HTTPConnection(self.host, self.port, timeout=self.timeout_s)

    def close(self) -> None:
        self._server.shutdown()
        self._server.server_close()
        shutil.rmtree(self.run_dir, ignore_errors=True)

    def __enter__(self) -> ModelRelay:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server: _Server

    def address_string(self) -> str:
        return "sandbox"

    def log_message(self, format: str, *args: object) -> None:  # noqa: A002
        pass

    def handle_one_request(self) -> None:
        """Any method: read it, forward it, stream the answer; keep-alive as the client asks."""
        try:
            self.raw_requestline = self.rfile.readline(65537)
            if not self.raw_requestline:
                self.close_connection = True
                return
            if not self.parse_request():
                return
            self._forward()
            self.wfile.flush()
        except (TimeoutError, ConnectionError, OSError):
            self.close_connection = True

    def _body(self) -> bytes:
        if "chunked" in (self.headers.get("transfer-encoding") or "").lower():
            out = bytearray()
            while True:
                size = int(self.rfile.readline().split(b";")[0].strip() or b"0", 16)
                if size == 0:
                    while self.rfile.readline() not in (b"\r\n", b"\n", b""):
                        pass  # trailers
                    return bytes(out)
                out += self.rfile.read(size)
                self.rfile.readline()
        length = int(self.headers.get("content-length") or 0)
        return self.rfile.read(length) if length else b""

    def _forward(self) -> None:
        relay = self.server.relay
        body = self._body()
        try:
            secrets = relay.secrets()
        except ValueError as exc:  # the login file went away or is unreadable
            self._fail(str(exc))
            return
        headers = {
            k: _swap(v, secrets) for k, v in self.headers.items() if k.lower() not in HOP_BY_HOP
        }
        headers["Host"] = relay.netloc
        if body or self.command in ("POST", "PUT", "PATCH"):
            headers["Content-Length"] = str(len(body))
        conn = relay.connect()
        try:
            conn.request(self.command, self.path, body=body, headers=headers)
            resp = conn.getresponse()
        except (OSError, http.client.HTTPException) as exc:
            conn.close()
            self._fail(f"the model endpoint cannot be reached: {exc}")
            return
        try:
            self.send_response_only(resp.status, resp.reason)
            length = resp.getheader("content-length")
            for k, v in resp.getheaders():
                if k.lower() not in HOP_BY_HOP and k.lower() != "content-length":
                    self.send_header(k, v)
            if length is not None:
                self.send_header("Content-Length", length)
            else:
                self.send_header("Transfer-Encoding", "chunked")
            self.end_headers()
            while chunk := resp.read1(CHUNK):
                if length is None:
                    self.wfile.write(b"%x\r\n%s\r\n" % (len(chunk), chunk))
                else:
                    self.wfile.write(chunk)
                self.wfile.flush()
            if length is None:
                self.wfile.write(b"0\r\n\r\n")
        finally:
            conn.close()

    def _fail(self, message: str) -> None:
        body = json.dumps({"error": {"type": "relay_error", "message": message}}).encode()
        self.send_response_only(502, "Bad Gateway")
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)


def _swap(value: str, secrets: Mapping[str, str]) -> str:
    for fake, real in secrets.items():
        if fake in value:
            value = value.replace(fake, real)
    return value
