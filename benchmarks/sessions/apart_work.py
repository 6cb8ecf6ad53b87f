"""What the agent does: slot filling and abstract steps for kinds and one-offs.

A step is a dict: bash(cmd,out,code) read(path,content) edit(path,old,new)
write(path,content) grep(pattern,path,files) glob(pattern,files) text(text).
"""

from benchmarks.sessions.apart_data import PROJECTS

PKGS = {
    "tidepool-web": [
        ("react-router-dom", "6.28.0"),
        ("vite", "5.4.11"),
        ("zod", "3.23.8"),
        ("date-fns", "4.1.0"),
        ("@tanstack/react-query", "5.62.0"),
        ("vitest", "2.1.8"),
    ],
    "gravel": [
        ("clap", "4.5.21"),
        ("serde", "1.0.215"),
        ("quick-xml", "0.37.1"),
        ("chrono", "0.4.39"),
        ("comfy-table", "7.1.3"),
    ],
    "beacon-agent": [
        ("github.com/prometheus/client_golang", "1.20.5"),
        ("golang.org/x/net", "0.32.0"),
        ("github.com/spf13/cobra", "1.8.1"),
        ("gopkg.in/yaml.v3", "3.0.1"),
    ],
}
TABLES = [
    ("invoices", "due_date"),
    ("invoices", "currency"),
    ("payments", "settled_at"),
    ("customers", "vat_id"),
    ("credit_notes", "reason"),
    ("payments", "external_ref"),
    ("customers", "billing_email"),
    ("invoices", "archived"),
]
BUGS = [
    "a trailing newline in the input",
    "the leap day",
    "an empty list",
    "negative amounts",
    "a timezone offset",
    "duplicate ids",
    "unicode names",
    "a zero-length segment",
    "midnight exactly",
    "a missing header row",
]
REVIEWERS = ["sam and ines", "@kofi", "the payments team", "jules", "@mara and @teo"]
ENVS = ["staging", "prod"]
I18N = [
    ("stationOffline", "Station offline", "station"),
    ("addFavorite", "Add to favorites", "favorites"),
    ("tideWarning", "Unusually high tide expected", "alerts"),
    ("unitToggle", "Show heights in feet", "settings"),
    ("shareLink", "Copy link to this station", "station"),
    ("emptyFavorites", "No favorite stations yet", "favorites"),
]
SCOPES = {
    "ledgerline": ["api", "reconcile", "models", "dates"],
    "tidepool-web": ["chart", "station", "api", "favorites"],
    "gravel": ["cli", "parse", "render", "stats"],
    "beacon-agent": ["probe", "config", "report"],
    "quillboard": ["boards", "cards", "live"],
}
SUBJECTS = [
    "handle {bug} in {func}",
    "simplify {func}",
    "add retries to {func}",
    "log failures in {func}",
    "rename helper used by {func}",
    "cover {func} with tests",
]


def pick(rng, seq):
    return seq[rng.randrange(len(seq))]


def fill_slots(rng, kind, proj_name, n):
    p = PROJECTS[proj_name]
    s = {
        "ticket": "%s-%d" % (p["ticket"], rng.randrange(40, 420)),
        "func": pick(rng, p["funcs"]),
        "file": pick(rng, p["src"]),
        "test": pick(rng, p["tests"]),
        "bug": pick(rng, BUGS),
        "scope": pick(rng, SCOPES[proj_name]),
        "reviewer": pick(rng, REVIEWERS),
        "manifest": p["manifest"],
    }
    s["subject"] = pick(rng, SUBJECTS).format(**s)
    s["thing"] = {
        "commit_msg": "the message",
        "pr_desc": "the description",
        "migration": "the migration",
        "regression_test": "the test",
        "dep_bump": "that one package",
        "release_cut": "the version bump",
        "helm_bump": "the values file",
        "i18n": "the strings",
        "type_errors": "the types",
    }.get(kind, "what I asked")
    if proj_name in PKGS:
        pkg, ver = pick(rng, PKGS[proj_name])
        s["pkg"], s["ver"] = pkg, ver
    else:
        s["pkg"], s["ver"] = "", ""
    if kind == "release_cut":
        minor = 7 + n % 5
        s["prev"] = "0.%d.%d" % (minor, rng.randrange(0, 4))
        s["ver"] = "0.%d.0" % (minor + 1)
    t, c = pick(rng, TABLES)
    s["table"], s["column"] = t, c
    s["rev"] = f"{rng.getrandbits(48):012x}"
    s["env"] = pick(rng, ENVS)
    s["tag"] = "v1.%d.%d" % (rng.randrange(10, 30), rng.randrange(0, 9))
    key, phrase, area = pick(rng, I18N)
    s["key"], s["phrase"], s["area"] = key, phrase, area
    return s


