"""Claude Code 2.1.x transcripts, record by record as the CLI writes them.

Shapes follow ``docs/session_formats.md`` and the real files in ``shared/fixtures/real``
(2.1.38, 2.1.152): one record per content block with a shared ``message.id``, tool results
as ``user`` records with ``toolUseResult`` and ``sourceToolAssistantUUID``, a
``file-history-snapshot`` before each prompt, ``system/turn_duration`` after each turn, a
``last-prompt`` at the end. Skills: the model's ``Skill`` tool call → ``Launching skill:``
result → an ``isMeta`` "Base directory for this skill" body with ``sourceToolUseID``; a
typed ``/name args`` → ``<command-message>``/``<command-name>``/``<command-args>`` (the order
Claude Code 2.1.332's binary writes) and the ``isMeta`` body with ``ARGUMENTS:``.
"""

from __future__ import annotations

import random
from datetime import datetime, timedelta
from typing import Any

import orjson

from benchmarks.sessions import heldout_files as F
from benchmarks.sessions.heldout_plans import Plan, Step
from benchmarks.sessions.heldout_world import SKILL_BODIES, claude_skill_dir

REJECTED = (
    "The user doesn't want to proceed with this tool use. The tool use was rejected (eg. if "
    "it was a file edit, the new_string was NOT written to the file). STOP what you are doing "
    "and wait for the user to tell you how to proceed."
)
_B58 = "123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz"
_DESCRIBE = {
    "git": "Inspect the repository",
    "pytest": "Run the tests",
    "alembic": "Run alembic",
    "uv": "Update the lock file",
    "pip": "Check package versions",
    "gh": "Query GitHub Actions",
    "for": "Run the test repeatedly",
    "ls": "List files",
    "make": "Run the make target",
    "python": "Run the tests",
    "ruff": "Lint the code",
    "tree": "Show the tree",
}


def uuid4(rng: random.Random) -> str:
    h = f"{rng.getrandbits(128):032x}"
    return f"{h[:8]}-{h[8:12]}-4{h[13:16]}-{'89ab'[int(h[16], 16) & 3]}{h[17:20]}-{h[20:32]}"


def _b58(rng: random.Random, n: int) -> str:
    return "".join(rng.choices(_B58, k=n))


def iso(t: datetime) -> str:
    return t.strftime("%Y-%m-%dT%H:%M:%S.") + f"{t.microsecond // 1000:03d}Z"


