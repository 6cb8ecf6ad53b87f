"""Session-log generator written apart (blind) from the tool it measures.

write(root, seed, n_sessions) writes Claude Code and Codex logs of one invented user
("noor", five projects) plus the user's skills, and returns the ground truth.
"""

import os
import random
import re
from datetime import UTC, datetime, timedelta
from pathlib import Path

from benchmarks.sessions.apart_data import (
    GENERIC_CORRECTIONS,
    GREETINGS,
    KINDS,
    NEIGHBOURS,
    ONE_OFF_SHARE,
    PROJECTS,
    SECOND_PREFIX,
    SKILLS,
    SUFFIXES,
    THANKS,
)
from benchmarks.sessions.apart_kinds import kind_steps, oneoff_answer
from benchmarks.sessions.apart_oneoff import TEMPLATES
from benchmarks.sessions.apart_render import (
    dumps,
    render_claude,
    render_codex,
    skill_body,
    uuid4,
    uuid7,
)
from benchmarks.sessions.apart_work import fill_slots, oneoff_steps, pick

START = datetime(2026, 10, 5, tzinfo=UTC)
DAYS = 35
INVOKE_RATE, SLASH_SHARE, WRONG_NEIGHBOUR = 0.60, 0.35, 0.2
CORRECTION_RATE, THANKS_RATE, SECOND_RATE, CODEX_SHARE = 0.17, 0.10, 0.10, 1 / 3
PROJECT_WEIGHTS = {
    "ledgerline": 3,
    "tidepool-web": 3,
    "gravel": 2,
    "beacon-agent": 2,
    "quillboard": 1,
}
CLAUDE_VERSIONS = ["2.1.141", "2.1.147", "2.1.152"]
CODEX_VERSIONS = ["0.125.0", "0.128.0"]
ACKS = ["You're welcome!", "Glad it works.", "Anytime.", "Great - shout if anything else comes up."]


def quotas(n, shares):
    """Largest-remainder integer split of n by shares (dict, insertion order kept)."""
    raw = {k: n * v for k, v in shares.items()}
    out = {k: int(v) for k, v in raw.items()}
    rest = sorted(raw, key=lambda k: (-(raw[k] - out[k]), list(raw).index(k)))
    for k in rest[: n - sum(out.values())]:
        out[k] += 1
    return out


def exact_flags(rng, m, rate):
    k = int(round(m * rate))
    flags = [True] * k + [False] * (m - k)
    rng.shuffle(flags)
    return flags


def weighted(rng, weights):
    keys = list(weights)
    return rng.choices(keys, [weights[k] for k in keys])[0]


def typo(rng, s):
    words = s.split(" ")
    idx = [i for i, w in enumerate(words) if w.isalpha() and len(w) >= 5]
    if not idx:
        return s
    i = pick(rng, idx)
    w, j = words[i], rng.randrange(1, len(words[i]) - 2)
    words[i] = (
        (w[:j] + w[j + 1] + w[j] + w[j + 2 :]) if rng.random() < 0.6 else (w[:j] + w[j + 1 :])
    )
    return " ".join(words)


def dress(rng, s, greet=0.2, suffix=0.25):
    if rng.random() < 0.15:
        s = typo(rng, s)
    if rng.random() < 0.3:
        s = s[0].upper() + s[1:]
    if rng.random() < greet:
        s = pick(rng, GREETINGS) + s[0].lower() + s[1:]
    if rng.random() < suffix and not s.endswith("?"):
        s = s + pick(rng, SUFFIXES)
    return s


def berlin(dt):
    return dt + timedelta(hours=2 if dt < datetime(2026, 10, 25, 1, tzinfo=UTC) else 1)


