"""What a request made the agent do, as units mining can compare: its *fingerprint*.

Two requests worded apart ("write the commit message for the staged changes" / "sum up my
pending edits so I can record them") are one task when the agent did the same for both:
``git diff --staged`` then ``git commit -m``. A request's fingerprint is the set of

* ``$ <command>``: each shell command by its head and stable words, the head and up to two
  subcommand words (``git diff``, ``gh run view``, ``alembic revision``), and each flag on
  it (``$ git diff --staged``, ``$ pytest -k``): what varies from one run to the next
  (paths, names, numbers, quoted messages) is left out;
* ``@ <name>`` and ``@ <dir>/``: each file the agent read or wrote (Claude's Read, Edit,
  Write; Codex's ``apply_patch`` and the files its shell commands name), by its name with
  digits and hashes folded (``#_add_col.py``) and by each folder on its path inside the
  project (``migrations/``, ``.github/``);
* ``% <tool>``: a tool that is neither shell nor file (a web fetch, an MCP tool).

Which of them tell a task apart is not decided here: ``ls``, ``git status`` or reading the
README come with every kind of request, and ``vectors`` learns that from the corpus as it
does for words.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Iterable

# Codex's shell tools by era: shell (argv), shell_command (a string), exec_command
SHELL_TOOLS = {"bash", "exec_command", "shell", "shell_command", "local_shell", "run_command"}
FILE_TOOLS = {"read", "edit", "write", "multiedit", "notebookedit", "notebookread"}
PATCH_FILE = re.compile(r"^\*\*\* (?:Add|Update|Delete) File: (.+)$", re.MULTILINE)
# Tools that say nothing beyond the shell and file units, or are the harness itself.
_PLAIN_TOOLS = SHELL_TOOLS | FILE_TOOLS | {
    "apply_patch", "glob", "grep", "ls", "skill", "task", "agent", "todowrite", "todoread",
    "exitplanmode", "bashoutput", "killshell", "write_stdin", "update_plan", "view_image",
}  # fmt: skip
# Words that only run the command that follows them.
_WRAPPERS = {"sudo", "time", "env", "nohup", "exec", "command", "npx", "bunx", "pnpx", "xargs"}
_RUNNERS = {("uv", "run"), ("poetry", "run"), ("pipenv", "run"), ("pnpm", "exec"),
            ("bundle", "exec"), ("python", "-m"), ("python3", "-m")}  # fmt: skip
_SHELLS = {"bash", "sh", "zsh", "/bin/bash", "/bin/sh", "/bin/zsh", "/usr/bin/bash"}
_OPERATORS = {"&&", "||", ";", "|", "&", ";;", "(", ")", "|&"}
_SUBWORD = re.compile(r"^[a-z][a-z0-9_:-]*$")
_ASSIGN = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*=")
# a path (``src/app/``, ``docs/x.md``) or a file name with an extension (``CHANGELOG.md``)
_FILE_ARG = re.compile(
    r"^[\w.@~+-]*(?:/[\w.@+-]+)*\.[A-Za-z][\w]{0,9}$|^[\w.@~+-]+(?:/[\w.@+-]+)+/?$"
)
_VARYING = re.compile(r"[0-9a-f]{6,}|\d+", re.IGNORECASE)
MAX_SUBWORDS = 2
MAX_DIRS = 3  # the innermost folders of a path: the outer ones are the project's layout


# A word (quoted parts kept whole, so ``-m "a && b"`` is one word) or an operator.
_TOKEN = re.compile(r"""(?:[^\s'"&|;()]+|'[^']*'?|"(?:\\.|[^"\\])*"?)+|&&|\|\||[;&|()\n]""")


def _tokens(command: str) -> list[str]:
    """Words (quotes removed) and operators (``&&``, ``|``, ``;``, newline …) of a command
    line: a regular expression rather than ``shlex``, which is 20 times slower, and a
    clipped summary's unbalanced quote just ends the word."""
    out = []
    for tok in _TOKEN.findall(command):
        out.append(";" if tok == "\n" else tok if tok in _OPERATORS else _unquote(tok))
    return out


