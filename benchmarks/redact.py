"""Redaction benchmark: secret shapes caught, and throughput on the text ingest redacts.

    .venv/bin/python benchmarks/redact.py
    .venv/bin/python benchmarks/redact.py --json

Coverage: every shape of ``tests/secret_shapes.py`` (fake values; the rules were written for
them) and of ``secret_shapes_heldout.py`` (written afterwards, never tuned on), counted
caught when no 8-character piece of the secret survives. Throughput: MB/s of ``redact`` and of
``redact_clip`` on the kinds of text ingest stores: prose (this repository's Markdown),
source code and logs (its Python files), every string of the real session logs in
``../shared/fixtures/real`` (when present), and prose and code with one planted secret in
ten.
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

from secret_shapes import shapes, survives  # noqa: E402
from secret_shapes_heldout import shapes as heldout_shapes  # noqa: E402

from benchmarks.ingest_corpus import real_fixtures  # noqa: E402
from session_ingest.redact import redact, redact_clip  # noqa: E402


def _chunks(text: str, rng: random.Random) -> list[str]:
    """Overlapping pieces of 200 to 4,000 characters (the sizes of stored texts)."""
    out, at = [], 0
    while at < len(text) - 200:
        n = rng.choice((200, 600, 2000, 4000))
        out.append(text[at : at + n])
        at += n // 2
    return out


def _strings(value: object) -> list[str]:
    if isinstance(value, str):
        return [value]
    if isinstance(value, dict):
        return [s for v in value.values() for s in _strings(v)]
    if isinstance(value, list):
        return [s for v in value for s in _strings(v)]
    return []


def _session_strings() -> list[str]:
    """Every string value of every record of the real logs (what ingest redacts)."""
    real = real_fixtures()
    if real is None:
        return []
    out: list[str] = []
    for path in sorted(real.rglob("*.jsonl")):
        for line in path.read_text(errors="replace").splitlines():
            try:
                out += [s for s in _strings(json.loads(line)) if len(s) >= 8]
            except ValueError:
                continue
    return out


def _corpora(seed: int) -> dict[str, list[str]]:
    rng = random.Random(seed)
    docs = sorted([*ROOT.glob("docs/*.md"), ROOT / "README.md"])
    prose = _chunks("\n".join(p.read_text() for p in docs), rng)
    code = _chunks("".join(p.read_text() for p in sorted(ROOT.glob("*/*.py"))), rng)
    planted = []
    table = shapes()
    for i, text in enumerate(prose[:1000] + code[:1000]):
        if i % 10 == 0:
            _name, context, _secret = table[i // 10 % len(table)]
            text = f"{text[: len(text) // 2]} {context} {text[len(text) // 2 :]}"
        planted.append(text)
    out = {"prose": prose, "code_and_logs": code, "one_in_ten_planted": planted}
    session = _session_strings()
    if session:
        out["real_session_strings"] = session
    return out


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
    heldout = heldout_shapes()
    heldout_missed = [name for name, text, secret in heldout if survives(redact(text), secret)]
    result: dict = {
        "shapes": len(table),
        "shapes_caught": len(table) - len(missed),
        "missed": missed,
        "heldout_shapes": len(heldout),
        "heldout_caught": len(heldout) - len(heldout_missed),
        "heldout_missed": heldout_missed,
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
