"""SIMULATION optimizer: reads the reflection prompt like a model would and proposes edits.

It sees only what a real optimizer sees — the skill, the failed tasks and the feedback in
words — and uses the world's latent rules to decide what a *competent* reflection would
suggest for those failures. With set rates it proposes a helpful edit (a paraphrase of a
rule the failed tasks need and the skill does not teach), a neutral one (sounds fine,
changes nothing) or a harmful one (a plausible shortcut that undermines a needed rule),
places it after an anchor, at the end of a section or at the end, and sometimes gets the
anchor wrong or returns broken JSON — so the engine's error paths are exercised too.
Asked to answer a task for a worked example (`trainer.demos`), it gives an empty answer:
the simulated world models rules, not answers, so it has no examples to give.

Harmful proposals come in three kinds, a third each when the failures point at a rule: a
shortcut that undermines a needed rule, a broad shortcut that lowers every rule, and an
over-reaching version of a rule the failures need ("Only run the test suite; the other
checks can wait.") — the plausible overfit that fixes the shown failures and can pass a
train screen while hurting the task distribution (see trainer.sim). The total harmful
rate is unchanged (`OptimizerRates.harmful`).
"""

from __future__ import annotations

import json
import re
from collections import Counter
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from trainer import demos
from trainer.backends.base import Completion, Message
from trainer.scoring import _WORDS as FAILURE_WORDS  # what reflection hears, per judge kind
from trainer.sim.text import seeded_rng
from trainer.skill import count_tokens

if TYPE_CHECKING:
    from trainer.sim.world import SimWorld

# What reflection hears when a rule judge failed (not the rubric's grade, not a non-answer).
RULE_WORDS = tuple(words for kind, words in FAILURE_WORDS.items() if kind != "rubric")
NEUTRAL = [
    "Be clear and precise in every answer.",
    "Explain the reasoning briefly when it helps.",
    "Prefer simple solutions over clever ones.",
    "Read the surrounding code before changing it.",
    "Keep the tone friendly and professional.",
    "Mention any assumption you had to make.",
]


@dataclass(frozen=True)
class OptimizerRates:
    """SIMULATION: how often the simulated optimizer proposes each kind of edit."""

    helpful: float = 0.35
    harmful: float = 0.3  # the rest is neutral
    bad_anchor: float = 0.1
    malformed: float = 0.05  # broken JSON (json_repair may or may not recover it)
    garbage: float = 0.02  # no JSON at all: counted as unparseable


class SimOptimizer:
    """SIMULATION optimizer backend."""

    simulation = True
    concurrency = 1

    def __init__(self, world: SimWorld, rates: OptimizerRates | None = None) -> None:
        self.world = world
        self.rates = rates or OptimizerRates()
        r = self.rates
        self.identity = (
            f"sim-optimizer/{world.seed}/{r.helpful}/{r.harmful}/{r.bad_anchor}/"
            f"{r.malformed}/{r.garbage}"
        )

    def complete(
        self,
        messages: list[Message],
        *,
        json_schema: dict[str, Any] | None = None,
        max_tokens: int | None = None,
    ) -> Completion:
        system, user = messages[0]["content"], messages[-1]["content"]
        if system == demos.SYSTEM:
            return Completion("", count_tokens(user), 0)
        rng = seeded_rng(self.world.seed, "optimizer", messages)
        max_edits = json_schema["properties"]["edits"]["maxItems"] if json_schema else 1
        body = user.split("<<<\n", 1)[-1].split("\n>>>", 1)[0]
        tried = set(re.findall(r"^- (?:\w+: )?(.*)$", user.split("ALREADY TRIED", 1)[-1], re.M))
        taught = self.world.taught(body)
        wanted: Counter[str] = Counter()
        failed = user.split("PASSED TASKS")[0]
        problem = re.search(r"^WHAT WENT WRONG \(.*?\): (.*)$", failed, re.M)
        words = problem.group(1) if problem else ""
        for excerpt in re.findall(r"^\d+\. Task: (.*)$", failed, re.M):
            task = self._task(excerpt)
            if task is not None and any(w in words for w in RULE_WORDS):  # a rule was missed
                wanted.update(r for r in self.world.needs[task.id] if r not in taught)
        edits = []
        for _ in range(rng.randint(1, max_edits)):
            edits.append(self._edit(rng, body, wanted, taught, tried))
        text = json.dumps({"edits": edits})
        roll = rng.random()
        if roll < self.rates.garbage:
            text = "I think the skill should be improved by being clearer."
        elif roll < self.rates.garbage + self.rates.malformed:
            text = text[: max(2, int(len(text) * rng.uniform(0.5, 0.95)))]  # cut off
        return Completion(text, count_tokens(system + user), count_tokens(text), 0.0)

    def _task(self, excerpt: str) -> Any:
        excerpt = excerpt.removesuffix("...")
        for prompt, task in self.world.by_prompt.items():
            if prompt.startswith(excerpt):
                return task
        return None

    def _edit(
        self, rng: Any, body: str, wanted: Counter[str], taught: frozenset[str], tried: set[str]
    ) -> dict[str, str]:
        roll = rng.random()
        harms_in_skill = [h for h in self.world.harmful if h.id in taught]
        text, kind, anchor = "", "add", ""
        if roll < self.rates.helpful and harms_in_skill and rng.random() < 0.3:
            line = self._line_with(body, harms_in_skill[0].paraphrases)
            if line:
                return {"kind": "delete", "anchor": line, "text": "", "why": "harmful"}
        if roll < self.rates.helpful and wanted:
            top = [r for r, _ in wanted.most_common(3)]
            rule = self.world.by_id[rng.choice(top)]
            text = rng.choice(rule.paraphrases)
        elif self.rates.helpful <= roll < self.rates.helpful + self.rates.harmful and (
            self.world.harmful
        ):  # a helpful roll with nothing wanted is neutral, never harmful
            top = {r for r, _ in wanted.most_common(3)}
            over = [h for h in self.world.harmful if h.conflicts_with[1:] in top]
            targeted = [h for h in self.world.harmful if h.conflicts_with in wanted]
            broad = [h for h in self.world.harmful if h.conflicts_with == "*"]
            kind_roll = rng.random()
            if over and kind_roll < 1 / 3:
                pool = over
            else:
                pool = (broad if broad and kind_roll < 2 / 3 else targeted) or broad
                pool = pool or [h for h in self.world.harmful if h.conflicts_with[:1] != "~"]
            text = rng.choice(rng.choice(pool or self.world.harmful).paraphrases)
        else:
            text = rng.choice(NEUTRAL)
        if text in tried:
            text = rng.choice(NEUTRAL)
        lines = [ln for ln in body.splitlines() if ln.strip() and not ln.startswith("#")]
        heads = [ln.lstrip("#").strip() for ln in body.splitlines() if ln.startswith("#")]
        edit = {"kind": kind, "text": f"- {text}", "why": "helps the failed tasks"}
        place = rng.random()
        if place < self.rates.bad_anchor:
            edit["anchor"] = "- " + rng.choice(NEUTRAL).upper()  # not in the skill
        elif place < 0.55 and lines:
            edit["anchor"] = anchor or rng.choice(lines)
        elif heads:
            edit["section"] = rng.choice(heads)
        return edit

    @staticmethod
    def _line_with(body: str, paraphrases: tuple[str, ...]) -> str:
        for line in body.splitlines():
            if any(p.rstrip(".") in line for p in paraphrases):
                return line
        return ""
