"""Harness rollouts: what they cost outside the model, and how many a minute the embedded
model allows, per agent CLI (the real Claude Code / Codex; SKILLOPT_AGENT_CLI_DIR or PATH).

1. Overhead: rollouts against a scripted provider that answers at once, so everything
   measured is outside the model: the copy of the repository, the home from the template,
   the CLI's start and exit, reading its transcript, the diff, the clean-up. Split into
   prepare (copy + setup + skill + home), CLI (start to exit, incl. one trivial request)
   and after (changed files + checks); goal < 1 s per rollout in total.
2. Embedded model: the first rollout in a slot pays the prefill of the CLI's whole prompt;
   later ones in the same slot find it in llama.cpp's prefix cache. Rollouts per minute
   are taken over the cached ones (steady state), with tokens per rollout.

Timings on a shared machine are noisy: the load average is printed with them.

Usage: python benchmarks/harness.py [--json] [--overhead-rollouts N] [--model-rollouts N]
       [--clis claude-code,codex] [--model qwen2.5-coder-0.5b | --gguf FILE] [--threads T]
       [--skip-model]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchmarks.scripted_endpoint import ScriptedEndpoint  # noqa: E402
from trainer.harness import CLAUDE_CODE, CODEX, HarnessSettings, find_cli, make_harness  # noqa: E402
from trainer.harness.cli import COMMANDS  # noqa: E402
from trainer.skill import SkillDoc  # noqa: E402
from trainer.tasks import Judge, Task, TaskWorkspace  # noqa: E402

MAX_OUTPUT_TOKENS = 256  # per model request, for both CLIs

SKILL = """\
---
name: changelog-entry
description: Add a changelog entry for a change in this repository.
---
# Changelog entry

