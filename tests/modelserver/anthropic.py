"""A scripted stand-in for the Anthropic Messages API, on 127.0.0.1.

claude-agent-acp (Claude Code underneath) sends `POST /v1/messages?beta=true` with
`stream: true` to `ANTHROPIC_BASE_URL`. This server answers from a script instead of
a model, so a real agent runs a real turn offline: its own tools (Bash, Write,
Edit, Read, ...) run for real on the machine, it asks for real permissions, and it
streams to the client what it would stream with a real model.

A script is a `Responder`: a function from the request (`Request`: the parsed body,
path and headers) to a `Reply`. A reply is a list of steps:

* `Thinking(text)`: a thinking block (streamed as `thinking_delta`s).
* `Text(text)`: a text block (streamed as `text_delta`s).
* `ToolUse(name, input)`: a tool call (streamed as `input_json_delta`s); the turn
  stops with `stop_reason: tool_use`, and the agent comes back with the result.
* `Gate(event, bound)`: hold the stream until the test sets `event` (or `bound`
  seconds pass): a stream stopped mid-way, for cancel tests.
* `HttpError(status, kind, message)`: the whole request fails with that status.

`Scripted` is the usual responder: the agent's main-loop requests (those that carry
tools) consume one reply each from a list, and side requests (titles, summaries,
checks without tools) get a short fixed text. Every request is recorded
(`ModelServer.requests`) so tests can check what the agent asked the model: the
model name after a switch, the tool results it sent back, the tool list.

Invariants: the server listens on 127.0.0.1 only, on a free port; each request is
answered on its own thread; a reply list that runs out answers with a text block
saying so (the test then fails on the content, not by hanging).
"""

from __future__ import annotations

import itertools
import json
import threading
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Final

__all__ = [
    "Gate",
    "HttpError",
    "ModelServer",
    "Reply",
    "Request",
    "Responder",
    "Scripted",
    "Step",
    "Text",
    "Thinking",
    "ToolUse",
    "is_side",
    "tool_results",
]

CHUNK: Final = 12
"""Characters per streamed delta: small enough that a reply arrives in pieces."""


@dataclass(frozen=True, slots=True)
class Thinking:
    """A thinking block."""

    text: str


@dataclass(frozen=True, slots=True)
class Text:
    """A text block."""

    text: str


@dataclass(frozen=True, slots=True)
class ToolUse:
    """A tool call: the agent runs `name` with `input` and sends the result back."""

    name: str
    input: dict[str, Any]


@dataclass(frozen=True, slots=True)
class Gate:
    """Hold the stream until `event` is set, for at most `bound` seconds."""

    event: threading.Event = field(default_factory=threading.Event)
    bound: float = 30.0


@dataclass(frozen=True, slots=True)
class HttpError:
    """Fail the request: `status` with an Anthropic error body."""

    status: int
    kind: str = "api_error"
    message: str = "scripted error"


Step = Thinking | Text | ToolUse | Gate | HttpError
Reply = Sequence[Step]


@dataclass(frozen=True)
class Request:
    """One request the server received."""

    method: str
    path: str
    headers: dict[str, str]
    body: dict[str, Any]

    @property
    def tools(self) -> list[str]:
        """The names of the tools the agent offered the model."""
        return [str(tool.get("name")) for tool in self.body.get("tools") or []]

    @property
    def model(self) -> str:
        """The model the agent asked for."""
        return str(self.body.get("model", ""))


Responder = Callable[[Request], Reply]


def tool_results(request: Request) -> list[dict[str, Any]]:
    """The `tool_result` blocks of the request's last user message."""
    messages = request.body.get("messages") or []
    for message in reversed(messages):
        if message.get("role") != "user":
            continue
        content = message.get("content")
        if not isinstance(content, list):
            return []
        return [block for block in content if block.get("type") == "tool_result"]
    return []


SIDE_MARKERS: Final = ("[SUGGESTION MODE",)
"""How Claude Code's side requests that do carry tools begin (after a turn it asks
the model to guess the user's next prompt)."""


def _text(content: Any) -> str:
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "".join(
            str(block.get("text", "")) for block in content if isinstance(block, dict)
        )
    return ""


