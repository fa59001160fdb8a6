"""A stand-in OpenAI-compatible chat-completions server for tests and benchmarks.

It listens on 127.0.0.1 (port 0) and answers from a script, one Reply per request, in
order, following the chat-completions contract: JSON completions with `usage`, server-sent
event streams (with the final usage chunk when `stream_options.include_usage` is set),
`response_format` json_schema and `tools` (function calling) for structured output, and
OpenAI-shaped error bodies with their status codes. Every request body is recorded.
"""

from __future__ import annotations

import json
import threading
import time
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

ERROR_TYPES = {400: "invalid_request_error", 401: "invalid_request_error",
               404: "invalid_request_error", 429: "rate_limit_exceeded", 500: "server_error",
               503: "server_error"}


@dataclass
class Reply:
    content: str = ""
    status: int = 200
    delay_s: float = 0.0
    expect: str | None = None  # the last user message must contain this


def count_tokens(text: str) -> int:
    """A stand-in tokenizer: whitespace-separated words."""
    return len(text.split())


class StandIn:
    def __init__(self, script: list[Reply] | None = None, api_key: str | None = None) -> None:
        self.script = list(script or [])
        self.api_key = api_key
        self.requests: list[dict] = []
        self.usages: list[dict] = []  # the usage reported for each answered request
        self.mismatches: list[str] = []
        self._lock = threading.Lock()
        self._server: ThreadingHTTPServer | None = None

    # -- lifecycle ---------------------------------------------------------------------
    def start(self) -> str:
        standin = self

        class Handler(_Handler):
            server_ref = standin

        self._server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._server.daemon_threads = True
        threading.Thread(target=self._server.serve_forever, daemon=True).start()
        return self.base_url

    @property
    def base_url(self) -> str:
        host, port = self._server.server_address[:2]
        return f"http://{host}:{port}/v1"

    def stop(self) -> None:
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()

    def __enter__(self) -> StandIn:
        self.start()
        return self

    def __exit__(self, *exc) -> None:
        self.stop()

    def add(self, *replies: Reply) -> None:
        with self._lock:
            self.script.extend(replies)

    def next_reply(self, body: dict) -> Reply | None:
        with self._lock:
            self.requests.append(body)
            return self.script.pop(0) if self.script else None


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    disable_nagle_algorithm = True  # headers and body go out at once, as real servers do
    server_ref: StandIn

    def log_message(self, *args) -> None:  # quiet
        pass

    def do_GET(self) -> None:
        if self.path.rstrip("/").endswith("/models"):
            self._json(200, {"object": "list", "data": [
                {"id": "stand-in", "object": "model", "created": 0, "owned_by": "tests"}]})
        else:
            self._error(404, f"no route {self.path}")

    def do_POST(self) -> None:
        length = int(self.headers.get("Content-Length") or 0)
        raw = self.rfile.read(length)
        if not self.path.rstrip("/").endswith("/chat/completions"):
            return self._error(404, f"no route {self.path}")
        standin = self.server_ref
        if standin.api_key is not None and \
                self.headers.get("Authorization") != f"Bearer {standin.api_key}":
            return self._error(401, "Incorrect API key provided.", code="invalid_api_key")
        try:
            body = json.loads(raw)
        except json.JSONDecodeError:
            return self._error(400, "the body is not JSON")
        problem = _contract_problem(body)
        if problem:
            return self._error(400, problem)
        reply = standin.next_reply(body)
        if reply is None:
            return self._error(500, "the stand-in's script is exhausted")
        last_user = next((m.get("content") for m in reversed(body["messages"])
                          if m.get("role") == "user"), "") or ""
        if reply.expect and reply.expect not in str(last_user):
            standin.mismatches.append(f"expected {reply.expect!r} in the last user message")
            return self._error(400, f"stand-in script mismatch: expected {reply.expect!r}")
        if reply.delay_s:
            time.sleep(reply.delay_s)
        if reply.status != 200:
            return self._error(reply.status, reply.content or f"status {reply.status}")
        prompt = " ".join(str(m.get("content") or "") for m in body["messages"])
        usage = {"prompt_tokens": count_tokens(prompt),
                 "completion_tokens": count_tokens(reply.content)}
        usage["total_tokens"] = usage["prompt_tokens"] + usage["completion_tokens"]
        standin.usages.append(usage)
        message = {"role": "assistant", "content": reply.content, "refusal": None}
        finish = "stop"
        if body.get("tools"):  # function calling: the answer is the first tool's arguments
            tool = body["tools"][0]["function"]["name"]
            message = {"role": "assistant", "content": None, "refusal": None, "tool_calls": [
                {"id": "call_0", "type": "function",
                 "function": {"name": tool, "arguments": reply.content}}]}
            finish = "tool_calls"
        try:
            if body.get("stream"):
                include = (body.get("stream_options") or {}).get("include_usage", False)
                self._stream(body["model"], reply.content, usage if include else None)
            else:
                self._json(200, {
                    "id": f"chatcmpl-{len(standin.requests)}", "object": "chat.completion",
                    "created": int(time.time()), "model": body["model"],
                    "system_fingerprint": None,
                    "choices": [{"index": 0, "message": message, "logprobs": None,
                                 "finish_reason": finish}],
                    "usage": usage})
        except (BrokenPipeError, ConnectionResetError):  # the client gave up (timeout)
            pass

    def _stream(self, model: str, content: str, usage: dict | None) -> None:
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.send_header("Cache-Control", "no-cache")
        self.send_header("Connection", "close")
        self.end_headers()
        base = {"id": "chatcmpl-stream", "object": "chat.completion.chunk",
                "created": int(time.time()), "model": model, "system_fingerprint": None}
        pieces = [content[i:i + 40] for i in range(0, len(content), 40)] or [""]
        chunks = [{"index": 0, "delta": {"role": "assistant", "content": ""},
                   "logprobs": None, "finish_reason": None}]
        chunks += [{"index": 0, "delta": {"content": p}, "logprobs": None,
                    "finish_reason": None} for p in pieces]
        chunks += [{"index": 0, "delta": {}, "logprobs": None, "finish_reason": "stop"}]
        for choice in chunks:
            event = {**base, "choices": [choice]}
            if usage is not None:
                event["usage"] = None
            self._event(event)
        if usage is not None:
            self._event({**base, "choices": [], "usage": usage})
        self.wfile.write(b"data: [DONE]\n\n")
        self.wfile.flush()
        self.close_connection = True

    def _event(self, payload: dict) -> None:
        self.wfile.write(f"data: {json.dumps(payload)}\n\n".encode())
        self.wfile.flush()

    def _json(self, status: int, payload: dict, headers: dict | None = None) -> None:
        data = json.dumps(payload).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        for key, value in (headers or {}).items():
            self.send_header(key, value)
        self.end_headers()
        self.wfile.write(data)
        self.wfile.flush()

    def _error(self, status: int, message: str, code: str | None = None) -> None:
        headers = {"retry-after-ms": "20"} if status == 429 else None
        self._json(status, {"error": {"message": message,
                                      "type": ERROR_TYPES.get(status, "api_error"),
                                      "param": None, "code": code}}, headers)


def _contract_problem(body: dict) -> str | None:
    """What the chat-completions contract requires of a request, checked strictly."""
    if not isinstance(body.get("model"), str) or not body["model"]:
        return "'model' is required"
    messages = body.get("messages")
    if not isinstance(messages, list) or not messages:
        return "'messages' must be a non-empty array"
    for m in messages:
        if m.get("role") not in ("system", "developer", "user", "assistant", "tool"):
            return f"invalid role {m.get('role')!r}"
        if m.get("role") != "assistant" and not isinstance(m.get("content"), str | list):
            return "every message needs 'content'"
    fmt = body.get("response_format")
    if fmt is not None:
        if fmt.get("type") not in ("text", "json_object", "json_schema"):
            return f"invalid response_format type {fmt.get('type')!r}"
        if fmt["type"] == "json_schema" and not (
                isinstance(fmt.get("json_schema"), dict) and fmt["json_schema"].get("name")
                and isinstance(fmt["json_schema"].get("schema"), dict)):
            return "response_format json_schema needs 'name' and 'schema'"
    if "stream_options" in body and not body.get("stream"):
        return "stream_options is only allowed with stream: true"
    return None
