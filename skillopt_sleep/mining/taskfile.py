"""Tasks as an editable file: ``tasks export FILE`` and ``tasks import FILE``.

The file is YAML or JSON (by extension) holding ``Task.to_dict()`` records, so a person
can read and fix what mining derived: prompts, splits, judges. Import is all or nothing:
every task is checked first, and the first mistake is reported with its line and reason
before anything is written, because a half-imported review is worse than none.
"""

from __future__ import annotations

import difflib
import json
import re
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import sqlite_utils
import yaml

from skillopt_sleep.files import write_private
from trainer.checks import SCOPES, scope_known, value_error
from trainer.tasks import JUDGE_KINDS, SPLITS, Task

HEADER = """\
# skillopt-sleep replay tasks. Edit, then: skillopt-sleep tasks import THIS_FILE
# Imported tasks are marked reviewed and win over re-mined ones.
# split: train | val | test (val/test only for tasks from real turns: meta.turn_id).
# judges[].kind: a rule check (docs/tasks.md): contains | not_contains (a word or phrase) |
#   regex | not_regex | starts_with | not_starts_with | ends_with | not_ends_with |
#   max_/min_ words|chars|lines|sentences|bullets (a number) | has | no (a feature: emoji,
#   heading, code_fence, bullet, …) | identifier_like (an example: PROJ-123) |
#   mentions_any (the task's own names, " | " between them: the answer names one) | rubric;
#   judges[].scope: answer | first_line | lines | bullets | code | prose (default answer);
#   on an agent harness: command_ran (regex over commands run) | file_changed |
#   file_unchanged (glob) | exit_ok | check (shell command run in the copy; pass = exit 0)
# workspace (optional): {repo: /path, commit: <sha>, setup: [shell commands]} replays the
#   task in a copy of repo at commit (harness.*); without it the task is replayed as a chat.
# Tasks sharing a group must share a split.
"""
TASK_KEYS = {"id", "prompt", "split", "judges", "group", "meta", "workspace"}
WORKSPACE_KEYS = {"repo", "commit", "setup"}
_COMMIT = re.compile(r"^[0-9a-fA-F]{7,64}$")
JUDGE_KEYS = {"kind", "value", "weight", "source", "quotes", "scope"}


class TaskFileError(Exception):
    """A task file cannot be imported; ``str()`` is ``FILE:LINE: reason``."""


def _block_str(dumper: yaml.SafeDumper, data: str) -> yaml.ScalarNode:
    style = "|" if "\n" in data else None
    return dumper.represent_scalar("tag:yaml.org,2002:str", data, style=style)


class _Dumper(yaml.SafeDumper):
    pass


_Dumper.add_representer(str, _block_str)


def dumps(tasks: Iterable[Task], fmt: str) -> str:
    doc = {"version": 1, "tasks": [t.to_dict() for t in tasks]}
    if fmt == "json":
        return json.dumps(doc, indent=2, ensure_ascii=False) + "\n"
    body = yaml.dump(doc, Dumper=_Dumper, sort_keys=False, allow_unicode=True, width=100)
    return HEADER + body


def file_format(path: Path) -> str:
    ext = path.suffix.lower()
    if ext == ".json":
        return "json"
    if ext in (".yaml", ".yml"):
        return "yaml"
    raise TaskFileError(f"{path}: unknown extension {ext or '(none)'!r}; use .yaml, .yml or .json")


def export(tasks: Iterable[Task], path: Path) -> int:
    fmt = file_format(path)
    tasks = list(tasks)
    write_private(path, dumps(tasks, fmt))  # tasks quote the user's requests: 0600
    return len(tasks)


@dataclass
class _Ctx:
    path: Path

    def fail(self, node: yaml.Node | None, reason: str) -> TaskFileError:
        line = node.start_mark.line + 1 if node is not None else 1
        return TaskFileError(f"{self.path}:{line}: {reason}")


def _mapping(node: yaml.Node) -> dict[str, tuple[yaml.Node, yaml.Node]]:
    return {str(k.value): (k, v) for k, v in node.value}


def _scalar(ctx: _Ctx, node: yaml.Node, what: str) -> Any:
    if not isinstance(node, yaml.ScalarNode):
        raise ctx.fail(node, f"{what} must be a single value")
    return yaml.safe_load(yaml.serialize(node))


def _check_keys(ctx: _Ctx, fields: dict, allowed: set[str], what: str) -> None:
    for key, (knode, _) in fields.items():
        if key not in allowed:
            close = difflib.get_close_matches(key, sorted(allowed), n=1)
            hint = f" (did you mean '{close[0]}'?)" if close else ""
            raise ctx.fail(knode, f"unknown {what} key '{key}'{hint}")