class Planner:
    def __init__(self, rng):
        self.rng = rng
        self.oneoff_cycle = []

    def _refill(self):
        order = list(range(len(TEMPLATES)))
        self.rng.shuffle(order)
        self.oneoff_cycle = order[::-1] + self.oneoff_cycle

    def next_oneoff(self, proj=None):
        """Next template of the current permutation (each used once before repeats);
        with proj, the next one that fits that project."""
        if not self.oneoff_cycle:
            self._refill()
        for _back in range(2):
            for j in range(len(self.oneoff_cycle) - 1, -1, -1):
                if proj is None or TEMPLATES[self.oneoff_cycle[j]][0] in ("*", proj):
                    return self.oneoff_cycle.pop(j)
            self._refill()
        raise AssertionError("no one-off template fits " + str(proj))

    def kind_request(self, kind, tool, invoke, second=False, proj=None):
        """Return (project, slots, turn, skill) for a kind request."""
        rng, spec = self.rng, KINDS[kind]
        proj = proj or weighted(rng, spec["projects"])
        s = fill_slots(rng, kind, proj, rng.randrange(1000))
        base = pick(rng, spec["wordings"]).format(**s)
        text = dress(rng, base, greet=0.0 if second else 0.2)
        if second:
            text = pick(rng, SECOND_PREFIX) + text[0].lower() + text[1:]
        turn = {"steps": [], "text": text}
        skill = None
        if invoke and spec["skill"]:
            name = spec["skill"]
            if tool == "codex":
                form = rng.randrange(3)
                mention = "$" + name
                turn["text"] = (
                    mention + " " + text
                    if form == 0
                    else text + " " + mention
                    if form == 1
                    else f"use {mention}: {text}"
                )
                turn["dollar"] = skill = name
            elif not second and rng.random() < SLASH_SHARE:
                args = "" if rng.random() < 0.5 else base
                turn["slash"] = (name, args)
                turn["text"] = (f"/{name} {args}").strip()
                skill = name
            else:
                if name in NEIGHBOURS and rng.random() < WRONG_NEIGHBOUR:
                    name = NEIGHBOURS[name]
                turn["steps"].append({"t": "skill", "name": name})
                skill = name
        steps, final = kind_steps(rng, kind, PROJECTS[proj], s)
        turn["steps"] += steps
        turn["final"] = final
        return proj, s, turn, skill

    def oneoff_request(self, proj=None, second=False):
        rng = self.rng
        idx = self.next_oneoff(proj if second else None)
        tproj, ttext, actions = TEMPLATES[idx]
        if tproj != "*":
            proj = tproj
        elif proj is None:
            proj = weighted(rng, PROJECT_WEIGHTS)
        s = fill_slots(rng, None, proj, rng.randrange(1000))
        text = dress(rng, ttext.format(**s), greet=0.0 if second else 0.2)
        if second:
            text = pick(rng, SECOND_PREFIX) + text[0].lower() + text[1:]
        steps = oneoff_steps(rng, actions, PROJECTS[proj], s)
        return proj, {"steps": steps, "text": text, "final": oneoff_answer(rng, text)}, idx


def correction_text(rng, kind, s):
    pool = KINDS[kind]["corrections"] if rng.random() < 0.6 else GENERIC_CORRECTIONS
    return dress(rng, pick(rng, pool).format(**s), greet=0.0, suffix=0.1)


def plan(rng, n):
    shares = {k: v["share"] for k, v in KINDS.items()}
    shares["oneoff"] = ONE_OFF_SHARE
    cats = []
    for k, c in quotas(n, shares).items():
        cats += [k] * c
    rng.shuffle(cats)
    tools = ["codex" if f else "claude" for f in exact_flags(rng, n, CODEX_SHARE)]
    invoke = [False] * n
    for k, spec in KINDS.items():
        pos = [i for i, c in enumerate(cats) if c == k]
        if spec["skill"]:
            for i, f in zip(pos, exact_flags(rng, len(pos), INVOKE_RATE), strict=False):
                invoke[i] = f
    kpos = [i for i, c in enumerate(cats) if c != "oneoff"]
    follow = [None] * n
    order = kpos[:]
    rng.shuffle(order)
    nc, nt = int(round(len(kpos) * CORRECTION_RATE)), int(round(len(kpos) * THANKS_RATE))
    for i in order[:nc]:
        follow[i] = "correction"
    for i in order[nc : nc + nt]:
        follow[i] = "thanks"
    second = exact_flags(rng, n, SECOND_RATE)
    starts = []
    for _ in range(n):
        day = rng.randrange(DAYS)
        minute = rng.randrange(7 * 60, 23 * 60)
        starts.append(START + timedelta(days=day, minutes=minute, seconds=rng.randrange(60)))
    starts.sort()
    return cats, tools, invoke, follow, second, starts


