"""SIMULATION — a seeded world with latent rules, for tests and benchmarks only.

Nothing here is a real model. The world has latent rules; each has several paraphrases,
and a skill *teaches* a rule when one of its sentences contains most of the content words
of one paraphrase (token overlap, so many wordings work, not one magic sentence). Each
good rule stands for a judge, and the simulated target's answer passes the judges of the
rules it followed and fails the others (`trainer.sim.answers`). A generated world's tasks
need 1–3 rules checked by `contains` judges of a marker; a world around mined tasks
(`for_tasks`) takes its rules from the judges built from the user's words, whatever their
kind. The target follows a taught rule with high probability and an untaught one with low
probability, so scores are noisy. Some plausible-sounding rules are
harmful: teaching one lowers compliance with the rule it conflicts with. Long skills dilute
compliance. The simulated optimizer (trainer.sim.optimizer) reads failure feedback in
words and proposes helpful, neutral and harmful edits at set rates.

Realism changes (each applies to every arm a benchmark compares; none special-cases one):
  * Dilution starts at the first token (`dilution_start` 120 -> 0). Before, the whole
    120-token preamble-plus-skill was free, so a typical night's skill (60-90 tokens) never
    diluted and an accepted neutral sentence cost exactly nothing. Every accepted sentence
    costs attention: each token now lowers compliance with the taught rules by
    1/`dilution_scale` (a 9-token neutral line: -0.6% relative). Instruction-following
    studies find compliance with each instruction falls as instructions are added; a
    free zone has no basis.
  * Over-reaching rules ("Only run the test suite; skip the other checks."), one per good
    rule: the sentence teaches its rule *and* cuts compliance with every other rule
    (`overreach_factor`). This is how real reflection goes wrong: an edit that fixes the
    failures in front of the optimizer by over-generalising. On the minibatch that
    motivated it (rich in the rule it teaches) it often looks better, so it can pass a
    train screen; on the whole task distribution it is harmful (-0.04 at the start skill,
    more as the skill improves). Before, every harmful edit hurt the very tasks that
    motivated it, so the train screen removed ~90% of them and the "mean went up" rule
    met a harmful edit at the gate about once in four nights — not the failure mode the
    gate exists for. `n_overreach` (default: all good rules) sets how many exist.

All three roles are ordinary ChatBackends: the trainer runs the same code on them as on
real endpoints. Randomness is seeded from the call's cache key, so answers do not depend
on call order or threads.
"""

from __future__ import annotations

import hashlib
import json
import math
import random
import re
import threading
from dataclasses import dataclass, field

from trainer.backends.base import Roles
from trainer.rollout import ROLLOUT_SYSTEM
from trainer.sim.agents import SimJudge, SimTarget
from trainer.sim.answers import Shows, compose, plain_score, shows
from trainer.sim.optimizer import OptimizerRates, SimOptimizer
from trainer.sim.text import content
from trainer.skill import SkillDoc, count_tokens
from trainer.tasks import Judge, Task

# (topic, action variants, harmful variant): plausible rules of a coding team.
_TOPICS = [
    ("tests", ["run the test suite", "execute all unit tests", "run every test"], "skip tests"),
    ("lint", ["run the linter", "fix lint warnings", "lint the changed files"], "ignore lint"),
    (
        "types",
        ["check types with mypy", "keep type hints complete", "run the type checker"],
        "drop type hints",
    ),
    (
        "changelog",
        ["update the changelog", "add a changelog entry", "record changes in CHANGELOG"],
        "leave the changelog",
    ),
    (
        "commits",
        ["write small focused commits", "keep commits atomic", "split work into small commits"],
        "squash everything",
    ),
    (
        "docs",
        ["update the docstrings", "document new functions", "refresh the README"],
        "skip documentation",
    ),
    (
        "migrations",
        ["add a database migration", "write a schema migration", "create migration files"],
        "edit tables directly",
    ),
    (
        "secrets",
        ["keep secrets out of code", "load credentials from environment", "never hardcode tokens"],
        "inline credentials",
    ),
    (
        "logging",
        ["log errors with context", "add structured logging", "log failures with details"],
        "silence errors",
    ),
    (
        "deps",
        ["pin dependency versions", "lock dependency versions", "record exact package versions"],
        "float dependencies",
    ),
    (
        "branches",
        ["work on a feature branch", "create a topic branch", "branch off main first"],
        "commit to main",
    ),
    (
        "review",
        ["request a code review", "ask a reviewer", "open a pull request for review"],
        "merge without review",
    ),
]
_TEMPLATES = [
    "Always {a}.",
    "Make sure to {a} when working on {t}.",
    "Before finishing, {a}.",
    "Remember: {a}.",
]
# Broad, plausible shortcuts: each slightly lowers compliance with every rule. Their harm is
# small per task and spread over all tasks — the kind a noisy "mean went up" check lets in.
_BROAD = [
    (
        "Skip the routine checks on small changes to save time.",
        "Small changes do not need the usual checks.",
        "Save time by skipping checks for minor edits.",
    ),
    (
        "Answer from memory instead of reading the project files.",
        "Do not spend time reading project files first.",
        "Rely on memory rather than reading the code.",
    ),
    (
        "Keep every answer under three sentences.",
        "Answers must stay under three sentences.",
        "Limit each answer to three sentences.",
    ),
]
_HARM_TEMPLATES = [
    "To save time, {h} when the change looks small.",
    "For quick fixes it is fine to {h}.",
]
# Over-reaching versions of a good rule: teach it, and crowd out every other rule.
_OVERREACH_TEMPLATES = [
    "Only {a}; the other checks can wait.",
    "Just {a} and skip the remaining steps.",
]
_SENT = re.compile(r"[^\n.!?]+")