def _judge(ctx: _Ctx, node: yaml.Node) -> dict[str, Any]:
    if not isinstance(node, yaml.MappingNode):
        raise ctx.fail(node, "each judge must be a mapping with kind and value")
    f = _mapping(node)
    _check_keys(ctx, f, JUDGE_KEYS, "judge")
    for req in ("kind", "value"):
        if req not in f:
            raise ctx.fail(node, f"judge is missing '{req}'")
    kind = _scalar(ctx, f["kind"][1], "judge kind")
    if kind not in JUDGE_KINDS:
        raise ctx.fail(f["kind"][1], f"unknown judge kind {kind!r}; expected one of "
                       f"{', '.join(JUDGE_KINDS)}")  # fmt: skip
    value = _scalar(ctx, f["value"][1], "judge value")
    if (value is None or str(value).strip() == "") and kind != "exit_ok":
        raise ctx.fail(f["value"][1], f"{kind} judge has an empty value")
    value = "" if value is None else str(value)
    if kind == "command_ran":
        try:
            re.compile(value)
        except re.error as exc:
            raise ctx.fail(f["value"][1], f"invalid regex: {exc}") from exc
    problem = value_error(kind, value)
    if problem:
        raise ctx.fail(f["value"][1], problem)
    scope = _scalar(ctx, f["scope"][1], "scope") if "scope" in f else "answer"
    if not scope_known(scope):
        raise ctx.fail(f["scope"][1], f"unknown scope {scope!r}; expected one of "
                       f"{', '.join(SCOPES)} (a code scope may add @languages: "
                       "code@yaml)")  # fmt: skip
    weight = _scalar(ctx, f["weight"][1], "weight") if "weight" in f else 1.0
    if isinstance(weight, bool) or not isinstance(weight, int | float) or weight <= 0:
        raise ctx.fail(f["weight"][1], f"weight must be a positive number, got {weight!r}")
    source = _scalar(ctx, f["source"][1], "source") if "source" in f else ""
    quotes: list[str] = []
    if "quotes" in f:  # the user's own words the judge is built from (judge firewall)
        qnode = f["quotes"][1]
        if not isinstance(qnode, yaml.SequenceNode):
            raise ctx.fail(qnode, "quotes must be a list of the user's own words")
        quotes = [str(_scalar(ctx, q, "a quote")) for q in qnode.value]
    return {"kind": kind, "value": value, "weight": float(weight), "source": str(source or ""),
            "quotes": quotes, "scope": scope}  # fmt: skip


def _task(ctx: _Ctx, node: yaml.Node) -> tuple[Task, yaml.Node]:
    if not isinstance(node, yaml.MappingNode):
        raise ctx.fail(node, "each task must be a mapping (id, prompt, split, judges …)")
    f = _mapping(node)
    _check_keys(ctx, f, TASK_KEYS, "task")
    for req in ("id", "prompt", "split"):
        if req not in f:
            raise ctx.fail(node, f"task is missing '{req}'")
    tid = _scalar(ctx, f["id"][1], "id")
    if not tid:
        raise ctx.fail(f["id"][1], "task id is empty")
    prompt = _scalar(ctx, f["prompt"][1], "prompt")
    if not isinstance(prompt, str) or not prompt.strip():
        raise ctx.fail(f["prompt"][1], "prompt must be non-empty text")
    split = _scalar(ctx, f["split"][1], "split")
    if split not in SPLITS:
        raise ctx.fail(f["split"][1], f"split must be one of {', '.join(SPLITS)}, got {split!r}")
    judges: list[dict[str, Any]] = []
    if "judges" in f:
        jn = f["judges"][1]
        if not isinstance(jn, yaml.SequenceNode):
            raise ctx.fail(jn, "judges must be a list")
        judges = [_judge(ctx, j) for j in jn.value]
    meta: dict[str, Any] = {}
    if "meta" in f:
        meta = yaml.safe_load(yaml.serialize(f["meta"][1])) or {}
        if not isinstance(meta, dict):
            raise ctx.fail(f["meta"][1], "meta must be a mapping")
    if split in ("val", "test") and not meta.get("turn_id"):
        raise ctx.fail(f["split"][1], f"{split} takes only tasks from real turns; this task has "
                       "no meta.turn_id (use split: train)")  # fmt: skip
    group = _scalar(ctx, f["group"][1], "group") if "group" in f else ""
    data = {"id": str(tid), "prompt": prompt, "split": split, "judges": judges,
            "group": str(group or ""), "meta": meta}  # fmt: skip
    if "workspace" in f and f["workspace"][1].tag != "tag:yaml.org,2002:null":
        data["workspace"] = _workspace(ctx, f["workspace"][1])
    return Task.from_dict(data), f["split"][1]


