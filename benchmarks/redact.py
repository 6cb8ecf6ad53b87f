"""Redaction benchmark: secret shapes caught, and throughput on the text ingest redacts.

    .venv/bin/python benchmarks/redact.py
    .venv/bin/python benchmarks/redact.py --json

Coverage: every shape of ``tests/secret_shapes.py`` (fake values), counted caught when no
8-character piece of the secret survives. Throughput: MB/s of ``redact`` and of
``redact_clip`` on three kinds of text ingest stores: prose-like requests and answers
(the ingest benchmark's generator), source code and logs (this repository's own files),
and the same texts with one planted secret in ten.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests"))
sys.path.insert(0, str(ROOT / "benchmarks"))

from ingest import _text  # noqa: E402  (the ingest benchmark's text generator)
from secret_shapes import shapes, survives  # noqa: E402

from session_ingest.redact import redact, redact_clip  # noqa: E402


def _corpora(seed: int) -> dict[str, list[str]]:
    rng = random.Random(seed)
    prose = [_text(rng, rng.choice((200, 600, 2000, 4000))) for _ in range(3000)]
    code = "".join(p.read_text() for p in sorted(ROOT.glob("*/*.py")))
    chunks = [code[i : i + 600] for i in range(0, len(code) - 600, 300)]
    planted = []
    table = shapes()
    for i, text in enumerate(prose[:1000] + chunks[:1000]):
        if i % 10 == 0:
            _name, context, _secret = table[i // 10 % len(table)]
            text = f"{text[: len(text) // 2]} {context} {text[len(text) // 2 :]}"
        planted.append(text)
    return {"prose": prose, "code_and_logs": chunks, "one_in_ten_planted": planted}


def _throughput(fn, texts: list[str], rounds: int) -> float:
    best = float("inf")
    for _ in range(rounds):
        t0 = time.perf_counter()
        for t in texts:
            fn(t)
        best = min(best, time.perf_counter() - t0)
    return sum(map(len, texts)) / 1e6 / best


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--json", action="store_true", help="print one JSON object")
    ap.add_argument("--rounds", type=int, default=5, help="best of N timings")
    args = ap.parse_args()
    table = shapes()
    missed = [name for name, text, secret in table if survives(redact(text), secret)]
    result: dict = {
        "shapes": len(table),
        "shapes_caught": len(table) - len(missed),
        "missed": missed,
        "load_average_1m": round(os.getloadavg()[0], 2),
        "cpus": os.cpu_count(),
    }
    for name, texts in _corpora(7).items():
        result[f"redact_mb_per_s_{name}"] = round(_throughput(redact, texts, args.rounds), 1)
        clip = lambda t: redact_clip(t, 600)  # noqa: E731
        result[f"redact_clip600_mb_per_s_{name}"] = round(_throughput(clip, texts, args.rounds), 1)
    if args.json:
        print(json.dumps(result))
    else:
        for k, v in result.items():
            print(f"{k:40} {v}")


if __name__ == "__main__":
    main()
