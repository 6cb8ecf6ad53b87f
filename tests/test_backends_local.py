"""The embedded local backend against the REAL embedded model on llama.cpp (extra 'local').

One shared server (conftest ``local_server``: Qwen2.5-Coder-0.5B). These tests
check plumbing: calls succeed, every JSON answer is parsed or counted, odd output never
crashes, the joined model is the pinned one, no process is left over.
"""

from __future__ import annotations

import os
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from trainer.backends.base import ContextOverflow, Roles, seeded_sample
from trainer.backends.factory import build_roles
from trainer.backends.local import LocalServer, _free_port, local_roles
from trainer.backends.models import MODELS, QWEN_05B, ensure_gguf, installed, verify
from trainer.scoring import read_json

pytestmark = [pytest.mark.local_model, pytest.mark.timeout(600)]

if not installed(QWEN_05B):
    pytest.skip("local model not installed (extra 'local')", allow_module_level=True)

GRADE = {
    "type": "object",
    "properties": {
        "verdict": {"type": "string", "enum": ["pass", "fail"]},
        "reason": {"type": "string"},
    },
    "required": ["verdict", "reason"],
}
EDITS = {
    "type": "object",
    "properties": {
        "edits": {
            "type": "array",
            "items": {
                "type": "object",
                "properties": {"op": {"type": "string"}, "text": {"type": "string"}},
                "required": ["op", "text"],
            },
        }
    },
    "required": ["edits"],
}


def alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    # A zombie still answers kill(0); it is gone for our purposes only once reaped.
    status = Path(f"/proc/{pid}/status")
    return not (status.exists() and "zombie" in status.read_text())


def server_pids(port: str) -> list[int]:
    """PIDs of local_server children listening on ``port`` (read from /proc)."""
    found = []
    for cmdline in Path("/proc").glob("[0-9]*/cmdline"):
        try:
            args = cmdline.read_bytes().split(b"\0")
        except OSError:
            continue
        if b"trainer.backends.local_server" in args and port.encode() in args:
            found.append(int(cmdline.parent.name))
    return found


@pytest.fixture(scope="module")
def server(local_server: LocalServer) -> LocalServer:
    return local_server


@pytest.fixture(scope="module")
def roles(server: LocalServer) -> Roles:
    return local_roles(server, {"target": {"max_tokens": 24}, "judge": {"max_tokens": 60}})


def user(text: str) -> list[dict[str, str]]:
    return [{"role": "user", "content": text}]


def test_server_is_up_and_small(server: LocalServer) -> None:
    assert server.pid is not None and alive(server.pid)
    assert server.start_seconds is not None
    rss = server.rss_mb()
    assert rss is not None and rss < QWEN_05B.size / 2**20 + 600  # weights + 8k context
    print(f"\nlocal server: start {server.start_seconds:.2f}s, RSS {rss:.0f} MB")


@pytest.mark.parametrize("spec", list(MODELS.values()), ids=list(MODELS))
def test_the_joined_models_are_the_pinned_files(spec) -> None:
    """Full check, not the stamp: size and sha256 of the file llama.cpp loads."""
    path = ensure_gguf(spec)
    assert verify(spec, path), f"{path} is not {spec.sha256}"
    assert path.read_bytes()[:4] == b"GGUF"


def test_concurrent_short_calls(roles: Roles, server: LocalServer) -> None:
    prompts = [f"Name one fruit. Number {i}." for i in range(6)]
    t0 = time.monotonic()
    with ThreadPoolExecutor(4) as pool:
        results = list(pool.map(lambda p: roles.target.complete(user(p)), prompts))
    per_call = (time.monotonic() - t0) / len(prompts)
    assert all(c.input_tokens > 0 and 0 < c.output_tokens <= 24 for c in results)
    assert all(c.cost_usd == 0.0 for c in results)
    assert roles.target.usage["calls"] == 6
    print(f"\nlocal: {per_call * 1000:.0f} ms per short call (wall, {server.parallel} slots)")