def _workspace(ctx: _Ctx, node: yaml.Node) -> dict[str, Any]:
    """repo (a path), commit (a hex sha) and optional setup commands; the repository need
    not exist here (it may live on another machine): a task whose repo is gone is
    replayed as a chat, and the report says so."""
    if not isinstance(node, yaml.MappingNode):
        raise ctx.fail(node, "workspace must be a mapping with repo and commit")
    f = _mapping(node)
    _check_keys(ctx, f, WORKSPACE_KEYS, "workspace")
    for req in ("repo", "commit"):
        if req not in f:
            raise ctx.fail(node, f"workspace is missing '{req}'")
    repo = _scalar(ctx, f["repo"][1], "workspace repo")
    if not isinstance(repo, str) or not repo.strip():
        raise ctx.fail(f["repo"][1], "workspace repo must be a path")
    commit = str(_scalar(ctx, f["commit"][1], "workspace commit") or "")
    if not _COMMIT.match(commit):
        raise ctx.fail(f["commit"][1], f"workspace commit must be a hex sha, got {commit!r}")
    setup: list[str] = []
    if "setup" in f:
        sn = f["setup"][1]
        if not isinstance(sn, yaml.SequenceNode):
            raise ctx.fail(sn, "workspace setup must be a list of shell commands")
        for item in sn.value:
            cmd = _scalar(ctx, item, "setup command")
            if not isinstance(cmd, str) or not cmd.strip():
                raise ctx.fail(item, "each setup command must be non-empty text")
            setup.append(cmd)
    return {"repo": repo, "commit": commit, "setup": setup}


def parse(path: Path) -> list[Task]:
    """Read and check a task file; raise TaskFileError at the first mistake."""
    ctx = _Ctx(path)
    fmt = file_format(path)
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise TaskFileError(f"{path}:1: cannot read: {exc}") from exc
    if fmt == "json":
        try:
            json.loads(text)
        except json.JSONDecodeError as exc:
            raise TaskFileError(f"{path}:{exc.lineno}: not valid JSON: {exc.msg}") from exc
    try:
        root = yaml.compose(text, Loader=yaml.SafeLoader)
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        line = mark.line + 1 if mark else 1
        problem = getattr(exc, "problem", None) or "syntax error"
        raise TaskFileError(f"{path}:{line}: not valid YAML: {problem}") from exc
    if root is None:
        raise TaskFileError(f"{path}:1: the file is empty")
    seq = root
    if isinstance(root, yaml.MappingNode):
        f = _mapping(root)
        _check_keys(ctx, f, {"version", "tasks"}, "top-level")
        if "tasks" not in f:
            raise ctx.fail(root, "missing 'tasks' list")
        seq = f["tasks"][1]
    if not isinstance(seq, yaml.SequenceNode):
        raise ctx.fail(seq, "'tasks' must be a list")
    tasks: list[Task] = []
    seen: dict[str, int] = {}
    group_split: dict[str, str] = {}
    for node in seq.value:
        task, split_node = _task(ctx, node)
        if task.id in seen:
            raise ctx.fail(node, f"duplicate task id {task.id!r} (first at line {seen[task.id]})")
        seen[task.id] = node.start_mark.line + 1
        if task.group:
            prev = group_split.setdefault(task.group, task.split)
            if prev != task.split:
                raise ctx.fail(split_node, f"group {task.group} is in {prev} elsewhere in the "
                               f"file; a group never straddles splits")  # fmt: skip
        tasks.append(task)
    return tasks


def import_file(db: sqlite_utils.Database, path: Path) -> int:
    """Check ``path`` fully, then store its tasks as reviewed in one transaction."""
    tasks = parse(path)
    _check_against_store(db, tasks, path)
    now = datetime.now(UTC).isoformat()
    rows = [
        {"id": t.id, "cluster_id": str(t.meta.get("cluster_id", "")),
         "data": json.dumps(t.to_dict(), ensure_ascii=False), "imported_at": now,
         "source_file": str(path)}
        for t in tasks
    ]  # fmt: skip
    with db.conn:
        if rows:
            db.table("reviewed_tasks").insert_all(rows, pk="id", replace=True)
    return len(rows)


def _check_against_store(db: sqlite_utils.Database, tasks: list[Task], path: Path) -> None:
    """A group may not straddle splits with tasks already in the store, outside the file."""
    from skillopt_sleep.mining.query import all_tasks  # avoid an import cycle at load

    in_file = {t.id for t in tasks}
    stored: dict[str, tuple[str, str]] = {}
    for tid, (task, _) in all_tasks(db).items():
        if tid not in in_file and task.group:
            stored.setdefault(task.group, (task.split, tid))
    for t in tasks:
        if t.group in stored and stored[t.group][0] != t.split:
            split, other = stored[t.group]
            raise TaskFileError(
                f"{path}:{_line_of(path, t.id)}: task {t.id} is {t.split} but task {other} of "
                f"the same group {t.group} is {split} in the store; a group never straddles splits"
            )


def _line_of(path: Path, task_id: str) -> int:
    for i, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        if task_id in line:
            return i
    return 1
