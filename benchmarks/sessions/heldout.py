"""Held-out session logs: one developer's Claude Code and Codex sessions, written apart from
the mining code and never used to tune it.

    from benchmarks.sessions.heldout import write
    truth = write(root, seed=1, n_sessions=300)

writes ``root/claude/projects/<dir>/<session>.jsonl`` (Claude Code 2.1.x transcripts) and,
for a fifth of the sessions, ``root/codex/sessions/YYYY/MM/DD/rollout-….jsonl`` (Codex
rollouts), spread over at least 21 days and five projects, plus the user's five skills
(``root/claude/skills/<name>/SKILL.md``, ``root/codex/skills/<name>/SKILL.md``).

What is in them:

* eight recurring kinds of work (``heldout_text.KIND_WAYS``), each asked six ways that
  share few content words, with the user's filler, case and typos; at 300 sessions a kind
  has 15–52 sessions (the shares are fixed, their order is drawn per seed);
* five kinds have a skill of the user's, invoked in 60% of their sessions: in Claude by
  the model (``Skill`` tool) or by the user typing ``/name [args]`` (30% of invocations,
  args empty, terse or a sentence); in Codex by ``$name`` in the prompt. 4% of the
  model-made invocations of ``changelog``/``release-notes`` pick the other one; a Codex
  session of a skill's kind that does not invoke it reads the SKILL.md itself 30% of the
  time (a file read, not an invocation);
* each kind's characteristic commands and files (``heldout_kinds``), and the moves every
  session may make (``git status``, ``ls``, the README);
* one-off requests (``heldout_text.ONE_OFFS``, each used once before any repeats) that use
  the same common tools, some sharing a kind's words; 3% of one-off and skill-less
  sessions end with the agent committing through ``commit-msg`` (a stray invocation);
* follow-ups: 15% of kind sessions get a correction (a quarter of them after the user
  refused the agent's last edit), 10% an acknowledgement; 10% of one-offs an ack.

Returns the ground truth::

    {"kinds": {kind: {"skill": name | None}},
     "requests": [{"session_id", "text", "kind", "follow_up", "skill", "one_off"}]}

``text`` is the request as the log holds it: the prompt, or ``/name args`` for a typed
command (ingest's command text). ``kind`` is the session's kind (None for a one-off),
``follow_up`` marks a later turn of the session (a correction or thanks, not a new
request: score task requests on ``follow_up`` False), ``skill`` the skill the log records
for that turn (``Skill`` tool, ``/name``, ``$name``; None otherwise), ``one_off`` a one-off's
template (None otherwise): past 60 one-offs the templates come round again, so at 2k sessions
each is asked about ten times, a recurring request the generator did not plant. Sessions are written
one file at a time (100k sessions: see ``python benchmarks/sessions/heldout.py``).
Deterministic by seed.
"""

from __future__ import annotations

import argparse
import os
import random
import re
import sys
import time
from datetime import UTC, date, datetime, timedelta
from pathlib import Path
from typing import Any

if __name__ == "__main__":
    sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from benchmarks.sessions import heldout_kinds as K  # noqa: E402
from benchmarks.sessions import heldout_plans as P  # noqa: E402
from benchmarks.sessions.heldout_claude import ClaudeSession, uuid4  # noqa: E402
from benchmarks.sessions.heldout_codex import CodexSession, uuid7  # noqa: E402
from benchmarks.sessions.heldout_text import (  # noqa: E402
    ACKS,
    CORRECTIONS,
    KIND_WAYS,
    ONE_OFFS,
    SHORT_ARGS,
    habits,
)
from benchmarks.sessions.heldout_world import (  # noqa: E402
    BY_NAME,
    SKILL_BODIES,
    Project,
    skill_md,
)