def fake_lines(path, func, rng, n=None):
    n = n or rng.randrange(6, 14)
    ext = path.rsplit(".", 1)[-1]
    if ext == "py":
        body = [
            "from __future__ import annotations",
            "",
            "import logging",
            "",
            "log = logging.getLogger(__name__)",
            "",
            f"def {func}(value, *, strict=False):",
            '    """{}."""'.format(func.replace("_", " ")),
            "    if not value:",
            "        return None",
            "    result = _normalize(value)",
            f'    log.debug("{func} -> %s", result)',
            "    return result",
            "",
        ]
    elif ext in ("ts", "tsx"):
        body = [
            "import { z } from 'zod';",
            "",
            f"export function {func}(input: unknown) {{",
            "  const parsed = schema.safeParse(input);",
            "  if (!parsed.success) {",
            "    return null;",
            "  }",
            "  return parsed.data;",
            "}",
            "",
        ]
    elif ext == "rs":
        body = [
            "use crate::parse::Point;",
            "",
            f"pub fn {func}(points: &[Point]) -> f64 {{",
            "    let mut total = 0.0;",
            "    for w in points.windows(2) {",
            "        total += step(&w[0], &w[1]);",
            "    }",
            "    total",
            "}",
            "",
        ]
    elif ext == "go":
        body = [
            "package probe",
            "",
            "import (",
            '\t"context"',
            '\t"time"',
            ")",
            "",
            f"func {func}(ctx context.Context, target string) error {{",
            "\tctx, cancel := context.WithTimeout(ctx, 5*time.Second)",
            "\tdefer cancel()",
            "\treturn run(ctx, target)",
            "}",
            "",
        ]
    elif ext in ("ex", "exs"):
        body = [
            "defmodule Quill.Boards do",
            "  alias Quill.Repo",
            "",
            f"  def {func}(board, attrs) do",
            "    board",
            "    |> change(attrs)",
            "    |> Repo.update()",
            "  end",
            "end",
            "",
        ]
    elif ext == "md":
        body = [
            "# " + path.split("/")[-1].split(".")[0],
            "",
            "Quick start:",
            "",
            "```",
            "make dev",
            "```",
            "",
            "## Contributing",
            "",
            "Open a PR against main.",
            "",
        ]
    elif ext == "json":
        body = [
            "{",
            '  "title": "Tidepool",',
            '  "stationOffline": "Station offline",',
            '  "addFavorite": "Add to favorites"',
            "}",
        ]
    elif ext in ("yaml", "yml"):
        body = [
            "image:",
            "  repository: ghcr.io/noor/beacon",
            "  tag: v1.14.2",
            "replicaCount: 2",
            "resources:",
            "  limits:",
            "    memory: 128Mi",
            "",
        ]
    else:
        body = [f"# {path}", f'name = "{func}"', 'version = "0.9.1"', ""]
    return "\n".join(body[: max(n, 4)])


def bash(cmd, out="", code=0):
    return {"t": "bash", "cmd": cmd, "out": out, "code": code}


def read(cwd, rel, rng, func="main"):
    return {"t": "read", "path": cwd + "/" + rel, "content": fake_lines(rel, func, rng)}


def edit(cwd, rel, old, new):
    return {"t": "edit", "path": cwd + "/" + rel, "old": old, "new": new}


def write(cwd, rel, content):
    return {"t": "write", "path": cwd + "/" + rel, "content": content}


def grep(cwd, pattern, rels):
    return {"t": "grep", "pattern": pattern, "path": cwd, "files": [cwd + "/" + r for r in rels]}


def glob(cwd, pattern, rels):
    return {"t": "glob", "pattern": pattern, "files": [cwd + "/" + r for r in rels]}


def text(t):
    return {"t": "text", "text": t}


def git_status(rng, p):
    files = rng.sample(p["src"], 2)
    return bash("git status --short", "\n".join(" M " + f for f in files))


def diff_stat(rng, p, ref="--staged"):
    files = rng.sample(p["src"], rng.randrange(1, 4))
    lines = [
        " %s | %d %s"
        % (f, rng.randrange(2, 40), "+" * rng.randrange(1, 9) + "-" * rng.randrange(0, 5))
        for f in files
    ]
    lines.append(
        " %d files changed, %d insertions(+), %d deletions(-)"
        % (len(files), rng.randrange(5, 80), rng.randrange(0, 30))
    )
    return "\n".join(lines), files


def oneoff_steps(rng, actions, p, s):
    cwd, steps = p["cwd"], []
    for a in actions:
        a = a.format(**s).replace("$src", s["file"]).replace("$test", s["test"])
        if a == "ls":
            steps.append(
                bash(
                    pick(rng, ["ls", "ls -la"]),
                    "\n".join(
                        ["README.md", p["manifest"]] + sorted({f.split("/")[0] for f in p["src"]})
                    ),
                )
            )
        elif a == "st":
            steps.append(git_status(rng, p))
        elif a == "diff":
            steps.append(
                bash(
                    "git diff",
                    "diff --git a/{} b/{}\n@@ -3,4 +3,5 @@\n-old\n+new".format(
                        s["file"], s["file"]
                    ),
                )
            )
        elif a == "log":
            steps.append(
                bash(
                    "git log --oneline -5",
                    "\n".join(
                        f"{rng.getrandbits(28):07x} {pick(rng, SUBJECTS).format(**s)}"
                        for _ in range(5)
                    ),
                )
            )
        elif a == "readme":
            steps.append(read(cwd, "README.md", rng))
        elif a == "test":
            steps.append(
                bash(
                    p["test_cmd"],
                    "%d passed in %.2fs" % (rng.randrange(20, 300), rng.random() * 9 + 0.5),
                )
            )
        elif a == "lint":
            steps.append(bash(p["lint_cmd"], "All checks passed!"))
        elif a.startswith("read:"):
            steps.append(read(cwd, a[5:], rng, s["func"]))
        elif a.startswith("edit:"):
            steps.append(edit(cwd, a[5:], "    return result", "    return result  # checked"))
        elif a.startswith("write:"):
            steps.append(write(cwd, a[6:], fake_lines(a[6:], s["func"], rng)))
        elif a.startswith("grep:"):
            steps.append(grep(cwd, a[5:], rng.sample(p["src"], 2)))
        elif a.startswith("glob:"):
            steps.append(glob(cwd, a[5:], rng.sample(p["src"] + p["tests"], 3)))
        elif a.startswith("run:"):
            steps.append(bash(a[4:], "ok"))
    return steps
