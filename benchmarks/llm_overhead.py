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
import os
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
            started, cpu = time.perf_counter(), time.thread_time()
            try:
                chunk = next(iterator)
            except StopIteration:
                chunk = None
            self.clock[0] += time.perf_counter() - started
            self.clock[1] += time.thread_time() - cpu
            if chunk is None:
                return
            yield chunk

    def close(self) -> None:
        self.inner.close()


class TimedTransport(httpx.BaseTransport):
    """Adds every request's round trip (headers and body) to clock: [wall s, this thread's
    CPU s]."""

    def __init__(self) -> None:
        self.inner = httpx.HTTPTransport()
        self.clock = [0.0, 0.0]

    def handle_request(self, request: httpx.Request) -> httpx.Response:
        started, cpu = time.perf_counter(), time.thread_time()
        response = self.inner.handle_request(request)
        self.clock[0] += time.perf_counter() - started
        self.clock[1] += time.thread_time() - cpu
        return httpx.Response(response.status_code, headers=response.headers,
                              stream=TimedStream(response.stream, self.clock),
                              extensions=response.extensions)

    def close(self) -> None:
        self.inner.close()


def measure(call, transport: TimedTransport, calls: int):
    """Per call: overhead wall s, HTTP wall s, overhead CPU s (this thread only: the
    stand-in server runs in other threads, and CPU time does not grow while the process
    waits for a core, so it is the figure to trust on a busy machine)."""
    call()  # warm-up: imports and client construction are not per-call costs
    overhead, http, cpu = [], [], []
    for _ in range(calls):
        transport.clock[:] = [0.0, 0.0]
        started, cpu_started = time.perf_counter(), time.thread_time()
        call()
        wall, cpu_used = time.perf_counter() - started, time.thread_time() - cpu_started
        http.append(transport.clock[0])
        overhead.append(wall - transport.clock[0])
        cpu.append(cpu_used - transport.clock[1])
    return overhead, http, cpu


MEDIANS: dict[str, float] = {}  # overhead medians (ms) per row, for the added-overhead lines
CPU_MEDIANS: dict[str, float] = {}
PAIRS = (("gateway: text", "baseline: bare OpenAI SDK"),
         ("gateway: text, streamed", "baseline: bare OpenAI SDK, streamed"),
         ("gateway: structured (json_schema)", "baseline: bare OpenAI SDK, json_schema"))


def summary(name: str, overhead: list[float], http: list[float], cpu: list[float]) -> str:
    ms = sorted(x * 1000 for x in overhead)
    MEDIANS[name] = statistics.median(ms)
    CPU_MEDIANS[name] = statistics.median(cpu) * 1000
    p95 = ms[int(0.95 * (len(ms) - 1))]
    return (f"{name:<38} overhead wall median {MEDIANS[name]:6.2f} ms  p95 {p95:6.2f} ms"
            f"  CPU median {CPU_MEDIANS[name]:5.2f} ms"
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
        print(f"added by pipesmith + LangChain over the bare SDK, {gateway[9:]}: "
              f"{MEDIANS[gateway] - MEDIANS[baseline]:.2f} ms wall, "
              f"{CPU_MEDIANS[gateway] - CPU_MEDIANS[baseline]:.2f} ms CPU per call (medians)")
    print(f"load average at the end: {' '.join(f'{x:.1f}' for x in os.getloadavg())} "
          f"on {os.cpu_count()} CPUs")


if __name__ == "__main__":
    main()