SKILLS = {
    "commit_message": "commit-msg",
    "changelog_entry": "changelog",
    "alembic_migration": "alembic-migrate",
    "dependency_bump": "bump-deps",
    "release_notes": "release-notes",
}
NEIGHBOUR = {"changelog": "release-notes", "release-notes": "changelog"}
# Kind sizes as shares of all sessions (at 300: 52 38 30 24 20 17 16 15); the one-offs
# take the rest (about 29%). Which kind gets which share is drawn per seed.
SHARES = (0.174, 0.127, 0.1, 0.08, 0.067, 0.057, 0.053, 0.05)
# Where each kind happens: project name -> weight.
WHERE = {
    "commit_message": {"ledgerly": 3, "tidepool": 3, "quill": 2, "fastslug": 1, "notes-site": 1},
    "changelog_entry": {"ledgerly": 2, "tidepool": 2, "quill": 2, "fastslug": 1},
    "alembic_migration": {"ledgerly": 3, "tidepool": 2},
    "flaky_test": {"ledgerly": 2, "tidepool": 2, "quill": 1},
    "dependency_bump": {"ledgerly": 2, "tidepool": 2, "quill": 1, "fastslug": 1},
    "ci_summary": {"ledgerly": 2, "tidepool": 2, "quill": 1, "fastslug": 1},
    "release_notes": {"quill": 2, "fastslug": 2, "tidepool": 1},
    "regression_test": {"ledgerly": 2, "tidepool": 2, "quill": 1, "fastslug": 1},
    None: {"ledgerly": 3, "tidepool": 3, "quill": 2, "fastslug": 2, "notes-site": 1},
}
INVOKE = 0.6  # of a skill kind's sessions, those that invoke its skill
SLASH = 0.3  # of the Claude invocations, those the user types as /name
CODEX = 0.2  # of all sessions, those run in Codex
CODEX_SHELL_COMMAND = 0.25  # of the Codex sessions, those on a model using shell_command
CORRECT, ACK = 0.15, 0.10  # of kind sessions, those with a correction / a thanks after
ONE_OFF_ACK = 0.10  # of one-off sessions, those with a thanks after
REFUSE = 0.25  # of the corrections, those made after refusing the agent's last edit
STRAY = 0.03  # of one-off and skill-less sessions, those ending in a commit-msg invocation
WRONG_SKILL = 0.04  # of model-made changelog / release-notes invocations, the other skill
IMPLICIT = 0.3  # of Codex skill-kind sessions without $name, those reading the SKILL.md
CLAUDE_VERSIONS = ("2.1.318", "2.1.324", "2.1.329", "2.1.332")
CODEX_VERSIONS = ("0.138.0", "0.139.0", "0.141.0")
LOCAL = timedelta(hours=5, minutes=30)  # Asia/Kolkata, no DST
FIRST_DAY = date(2026, 3, 2)


def write(root: Path, seed: int, n_sessions: int = 300) -> dict[str, Any]:
    """Write the held-out tree under ``root`` and return its ground truth (module doc)."""
    rng = random.Random(seed)
    root = Path(root)
    specs = _schedule(rng, n_sessions)
    truth: dict[str, Any] = {
        "kinds": {k: {"skill": SKILLS.get(k)} for k in K.KINDS},
        "requests": [],
    }
    one_offs = _Cycle(len(ONE_OFFS), rng)
    made: set[Path] = set()
    span = (specs[-1][0] - specs[0][0]).total_seconds() or 1.0
    for start, kind, codex, invoke in specs:
        era = (start - specs[0][0]).total_seconds() / span
        reqs = _session(rng, root, made, start, era, kind, codex, invoke, one_offs)
        truth["requests"].extend(reqs)
    for name in SKILL_BODIES:
        for tool in ("claude", "codex"):
            path = root / tool / "skills" / name / "SKILL.md"
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(skill_md(name))
    return truth


