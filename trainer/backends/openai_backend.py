"""ChatBackend over the official ``openai`` SDK, for any OpenAI-compatible endpoint.

Retries are the SDK's own, configured through ``RoleConfig.max_retries`` and ``timeout_s``:
it retries connection errors, timeouts, 408/409/429 and 5xx with exponential backoff
(0.5 s doubling, capped at 8 s) and 0-25 % jitter, and honours ``retry-after(-ms)`` headers.
We do not add a second retry layer (that would multiply the waits); we only turn what is
left after the SDK gave up into ``InfraError``, which the trainer never scores as a task
failure — except a request refused for not fitting the model's context, which is
``ContextOverflow``: it always fails again, and for a rollout it means the task failed.
"""

from __future__ import annotations

import copy
import json
import re
import threading
from typing import Any

import openai

from trainer.backends.base import (
    Completion,
    ContextOverflow,
    InfraError,
    Message,
    ModelConfigError,
    sample_seed,
)
from trainer.backends.config import RoleConfig

# Sent instead of response_format to endpoints that reject it.
_JSON_INSTRUCTION = (
    "Answer with a single JSON value and nothing else (no prose, no code fences). "
    "It must match this JSON schema:\n{schema}"
)


# Size and range bounds. llama.cpp compiles them into the decoding grammar, so a bounded
# answer always completes within max_tokens; some strict-mode endpoints reject some of them,
# and then the schema is sent once more without them (``lean_schema``).
BOUND_KEYWORDS = frozenset(
    {"maxLength", "minLength", "maxItems", "minItems", "minimum", "maximum", "pattern"}
)


def split_schema(schema: dict[str, Any]) -> tuple[str, dict[str, Any]]:
    """``(name, JSON schema)`` from either form callers use: a bare JSON schema (named by
    its ``title``) or OpenAI's ``{"name": ..., "schema": {...}}`` wrapper. Sending the
    wrapper itself as the schema would constrain nothing (it has no ``type``)."""
    inner = schema.get("schema")
    if isinstance(inner, dict) and "type" not in schema and "properties" not in schema:
        raw_name = schema.get("name") or inner.get("title") or "answer"
        schema = inner
    else:
        raw_name = schema.get("title") or "answer"
    name = re.sub(r"[^A-Za-z0-9_-]", "_", str(raw_name))[:64]
    return name or "answer", schema


def strict_schema(schema: dict[str, Any]) -> dict[str, Any]:
    """A copy of ``schema`` that OpenAI's strict mode accepts.

    Strict mode requires every object to list all its properties as required and to set
    ``additionalProperties: false``; our parser stays lenient about both, so tightening the
    schema sent to the endpoint loses nothing. Everything else — ``enum`` and the bounds in
    ``BOUND_KEYWORDS`` — is kept: they are what keeps a weak model's answer short.
    """
    out = copy.deepcopy(split_schema(schema)[1])

    def walk(node: Any) -> None:
        if isinstance(node, dict):
            if node.get("type") == "object" and isinstance(node.get("properties"), dict):
                node["required"] = list(node["properties"])
                node.setdefault("additionalProperties", False)
            for value in node.values():
                walk(value)
        elif isinstance(node, list):
            for value in node:
                walk(value)

    walk(out)
    return out


def lean_schema(schema: dict[str, Any]) -> dict[str, Any]:
    """``schema`` without the keywords in ``BOUND_KEYWORDS`` (for endpoints that refuse them)."""

    def walk(node: Any) -> Any:
        if isinstance(node, dict):
            return {k: walk(v) for k, v in node.items() if k not in BOUND_KEYWORDS}
        if isinstance(node, list):
            return [walk(v) for v in node]
        return node

    return walk(schema)


# How endpoints say "the prompt does not fit": OpenAI and vLLM ("maximum context length",
# code context_length_exceeded), llama.cpp ("exceeds the available context size",
# exceed_context_size_error), Anthropic-style ("prompt is too long").
_OVERFLOW = re.compile(
    r"context[_ ]length[_ ]exceeded|exceed_context_size|maximum context length|"
    r"exceeds the available context|context window|prompt is too long|input is too long",
    re.IGNORECASE,
)


def _is_overflow(err: openai.APIError) -> bool:
    status = getattr(err, "status_code", None)
    return status in (400, 413) and bool(_OVERFLOW.search(f"{err.message} {err.body!r}"))


def _rejects_response_format(err: openai.BadRequestError) -> bool:
    text = f"{err.message} {err.body!r}".lower()
    return "response_format" in text or "json_schema" in text


def api_key(config: RoleConfig) -> str:
    """The key to send; ModelConfigError when there is none and the endpoint needs one."""
    if config.api_key is not None:
        return config.api_key
    if config.base_url is None:
        raise ModelConfigError(
            f"no API key for model {config.model!r}: set {config.api_key_env} "
            "(or the role's <ROLE>_API_KEY), or configure a base_url"
        )
    return "unused"  # self-hosted endpoints (vLLM, llama.cpp, Ollama) take no key


