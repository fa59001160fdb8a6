"""The one door to the model: cache, budget guard, the call, accounting, clear errors.

Agents hand it plain messages ({"role", "content"}) and get text, or a validated
pydantic object; they never see the client, the cache or the ledger.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable

import structlog
from pydantic import BaseModel, ValidationError

from pipesmith.agents.llm.cache import ResponseCache, cache_key
from pipesmith.agents.llm.client import chat_model
from pipesmith.agents.llm.config import LLMConfig
from pipesmith.agents.llm.ledger import Ledger
from pipesmith.agents.llm.parsing import fenced_blocks

log = structlog.get_logger(__name__)
Message = dict[str, str]


class LLMError(RuntimeError):
    """A model call failed after the client's retries; the message says why, in one line."""


class FormatError(ValueError):
    """The model answered, but not in the form asked for."""

    def __init__(self, problem: str, answer: str) -> None:
        super().__init__(problem)
        self.problem, self.answer = problem, answer


def describe_failure(exc: Exception, config: LLMConfig, timeout_s: float) -> str:
    import openai

    where = config.base_url or "api.openai.com"
    if isinstance(exc, openai.AuthenticationError):
        return f"authentication failed at {where} (401): check OPENAI_API_KEY"
    if isinstance(exc, openai.PermissionDeniedError):
        return f"permission denied at {where} (403) for model {config.model!r}"
    if isinstance(exc, openai.NotFoundError):
        return f"model {config.model!r} or endpoint not found at {where} (404)"
    if isinstance(exc, openai.RateLimitError):
        return f"rate limited by {where} (429), still after retries with backoff"
    if isinstance(exc, openai.APITimeoutError):
        return f"no answer from {where} within {timeout_s:g}s, after retries"
    if isinstance(exc, openai.APIConnectionError):
        return f"cannot reach {where}: {exc.__cause__ or exc}"
    if isinstance(exc, openai.APIStatusError):
        return f"{where} answered HTTP {exc.status_code}: {str(exc)[:200]}"
    return f"{type(exc).__name__}: {str(exc)[:200]}"


def json_answer(text: str) -> object:
    """The JSON object in an answer; tolerates a ```json fence around it."""
    stripped = text.strip()
    for info, body in fenced_blocks(stripped):
        if info in ("json", ""):
            stripped = body.strip()
            break
    return json.loads(stripped)


def response_format(schema: type[BaseModel]) -> dict:
    """The json_schema response format for a pydantic model (as a dict, so that a malformed
    answer still comes back with its usage instead of failing inside the client)."""
    return {"name": schema.__name__, "schema": schema.model_json_schema()}


