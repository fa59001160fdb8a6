"""Orchestration overhead per LLM call: the time pipesmith's gateway spends outside the
HTTP round trip (target: under 5 ms per call).

Runs the real ChatOpenAI client against the stand-in chat-completions server on 127.0.0.1.
An httpx transport wrapper times the round trip (sending the request, waiting, and reading
every byte of the answer); the rest of each gateway call is overhead: building the
messages, the cache key, the budget check, LangChain and the OpenAI SDK, parsing and
accounting. The baseline, measured in the same run, is the bare OpenAI SDK making the same
request, timed the same way.

    python benchmarks/llm_overhead.py [--calls 200]
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
import time
from pathlib import Path

import httpx

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # the stand-in lives in tests/

from tests.openai_standin import Reply, StandIn  # noqa: E402

ANSWER = "```python\ndef build_pipeline(task):\n    return None\n```\n" + "word " * 200
STRUCTURED = json.dumps({"explanation": "C must be positive.", "suggested_fix": "C=1.0"})
MESSAGES = [{"role": "system", "content": "You are the coder. " * 50},
            {"role": "user", "content": "Write the module. " * 400}]


class TimedStream(httpx.SyncByteStream):
    def __init__(self, inner, clock: list[float]) -> None:
        self.inner, self.clock = inner, clock

    def __iter__(self):
        iterator = iter(self.inner)
        while True:
            started = time.perf_counter()
            try:
                chunk = next(iterator)
            except StopIteration:
                self.clock[0] += time.perf_counter() - started
                return
            self.clock[0] += time.perf_counter() - started
            yield chunk

    def close(self) -> None:
        self.inner.close()


class TimedTransport(httpx.BaseTransport):
    """Adds every request's round trip (headers and body) to clock[0]."""

    def __init__(self) -> None:
        self.inner = httpx.HTTPTransport()
        self.clock = [0.0]

    def handle_request(self, request: httpx.Request) -> httpx.Response:
        started = time.perf_counter()
        response = self.inner.handle_request(request)
        self.clock[0] += time.perf_counter() - started
        return httpx.Response(response.status_code, headers=response.headers,
                              stream=TimedStream(response.stream, self.clock),
                              extensions=response.extensions)

    def close(self) -> None:
        self.inner.close()


def measure(call, transport: TimedTransport, calls: int) -> tuple[list[float], list[float]]:
    call()  # warm-up: imports and client construction are not per-call costs
    overhead, http = [], []
    for _ in range(calls):
        transport.clock[0] = 0.0
        started = time.perf_counter()
        call()
        wall = time.perf_counter() - started
        http.append(transport.clock[0])
        overhead.append(wall - transport.clock[0])
    return overhead, http


MEDIANS: dict[str, float] = {}  # overhead median (ms) per row, for the added-overhead lines
PAIRS = (("gateway: text", "baseline: bare OpenAI SDK"),
         ("gateway: text, streamed", "baseline: bare OpenAI SDK, streamed"),
         ("gateway: structured (json_schema)", "baseline: bare OpenAI SDK, json_schema"))


def summary(name: str, overhead: list[float], http: list[float]) -> str:
    ms = sorted(x * 1000 for x in overhead)
    MEDIANS[name] = statistics.median(ms)
    p95 = ms[int(0.95 * (len(ms) - 1))]
    return (f"{name:<38} overhead median {statistics.median(ms):6.2f} ms  p95 {p95:6.2f} ms"
            f"  | HTTP round trip median {statistics.median(http) * 1000:6.2f} ms")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--calls", type=int, default=200)
    args = parser.parse_args()

    import openai

    from pipesmith.agents.llm.config import LLMConfig, ModelSettings
    from pipesmith.agents.llm.gateway import response_format
    from pipesmith.agents.llm.schemas import DiagnosisExplanation
    from pipesmith.agents.llm.session import LLMSession

    n = args.calls
    # In call order: three baselines, text, streamed, structured, then one live call for the cache.
    server = StandIn([Reply(ANSWER)] * (2 * (n + 1)) + [Reply(STRUCTURED)] * (n + 1)
                     + [Reply(ANSWER)] * (2 * (n + 1)) + [Reply(STRUCTURED)] * (n + 1)
                     + [Reply(ANSWER)])
    url = server.start()
    rows = []
    try:
        transport = TimedTransport()
        raw = openai.OpenAI(base_url=url, api_key="x", max_retries=0,
                            http_client=httpx.Client(transport=transport))
        rows.append(summary("baseline: bare OpenAI SDK", *measure(
            lambda: raw.chat.completions.create(model="m", messages=MESSAGES,
                                                max_completion_tokens=4096, temperature=0.0),
            transport, n)))

        def bare_stream():
            for _ in raw.chat.completions.create(
                    model="m", messages=MESSAGES, max_completion_tokens=4096, temperature=0.0,
                    stream=True, stream_options={"include_usage": True}):
                pass

        rows.append(summary("baseline: bare OpenAI SDK, streamed", *measure(
            bare_stream, transport, n)))
        fmt = response_format(DiagnosisExplanation)
        rows.append(summary("baseline: bare OpenAI SDK, json_schema", *measure(
            lambda: raw.chat.completions.parse(
                model="m", messages=MESSAGES, max_completion_tokens=512, temperature=0.0,
                response_format={"type": "json_schema", "json_schema": fmt}),
            transport, n)))

        def gateway(stream: bool, cache: Path | None = None):
            transport = TimedTransport()
            settings = ModelSettings(max_retries=0, stream=stream)
            config = LLMConfig(model="m", base_url=url, cache_path=cache, agents={
                "coder": settings, "diagnostician": settings})
            session = LLMSession.open(config, http_client=httpx.Client(transport=transport))
            return session, transport

        session, transport = gateway(False)
        rows.append(summary("gateway: text", *measure(
            lambda: session.gateway.text("draft", "coder", MESSAGES), transport, n)))
        session, transport = gateway(True)
        rows.append(summary("gateway: text, streamed", *measure(
            lambda: session.gateway.text("draft", "coder", MESSAGES), transport, n)))
        session, transport = gateway(False)
        rows.append(summary("gateway: structured (json_schema)", *measure(
            lambda: session.gateway.structured("diagnose", "diagnostician", MESSAGES,
                                               DiagnosisExplanation), transport, n)))
        with tempfile.TemporaryDirectory() as tmp:
            session, transport = gateway(False, Path(tmp) / "cache.sqlite")
            rows.append(summary("gateway: replay from the cache", *measure(
                lambda: session.gateway.text("draft", "coder", MESSAGES), transport, n)))
    finally:
        server.stop()
    print(f"{n} calls each, prompt {sum(len(m['content']) for m in MESSAGES)} chars, "
          f"answer {len(ANSWER)} chars, stand-in server on 127.0.0.1")
    for row in rows:
        print(row)
    for gateway, baseline in PAIRS:
        added = MEDIANS[gateway] - MEDIANS[baseline]
        print(f"added by pipesmith + LangChain over the bare SDK, {gateway[9:]}: "
              f"{added:.2f} ms per call (median)")


if __name__ == "__main__":
    main()
