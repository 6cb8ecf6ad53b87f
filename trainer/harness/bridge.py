"""Inside the sandbox: the model endpoint on a loopback port, and the command to run.

The sandbox has a network namespace of its own with nothing but its loopback interface,
so no host is reachable. This script (run by the sandbox's Python with `-I -S`, standard
library only) listens on `127.0.0.1:<port>` inside that namespace and carries every
connection to a Unix socket that the sandbox binds in from outside, where the harness's
relay (`relay.py`) speaks to the one model endpoint. Then it runs the command with its own
stdin, stdout and stderr, and exits with the command's status; the sandbox ends with it.

Usage: bridge.py PORT SOCKET -- COMMAND [ARG...]
"""

import contextlib
import os
import socket
import subprocess
import sys
import threading


def _pump(src: socket.socket, dst: socket.socket) -> None:
    try:
        while True:
            data = src.recv(65536)
            if not data:
                break
            dst.sendall(data)
    except OSError:
        pass
    finally:
        for s, how in ((dst, socket.SHUT_WR), (src, socket.SHUT_RD)):
            with contextlib.suppress(OSError):
                s.shutdown(how)


def _serve(conn: socket.socket, path: str) -> None:
    up = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        up.connect(path)
    except OSError:
        conn.close()
        up.close()
        return
    back = threading.Thread(target=_pump, args=(up, conn), daemon=True)
    back.start()
    _pump(conn, up)
    back.join()
    conn.close()
    up.close()


def _accept(listener: socket.socket, path: str) -> None:
    while True:
        conn, _addr = listener.accept()
        threading.Thread(target=_serve, args=(conn, path), daemon=True).start()


def main(argv: list[str]) -> int:
    if len(argv) < 4 or argv[2] != "--":
        sys.stderr.write("usage: bridge.py PORT SOCKET -- COMMAND [ARG...]\n")
        return 2
    port, path, command = int(argv[0]), argv[1], argv[3:]
    listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    listener.bind(("127.0.0.1", port))
    listener.listen(64)
    threading.Thread(target=_accept, args=(listener, path), daemon=True).start()
    try:
        return subprocess.call(command)
    except OSError as exc:
        sys.stderr.write(f"bridge: cannot run {command[0]}: {exc}\n")
        return 127


if __name__ == "__main__":
    code = main(sys.argv[1:])
    sys.stdout.flush()
    os._exit(code)