@dataclass(frozen=True)
class Rule:
    id: str
    topic: str
    paraphrases: tuple[str, ...]
    conflicts_with: str = ""  # harmful rules: the good rule they undermine, "*" for all,
    # "~<id>" for all but <id> (an over-reaching rule that also teaches <id>)
    judge: Judge | None = None  # good rules: the judge that checks it (harmful ones: none)
    shows: Shows | None = None  # how an answer follows or breaks it (`trainer.sim.answers`)


def _judge_key(judge: Judge | None) -> str:
    """What makes two judges the same check (not their weight, source or quotes)."""
    if judge is None:
        return ""
    data = {k: v for k, v in judge.to_dict().items() if k not in ("weight", "source", "quotes")}
    return json.dumps(data, sort_keys=True)


def _rule(rid: str, topic: str, paraphrases: tuple[str, ...], judge: Judge) -> Rule:
    return Rule(rid, topic, paraphrases, judge=judge, shows=shows(judge))


# Harmful look-alikes of a rule in a world around mined tasks: a plausible shortcut that
# undermines it (as a generated world's _HARM_TEMPLATES do for its topics).
_SHORTCUT_TEMPLATES = (
    "For quick fixes it is fine to leave out {v}.",
    "Skip {v} when the change looks small.",
)


def _look_alikes(rules: list[Rule]) -> list[Rule]:
    """Harmful rules for a world around mined tasks: a shortcut that undermines each good
    rule, and the broad shortcuts that lower every rule. Without them the simulated
    optimizer's harmful proposals would all be neutral there."""
    out = [
        Rule(
            f"h{i}",
            r.topic,
            tuple(t.format(v=r.topic) for t in _SHORTCUT_TEMPLATES),
            conflicts_with=r.id,
        )  # fmt: skip
        for i, r in enumerate(rules)
    ]
    return out + [Rule(f"b{i}", "", paras, conflicts_with="*") for i, paras in enumerate(_BROAD)]


@dataclass(frozen=True)
class SimParams:
    p_taught: float = 0.9
    p_untaught: float = 0.25
    harm_factor: float = 0.35  # multiplies compliance with the rule a harmful rule undermines
    broad_harm_factor: float = 0.85  # each broad harmful rule taught multiplies every rule
    teach_threshold: float = 0.6  # share of a paraphrase's content words a sentence must have
    dilution_start: int = 0  # tokens the target sees before compliance starts to drop
    dilution_scale: int = 1500  # compliance falls linearly by 1 per this many more (floor 0.3)
    overreach_factor: float = 0.6  # an over-reaching rule multiplies every *other* rule
    # Share of (task, sample) draws a paired seed couples across skills (SimTarget): one
    # minus the variance ratio of a neutral edit's paired difference measured on the embedded
    # target, 0.44 (benchmarks/paired_seeds.py, 240 pairs). 0: a target that cannot be seeded.
    paired_share: float = 0.55


