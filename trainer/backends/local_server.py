"""Child-process entry point that runs llama.cpp's OpenAI-compatible server.

Run as ``python -m trainer.backends.local_server --port N --model PATH``. It lives in its own
process for two reasons: llama.cpp writes very verbose native logs straight to the process's
stdout/stderr (the parent redirects them to a log file), and a separate process can always be
stopped by PID, even if the native server hangs. The parent is ``trainer.backends.local``.
"""

from __future__ import annotations

import argparse
import os
import signal
import sys
import threading


def _parse_args(argv: list[str] | None) -> argparse.Namespace:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--port", type=int, required=True)
    ap.add_argument("--model", required=True, help="path of the GGUF file")
    ap.add_argument("--n-ctx", type=int, default=8192)
    ap.add_argument("--parallel", type=int, default=2, help="slots decoding at once")
    ap.add_argument("--threads", type=int, default=1, help="CPU threads for decoding")
    ap.add_argument(
        "--max-tokens", type=int, default=-1, help="output tokens per request at most (-1: none)"
    )
    ap.add_argument("--host", default="127.0.0.1")
    ap.add_argument("--parent-pid", type=int, default=0, help="exit when this process is gone")
    return ap.parse_args(argv)


def main(argv: list[str] | None = None) -> None:
    args = _parse_args(argv)
    try:
        import xllamacpp as xlc
    except ImportError:
        print("xllamacpp is not installed", file=sys.stderr)
        sys.exit(3)

    p = xlc.CommonParams()
    p.model.path = args.model
    p.n_ctx = args.n_ctx
    p.n_parallel = args.parallel
    # One KV cache shared by the slots: every request may use the whole context, and
    # memory stays that of a single context.
    p.kv_unified = True
    # A cap for clients that send none (Codex): llama.cpp cuts every request to it.
    p.n_predict = args.max_tokens
    p.cpuparams.n_threads = args.threads
    p.cpuparams_batch.n_threads = args.threads
    p.hostnames = [args.host]
    p.port = args.port
    p.offline = True
    p.verbosity = 0  # fewer native log lines; the parent still keeps them in a file

    stop = threading.Event()
    for sig in (signal.SIGTERM, signal.SIGINT):
        signal.signal(sig, lambda *_: stop.set())

    print(f"local_server: loading {args.model}", flush=True)
    server = xlc.Server(p)  # starts serving; it stops when the object is released
    print(f"local_server: listening on {args.host}:{args.port}", flush=True)
    # Stop on a signal, or when the parent died without stopping us (no orphaned servers).
    while not stop.wait(0.5):
        if args.parent_pid and os.getppid() != args.parent_pid:
            break
    # Releasing the server is the graceful stop, but it can deadlock when a stop request
    # arrives while the model is still loading; so give it a moment, then leave anyway.
    releaser = threading.Thread(target=_release, args=([server],), daemon=True)
    del server
    releaser.start()
    releaser.join(3.0)
    sys.stdout.flush()
    os._exit(0)


def _release(holder: list[object]) -> None:
    holder.clear()


if __name__ == "__main__":
    main()
