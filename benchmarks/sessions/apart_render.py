"""Render abstract sessions as Claude Code transcripts and Codex rollouts (JSONL lines)."""

import json
from datetime import timedelta

from benchmarks.sessions.apart_data import HOME, SKILLS

B62 = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"


def uuid4(rng):
    h = f"{rng.getrandbits(128):032x}"
    return "{}-{}-4{}-{}{}-{}".format(
        h[:8],
        h[8:12],
        h[13:16],
        "89ab"[int(h[16], 16) % 4],
        h[17:20],
        h[20:32],
    )


def uuid7(rng, dt):
    ms = int(dt.timestamp() * 1000)
    h = f"{ms:012x}" + f"{rng.getrandbits(80):020x}"
    return "{}-{}-7{}-{}{}-{}".format(
        h[:8],
        h[8:12],
        h[13:16],
        "89ab"[int(h[16], 16) % 4],
        h[17:20],
        h[20:32],
    )


def b62(rng, n):
    return "".join(B62[rng.randrange(62)] for _ in range(n))


def iso(dt):
    return dt.strftime("%Y-%m-%dT%H:%M:%S.") + "%03dZ" % (dt.microsecond // 1000)


def dumps(obj):
    return json.dumps(obj, ensure_ascii=False, separators=(",", ":"))


def skill_body(name):
    desc, body = SKILLS[name]
    return f"---\nname: {name}\ndescription: {desc}\n---\n\n# {name}\n\n{body}"


class Clock:
    def __init__(self, rng, start):
        self.rng, self.t = rng, start

    def tick(self, lo=0.2, hi=6.0):
        self.t += timedelta(milliseconds=int(self.rng.uniform(lo, hi) * 1000))
        return self.t


# ---------------------------------------------------------------- Claude Code
def _cat_n(content):
    return "\n".join("%6d\u2192%s" % (i + 1, l) for i, l in enumerate(content.split("\n")))


def _describe(cmd):
    words = cmd.split()
    multi = ("git", "npm", "cargo", "go", "mix", "gh", "alembic", "helm", "npx")
    return "Run " + (" ".join(words[:2]) if words[0] in multi else words[0])


def _claude_tool(step):
    t = step["t"]
    if t == "bash":
        inp = {"command": step["cmd"], "description": _describe(step["cmd"])}
        if step["code"]:
            return (
                "Bash",
                inp,
                "Exit code %d\n%s" % (step["code"], step["out"]),
                True,
                "Error: Exit code %d\n%s" % (step["code"], step["out"]),
            )
        return (
            "Bash",
            inp,
            step["out"],
            False,
            {"stdout": step["out"], "stderr": "", "interrupted": False, "isImage": False},
        )
    if t == "read":
        c = step["content"]
        n = c.count("\n") + 1
        return (
            "Read",
            {"file_path": step["path"]},
            _cat_n(c),
            False,
            {
                "type": "text",
                "file": {
                    "filePath": step["path"],
                    "content": c,
                    "numLines": n,
                    "startLine": 1,
                    "totalLines": n,
                },
            },
        )
    if t == "edit":
        inp = {
            "file_path": step["path"],
            "old_string": step["old"],
            "new_string": step["new"],
            "replace_all": False,
        }
        return (
            "Edit",
            inp,
            "The file {} has been updated successfully.".format(step["path"]),
            False,
            {
                "filePath": step["path"],
                "oldString": step["old"],
                "newString": step["new"],
                "originalFile": None,
                "structuredPatch": [],
                "userModified": False,
                "replaceAll": False,
            },
        )
    if t == "write":
        return (
            "Write",
            {"file_path": step["path"], "content": step["content"]},
            "File created successfully at: {}".format(step["path"]),
            False,
            {
                "type": "create",
                "filePath": step["path"],
                "content": step["content"],
                "structuredPatch": [],
                "originalFile": None,
            },
        )
    if t == "grep":
        fs = step["files"]
        return (
            "Grep",
            {"pattern": step["pattern"], "path": step["path"], "output_mode": "files_with_matches"},
            "Found %d files\n%s" % (len(fs), "\n".join(fs)),
            False,
            {"mode": "files_with_matches", "filenames": fs, "numFiles": len(fs)},
        )
    fs = step["files"]
    return (
        "Glob",
        {"pattern": step["pattern"]},
        "\n".join(fs),
        False,
        {"filenames": fs, "durationMs": 12, "numFiles": len(fs), "truncated": False},
    )


def render_claude(rng, sess):
    sid, p, clock = sess["id"], sess["project"], Clock(rng, sess["start"])
    version, model = sess["version"], sess["model"]
    base = {
        "isSidechain": False,
        "userType": "external",
        "cwd": p["cwd"],
        "sessionId": sid,
        "version": version,
        "gitBranch": sess["branch"],
    }
    lines, state = [], {"parent": None}

    def rec(d, ts=None):
        r = {"parentUuid": state["parent"]}
        r.update(base)
        r.update(d)
        r["uuid"] = uuid4(rng)
        r["timestamp"] = iso(ts or clock.tick())
        state["parent"] = r["uuid"]
        lines.append(r)
        return r

    def assistant(blocks, stop):
        mid, req = "msg_01" + b62(rng, 22), "req_011C" + b62(rng, 20)
        inp, cache = rng.randrange(1, 9), rng.randrange(8000, 60000)
        for i, blk in enumerate(blocks):
            last = i == len(blocks) - 1
            rec(
                {
                    "message": {
                        "model": model,
                        "id": mid,
                        "type": "message",
                        "role": "assistant",
                        "content": [blk],
                        "stop_reason": stop if last else None,
                        "stop_sequence": None,
                        "usage": {
                            "input_tokens": inp,
                            "cache_creation_input_tokens": rng.randrange(0, 900),
                            "cache_read_input_tokens": cache,
                            "output_tokens": rng.randrange(20, 400) if last else 1,
                            "service_tier": "standard",
                        },
                    },
                    "requestId": req,
                    "type": "assistant",
                },
                clock.tick(0.05, 0.4) if i else None,
            )
        return state["parent"]

    for turn in sess["turns"]:
        t0 = clock.tick(20, 240)
        uid = uuid4(rng)
        lines.append(
            {
                "type": "file-history-snapshot",
                "messageId": uid,
                "snapshot": {"messageId": uid, "trackedFileBackups": {}, "timestamp": iso(t0)},
                "isSnapshotUpdate": False,
            }
        )
        if turn.get("slash"):
            name, args = turn["slash"]
            content = f"<command-message>{name}</command-message>\n<command-name>/{name}</command-name>\n<command-args>{args}</command-args>"
        else:
            content = turn["text"]
        r = rec({"type": "user", "message": {"role": "user", "content": content}}, t0)
        r["uuid"] = uid
        state["parent"] = uid
        if turn.get("slash"):
            name, args = turn["slash"]
            body = (
                f"Base directory for this skill: {HOME}/.claude/skills/{name}\n\n{skill_body(name)}"
            )
            if args:
                body += "\n\nARGUMENTS: " + args
            rec(
                {
                    "type": "user",
                    "message": {"role": "user", "content": [{"type": "text", "text": body}]},
                    "isMeta": True,
                }
            )
        for step in turn["steps"]:
            if step["t"] == "text":
                assistant([{"type": "text", "text": step["text"]}], None)
                continue
            tid = "toolu_01" + b62(rng, 22)
            blocks = []
            if rng.random() < 0.3:
                blocks.append(
                    {
                        "type": "text",
                        "text": rng.choice(
                            [
                                "Let me check.",
                                "Looking at this now.",
                                "Next step.",
                                "Checking the current state.",
                            ]
                        ),
                    }
                )
            if step["t"] == "skill":
                blocks.append(
                    {
                        "type": "tool_use",
                        "id": tid,
                        "name": "Skill",
                        "input": {"skill": step["name"]},
                    }
                )
                auuid = assistant(blocks, "tool_use")
                rec(
                    {
                        "type": "user",
                        "message": {
                            "role": "user",
                            "content": [
                                {
                                    "tool_use_id": tid,
                                    "type": "tool_result",
                                    "content": "Launching skill: {}".format(step["name"]),
                                }
                            ],
                        },
                        "toolUseResult": {"success": True, "commandName": step["name"]},
                        "sourceToolAssistantUUID": auuid,
                    }
                )
                rec(
                    {
                        "type": "user",
                        "message": {
                            "role": "user",
                            "content": [
                                {
                                    "type": "text",
                                    "text": "Base directory for this skill: {}/.claude/skills/{}\n\n{}".format(
                                        HOME, step["name"], skill_body(step["name"])
                                    ),
                                }
                            ],
                        },
                        "isMeta": True,
                        "sourceToolUseID": tid,
                    }
                )
                continue
            name, inp, out, err, tur = _claude_tool(step)
            blocks.append({"type": "tool_use", "id": tid, "name": name, "input": inp})
            auuid = assistant(blocks, "tool_use")
            res = {"tool_use_id": tid, "type": "tool_result", "content": out}
            if err or name == "Bash":
                res["is_error"] = err
            rec(
                {
                    "type": "user",
                    "message": {"role": "user", "content": [res]},
                    "toolUseResult": tur,
                    "sourceToolAssistantUUID": auuid,
                },
                clock.tick(0.1, 9),
            )
        assistant([{"type": "text", "text": turn["final"]}], "end_turn")
        rec(
            {
                "type": "system",
                "subtype": "turn_duration",
                "durationMs": int((clock.t - t0).total_seconds() * 1000),
                "isMeta": False,
            }
        )
    return lines


# ---------------------------------------------------------------- Codex
def _codex_cmd(step):
    t = step["t"]
    if t == "bash":
        head = step["cmd"].split()[0]
        return (
            step["cmd"],
            step["out"],
            step["code"],
            [{"type": "unknown", "cmd": step["cmd"]}]
            if head not in ("ls",)
            else [{"type": "list_files", "cmd": step["cmd"], "path": None}],
        )
    if t == "read":
        cmd = "sed -n '1,200p' {}".format(step["path"])
        return (
            cmd,
            step["content"],
            0,
            [
                {
                    "type": "read",
                    "cmd": cmd,
                    "name": step["path"].rsplit("/", 1)[-1],
                    "path": step["path"],
                }
            ],
        )
    if t == "grep":
        cmd = "rg -n {} {}".format(json.dumps(step["pattern"]), step["path"])
        return (
            cmd,
            "\n".join("{}:12:{}".format(f, step["pattern"]) for f in step["files"]),
            0,
            [{"type": "search", "cmd": cmd, "query": step["pattern"], "path": step["path"]}],
        )
    cmd = "rg --files -g '{}'".format(step["pattern"])
    return cmd, "\n".join(step["files"]), 0, [{"type": "list_files", "cmd": cmd, "path": None}]


def _patch(step):
    if step["t"] == "write":
        body = "\n".join("+" + l for l in step["content"].split("\n"))
        return "*** Begin Patch\n*** Add File: {}\n{}\n*** End Patch\n".format(
            step["path"], body
        ), "A"
    old = "\n".join("-" + l for l in step["old"].split("\n"))
    new = "\n".join("+" + l for l in step["new"].split("\n"))
    return "*** Begin Patch\n*** Update File: {}\n@@\n{}\n{}\n*** End Patch\n".format(
        step["path"],
        old,
        new,
    ), "M"


def render_codex(rng, sess):
    p, clock = sess["project"], Clock(rng, sess["start"])
    sid, cwd, lines = sess["id"], p["cwd"], []
    tot = {
        "input_tokens": 0,
        "cached_input_tokens": 0,
        "output_tokens": 0,
        "reasoning_output_tokens": 0,
        "total_tokens": 0,
    }

    def line(typ, payload, ts=None):
        lines.append({"timestamp": iso(ts or clock.tick(0.05, 2)), "type": typ, "payload": payload})

    def tokens():
        last = {
            "input_tokens": rng.randrange(9000, 40000),
            "cached_input_tokens": 0,
            "output_tokens": rng.randrange(30, 600),
            "reasoning_output_tokens": rng.randrange(0, 200),
        }
        last["cached_input_tokens"] = last["input_tokens"] - rng.randrange(200, 3000)
        last["total_tokens"] = last["input_tokens"] + last["output_tokens"]
        for k in tot:
            tot[k] += last[k]
        line(
            "event_msg",
            {
                "type": "token_count",
                "info": {
                    "total_token_usage": dict(tot),
                    "last_token_usage": last,
                    "model_context_window": 258400,
                },
                "rate_limits": None,
            },
        )

    line(
        "session_meta",
        {
            "id": sid,
            "timestamp": iso(sess["start"]),
            "cwd": cwd,
            "originator": "codex-tui",
            "cli_version": sess["version"],
            "source": "cli",
            "model_provider": "openai",
            "base_instructions": {
                "text": "You are Codex, a coding agent based on GPT-5. You and the user share one workspace."
            },
            "git": {
                "commit_hash": f"{rng.getrandbits(160):040x}",
                "branch": sess["branch"],
                "repository_url": "git@github.com:noor/{}.git".format(cwd.rsplit("/", 1)[-1]),
            },
        },
        clock.tick(1, 3),
    )
    for ti, turn in enumerate(sess["turns"]):
        t0 = clock.tick(20, 240)
        turn_id = uuid7(rng, t0)
        line(
            "event_msg",
            {
                "type": "task_started",
                "turn_id": turn_id,
                "started_at": int(t0.timestamp()),
                "model_context_window": 258400,
                "collaboration_mode_kind": "default",
            },
            t0,
        )
        if ti == 0:
            line(
                "response_item",
                {
                    "type": "message",
                    "role": "developer",
                    "content": [
                        {
                            "type": "input_text",
                            "text": "<permissions instructions>\nFilesystem sandboxing defines which files can be read or written. `sandbox_mode` is `workspace-write`.\n</permissions instructions>",
                        }
                    ],
                },
            )
            line(
                "response_item",
                {
                    "type": "message",
                    "role": "user",
                    "content": [
                        {
                            "type": "input_text",
                            "text": "<environment_context>\n  <cwd>{}</cwd>\n  <shell>zsh</shell>\n  <current_date>{}</current_date>\n  <timezone>Europe/Berlin</timezone>\n</environment_context>".format(
                                cwd, t0.strftime("%Y-%m-%d")
                            ),
                        }
                    ],
                },
            )
        line(
            "turn_context",
            {
                "turn_id": turn_id,
                "cwd": cwd,
                "current_date": t0.strftime("%Y-%m-%d"),
                "timezone": "Europe/Berlin",
                "approval_policy": "on-request",
                "sandbox_policy": {"type": "workspace-write", "network_access": False},
                "model": sess["model"],
                "effort": "medium",
                "summary": "auto",
            },
        )
        line(
            "response_item",
            {
                "type": "message",
                "role": "user",
                "content": [{"type": "input_text", "text": turn["text"]}],
            },
        )
        line(
            "event_msg",
            {
                "type": "user_message",
                "message": turn["text"],
                "images": [],
                "local_images": [],
                "text_elements": [],
            },
        )
        if turn.get("dollar"):
            n = turn["dollar"]
            line(
                "response_item",
                {
                    "type": "message",
                    "role": "user",
                    "content": [
                        {
                            "type": "input_text",
                            "text": f"<skill>\n<name>{n}</name>\n<path>{HOME}/.codex/skills/{n}/SKILL.md</path>\n{skill_body(n)}\n</skill>",
                        }
                    ],
                },
            )
        if turn["steps"] and rng.random() < 0.35:
            msg = rng.choice(
                [
                    "I'll look at the current state first.",
                    "Checking the repo before changing anything.",
                    "Let me see what's there.",
                ]
            )
            line(
                "event_msg",
                {
                    "type": "agent_message",
                    "message": msg,
                    "phase": "commentary",
                    "memory_citation": None,
                },
            )
            line(
                "response_item",
                {
                    "type": "message",
                    "role": "assistant",
                    "content": [{"type": "output_text", "text": msg}],
                    "phase": "commentary",
                },
            )
        for step in turn["steps"]:
            if rng.random() < 0.5:
                line(
                    "response_item",
                    {
                        "type": "reasoning",
                        "summary": [],
                        "content": None,
                        "encrypted_content": "gAAAAAB" + b62(rng, 120),
                    },
                )
            if step["t"] == "text":
                line(
                    "event_msg",
                    {
                        "type": "agent_message",
                        "message": step["text"],
                        "phase": "commentary",
                        "memory_citation": None,
                    },
                )
                line(
                    "response_item",
                    {
                        "type": "message",
                        "role": "assistant",
                        "content": [{"type": "output_text", "text": step["text"]}],
                        "phase": "commentary",
                    },
                )
                continue
            call_id = "call_" + b62(rng, 24)
            if step["t"] in ("edit", "write"):
                patch, letter = _patch(step)
                line(
                    "response_item",
                    {
                        "type": "custom_tool_call",
                        "status": "completed",
                        "call_id": call_id,
                        "name": "apply_patch",
                        "input": patch,
                    },
                )
                tokens()
                out = "Success. Updated the following files:\n{} {}\n".format(letter, step["path"])
                line(
                    "event_msg",
                    {
                        "type": "patch_apply_end",
                        "call_id": call_id,
                        "turn_id": turn_id,
                        "stdout": out,
                        "stderr": "",
                        "success": True,
                        "status": "completed",
                        "changes": {
                            step["path"]: {
                                "type": "add" if letter == "A" else "update",
                                "unified_diff": patch,
                                "move_path": None,
                            }
                        },
                    },
                    clock.tick(0.1, 1),
                )
                line(
                    "response_item",
                    {
                        "type": "custom_tool_call_output",
                        "call_id": call_id,
                        "output": json.dumps(
                            {"output": out, "metadata": {"exit_code": 0, "duration_seconds": 0.0}}
                        ),
                    },
                )
                continue
            cmd, out, code, parsed = _codex_cmd(step)
            line(
                "response_item",
                {
                    "type": "function_call",
                    "name": "exec_command",
                    "arguments": json.dumps(
                        {
                            "cmd": cmd,
                            "workdir": cwd,
                            "yield_time_ms": 1000,
                            "max_output_tokens": 12000,
                        }
                    ),
                    "call_id": call_id,
                },
            )
            tokens()
            wall = rng.uniform(0.01, 6)
            line(
                "event_msg",
                {
                    "type": "exec_command_end",
                    "call_id": call_id,
                    "turn_id": turn_id,
                    "command": ["/bin/zsh", "-lc", cmd],
                    "cwd": cwd,
                    "parsed_cmd": parsed,
                    "source": "unified_exec_startup",
                    "stdout": out,
                    "stderr": "",
                    "aggregated_output": out,
                    "exit_code": code,
                    "duration": {"secs": int(wall), "nanos": int((wall % 1) * 1e9)},
                    "formatted_output": out,
                    "status": "completed" if code == 0 else "failed",
                },
                clock.tick(0.1, 9),
            )
            line(
                "response_item",
                {
                    "type": "function_call_output",
                    "call_id": call_id,
                    "output": "Chunk ID: %06x\nWall time: %.4f seconds\nProcess exited with code %d\nOriginal token count: %d\nOutput:\n%s"
                    % (rng.getrandbits(24), wall, code, len(out) // 4, out),
                },
            )
        line(
            "event_msg",
            {
                "type": "agent_message",
                "message": turn["final"],
                "phase": "final_answer",
                "memory_citation": None,
            },
        )
        line(
            "response_item",
            {
                "type": "message",
                "role": "assistant",
                "content": [{"type": "output_text", "text": turn["final"]}],
                "phase": "final_answer",
            },
        )
        tokens()
        line(
            "event_msg",
            {
                "type": "task_complete",
                "turn_id": turn_id,
                "last_agent_message": turn["final"],
                "completed_at": int(clock.t.timestamp()),
                "duration_ms": int((clock.t - t0).total_seconds() * 1000),
            },
        )
    return lines