1. Run `git status` first.
2. Append one line `- <summary>` to CHANGES.md (create it when missing).
3. Answer with the word DONE.
"""


def load() -> str:
    return " ".join(f"{x:.2f}" for x in os.getloadavg())


def fixture_repo(root: Path) -> tuple[str, str]:
    repo = root / "repo"
    repo.mkdir()
    (repo / "calc.py").write_text("def add(a, b):\n    return a + b\n")
    (repo / "README.md").write_text("# calc\n")
    env = {"PATH": os.environ["PATH"], "HOME": str(root), "GIT_CONFIG_NOSYSTEM": "1",
           "GIT_AUTHOR_NAME": "b", "GIT_AUTHOR_EMAIL": "b@example.com",
           "GIT_COMMITTER_NAME": "b", "GIT_COMMITTER_EMAIL": "b@example.com"}  # fmt: skip
    for args in (["init", "-q"], ["add", "-A"], ["commit", "-q", "-m", "init"]):
        subprocess.run(["git", *args], cwd=repo, env=env, check=True)
    head = subprocess.run(["git", "rev-parse", "HEAD"], cwd=repo, env=env, check=True,
                          capture_output=True, text=True).stdout.strip()  # fmt: skip
    return str(repo), head


def cli_path(kind: str) -> str:
    folder = os.environ.get("SKILLOPT_AGENT_CLI_DIR")
    return find_cli(kind, str(Path(folder) / COMMANDS[kind]) if folder else None).path


def task(repo: str, commit: str) -> Task:
    judges = (Judge("file_unchanged", "*.py"), Judge("check", "test -f README.md"))
    return Task("bench", "record that add() exists", "val", judges,
                workspace=TaskWorkspace(repo, commit))  # fmt: skip


def overhead(kind: str, n: int, work: Path, repo: str, commit: str) -> dict[str, Any]:
    skill = SkillDoc.parse(SKILL)
    rows = []
    with ScriptedEndpoint([{"text": "DONE"}]) as ep:
        url = ep.base_url + ("/v1" if kind == CODEX else "")
        adapter = make_harness(kind, HarnessSettings(
            work_dir=work, cli_path=cli_path(kind), base_url=url, endpoint="scripted",
            api_key="k", model="scripted"))  # fmt: skip
        adapter.template()  # built once per settings, not per rollout
        for _ in range(n):
            t0 = time.monotonic()
            o = adapter.rollout(skill, task(repo, commit), max_tokens=None)
            total = time.monotonic() - t0
            d = o.detail
            rows.append((total, d["seconds_prepare"], d["seconds_cli"], d["seconds_after"]))
    med = [statistics.median(col) for col in zip(*rows, strict=True)]
    return {"rollouts": n, "total_s": round(med[0], 3), "prepare_s": round(med[1], 3),
            "cli_s": round(med[2], 3), "after_s": round(med[3], 3),
            "outside_cli_s": round(med[0] - med[2], 3), "goal_s": 1.0,
            "meets_goal": med[0] < 1.0, "load": load()}  # fmt: skip


def embedded(kind: str, n: int, work: Path, repo: str, commit: str, server: Any,
             model: str) -> dict[str, Any]:  # fmt: skip
    base = server.base_url if kind == CODEX else server.base_url.removesuffix("/v1")
    adapter = make_harness(kind, HarnessSettings(
        work_dir=work, cli_path=cli_path(kind), base_url=base, endpoint=f"local:{model}",
        api_key="local", model=model, max_output_tokens=MAX_OUTPUT_TOKENS,
        context_window=server.n_ctx, timeout_s=3600, max_turns=3))  # fmt: skip
    skill = SkillDoc.parse(SKILL)
    runs = []
    for i in range(n + 1):
        t0 = time.monotonic()
        o = adapter.rollout(skill, task(repo, commit), max_tokens=None)
        runs.append({
            "first": i == 0, "seconds": round(time.monotonic() - t0, 1),
            "input_tokens": o.input_tokens, "cached_input_tokens": o.detail["cached_input_tokens"],
            "output_tokens": o.output_tokens, "tool_calls": len(o.tool_calls),
            "model_requests": o.detail["model_requests"], "answer": o.answer[:80],
            "load": load(),
        })  # fmt: skip
        print(f"  {kind} rollout {i}: {runs[-1]}", file=sys.stderr, flush=True)
    cached = [r["seconds"] for r in runs[1:]]
    per_min = 60.0 / statistics.mean(cached) if cached else None
    return {"model": model, "first_s": runs[0]["seconds"],
            "cached_mean_s": round(statistics.mean(cached), 1) if cached else None,
            "rollouts_per_min": round(per_min, 2) if per_min else None,
            "first_vs_cached": round(runs[0]["seconds"] / statistics.mean(cached), 1)
            if cached else None, "runs": runs}  # fmt: skip


def start_server(model: str, gguf: str | None, n_ctx: int, threads: int) -> Any:
    from trainer.backends.local import LocalServer

    # the rollouts' output cap, on the server's side too: Codex sends none of its own
    opts = {"n_ctx": n_ctx, "parallel": 1, "threads": threads, "max_tokens": MAX_OUTPUT_TOKENS}
    # a GGUF file given directly, or an embedded model by key
    server = LocalServer(model_path=gguf, **opts) if gguf else LocalServer.for_model(model, **opts)
    return server.start()


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--json", action="store_true")
    ap.add_argument("--overhead-rollouts", type=int, default=5)
    ap.add_argument("--model-rollouts", type=int, default=3, help="cached ones, after the first")
    ap.add_argument("--clis", default=f"{CLAUDE_CODE},{CODEX}")
    ap.add_argument("--model", default="qwen2.5-coder-0.5b", help="embedded model key")
    ap.add_argument("--gguf", help="serve this GGUF file instead of an embedded model")
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--n-ctx", type=int, default=16384)
    ap.add_argument("--skip-model", action="store_true", help="only the overhead part")
    args = ap.parse_args()
    kinds = [k for k in args.clis.split(",") if k]
    out: dict[str, Any] = {"load_start": load(), "overhead": {}, "embedded": {}}
    with tempfile.TemporaryDirectory(prefix="bench-harness-") as tmp:
        root = Path(tmp)
        repo, commit = fixture_repo(root)
        for kind in kinds:
            out["overhead"][kind] = overhead(kind, args.overhead_rollouts, root / "w", repo,
                                             commit)  # fmt: skip
        if not args.skip_model:
            server = start_server(args.model, args.gguf, args.n_ctx, args.threads)
            try:
                out["server"] = {"model": args.model, "threads": args.threads,
                                 "n_ctx": args.n_ctx, "start_s": server.start_seconds}  # fmt: skip
                for kind in kinds:
                    out["embedded"][kind] = embedded(kind, args.model_rollouts, root / "w",
                                                     repo, commit, server, args.model)  # fmt: skip
            finally:
                server.stop()
    out["load_end"] = load()
    if args.json:
        print(json.dumps(out, indent=2))
        return
    print(f"load at start {out['load_start']}, at end {out['load_end']} (2 cores)")
    for kind, o in out["overhead"].items():
        print(f"{kind:12s} overhead per rollout {o['total_s']:.2f}s (goal < 1 s: "
              f"{'met' if o['meets_goal'] else 'MISSED'}): prepare {o['prepare_s']:.2f}s, "
              f"CLI start-to-exit {o['cli_s']:.2f}s, after {o['after_s']:.2f}s")  # fmt: skip
    for kind, e in out["embedded"].items():
        toks = e["runs"][-1]
        print(f"{kind:12s} {e['model']}: first rollout {e['first_s']:.0f}s, cached "
              f"{e['cached_mean_s']}s ({e['first_vs_cached']}x), {e['rollouts_per_min']} "
              f"rollouts/min; tokens per rollout {toks['input_tokens']} in "
              f"({toks['cached_input_tokens']} cached) / {toks['output_tokens']} out")  # fmt: skip


if __name__ == "__main__":
    main()