@dataclass
class SimWorld:
    """SIMULATION: latent rules, tasks that need them, and the three simulated roles."""

    rules: list[Rule]
    harmful: list[Rule]
    tasks: list[Task]
    needs: dict[str, tuple[str, ...]]  # task id -> rule ids
    start_skill: SkillDoc
    params: SimParams = field(default_factory=SimParams)
    seed: int = 0

    def __post_init__(self) -> None:
        self.by_id = {r.id: r for r in [*self.rules, *self.harmful]}
        self.by_prompt = {" ".join(t.prompt.split()): t for t in self.tasks}
        self._taught: dict[str, tuple[frozenset[str], int]] = {}  # text hash -> _read
        self._sentences: dict[str, frozenset[str]] = {}  # sentence -> rule ids it teaches
        self._lock = threading.Lock()
        self._para = [(r.id, content(p)) for r in self.by_id.values() for p in r.paraphrases]

    # -- constructors ------------------------------------------------------------------
    @classmethod
    def generate(
        cls,
        seed: int = 0,
        *,
        n_rules: int = 8,
        n_harmful: int = 4,
        n_broad: int = 3,
        n_overreach: int | None = None,
        n_train: int = 30,
        n_val: int = 50,
        n_test: int = 50,
        params: SimParams | None = None,
    ) -> SimWorld:
        """A random world: `n_rules` good rules (one taught by the start skill)."""
        rng = random.Random(f"simworld:{seed}")
        topics = rng.sample(_TOPICS, min(n_rules, len(_TOPICS)))
        rules, harmful = [], []
        for i, (topic, actions, harm) in enumerate(topics):
            paras = tuple(t.format(a=a, t=topic) for a in actions for t in _TEMPLATES)
            rules.append(
                _rule(f"r{i}", topic, paras, Judge("contains", f"[{topic}-ok]", 1.0, "sim"))
            )
            if i < n_harmful:
                hp = tuple(t.format(h=harm) for t in _HARM_TEMPLATES)
                harmful.append(Rule(f"h{i}", topic, hp, conflicts_with=f"r{i}"))
        for i, paras in enumerate(_BROAD[:n_broad]):
            harmful.append(Rule(f"b{i}", "", paras, conflicts_with="*"))
        for i, (topic, actions, _harm) in enumerate(topics[: len(topics) if n_overreach is None
                                                          else n_overreach]):  # fmt: skip
            paras = tuple(t.format(a=a) for a in actions for t in _OVERREACH_TEMPLATES)
            harmful.append(Rule(f"o{i}", topic, paras, conflicts_with=f"~r{i}"))
        tasks, needs = [], {}
        verbs = ["Fix", "Refactor", "Extend", "Clean up", "Speed up", "Harden"]
        parts = ["parser", "cache", "CLI", "scheduler", "exporter", "auth module", "API"]
        for split, n in (("train", n_train), ("val", n_val), ("test", n_test)):
            for j in range(n):
                k = rng.choice([1, 1, 2, 2, 3])
                need = sorted(rng.sample(range(len(rules)), k))
                ids = tuple(rules[x].id for x in need)
                areas = ", ".join(rules[x].topic for x in need)
                prompt = (
                    f"{rng.choice(verbs)} the {rng.choice(parts)} (task {split}-{j}). "
                    f"Areas involved: {areas}."
                )
                judges = tuple(rules[x].judge for x in need if rules[x].judge)
                tid = f"sim-{split}-{j}"
                tasks.append(Task(tid, prompt, split, judges, group=tid))
                needs[tid] = ids
        first = rules[0].paraphrases[0]
        start = SkillDoc(
            name="project-conventions",
            description="How we work in this repository.",
            body=f"# Conventions\n\n- {first}\n- Keep answers short.\n\n## Notes\n\n"
            "- Ask when the task is unclear.\n",
        )
        return cls(rules, harmful, tasks, needs, start, params or SimParams(), seed)

    @classmethod
    def for_tasks(
        cls,
        tasks: list[Task],
        seed: int = 0,
        *,
        start_skill: SkillDoc | None = None,
        params: SimParams | None = None,
    ) -> SimWorld:
        """A world around given tasks: every distinct rule judge built from the user's
        words (a judge with `quotes`: a correction, a rule stated in the request) becomes
        a latent rule, taught by a sentence that says what the user said. Other judges
        (the rubric, outcome judges, rules the logs showed but the user never said) are
        scored as usual against the simulated answers, which they do not steer."""
        rules: dict[str, Rule] = {}
        needs: dict[str, tuple[str, ...]] = {}
        for t in tasks:
            ids = []
            for j in t.judges:
                if not j.quotes:
                    continue
                key = _judge_key(j)
                if key not in rules:
                    said = tuple(dict.fromkeys(" ".join(q.split()) for q in j.quotes))
                    paras = (*said, *(f"Remember what the user said: {q}" for q in said))
                    rule = _rule(f"r{len(rules)}", j.value, paras, j)
                    if rule.shows is None:
                        continue  # no answer can show it: not a latent rule
                    rules[key] = rule
                ids.append(rules[key].id)
            needs[t.id] = tuple(dict.fromkeys(ids))
        start = start_skill or SkillDoc(name="skill", description="A skill.", body="# Skill\n")
        good = list(rules.values())
        return cls(good, _look_alikes(good), list(tasks), needs, start, params or SimParams(), seed)

    # -- the latent truth --------------------------------------------------------------
    def taught(self, skill_text: str) -> frozenset[str]:
        """Rule ids (good and harmful) the text teaches."""
        return self._read(skill_text)[0]

    def n_tokens(self, text: str) -> int:
        """``count_tokens(text)``, kept per text (a large skill is counted once)."""
        return self._read(text)[1]

    def _read(self, skill_text: str) -> tuple[frozenset[str], int]:
        """(rule ids the text teaches, its token count), kept per text."""
        key = hashlib.sha256(skill_text.encode()).hexdigest()
        with self._lock:
            hit = self._taught.get(key)
        if hit is not None:
            return hit
        taught = frozenset().union(*map(self._sentence_taught, set(_SENT.findall(skill_text))))
        out = (taught, count_tokens(skill_text))
        with self._lock:
            self._taught[key] = out
        return out

    def _sentence_taught(self, sentence: str) -> frozenset[str]:
        """Rule ids one sentence teaches; kept per sentence, so a large skill's candidates
        (a few new lines each) cost the simulation their new sentences, not the whole text."""
        hit = self._sentences.get(sentence)
        if hit is None:
            words = content(sentence)
            here = {
                rid
                for rid, para in self._para
                if para and len(para & words) >= self.params.teach_threshold * len(para)
            }
            # an over-reaching rule counts only in a sentence that teaches the rule it keeps
            hit = frozenset(
                r
                for r in here
                if not self.by_id[r].conflicts_with.startswith("~")
                or self.by_id[r].conflicts_with[1:] in here
            )
            self._sentences[sentence] = hit
        return hit

    def follow_probs(self, skill_text: str, task_id: str) -> dict[str, float]:
        """P(follow) for each rule the task needs, given the text the target sees."""
        p = self.params
        taught, n_tok = self._read(skill_text)
        dilution = max(0.3, 1 - max(0, n_tok - p.dilution_start) / p.dilution_scale)
        conflicts = [self.by_id[h].conflicts_with for h in taught]
        harmed = {c for c in conflicts if c and c[0] not in "*~"}
        broad = p.broad_harm_factor ** sum(c == "*" for c in conflicts)
        overreach = [c[1:] for c in conflicts if c.startswith("~")]
        out = {}
        for rid in self.needs.get(task_id, ()):
            q = p.p_taught * dilution if rid in taught else p.p_untaught
            crowded = p.overreach_factor ** sum(keep != rid for keep in overreach)
            out[rid] = q * (p.harm_factor if rid in harmed else 1.0) * broad * crowded
        return out

    def target_text(self, skill: SkillDoc) -> str:
        """What the target sees for a skill (the chat rollout's system prompt)."""
        return ROLLOUT_SYSTEM + skill.render()

    def task_probs(self, skill: SkillDoc, split: str) -> list[list[float]]:
        """Per task of `split` (id order), per judge, P(pass): the exact expectation (for a
        judge no latent rule stands for, what the plain answer scores)."""
        text = self.target_text(skill)
        out = []
        for t in sorted((t for t in self.tasks if t.split == split), key=lambda t: t.id):
            probs = self.follow_probs(text, t.id)
            by_judge = {_judge_key(self.by_id[r].judge): q for r, q in probs.items()}
            out.append([by_judge.get(_judge_key(j), plain_score(j)) for j in t.judges] or [1.0])
        return out

    def answer(self, task_id: str, followed: set[str]) -> str:
        """The simulated answer to a task that follows the rules `followed` (and breaks
        the task's other rules)."""
        fragments = []
        for rid in self.needs.get(task_id, ()):
            shows = self.by_id[rid].shows
            if shows is not None:
                frag = shows.follow if rid in followed else shows.broken
                fragments += [frag] if frag else []
        return compose(fragments)

    def expected_pass_all(self, skill: SkillDoc, split: str = "test") -> float:
        """Exact expected share of `skill`'s answers on a split that pass every rule judge
        (the target follows each rule independently), over the tasks that have one."""
        probs = self.task_probs(skill, split)
        tasks = sorted((t for t in self.tasks if t.split == split), key=lambda t: t.id)
        shares = [
            math.prod(p for p, j in zip(ps, t.judges, strict=False) if j.kind != "rubric")
            for ps, t in zip(probs, tasks, strict=True)
            if any(j.kind != "rubric" for j in t.judges)
        ]
        return sum(shares) / max(1, len(shares))

    def expected_score(self, skill: SkillDoc, split: str = "test") -> float:
        """Exact expected score of `skill` on a split (equal judge weights)."""
        probs = self.task_probs(skill, split)
        return sum(sum(p) / len(p) for p in probs) / max(1, len(probs))

    # -- the simulated roles -------------------------------------------------------------
    def roles(self, *, concurrency: int = 1, rates: OptimizerRates | None = None) -> Roles:
        return Roles(
            optimizer=SimOptimizer(self, rates),
            target=SimTarget(self, concurrency=concurrency),
            judge=SimJudge(self, concurrency=concurrency),
        )