class ClaudeSession:
    """One main transcript, built in memory (tens of records) and returned as bytes."""

    def __init__(
        self,
        rng: random.Random,
        sid: str,
        cwd: str,
        branch: str,
        version: str,
        model: str,
        start: datetime,
    ) -> None:
        self.rng, self.sid, self.cwd, self.model, self.t = rng, sid, cwd, model, start
        self.tail = {
            "userType": "external",
            "entrypoint": "cli",
            "cwd": cwd,
            "sessionId": sid,
            "version": version,
            "gitBranch": branch,
        }
        self.lines: list[bytes] = []
        self.parent: str | None = None
        self.prompt_id = ""
        self.last_prompt = ""
        self.asked = start  # when the current turn's request was made

    # -------------------------------------------------------------- plumbing

    def _tick(self, lo: float, hi: float) -> str:
        self.t += timedelta(seconds=self.rng.uniform(lo, hi))
        return iso(self.t)

    def _emit(self, rec: dict[str, Any]) -> None:
        self.lines.append(orjson.dumps(rec))

    def _user(self, content: Any, ts: str, **extra: Any) -> str:
        u = uuid4(self.rng)
        rec = {
            "parentUuid": self.parent,
            "isSidechain": False,
            "promptId": self.prompt_id,
            "type": "user",
            "message": {"role": "user", "content": content},
            "uuid": u,
            "timestamp": ts,
            **extra,
            **self.tail,
        }
        self._emit(rec)
        self.parent = u
        return u

    def _snapshot(self, u: str, ts: str) -> None:
        self._emit(
            {
                "type": "file-history-snapshot",
                "messageId": u,
                "snapshot": {"messageId": u, "trackedFileBackups": {}, "timestamp": ts},
                "isSnapshotUpdate": False,
            }
        )

    def _assistant(self, blocks: list[dict[str, Any]], final: bool) -> list[str]:
        """One API response: a record per block, one ``message.id``, growing usage."""
        mid, req = f"msg_01{_b58(self.rng, 22)}", f"req_011C{_b58(self.rng, 20)}"
        rng = self.rng
        cache, read = rng.randint(200, 9000), rng.randint(15000, 60000)
        out, uuids = 0, []
        for i, block in enumerate(blocks):
            out += rng.randint(8, 160)
            last = i == len(blocks) - 1
            stop = ("end_turn" if final else "tool_use") if last else None
            u = uuid4(rng)
            self._emit(
                {
                    "parentUuid": self.parent,
                    "isSidechain": False,
                    "message": {
                        "model": self.model,
                        "id": mid,
                        "type": "message",
                        "role": "assistant",
                        "content": [block],
                        "stop_reason": stop,
                        "stop_sequence": None,
                        "usage": {
                            "input_tokens": rng.randint(1, 9),
                            "cache_creation_input_tokens": cache,
                            "cache_read_input_tokens": read,
                            "cache_creation": {
                                "ephemeral_5m_input_tokens": 0,
                                "ephemeral_1h_input_tokens": cache,
                            },
                            "output_tokens": out,
                            "service_tier": "standard",
                        },
                    },
                    "requestId": req,
                    "type": "assistant",
                    "uuid": u,
                    "timestamp": self._tick(0.3, 4),
                    **self.tail,
                }
            )
            self.parent = u
            uuids.append(u)
        return uuids

    # -------------------------------------------------------------- turns

    def prompt(self, text: str, gap: float = 0) -> None:
        """A typed request (string content, as every real prompt record has)."""
        self.t += timedelta(seconds=gap)
        ts = self._tick(0.5, 3)
        u = uuid4(self.rng)
        self._snapshot(u, ts)
        self.prompt_id = uuid4(self.rng)
        rec = {
            "parentUuid": self.parent,
            "isSidechain": False,
            "promptId": self.prompt_id,
            "type": "user",
            "message": {"role": "user", "content": text},
            "uuid": u,
            "timestamp": ts,
            "permissionMode": "default",
            **self.tail,
        }
        self._emit(rec)
        self.parent = u
        self.last_prompt = text
        self.asked = self.t

    def slash(self, name: str, args: str) -> None:
        """``/name args`` typed by the user: the command record, then the skill body."""
        ts = self._tick(0.5, 3)
        u = uuid4(self.rng)
        self._snapshot(u, ts)
        self.prompt_id = uuid4(self.rng)
        lines = [
            f"<command-message>{name}</command-message>",
            f"<command-name>/{name}</command-name>",
        ]
        if args:
            lines.append(f"<command-args>{args}</command-args>")
        self._user("\n".join(lines), ts)
        body = f"Base directory for this skill: {claude_skill_dir(name)}\n\n{SKILL_BODIES[name]}"
        if args:
            body += f"\n\nARGUMENTS: {args}"
        self._user([{"type": "text", "text": body}], ts, isMeta=True)
        self.last_prompt = f"/{name} {args}".strip()
        self.asked = self.t

    def work(self, plan: Plan) -> None:
        """The agent's turn. It ends early when the user refuses a tool use."""
        rng, steps, i = self.rng, plan.steps, 0
        thinking = rng.random() < 0.5
        while i < len(steps):
            group = [steps[i]]
            if (
                steps[i].tool == "read"
                and i + 1 < len(steps)
                and steps[i + 1].tool == "read"
                and rng.random() < 0.5
            ):
                group.append(steps[i + 1])  # parallel reads, one response
            blocks: list[dict[str, Any]] = []
            if thinking:
                blocks.append(
                    {
                        "type": "thinking",
                        "thinking": "The user wants this done; checking the relevant files first.",
                        "signature": F.hexid(rng, 64),
                    }
                )
                thinking = False
            if group[0].say:
                blocks.append({"type": "text", "text": group[0].say})
            ids = [f"toolu_01{_b58(rng, 22)}" for _ in group]
            blocks += [
                {
                    "type": "tool_use",
                    "id": tid,
                    "name": _NAME[st.tool],
                    "input": self._input(st),
                    "caller": {"type": "direct"},
                }
                for tid, st in zip(ids, group, strict=True)
            ]
            uuids = self._assistant(blocks, final=False)
            source = uuids[-1]
            for tid, st in zip(ids, group, strict=True):
                if not self._result(tid, st, source):
                    return
            i += len(group)
        if plan.answer:
            self._assistant([{"type": "text", "text": plan.answer}], final=True)
        self._emit(
            {
                "parentUuid": self.parent,
                "isSidechain": False,
                **self.tail,
                "type": "system",
                "subtype": "turn_duration",
                "durationMs": int((self.t - self.asked).total_seconds() * 1000),
                "timestamp": iso(self.t),
                "uuid": uuid4(rng),
                "isMeta": False,
            }
        )

    def finish(self) -> bytes:
        self._emit(
            {
                "type": "last-prompt",
                "lastPrompt": self.last_prompt,
                "leafUuid": self.parent,
                "sessionId": self.sid,
            }
        )
        return b"\n".join(self.lines) + b"\n"

    # -------------------------------------------------------------- tools

    def _path(self, rel: str) -> str:
        return rel if rel.startswith("/") else f"{self.cwd}/{rel}"

    def _input(self, st: Step) -> dict[str, Any]:
        if st.tool == "bash":
            return {"command": st.arg, "description": _DESCRIBE.get(st.arg.split()[0], "Run")}
        if st.tool == "read":
            return {"file_path": self._path(st.arg)}
        if st.tool == "edit":
            return {
                "file_path": self._path(st.arg),
                "old_string": st.old,
                "new_string": st.new,
                "replace_all": False,
            }
        if st.tool == "write":
            return {"file_path": self._path(st.arg), "content": st.new}
        if st.tool == "glob":
            return {"pattern": st.arg}
        if st.tool == "grep":
            return {"pattern": st.arg, "output_mode": "files_with_matches"}
        return {"skill": st.arg}

    def _result(self, tid: str, st: Step, source: str) -> bool:
        """The tool_result record (and a skill's body); False when the user refused."""
        ts = self._tick(0.1, 6 if st.tool == "bash" else 0.4)
        block: dict[str, Any] = {"tool_use_id": tid, "type": "tool_result"}
        if st.rejected:
            block.update(content=REJECTED, is_error=True)
            self._user(
                [block], ts, toolUseResult=f"Error: {REJECTED}", sourceToolAssistantUUID=source
            )
            self._user(
                [{"type": "text", "text": "[Request interrupted by user for tool use]"}],
                self._tick(0.1, 1),
            )
            return False
        files = [self._path(f) for f in st.out.split("\n") if f]
        if st.tool == "bash" and st.code:
            block.update(content=f"Exit code {st.code}\n{st.out}", is_error=True)
            result: Any = f"Error: Exit code {st.code}\n{st.out}"
        elif st.tool == "bash":
            block.update(content=st.out, is_error=False)
            result = {
                "stdout": st.out,
                "stderr": "",
                "interrupted": False,
                "isImage": False,
                "noOutputExpected": False,
            }
        elif st.tool == "read":
            n = st.out.count("\n") + 1
            block.update(content=F.numbered(st.out))
            result = {
                "type": "text",
                "file": {
                    "filePath": self._path(st.arg),
                    "content": st.out,
                    "numLines": n,
                    "startLine": 1,
                    "totalLines": n,
                },
            }
        elif st.tool == "edit":
            path = self._path(st.arg)
            block.update(content=f"The file {path} has been updated successfully.")
            old, new = st.old.split("\n"), st.new.split("\n")
            result = {
                "filePath": path,
                "oldString": st.old,
                "newString": st.new,
                "originalFile": f"# {st.arg}\n{st.old}",
                "structuredPatch": [
                    {
                        "oldStart": 2,
                        "oldLines": len(old),
                        "newStart": 2,
                        "newLines": len(new),
                        "lines": [f"-{x}" for x in old] + [f"+{x}" for x in new],
                    }
                ],
                "userModified": False,
                "replaceAll": False,
            }
        elif st.tool == "write":
            path = self._path(st.arg)
            block.update(content=f"File created successfully at: {path}")
            result = {
                "type": "create",
                "filePath": path,
                "content": st.new,
                "structuredPatch": [],
                "originalFile": None,
            }
        elif st.tool == "glob":
            block.update(content="\n".join(files) or "No files found")
            result = {
                "filenames": files,
                "durationMs": self.rng.randint(3, 90),
                "numFiles": len(files),
                "truncated": False,
            }
        elif st.tool == "grep":
            block.update(content=f"Found {len(files)} files\n" + "\n".join(files))
            result = {"mode": "files_with_matches", "filenames": files, "numFiles": len(files)}
        else:  # skill
            block.update(content=f"Launching skill: {st.arg}")
            result = {"success": True, "commandName": st.arg}
        self._user([block], ts, toolUseResult=result, sourceToolAssistantUUID=source)
        if st.tool == "skill":
            body = f"Base directory for this skill: {claude_skill_dir(st.arg)}\n\n"
            self._user(
                [{"type": "text", "text": body + SKILL_BODIES[st.arg]}],
                ts,
                isMeta=True,
                sourceToolUseID=tid,
            )
        return True


_NAME = {
    "bash": "Bash",
    "read": "Read",
    "edit": "Edit",
    "write": "Write",
    "glob": "Glob",
    "grep": "Grep",
    "skill": "Skill",
}
