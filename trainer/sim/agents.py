"""SIMULATION — the simulated target and judge (the optimizer is ``optimizer.py``).

Both are ordinary ChatBackends. They read the world they belong to; the world builds them
(``SimWorld.roles``), so this module needs its type only for annotations.
"""

from __future__ import annotations

import random
import re
from typing import TYPE_CHECKING, Any

from trainer.backends.base import Completion, Message, sample_seed
from trainer.sim.text import LABEL, content, seeded_rng
from trainer.skill import count_tokens

if TYPE_CHECKING:
    from trainer.sim.world import SimWorld

_WORD = re.compile(r"\w")


class SimTarget:
    """SIMULATION target: follows taught rules with high probability, and writes an answer
    that passes the judges of the rules it followed (`SimWorld.answer`).

    Paired seeds (`base.sample_seed`): a real sampler given one seed answers two similar
    skills alike until their token distributions part, so some paired answers coincide and
    the rest are as good as independent. Here a share `SimParams.paired_share` of the
    (task, sample) draws use the seed's random stream for whichever skill asks, so where both
    skills give a rule the same compliance the two answers agree on it; the other draws use
    the call's own stream. 0 is a target that cannot be seeded (the agent CLIs, an API
    without a seed parameter)."""

    simulation = True

    def __init__(self, world: SimWorld, concurrency: int = 1) -> None:
        self.world = world
        self.concurrency = concurrency
        self.identity = f"sim-target/{world.seed}/{world.params}"

    def complete(
        self,
        messages: list[Message],
        *,
        json_schema: dict[str, Any] | None = None,
        max_tokens: int | None = None,
    ) -> Completion:
        system = "\n".join(m["content"] for m in messages if m["role"] == "system")
        user = "\n".join(m["content"] for m in messages if m["role"] == "user")
        rng = self._rng(messages)
        task = self.world.by_prompt.get(" ".join(user.split()))
        followed = set()
        if task is not None:
            for rid, q in sorted(self.world.follow_probs(system, task.id).items()):
                if rng.random() < q:
                    followed.add(rid)
        text = self.world.answer(task.id if task else "", followed)
        # count_tokens(system + user), with the skill's count kept by the world: a word
        # across the seam is one token, not two
        seam = bool(_WORD.match(system[-1:])) and bool(_WORD.match(user[:1]))
        n_input = self.world.n_tokens(system) + count_tokens(user) - seam
        return Completion(text, n_input, count_tokens(text), 0.0)

    def _rng(self, messages: list[Message]) -> random.Random:
        seed = sample_seed()
        if seed is not None:
            paired = random.Random(f"{LABEL}:{self.world.seed}:paired:{seed}")
            if paired.random() < self.world.params.paired_share:
                return paired
        return seeded_rng(self.world.seed, "target", messages)


class SimJudge:
    """SIMULATION judge for rubric judges: share of rubric content words in the answer."""

    simulation = True

    def __init__(self, world: SimWorld, concurrency: int = 1) -> None:
        self.world = world
        self.concurrency = concurrency
        self.identity = f"sim-judge/{world.seed}"

    def complete(
        self,
        messages: list[Message],
        *,
        json_schema: dict[str, Any] | None = None,
        max_tokens: int | None = None,
    ) -> Completion:
        user = messages[-1]["content"]
        rubric = user.split("Rubric:", 1)[-1].split("Answer:", 1)[0]
        answer = user.split("Answer:", 1)[-1]
        want = content(rubric)
        score = len(want & content(answer)) / len(want) if want else 1.0
        text = f'{{"score": {score:.3f}, "reason": "covers {score:.0%} of what was asked"}}'
        return Completion(text, count_tokens(user), count_tokens(text), 0.0)
