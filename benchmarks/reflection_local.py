"""REAL-MODEL benchmark: what the embedded 1.5B writes when asked about one problem at a time.

The demo's commit-message tasks (mined from the bundled sample sessions, reviewed to their
rule judges, as `skillopt-sleep demo` does): the 0.5B answers the first train and val tasks
with the sample skill (temperature 0.7, the demo's answer tokens), the failed answers are
grouped by problem (`trainer.reflect.failure_clusters`), and the 1.5B is asked about each
problem the way a night asks (`question_messages`, the one-edit proposal schema, temperature
0.7) `--samples` times. Per problem: proposals that parse, edits that apply to the skill, edits
made of the prompt's own words (dropped by the night), rules that write a run of six of the
skill's own words back, rules of at most 30 words, and rules on target — sharing a content
word with the problem (the user's words where the judge has them) without writing the skill
back.

Usage: python benchmarks/reflection_local.py [--json] [--tasks N] [--samples N]
"""

from __future__ import annotations

import argparse
import json
import re
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))

from learning_local import demo_tasks  # noqa: E402

from trainer import MemoryCache  # noqa: E402
from trainer.backends.config import local_from_config  # noqa: E402
from trainer.backends.factory import local_overrides  # noqa: E402
from trainer.backends.local import LocalModels  # noqa: E402
from trainer.budget import Budget  # noqa: E402
from trainer.calls import Caller, Request  # noqa: E402
from trainer.edits import apply_edits  # noqa: E402
from trainer.measure import Measurer  # noqa: E402
from trainer.reflect import (  # noqa: E402
    RULE_TOKENS,
    copies_prompt,
    failure_clusters,
    proposal_max_tokens,
    proposal_schema,
    question_messages,
    read_proposals,
    split_examples,
)
from trainer.rollout import ChatRollout  # noqa: E402
from trainer.skill import SkillDoc, tokens  # noqa: E402

LABEL = "REAL MODELS: embedded Qwen2.5-Coder (llama.cpp on this machine), no simulation."
STOP = {"the", "answer", "that", "this", "with", "what", "said", "user", "task", "than", "should"}


def words_of(text: str) -> set[str]:
    return {w for w in re.findall(r"[a-z#]{2,}", text.lower()) if len(w) >= 4 or "#" in w} - STOP


def copies_skill(text: str, body: str, run: int = 6) -> bool:
    """The rule repeats a run of `run` words of the skill (the skill written back)."""
    said, skill = tokens(text), " ".join(tokens(body))
    return any(" ".join(said[i : i + run]) in skill for i in range(len(said) - run + 1))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--json", action="store_true")
    ap.add_argument("--tasks", type=int, default=8)
    ap.add_argument("--samples", type=int, default=3)
    args = ap.parse_args()
    t0 = time.time()
    with tempfile.TemporaryDirectory(prefix="skillopt-reflection-") as tmp:
        tasks, start, config = demo_tasks(Path(tmp))
    train = [t for t in tasks if t.split != "test"][: args.tasks]
    doc = SkillDoc.parse(start)
    local = local_from_config(config["models"])
    say = (lambda m: None) if args.json else (lambda m: print(f"  {m}", file=sys.stderr))
    out: dict = {"label": LABEL, "tasks": len(train), "samples": args.samples, "problems": []}
    with LocalModels(local, local_overrides(config["models"]), progress=say) as models:
        roles = models.roles()
        caller = Caller(roles, MemoryCache(), Budget())
        answer_tokens = int(config["trainer"]["max_answer_tokens"])
        measure = Measurer(caller, ChatRollout(roles.target), Counter(), answer_tokens)
        got = measure.jobs([(doc, t, "answer:0") for t in train])
        rows = [(t, "0", *g) for t, g in zip(train, got, strict=True) if g is not None]
        fails, wins = split_examples(rows)
        out["failed"] = len(fails)
        for words, failed in failure_clusters(fails):
            messages = question_messages(
                doc, words, failed[:4], len(fails), wins[:2], [], max_prompt_tokens=3000
            )
            problem = {"problem": words, "failed": len(failed), "proposals": []}
            for k in range(args.samples):
                req = Request(messages, doc.hash, "reflect", k,
                              json_schema=proposal_schema(1, RULE_TOKENS, doc),
                              max_tokens=proposal_max_tokens(1, RULE_TOKENS))  # fmt: skip
                started = time.monotonic()
                (comp,) = caller.run("optimizer", [req])
                edits, _recovered = read_proposals(comp.text if comp else "")
                row = {"seconds": round(time.monotonic() - started, 1), "parsed": bool(edits)}
                if edits:
                    edit = edits[0]
                    _new, applied, _failed = apply_edits(doc, [edit])
                    copies = copies_skill(edit.text, doc.body)
                    row.update(
                        text=edit.text, kind=edit.kind, applies=bool(applied),
                        words=len(edit.text.split()), copies_prompt=copies_prompt(edit),
                        copies_skill=copies,
                        on_target=not copies and bool(words_of(edit.text) & words_of(words)),
                    )  # fmt: skip
                problem["proposals"].append(row)
                say(f"{words[:60]}: {row}")
            out["problems"].append(problem)
    out["wall_s"] = round(time.time() - t0, 1)
    if args.json:
        print(json.dumps(out, indent=2))
        return
    print(f"{LABEL}\n{out['failed']} of {out['tasks']} answers failed; {args.samples} asks each")
    for p in out["problems"]:
        rows = p["proposals"]
        count = {k: sum(bool(r.get(k)) for r in rows) for k in
                 ("parsed", "applies", "copies_prompt", "copies_skill", "on_target")}  # fmt: skip
        count["at most 30 words"] = sum(0 < r.get("words", 0) <= 30 for r in rows)
        print(f"- {p['problem']} ({p['failed']} failed): {count} of {len(rows)}")
        for r in rows:
            print(f"    {r.get('kind', '-')}: {r.get('text', '(unparseable)')!r}")
    print(f"({out['wall_s']:.0f}s)")


if __name__ == "__main__":
    main()