def is_side(request: Request) -> bool:
    """Whether `request` is a side request (a title, a suggestion), not the turn.

    The agent's main loop always offers tools; side requests offer none, or their
    prompt begins with a marker (`SIDE_MARKERS`). The follow-up of such a prompt
    (the agent sending back a tool result for it) is a side request too, so the
    last two user messages are looked at.
    """
    if not request.tools:
        return True
    messages = request.body.get("messages") or []
    users = [m for m in messages if isinstance(m, dict) and m.get("role") == "user"]
    return any(
        _text(m.get("content")).lstrip().startswith(SIDE_MARKERS) for m in users[-2:]
    )


@dataclass
class Scripted:
    """Main-loop requests take the next reply; side requests get `side`.

    Args:
        replies: One reply per main-loop request (one that carries tools), in order.
        side: The reply to requests without tools (titles, summaries, checks).
    """

    replies: list[Reply]
    side: Reply = (Text("ok"),)
    _next: int = field(default=0, init=False)
    _lock: threading.Lock = field(default_factory=threading.Lock, init=False)

    def __call__(self, request: Request) -> Reply:
        """The reply for `request`."""
        if is_side(request):
            return self.side
        with self._lock:
            index = self._next
            self._next += 1
        if index < len(self.replies):
            return self.replies[index]
        return (Text(f"(the script has no reply #{index + 1})"),)

    @property
    def used(self) -> int:
        """How many main-loop replies were taken."""
        return self._next


def _sse(event: str, data: dict[str, Any]) -> bytes:
    return f"event: {event}\ndata: {json.dumps(data)}\n\n".encode()


def _pieces(text: str) -> Iterator[str]:
    for start in range(0, len(text), CHUNK):
        yield text[start : start + CHUNK]