def _unquote(word: str) -> str:
    if "'" not in word and '"' not in word:
        return word
    return re.sub(
        r"""'([^']*)'?|"((?:\\.|[^"\\])*)"?""", lambda m: m.group(1) or m.group(2) or "", word
    )


def _unwrap(tokens: list[str]) -> list[str]:
    """The command a wrapper runs: ``uv run pytest -k x`` -> ``pytest -k x``."""
    while tokens:
        head = tokens[0]
        if _ASSIGN.match(head) or head in _WRAPPERS:
            tokens = tokens[1:]
        elif len(tokens) > 1 and (head.rsplit("/", 1)[-1], tokens[1]) in _RUNNERS:
            tokens = tokens[2:]
        else:
            return tokens
    return tokens


def _segments(command: str) -> Iterable[list[str]]:
    """Each simple command of a command line, ``bash -lc '…'`` unwrapped."""
    segment: list[str] = []
    for tok in [*_tokens(command), ";"]:
        if tok not in _OPERATORS:
            segment.append(tok)
            continue
        tokens = _unwrap(segment)
        segment = []
        if len(tokens) >= 3 and tokens[0] in _SHELLS and tokens[1] in ("-c", "-lc"):
            yield from _segments(tokens[2])
        elif tokens and tokens[0] != "cd":
            yield tokens


@functools.lru_cache(maxsize=65536)
def command_units(command: str) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """(command units, paths the command names) of a shell command line."""
    units: list[str] = []
    paths: list[str] = []
    for tokens in _segments(command):
        head = tokens[0].rsplit("/", 1)[-1]
        if not head or not re.match(r"^[\w.+-]+$", head):
            continue
        words = [head]
        i = 1
        while i < len(tokens) and len(words) <= MAX_SUBWORDS and _SUBWORD.match(tokens[i]):
            words.append(tokens[i])
            i += 1
        name = " ".join(words)
        units.append(f"$ {name}")
        for tok in tokens[i:]:
            if tok.startswith("-") and len(tok) > 1:
                flag = tok.split("=", 1)[0]
                if re.match(r"^--?[A-Za-z][\w-]*$", flag):
                    units.append(f"$ {name} {flag}")
            elif _FILE_ARG.match(tok) and ".." not in tok and not tok.startswith("localhost"):
                paths.append(tok)
    return tuple(units), tuple(paths)


@functools.lru_cache(maxsize=65536)
def file_units(path: str, project: str) -> tuple[str, ...]:
    """``@ <name>`` (digits and hashes folded) and ``@ <dir>/`` for the innermost folders
    of ``path`` inside ``project`` (a path outside it keeps only its name)."""
    path = path.strip().split(" in ", 1)[0]
    root = project.rstrip("/") + "/"
    inside = bool(project) and path.startswith(root)
    if inside:
        path = path[len(root) :]
    *dirs, name = path.split("/")
    if not name or name in (".", ".."):
        return ()
    out = [f"@ {_VARYING.sub('#', name)}"]
    if inside or (dirs and dirs[0] not in ("", "~")):  # relative paths are the project's
        out += [f"@ {d}/" for d in [d for d in dirs if d not in ("", ".", "..")][-MAX_DIRS:]]
    return tuple(out)


def units(calls: Iterable[tuple[str, str]], project: str) -> list[str]:
    """The fingerprint units of a turn's successful tool calls, ``(name, args_summary)``."""
    out: list[str] = []
    for name, args in calls:
        low = (name or "").lower()
        args = args or ""
        if low in SHELL_TOOLS:
            cmd_units, paths = command_units(args)
            out += cmd_units
            for p in paths:
                out += file_units(p, project)
        elif low in FILE_TOOLS:
            out += file_units(args, project)
        elif low == "apply_patch" or "*** Begin Patch" in args:
            for p in PATCH_FILE.findall(args):
                out += file_units(p, project)
        elif low not in _PLAIN_TOOLS and name:
            out.append(f"% {name}")
    return out