def test_one_seed_gives_one_sampled_answer(server: LocalServer) -> None:
    """At temperature 0.7 the server honours the paired seed: the same seed draws the same
    answer (what pairs two skills' attempts), other seeds draw others. The first call is a
    warm-up: llama.cpp's logits for a prompt read afresh and for one served from its prompt
    cache differ in the last bits, enough to change a sampled token now and then, so the
    pairing is partial (benchmarks/paired_seeds.py measures how much)."""
    target = local_roles(server, {"target": {"temperature": 0.7, "max_tokens": 24}}).target
    prompt = user("Invent a name for a pet turtle and say why, in one sentence.")

    def draw(seed: int) -> str:
        with seeded_sample(seed):
            return target.complete(prompt).text

    draw(0)
    assert draw(7) == draw(7) == draw(7)
    assert len({draw(seed) for seed in range(8, 12)}) > 1


def test_json_schema_answers_are_parsed_or_counted(roles: Roles) -> None:
    """The answers go through the parser the trainer uses (trainer.scoring.read_json)."""
    questions = [f"Grade this answer to 'what is {i}+{i}?': '{2 * i}'" for i in range(4)]
    with ThreadPoolExecutor(2) as pool:
        done = list(pool.map(lambda q: roles.judge.complete(user(q), json_schema=GRADE), questions))
    read = [read_json(c.text) for c in done]
    for value, _ in read:
        assert value is None or value.get("verdict") in ("pass", "fail")
    assert roles.judge.json_mode is True  # llama.cpp accepts response_format
    parsed = sum(v is not None and not r for v, r in read)
    repaired = sum(v is not None and r for v, r in read)
    assert parsed + repaired >= 1  # grammar-constrained output mostly parses
    print(f"\nlocal json (response_format): {parsed} parsed, {repaired} repaired of {len(read)}")


def test_prompt_only_json_fallback_asks_in_the_prompt(server: LocalServer) -> None:
    """Without response_format the schema goes into the prompt: each call's prompt is the
    bare one plus the instruction, the role's max_tokens still caps the answer, and
    whatever comes back is parsed or counted, never raised."""
    backend = local_roles(server, {"optimizer": {"max_tokens": 48}}).optimizer
    backend.json_mode = False  # as if the endpoint had rejected response_format
    read = []
    for task in ("Propose one edit to a skill about git.", "Suggest edits. Be brief.", "?"):
        bare = backend.complete(user(task), max_tokens=1)
        asked = backend.complete(user(task), json_schema=EDITS)
        assert asked.input_tokens > bare.input_tokens + 40  # the schema, as an instruction
        assert 0 < asked.output_tokens <= 48
        value, _ = read_json(asked.text)
        read.append(value)
    assert backend.json_mode is False  # no retry with response_format behind our back
    assert backend.usage["calls"] == 6 and backend.usage["failures"] == 0
    usable = sum(v is not None for v in read)
    print(f"\nlocal json (prompt only): {usable} of {len(read)} usable")


@pytest.mark.parametrize(
    ("messages", "min_prompt_tokens"),
    [
        (user(""), 1),
        (user("🙂" * 50 + " ¿¡ \x00 \u202e"), 50),
        ([{"role": "system", "content": "Only say NO."}, *user("Say yes.")], 8),
        ([*user("a"), {"role": "assistant", "content": "b"}, *user("c")], 3),
    ],
)
def test_odd_inputs_are_answered_whole(
    roles: Roles, messages: list[dict[str, str]], min_prompt_tokens: int
) -> None:
    """An empty message, emoji and control characters, a system turn, a multi-turn chat:
    each is one counted call whose whole prompt reached the model, never a failure."""
    before = dict(roles.target.usage)
    c = roles.target.complete(messages)
    assert c.input_tokens >= min_prompt_tokens and c.output_tokens <= 24
    assert roles.target.usage["calls"] == before["calls"] + 1
    assert roles.target.usage["failures"] == before["failures"]
    read_json(c.text)  # whatever it wrote, parsing does not raise


def server_ctx() -> int:
    return LocalServer.__init__.__kwdefaults__["n_ctx"]


def test_prompt_beyond_context_is_context_overflow_not_crash(roles: Roles) -> None:
    """Not an InfraError (an outage, retried): the same prompt always overflows."""
    with pytest.raises(ContextOverflow):
        roles.target.complete(user("word " * (server_ctx() + 1000)))


