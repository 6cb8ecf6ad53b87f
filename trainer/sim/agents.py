"""SIMULATION — the simulated target and judge (the optimizer is ``optimizer.py``).

Both are ordinary ChatBackends. They read the world they belong to; the world builds them
(``SimWorld.roles``), so this module needs its type only for annotations.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from trainer.backends.base import Completion, Message
from trainer.sim.text import content, seeded_rng
from trainer.skill import count_tokens

if TYPE_CHECKING:
    from trainer.sim.world import SimWorld


class SimTarget:
    """SIMULATION target: follows taught rules with high probability."""

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
        rng = seeded_rng(self.world.seed, "target", messages)
        task = self.world.by_prompt.get(" ".join(user.split()))
        followed = []
        if task is not None:
            for rid, q in sorted(self.world.follow_probs(system, task.id).items()):
                if rng.random() < q:
                    followed.append(self.world.by_id[rid].marker)
        text = "Done. " + " ".join(followed) + " I made the change and checked it."
        return Completion(text, count_tokens(system + user), count_tokens(text), 0.0)


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