class ModelServer:
    """The server: `with ModelServer(responder) as server: server.url`.

    Args:
        responder: Picks the reply to each request.
    """

    def __init__(self, responder: Responder) -> None:
        self.responder = responder
        self.requests: list[Request] = []
        self._ids = itertools.count(1)
        self._httpd = ThreadingHTTPServer(("127.0.0.1", 0), self._handler())
        self._httpd.daemon_threads = True
        self._thread = threading.Thread(target=self._httpd.serve_forever, daemon=True)

    @property
    def url(self) -> str:
        """The base URL (`ANTHROPIC_BASE_URL`)."""
        host, port = self._httpd.server_address[:2]
        return f"http://{host!s}:{port}"

    @property
    def main_requests(self) -> list[Request]:
        """The recorded requests that carried tools (the agent's main loop)."""
        return [r for r in self.requests if r.tools]

    def __enter__(self) -> ModelServer:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._httpd.shutdown()
        self._httpd.server_close()
        self._thread.join(timeout=5)

    def _handler(self) -> type[BaseHTTPRequestHandler]:
        server = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, format: str, *args: Any) -> None:
                """Quiet: the recorded requests are the log."""

            def do_POST(self) -> None:
                length = int(self.headers.get("content-length") or 0)
                raw = self.rfile.read(length) if length else b""
                try:
                    body = json.loads(raw or b"{}")
                except ValueError:
                    body = {"_unparsed": raw.decode(errors="replace")}
                request = Request("POST", self.path, dict(self.headers.items()), body)
                server.requests.append(request)
                path = self.path.split("?", 1)[0]
                if path.endswith("/count_tokens"):
                    self._json(200, {"input_tokens": 100})
                elif path.endswith("/v1/messages"):
                    server._answer(self, request)
                else:
                    self._json(404, _error("not_found_error", f"no {path} here"))

            def do_GET(self) -> None:
                server.requests.append(Request("GET", self.path, {}, {}))
                self._json(404, _error("not_found_error", "no such endpoint"))

            def _json(self, status: int, payload: dict[str, Any]) -> None:
                data = json.dumps(payload).encode()
                self.send_response(status)
                self.send_header("content-type", "application/json")
                self.send_header("content-length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

        return Handler

    def _answer(self, handler: BaseHTTPRequestHandler, request: Request) -> None:
        reply = list(self.responder(request))
        failure = next((s for s in reply if isinstance(s, HttpError)), None)
        send_json: Callable[[int, dict[str, Any]], None] = handler._json  # type: ignore[attr-defined]
        if failure is not None:
            send_json(failure.status, _error(failure.kind, failure.message))
            return
        message_id = f"msg_scripted_{next(self._ids):04d}"
        if not request.body.get("stream"):
            send_json(200, self._message(request, message_id, reply))
            return
        handler.send_response(200)
        handler.send_header("content-type", "text/event-stream")
        handler.send_header("cache-control", "no-cache")
        handler.send_header("connection", "close")
        handler.end_headers()
        handler.close_connection = True
        try:
            for chunk in self._events(request, message_id, reply):
                handler.wfile.write(chunk)
                handler.wfile.flush()
        except (BrokenPipeError, ConnectionResetError):
            return  # the agent cancelled: it closed the stream

    def _message(
        self, request: Request, message_id: str, reply: Sequence[Step]
    ) -> dict[str, Any]:
        content: list[dict[str, Any]] = []
        for step in reply:
            if isinstance(step, Text):
                content.append({"type": "text", "text": step.text})
            elif isinstance(step, Thinking):
                content.append(
                    {"type": "thinking", "thinking": step.text, "signature": "sig"}
                )
            elif isinstance(step, ToolUse):
                content.append(
                    {
                        "type": "tool_use",
                        "id": f"toolu_{message_id}_{len(content)}",
                        "name": step.name,
                        "input": step.input,
                    }
                )
        stop = "tool_use" if any(isinstance(s, ToolUse) for s in reply) else "end_turn"
        return {
            "id": message_id,
            "type": "message",
            "role": "assistant",
            "model": request.model,
            "content": content,
            "stop_reason": stop,
            "stop_sequence": None,
            "usage": {"input_tokens": 100, "output_tokens": 20},
        }

    def _events(
        self, request: Request, message_id: str, reply: Sequence[Step]
    ) -> Iterator[bytes]:
        yield _sse(
            "message_start",
            {
                "type": "message_start",
                "message": {
                    "id": message_id,
                    "type": "message",
                    "role": "assistant",
                    "model": request.model,
                    "content": [],
                    "stop_reason": None,
                    "stop_sequence": None,
                    "usage": {"input_tokens": 100, "output_tokens": 1},
                },
            },
        )
        index = 0
        stop = "end_turn"
        for step in reply:
            if isinstance(step, Gate):
                yield _sse("ping", {"type": "ping"})
                step.event.wait(step.bound)
                continue
            if isinstance(step, Thinking):
                start: dict[str, Any] = {
                    "type": "thinking",
                    "thinking": "",
                    "signature": "",
                }
                deltas = [
                    {"type": "thinking_delta", "thinking": p}
                    for p in _pieces(step.text)
                ]
                deltas.append({"type": "signature_delta", "signature": "c2lnbmF0dXJl"})
            elif isinstance(step, Text):
                start = {"type": "text", "text": ""}
                deltas = [{"type": "text_delta", "text": p} for p in _pieces(step.text)]
            elif isinstance(step, ToolUse):
                stop = "tool_use"
                start = {
                    "type": "tool_use",
                    "id": f"toolu_{message_id}_{index}",
                    "name": step.name,
                    "input": {},
                }
                deltas = [
                    {"type": "input_json_delta", "partial_json": p}
                    for p in _pieces(json.dumps(step.input))
                ]
            else:
                continue
            yield _sse(
                "content_block_start",
                {"type": "content_block_start", "index": index, "content_block": start},
            )
            for delta in deltas:
                yield _sse(
                    "content_block_delta",
                    {"type": "content_block_delta", "index": index, "delta": delta},
                )
            yield _sse(
                "content_block_stop", {"type": "content_block_stop", "index": index}
            )
            index += 1
        yield _sse(
            "message_delta",
            {
                "type": "message_delta",
                "delta": {"stop_reason": stop, "stop_sequence": None},
                "usage": {"output_tokens": 20},
            },
        )
        yield _sse("message_stop", {"type": "message_stop"})


def _error(kind: str, message: str) -> dict[str, Any]:
    return {"type": "error", "error": {"type": kind, "message": message}}