def build(seed, n):
    rng = random.Random(seed)
    pl = Planner(rng)
    cats, tools, invoke, follow, second, starts = plan(rng, n)
    sessions, truth = [], []
    for i in range(n):
        tool, start = tools[i], starts[i]
        sid = uuid7(rng, start) if tool == "codex" else uuid4(rng)
        turns, reqs = [], []
        if cats[i] == "oneoff":
            proj, turn, idx = pl.oneoff_request()
            turns.append(turn)
            reqs.append(
                {
                    "text": turn["text"],
                    "kind": None,
                    "follow_up": False,
                    "skill": None,
                    "one_off": idx,
                }
            )
        else:
            kind = cats[i]
            proj, s, turn, skill = pl.kind_request(kind, tool, invoke[i])
            turns.append(turn)
            reqs.append(
                {
                    "text": turn["text"],
                    "kind": kind,
                    "follow_up": False,
                    "skill": skill,
                    "one_off": None,
                }
            )
            if follow[i] == "correction":
                ctext = correction_text(rng, kind, s)
                steps, final = kind_steps(rng, kind, PROJECTS[proj], s, redo=True)
                fskill = None
                right = KINDS[kind]["skill"]
                if skill and right and skill != right:
                    steps.insert(0, {"t": "skill", "name": right})
                    fskill = right
                turns.append({"text": ctext, "steps": steps, "final": final})
                reqs.append(
                    {
                        "text": ctext,
                        "kind": kind,
                        "follow_up": True,
                        "skill": fskill,
                        "one_off": None,
                    }
                )
                if rng.random() < 0.3:
                    follow_thanks = pick(rng, THANKS)
                    turns.append({"text": follow_thanks, "steps": [], "final": pick(rng, ACKS)})
                    reqs.append(
                        {
                            "text": follow_thanks,
                            "kind": kind,
                            "follow_up": True,
                            "skill": None,
                            "one_off": None,
                        }
                    )
            elif follow[i] == "thanks":
                t = pick(rng, THANKS)
                turns.append({"text": t, "steps": [], "final": pick(rng, ACKS)})
                reqs.append(
                    {"text": t, "kind": kind, "follow_up": True, "skill": None, "one_off": None}
                )
        if second[i]:
            if rng.random() < 0.5:
                kind2 = weighted(
                    rng,
                    {
                        k: v["share"]
                        for k, v in KINDS.items()
                        if proj in v["projects"] and k != cats[i]
                    },
                )
                inv = rng.random() < INVOKE_RATE
                _, _, turn, skill = pl.kind_request(kind2, tool, inv, second=True, proj=proj)
                reqs.append(
                    {
                        "text": turn["text"],
                        "kind": kind2,
                        "follow_up": False,
                        "skill": skill,
                        "one_off": None,
                    }
                )
            else:
                _, turn, idx = pl.oneoff_request(proj=proj, second=True)
                reqs.append(
                    {
                        "text": turn["text"],
                        "kind": None,
                        "follow_up": False,
                        "skill": None,
                        "one_off": idx,
                    }
                )
            turns.append(turn)
        p = PROJECTS[proj]
        branch = p["branch"]
        if cats[i] == "pr_desc" or (
            cats[i] in ("commit_msg", "regression_test", "type_errors", "migration")
            and rng.random() < 0.6
        ):
            branch = "noor/%s-%d" % (p["ticket"].lower(), rng.randrange(40, 420))
        if tool == "codex":
            sess = {
                "id": sid,
                "project": p,
                "start": start,
                "turns": turns,
                "branch": branch,
                "version": CODEX_VERSIONS[0 if start.day % 3 else 1],
                "model": "gpt-5.5",
            }
        else:
            sess = {
                "id": sid,
                "project": p,
                "start": start,
                "turns": turns,
                "branch": branch,
                "version": CLAUDE_VERSIONS[min(2, (start - START).days // 12)],
                "model": pick(rng, ["claude-opus-4-7", "claude-sonnet-4-6"]),
            }
        sessions.append((tool, sess))
        for r in reqs:
            truth.append(dict({"session_id": sid}, **r))
    return rng, sessions, truth


def _write(path, text):
    path.parent.mkdir(parents=True, exist_ok=True)
    fd = os.open(str(path), os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "w", encoding="utf-8") as f:
        f.write(text)
    os.chmod(str(path), 0o600)


def write(root: Path, seed: int, n_sessions: int = 300) -> dict:
    """Write the logs under root and return the ground truth."""
    root = Path(root)
    rng, sessions, requests = build(seed, n_sessions)
    for name in SKILLS:
        for tool_dir in (".claude", ".codex"):
            _write(root / tool_dir / "skills" / name / "SKILL.md", skill_body(name) + "\n")
    for tool, sess in sessions:
        if tool == "codex":
            lines = render_codex(rng, sess)
            local = berlin(sess["start"])
            path = (
                root
                / ".codex"
                / "sessions"
                / local.strftime("%Y/%m/%d")
                / ("rollout-{}-{}.jsonl".format(local.strftime("%Y-%m-%dT%H-%M-%S"), sess["id"]))
            )
        else:
            lines = render_claude(rng, sess)
            slug = re.sub(r"[^a-zA-Z0-9]", "-", sess["project"]["cwd"])
            path = root / ".claude" / "projects" / slug / (sess["id"] + ".jsonl")
        _write(path, "".join(dumps(l) + "\n" for l in lines))
    kinds = {k: {"skill": v["skill"]} for k, v in KINDS.items()}
    return {"kinds": kinds, "requests": requests}