class OpenAIBackend:
    """One role's endpoint. Thread-safe: the SDK client is, and our counters take a lock.

    ``limiter`` lets several backends that share one endpoint (the local server) share its
    concurrency limit; by default each backend has its own of ``config.concurrency``.
    ``identity`` overrides the default (model, endpoint, temperature) when the endpoint's URL
    is not stable across runs, as with the local server's random port: cache keys must be.
    """

    def __init__(
        self,
        config: RoleConfig,
        *,
        limiter: threading.Semaphore | None = None,
        client: openai.OpenAI | None = None,
        identity: str | None = None,
    ) -> None:
        self.config = config
        endpoint = config.base_url or "api.openai.com"
        self.identity = identity or f"openai:{config.model}@{endpoint}:t={config.temperature:g}"
        self.concurrency = config.concurrency
        self._limiter = limiter or threading.BoundedSemaphore(config.concurrency)
        self._lock = threading.Lock()
        self.description = self.describe(config)
        self.price = config.price  # None: unknown, counted as $0 (trainer.backends.prices)
        self.json_mode = True  # False once the endpoint rejected response_format
        self.schema_bounds = True  # False once it rejected a schema for its size bounds
        self.usage: dict[str, float] = {
            "calls": 0,
            "failures": 0,
            "input_tokens": 0,
            "output_tokens": 0,
            "cost_usd": 0.0,
        }
        key = api_key(config)
        self._client = client or openai.OpenAI(
            api_key=key,
            # Explicit, so the SDK never reads OPENAI_BASE_URL behind roles_from_config's back.
            base_url=config.base_url or "https://api.openai.com/v1",
            timeout=config.timeout_s,
            max_retries=config.max_retries,
        )

    @staticmethod
    def describe(config: RoleConfig) -> dict[str, str]:
        """What serves a role on this backend, for the report (never the key)."""
        endpoint = config.base_url or "https://api.openai.com/v1"
        return {"model": config.model, "backend": "openai", "endpoint": endpoint}

    def __repr__(self) -> str:
        return f"OpenAIBackend({self.identity!r}, concurrency={self.concurrency})"

    def complete(
        self,
        messages: list[Message],
        *,
        json_schema: dict[str, Any] | None = None,
        max_tokens: int | None = None,
    ) -> Completion:
        """One chat completion. Raises ContextOverflow when the request does not fit the
        model's context, InfraError when the endpoint gives no answer."""
        with self._limiter:
            try:
                response = self._create(messages, json_schema, max_tokens)
            except openai.APIError as err:
                if _is_overflow(err):
                    raise ContextOverflow(f"{self.identity}: {err.message}") from err
                with self._lock:
                    self.usage["failures"] += 1
                status = getattr(err, "status_code", None)
                where = f"HTTP {status}" if status else type(err).__name__
                raise InfraError(f"{self.identity}: {where}: {err}") from err
        return self._completion(response)

    def _create(
        self,
        messages: list[Message],
        json_schema: dict[str, Any] | None,
        max_tokens: int | None,
    ) -> Any:
        params: dict[str, Any] = {
            "model": self.config.model,
            "temperature": self.config.temperature,
            "max_tokens": max_tokens or self.config.max_tokens,
        }
        seed = sample_seed()
        if seed is not None and self.config.temperature > 0:
            params["seed"] = seed  # paired draws across skills (base.sample_seed)
        if json_schema is not None and self.json_mode:
            name = split_schema(json_schema)[0]
            full = strict_schema(json_schema)
            lean = lean_schema(full)
            forms = [full, lean] if self.schema_bounds and lean != full else [lean]
            for form in forms:
                params["response_format"] = {
                    "type": "json_schema",
                    "json_schema": {"name": name, "schema": form, "strict": True},
                }
                try:
                    return self._client.chat.completions.create(messages=messages, **params)
                except openai.BadRequestError as err:
                    if not _rejects_response_format(err):
                        raise
                    if form is full:
                        self.schema_bounds = False  # remembered: send lean schemas
            self.json_mode = False  # remembered: this endpoint gets the prompt form
            del params["response_format"]
        if json_schema is not None:
            messages = _with_json_instruction(messages, json_schema)
        return self._client.chat.completions.create(messages=messages, **params)

    def _completion(self, response: Any) -> Completion:
        choices = getattr(response, "choices", None) or []
        message = choices[0].message if choices else None
        text = (getattr(message, "content", None) or "") if message else ""
        usage = getattr(response, "usage", None)
        n_in = int(getattr(usage, "prompt_tokens", 0) or 0)
        n_out = int(getattr(usage, "completion_tokens", 0) or 0)
        cost = self.price.cost(n_in, n_out) if self.price is not None else 0.0
        with self._lock:
            self.usage["calls"] += 1
            self.usage["input_tokens"] += n_in
            self.usage["output_tokens"] += n_out
            self.usage["cost_usd"] += cost
        return Completion(text=text, input_tokens=n_in, output_tokens=n_out, cost_usd=cost)


def _with_json_instruction(messages: list[Message], schema: dict[str, Any]) -> list[Message]:
    """The messages plus a system instruction to answer in JSON matching ``schema``."""
    schema = split_schema(schema)[1]
    instruction = _JSON_INSTRUCTION.format(schema=json.dumps(schema, separators=(",", ":")))
    out = [dict(m) for m in messages]
    if out and out[0].get("role") == "system":
        out[0]["content"] = f"{out[0].get('content', '')}\n\n{instruction}".strip()
    else:
        out.insert(0, {"role": "system", "content": instruction})
    return out