class Gateway:
    def __init__(self, config: LLMConfig, ledger: Ledger, cache: ResponseCache | None = None,
                 http_client=None, model_factory: Callable | None = None) -> None:
        self.config, self.ledger, self.cache = config, ledger, cache
        self._http_client = http_client
        self._factory = model_factory or chat_model
        self._models: dict[str, object] = {}
        self._structured: dict[tuple[str, str], object] = {}
        self._no_response_format = False  # set once a server rejects json_schema (400)

    def text(self, node: str, agent: str, messages: list[Message]) -> str:
        return self._call(node, agent, messages, None)

    def structured(self, node: str, agent: str, messages: list[Message],
                   schema: type[BaseModel]) -> tuple[BaseModel, str]:
        """The validated object and the raw answer; FormatError when it does not fit."""
        answer = self._call(node, agent, messages, schema)
        try:
            return schema.model_validate(json_answer(answer)), answer
        except (ValueError, ValidationError) as exc:
            problem = str(exc).splitlines()[0] if isinstance(exc, json.JSONDecodeError) \
                else str(exc)
            raise FormatError(f"the answer is not a valid {schema.__name__} object: "
                              f"{problem[:400]}", answer) from exc

    def model(self, agent: str):
        if agent not in self._models:
            self._models[agent] = self._factory(self.config, self.config.for_agent(agent),
                                                self._http_client)
        return self._models[agent]

    def _call(self, node: str, agent: str, messages: list[Message],
              schema: type[BaseModel] | None) -> str:
        settings = self.config.for_agent(agent)
        fmt = response_format(schema) if schema else None
        key = cache_key(self.config.model, {"temperature": settings.temperature,
                                            "max_tokens": settings.max_tokens},
                        messages, fmt)
        started = time.perf_counter()
        if self.cache is not None and (hit := self.cache.get(key)) is not None:
            self.ledger.record_call(node, hit.get("usage"), True, time.perf_counter() - started)
            return hit["content"]
        self.ledger.check_budget()
        import openai

        try:
            reply = self._invoke_once_more_without_format(node, agent, messages, fmt,
                                                          settings.stream)
        except (openai.OpenAIError, LLMError) as exc:  # the endpoint's fault, not ours
            reason = describe_failure(exc, self.config, settings.timeout_s)
            self.ledger.event(node, "failure", reason)
            log.warning("llm.failure", node=node, reason=reason)
            raise LLMError(reason) from exc
        content = str(reply.text)
        usage = dict(reply.usage_metadata) if reply.usage_metadata else None
        self.ledger.record_call(node, usage, False, time.perf_counter() - started)
        if self.cache is not None:
            self.cache.put(key, {"content": content, "usage": usage, "model": self.config.model})
        return content

    def _invoke_once_more_without_format(self, node: str, agent: str,
                                         messages: list[Message], fmt: dict | None,
                                         stream: bool):
        """A server that rejects `response_format` (400) is asked again without it, and
        from then on: the prompt asks for the JSON shape too, and the answer is validated
        the same way."""
        import openai

        lc_messages = _to_langchain(messages)
        if fmt is not None and not self._no_response_format:
            try:
                return self._invoke(agent, lc_messages, fmt, stream)
            except openai.BadRequestError as exc:
                self._no_response_format = True
                self.ledger.event(node, "format_unsupported",
                                  f"the server rejected response_format: {str(exc)[:200]}; "
                                  "asking for JSON in the prompt only")
        return self._invoke(agent, lc_messages, None, stream)

    def _invoke(self, agent: str, messages: list, fmt: dict | None, stream: bool):
        if fmt is not None:
            return self._structured_model(agent, fmt).invoke(messages)
        model = self.model(agent)
        if not stream:
            return model.invoke(messages)
        from langchain_core.messages.ai import add_ai_message_chunks

        chunks = list(model.stream(messages))
        if not chunks:
            raise LLMError("the stream ended before any chunk arrived")
        return add_ai_message_chunks(chunks[0], *chunks[1:])  # one merge, not one per chunk

    def _structured_model(self, agent: str, fmt: dict):
        """The model bound by with_structured_output to the json_schema response format.
        The raw AIMessage is what we want (usage included; we validate it ourselves), so the
        bound model is taken from the `raw` branch: invoking the whole include_raw chain
        costs a thread-pool hop per call (~10 ms, benchmarks/llm_overhead.py)."""
        key = (agent, json.dumps(fmt, sort_keys=True))
        if key not in self._structured:
            chain = self.model(agent).with_structured_output(fmt, method="json_schema",
                                                             include_raw=True)
            raw = getattr(getattr(chain, "first", None), "steps__", {}).get("raw")
            self._structured[key] = raw if raw is not None else chain | _raw_message
        return self._structured[key]


def _raw_message(result: dict):
    return result["raw"]


def _to_langchain(messages: list[Message]) -> list:
    from langchain_core.messages import AIMessage, HumanMessage, SystemMessage

    kinds = {"system": SystemMessage, "user": HumanMessage, "assistant": AIMessage}
    return [kinds[m["role"]](content=m["content"]) for m in messages]