def test_build_roles_local_starts_and_stops_its_server(tmp_path: Path) -> None:
    """All roles on one model: one server, started by build_roles and stopped by PID."""
    one = {r: QWEN_05B.key for r in ("optimizer", "target", "judge")}
    cfg = {"backend": "local", "local": {**one, "threads": 1, "parallel": 1}}
    with build_roles(cfg, {}, local_log_dir=tmp_path) as roles:
        url = roles.judge.config.base_url
        assert url is not None and url.startswith("http://127.0.0.1:")
        assert roles.optimizer.config.base_url == url  # one model, one server
        assert roles.judge.complete(user("Hi"), max_tokens=4).output_tokens > 0
        assert roles.judge.identity == "local:qwen2.5-coder-0.5b:t=0"  # no port
        assert roles.target.description["model"] == "Qwen2.5-Coder-0.5B-Instruct Q4_K_M"
        port = url.rsplit(":", 1)[1].split("/")[0]
        pids = server_pids(port)
        assert len(pids) == 1 and alive(pids[0])
    assert not alive(pids[0])  # stop() waited for the process to exit
    assert (tmp_path / "local-model-qwen2.5-coder-0.5b.log").exists()  # the caller's log dir


def test_child_stops_even_while_model_loads() -> None:
    """A stop request during loading must not hang the child (llama.cpp can deadlock).
    The request is sent once the child says it is loading; the child may finish loading
    first (a signal waits for the native call), so the bound is generous: a hang is forever."""
    gguf = ensure_gguf(QWEN_05B)
    cmd = [sys.executable, "-m", "trainer.backends.local_server", "--model", str(gguf)]
    proc = subprocess.Popen(
        [*cmd, "--port", str(_free_port())],
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
    )
    try:
        assert proc.stdout is not None
        assert proc.stdout.readline().startswith("local_server: loading ")
        proc.terminate()
        proc.wait(120)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
            pytest.fail("the server child ignored SIGTERM during loading")


def test_threads_are_chosen_by_timing_the_real_server() -> None:
    """With two idle cores both counts are timed on the real model and the choice follows
    the timings (more threads only when MARGIN faster); with one idle core nothing is timed."""
    from trainer.backends.threads import MARGIN, choose_threads

    gguf = ensure_gguf(QWEN_05B)

    def server(n: int) -> LocalServer:
        return LocalServer(gguf, spec=QWEN_05B, threads=n, parallel=1, n_ctx=2048)

    choice = choose_threads(server, idle=2.0)
    t = choice.probe_seconds
    assert set(t) == {1, 2} and min(t.values()) > 0
    assert choice.threads == (2 if t[1] >= MARGIN * t[2] else 1), choice
    alone = choose_threads(server, idle=1.0)
    assert (alone.threads, alone.probe_seconds) == (1, {})


def test_the_server_cuts_a_request_that_sends_no_output_cap() -> None:
    """Codex sends no max_tokens: a server started with ``max_tokens`` stops the answer
    there, while a request's own smaller cap still holds. Greedy decoding: the same
    answer both times, long enough that only a cap ends it."""
    gguf = ensure_gguf(QWEN_05B)
    with LocalServer(gguf, spec=QWEN_05B, parallel=1, n_ctx=2048, max_tokens=12) as server:
        uncapped = _count_to_100(server.base_url)
        assert uncapped["usage"]["completion_tokens"] == 12
        assert uncapped["choices"][0]["finish_reason"] == "length"
        own = _count_to_100(server.base_url, max_tokens=5)
        assert own["usage"]["completion_tokens"] == 5
        assert own["choices"][0]["finish_reason"] == "length"


def _count_to_100(base_url: str, **extra: int) -> dict:
    """A greedy chat request whose uncapped answer is 141 tokens long."""
    import json
    import urllib.request

    content = "Write the numbers from 1 to 100, separated by commas."
    body = {"messages": [{"role": "user", "content": content}], "temperature": 0, **extra}
    req = urllib.request.Request(
        f"{base_url}/chat/completions",
        data=json.dumps(body).encode(),
        headers={"Content-Type": "application/json"},
    )
    with urllib.request.urlopen(req, timeout=300) as resp:
        return json.loads(resp.read())


def test_the_nights_harness_server_caps_output_at_the_harness_setting() -> None:
    """The server a night starts for the agent CLIs enforces harness.max_output_tokens."""
    from skillopt_sleep.config import defaults
    from skillopt_sleep.replay.build import embedded_server

    config = defaults()
    config["harness"] = {**config["harness"], "max_output_tokens": 9, "local_n_ctx": 2048}
    with embedded_server(config) as server:
        assert _count_to_100(server.base_url)["usage"]["completion_tokens"] == 9