def _schedule(rng: random.Random, n: int) -> list[tuple[datetime, str | None, bool, bool]]:
    """(start in UTC, kind, is Codex, invokes its skill) per session, in time order."""
    kinds = list(K.KINDS)
    rng.shuffle(kinds)
    labels: list[str | None] = []
    invokes: list[bool] = []
    for kind, share in zip(kinds, SHARES, strict=True):
        size = max(1, round(share * n))
        k = round(INVOKE * size) if kind in SKILLS else 0
        flags = [True] * k + [False] * (size - k)
        rng.shuffle(flags)
        labels += [kind] * size
        invokes += flags
    labels += [None] * max(0, n - len(labels))
    invokes += [False] * (len(labels) - len(invokes))
    order = list(range(len(labels)))
    rng.shuffle(order)
    codex = set(rng.sample(range(len(labels)), round(CODEX * len(labels))))
    days = max(21, min(180, n // 12))
    first = FIRST_DAY + timedelta(days=rng.randrange(60))
    weights = [0.25 if (first + timedelta(d)).weekday() >= 5 else 1.0 for d in range(days)]
    starts = []
    for _ in labels:
        d = rng.choices(range(days), weights)[0]
        hour = rng.uniform(9, 21) if rng.random() < 0.93 else rng.uniform(21.5, 25.5)
        local = datetime.combine(first + timedelta(d), datetime.min.time()) + timedelta(hours=hour)
        starts.append((local - LOCAL).replace(tzinfo=UTC, microsecond=0))
    starts.sort()
    return [(starts[i], labels[j], i in codex, invokes[j]) for i, j in enumerate(order)]


class _Cycle:
    """Indexes in a shuffled order; each is used once before any is used again."""

    def __init__(self, n: int, rng: random.Random) -> None:
        self.n, self.rng, self.left = n, rng, []

    def next(self) -> int:
        if not self.left:
            self.left = list(range(self.n))
            self.rng.shuffle(self.left)
        return self.left.pop()


def _project(kind: str | None, rng: random.Random) -> Project:
    names, weights = zip(*WHERE[kind].items(), strict=True)
    return BY_NAME[rng.choices(names, weights)[0]]


def _session(
    rng: random.Random,
    root: Path,
    made: set[Path],
    start: datetime,
    era: float,
    kind: str | None,
    codex: bool,
    invoke: bool,
    one_offs: _Cycle,
) -> list[dict]:
    """Write one session's log file; return its ground-truth requests."""
    p = _project(kind, rng)
    s = P.slots(kind, p, rng)
    skill = SKILLS.get(kind)  # type: ignore[arg-type]
    said: str | None = None  # skill as the log records it for the first request
    slash: tuple[str, str] | None = None
    one_off = None  # the one-off's template: asked again once the templates run out
    if kind is None:
        one_off = one_offs.next()
        template, style = ONE_OFFS[one_off]
        text = habits(P.fill(template, s, None), rng)
        plan = P.one_off_plan(style, text, p, s, rng)
    else:
        text = habits(P.fill(rng.choice(KIND_WAYS[kind]), s, kind), rng)
        plan = K.kind_plan(kind, p, s, rng)
    if invoke and skill:
        if codex:
            text = f"${skill} {text}" if rng.random() < 0.65 else f"{text} ${skill}"
            said = skill
        elif rng.random() < SLASH:
            args = rng.choice(("", P.fill(rng.choice(SHORT_ARGS[kind]), s, kind), text))  # type: ignore[index]
            slash, said = (skill, args.strip()), skill
            text = f"/{skill} {args}".strip()
        else:
            if skill in NEIGHBOUR and rng.random() < WRONG_SKILL:
                skill = NEIGHBOUR[skill]
            plan.steps.insert(0, P.Step("skill", skill, say=f"Using your {skill} skill."))
            said = skill
    elif skill and codex and rng.random() < IMPLICIT:
        plan.steps.insert(0, P.Step("skill", skill))  # Codex reads the SKILL.md itself
    elif not skill and p.modules and rng.random() < STRAY:
        P.stray_commit(p, s, rng, plan)
        said = None if codex else "commit-msg"
    follow = _follow_up(kind, plan, s, rng)
    sid = uuid7(rng, start) if codex else uuid4(rng)
    version = CODEX_VERSIONS if codex else CLAUDE_VERSIONS
    version = version[min(len(version) - 1, int(era * len(version)))]
    if codex:
        shell = "shell_command" if rng.random() < CODEX_SHELL_COMMAND else "exec_command"
        model = "gpt-5.4-codex" if shell == "shell_command" else "gpt-5.5"
        log: Any = CodexSession(
            rng,
            sid,
            p.cwd,
            s["branch"],
            version,
            model,
            start,
            start + LOCAL,
            shell,
            agents_md=p.name in ("ledgerly", "quill"),
        )
        log.prompt(text, skill=said)
    else:
        model = "claude-opus-4-7" if rng.random() < 0.8 else "claude-sonnet-4-6"
        log = ClaudeSession(rng, sid, p.cwd, s["branch"], version, model, start)
        if slash:
            log.slash(*slash)
        else:
            log.prompt(text)
    log.work(plan)
    out = [
        {
            "session_id": sid,
            "text": text,
            "kind": kind,
            "follow_up": False,
            "skill": said,
            "one_off": one_off,
        }
    ]
    if follow:
        ftext, fplan = follow
        log.prompt(ftext, gap=rng.uniform(20, 300))
        log.work(fplan)
        out.append(
            {"session_id": sid, "text": ftext, "kind": kind, "follow_up": True, "skill": None}
        )
    _save(root, made, start, p.cwd, sid, codex, log.finish())
    return out


def _follow_up(
    kind: str | None, plan: P.Plan, s: dict[str, str], rng: random.Random
) -> tuple[str, P.Plan] | None:
    r = rng.random()
    if kind is not None and r < CORRECT:
        fix = P.followup_plan(plan, rng)
        edits = [st for st in plan.steps if st.tool in ("edit", "write")]
        if edits and rng.random() < REFUSE:
            edits[-1].rejected = True  # the user stops the edit and says why
        return habits(rng.choice(CORRECTIONS[kind]).format(**s), rng), fix
    if r < (CORRECT + ACK if kind is not None else ONE_OFF_ACK):
        return rng.choice(ACKS), P.Plan(answer="Glad it helps.")
    return None


def _save(
    root: Path, made: set[Path], start: datetime, cwd: str, sid: str, codex: bool, data: bytes
) -> None:
    if codex:
        local = start + LOCAL
        folder = root / "codex" / "sessions" / f"{local:%Y/%m/%d}"
        name = f"rollout-{local:%Y-%m-%dT%H-%M-%S}-{sid}.jsonl"
    else:
        folder = root / "claude" / "projects" / re.sub(r"[^a-zA-Z0-9]", "-", cwd)
        name = f"{sid}.jsonl"
    if folder not in made:
        folder.mkdir(parents=True, exist_ok=True)
        made.add(folder)
    fd = os.open(folder / name, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "wb") as f:
        f.write(data)


def _du(root: Path) -> tuple[int, int]:
    files = size = 0
    for dirpath, _, names in os.walk(root):
        for n in names:
            files += 1
            size += os.stat(os.path.join(dirpath, n)).st_blocks * 512
    return files, size


def main() -> None:
    ap = argparse.ArgumentParser(description="Write the held-out session tree; time it.")
    ap.add_argument("root", type=Path)
    ap.add_argument("--sessions", type=int, default=10_000)
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args()
    t0, c0 = time.perf_counter(), time.process_time()
    truth = write(args.root, args.seed, args.sessions)
    wall, cpu = time.perf_counter() - t0, time.process_time() - c0
    files, size = _du(args.root)
    print(
        f"SIMULATION  {args.sessions} sessions, {len(truth['requests'])} requests: "
        f"{wall:.1f} s wall, {cpu:.1f} s CPU (load {os.getloadavg()[0]:.1f}), {files} files, "
        f"{size / 2**20:.0f} MiB on disk ({size / args.sessions / 1024:.1f} KiB/session)"
    )


if __name__ == "__main__":
    main()
