"""What the scripted model servers share: the script's steps, the recorded requests,
the responder, and the HTTP plumbing.

A dialect module (`anthropic.py`, `openai.py`) subclasses `ScriptServer` with what
differs between the APIs: which paths it answers, how a request names its tools,
model and user messages (`parse`), how a reply is streamed (`opening`, `block`,
`closing`: the steps of one reply, in order), and the shape of an error body.

Invariants: the server listens on 127.0.0.1 only, on a free port; each request is
answered on its own thread and recorded before it is answered; reply ids are
unique across servers; a `Gate` holds the
stream for at most its bound (it sets `reached` first, so a test knows the stream
got there); a client that closes the stream (the agent cancelled) ends the answer
quietly.
"""

from __future__ import annotations

import json
import threading
import uuid
from abc import ABC, abstractmethod
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Final

__all__ = [
    "CHUNK",
    "ByPrompt",
    "Gate",
    "HttpError",
    "Reply",
    "Request",
    "Responder",
    "ScriptServer",
    "Scripted",
    "Step",
    "Text",
    "Thinking",
    "ToolUse",
    "is_side",
    "pieces",
    "text_of",
    "turn_position",
]

CHUNK: Final = 12
"""Characters per streamed delta: small enough that a reply arrives in pieces."""


@dataclass(frozen=True, slots=True)
class Thinking:
    """A thinking (reasoning) block."""

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
    """Hold the stream until `event` is set, for at most `bound` seconds.

    `reached` is set when the stream gets to the gate (what came before it has
    been written to the agent).
    """

    event: threading.Event = field(default_factory=threading.Event)
    bound: float = 30.0
    reached: threading.Event = field(default_factory=threading.Event)


@dataclass(frozen=True, slots=True)
class HttpError:
    """Fail the request with `status` and the dialect's error body."""

    status: int
    kind: str = "api_error"
    message: str = "scripted error"


Step = Thinking | Text | ToolUse | Gate | HttpError
Reply = Sequence[Step]


Role = str
"""A history entry's role: `user` (a prompt), `assistant` (one model reply) or
`tool` (a tool result sent back)."""


@dataclass(frozen=True)
class Request:
    """One request the server received, with what its dialect says it asks for.

    Attributes:
        tools: The names of the tools the agent offered the model.
        model: The model the agent asked for.
        history: The conversation it sends, as `(role, text)`: `user` entries are
            prompts, `assistant` entries the model's earlier replies (one entry per
            reply), `tool` entries tool results. System and developer messages are
            left out.
    """

    method: str
    path: str
    headers: dict[str, str]
    body: dict[str, Any]
    tools: tuple[str, ...] = ()
    model: str = ""
    history: tuple[tuple[Role, str], ...] = ()

    @property
    def user_texts(self) -> list[str]:
        """The text of each user message (prompts and tool results), in order."""
        return [text for role, text in self.history if role != "assistant"]

    @property
    def tool_outputs(self) -> list[str]:
        """The tool results sent back after the model's last reply."""
        outputs: list[str] = []
        for role, text in reversed(self.history):
            if role == "assistant":
                break
            if role == "tool":
                outputs.insert(0, text)
        return outputs


Responder = Callable[[Request], Reply]

SIDE_MARKERS: Final = ("[SUGGESTION MODE",)
"""How side requests that do carry tools begin (after a turn, Claude Code asks the
model to guess the user's next prompt)."""


def text_of(content: Any) -> str:
    """The text of a message's content: a string, or its text parts, a line each."""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "\n".join(
            str(part.get("text", "")) for part in content if isinstance(part, dict)
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
    return any(
        text.lstrip().startswith(SIDE_MARKERS) for text in request.user_texts[-2:]
    )


@dataclass
class Scripted:
    """Main-loop requests take the next reply; side requests get `side`.

    Args:
        replies: One reply per main-loop request (one that carries tools), in order.
        side: The reply to side requests (titles, summaries, suggestions).
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


def turn_position(request: Request, prompts: Iterable[str]) -> tuple[str, int] | None:
    """Which prompt's turn `request` belongs to, and how many model replies that
    turn already has: `(prompt, k)` for the k-th request of the turn (0 first).

    The prompt is the last line equal to one of `prompts` in the last user entry
    that has one (an agent may send two prompts as one message); the replies are
    the runs of `assistant` entries after it (a dialect may send one reply as
    several items). A retried request gets the same position.
    """
    wanted = set(prompts)
    for index in range(len(request.history) - 1, -1, -1):
        role, text = request.history[index]
        if role != "user":
            continue
        lines = [line.strip() for line in reversed(text.splitlines())]
        prompt = next((line for line in lines if line in wanted), None)
        if prompt is None:
            continue
        replies = 0
        previous = ""
        for later, _ in request.history[index + 1 :]:
            if later == "assistant" and previous != "assistant":
                replies += 1
            previous = later
        return prompt, replies
    return None


@dataclass
class ByPrompt:
    """Replies chosen by the prompt: `prompts[p][k]` answers the k-th main-loop
    request of the turn that prompt `p` began; side requests get `side`.

    Unlike `Scripted`, a retried request (an agent that retries a failed request)
    gets the same reply again, and a reply is never taken by another turn. Prompts
    may be added while the server runs.
    """

    prompts: dict[str, list[Reply]] = field(default_factory=dict)
    side: Reply = (Text("ok"),)

    def __call__(self, request: Request) -> Reply:
        """The reply for `request`."""
        if is_side(request):
            return self.side
        position = turn_position(request, list(self.prompts))
        if position is None:
            return (Text("(the script has no such prompt)"),)
        prompt, index = position
        replies = self.prompts[prompt]
        if index < len(replies):
            return replies[index]
        return (Text(f"(the script of {prompt!r} has no reply #{index + 1})"),)

    def requests(self, requests: Iterable[Request], prompt: str) -> list[Request]:
        """The main-loop requests, among `requests`, of the turn `prompt` began."""
        return [
            r
            for r in requests
            if not is_side(r) and (turn_position(r, [prompt]) or ("", 0))[0] == prompt
        ]


def pieces(text: str) -> Iterator[str]:
    """`text` in `CHUNK`-sized deltas."""
    for start in range(0, len(text), CHUNK):
        yield text[start : start + CHUNK]


def sse(data: dict[str, Any] | str, event: str | None = None) -> bytes:
    """One server-sent event."""
    payload = data if isinstance(data, str) else json.dumps(data)
    head = f"event: {event}\n" if event else ""
    return f"{head}data: {payload}\n\n".encode()


class Turn:
    """One streamed reply's state, for the dialect: its id and what it streamed."""

    def __init__(self, request: Request, reply_id: str) -> None:
        self.request = request
        self.id = reply_id
        self.blocks = 0
        self.tool_calls = 0


class ScriptServer(ABC):
    """The server: `with Server(responder) as server: server.url`.

    Args:
        responder: Picks the reply to each request.
    """

    id_prefix: str = "reply"

    def __init__(self, responder: Responder) -> None:
        self.responder = responder
        self.requests: list[Request] = []
        self._arrived = threading.Condition()
        self._count = 0
        self._tag = uuid.uuid4().hex[:8]
        """Ids differ between servers: agents reuse the API's message and tool call
        ids as ACP ids, and a resumed session meets a second server's."""
        self._count_lock = threading.Lock()
        self._httpd = ThreadingHTTPServer(("127.0.0.1", 0), self._handler())
        self._httpd.daemon_threads = True
        self._thread = threading.Thread(
            target=self._httpd.serve_forever, args=(0.05,), daemon=True
        )

    # --- What a dialect says. -------------------------------------------------------

    @abstractmethod
    def parse(
        self, method: str, path: str, headers: dict[str, str], body: dict[str, Any]
    ) -> Request:
        """The request with its tools, model, user texts and tool outputs."""

    @abstractmethod
    def scripted(self, path: str) -> bool:
        """Whether a POST to `path` is answered from the script."""

    def fixed(self, path: str) -> dict[str, Any] | None:
        """A fixed JSON answer for an endpoint that is not scripted (or None)."""
        return None

    @abstractmethod
    def error_body(self, error: HttpError) -> dict[str, Any]:
        """The body of a failed request."""

    @abstractmethod
    def opening(self, turn: Turn) -> Iterator[bytes]:
        """The events before the first step."""

    @abstractmethod
    def block(self, turn: Turn, step: Thinking | Text | ToolUse) -> Iterator[bytes]:
        """The events of one step."""

    @abstractmethod
    def closing(self, turn: Turn) -> Iterator[bytes]:
        """The events after the last step (the stop reason, the usage)."""

    def keepalive(self) -> bytes:
        """What is written before a gate waits (an SSE comment unless overridden)."""
        return b": waiting\n\n"

    def streams(self, request: Request) -> bool:
        """Whether the request asks for a stream (its body's `stream`)."""
        return bool(request.body.get("stream"))

    def whole(self, turn: Turn, reply: Reply) -> dict[str, Any] | None:
        """The answer to a request that did not ask for a stream (None: not served)."""
        return None

    # --- The server. ---------------------------------------------------------------

    @property
    def url(self) -> str:
        """The base URL, `http://127.0.0.1:PORT`."""
        host, port = self._httpd.server_address[:2]
        return f"http://{host!s}:{port}"

    @property
    def main_requests(self) -> list[Request]:
        """The recorded requests of the agent's main loop (not side requests)."""
        return [r for r in self.requests if not is_side(r)]

    def wait_for_requests(
        self, condition: Callable[[list[Request]], bool], bound: float
    ) -> bool:
        """Wait at most `bound` s for `condition(requests)`; whether it held."""
        with self._arrived:
            return self._arrived.wait_for(lambda: condition(self.requests), bound)

    def __enter__(self) -> ScriptServer:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._httpd.shutdown()
        self._httpd.server_close()
        self._thread.join(timeout=5)

    def _record(self, request: Request) -> None:
        with self._arrived:
            self.requests.append(request)
            self._arrived.notify_all()

    def _next_id(self) -> str:
        with self._count_lock:
            self._count += 1
            return f"{self.id_prefix}_{self._tag}_{self._count:04d}"

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
                headers = dict(self.headers.items())
                path = self.path.split("?", 1)[0]
                request = server.parse("POST", self.path, headers, body)
                server._record(request)
                fixed = server.fixed(path)
                if fixed is not None:
                    send_json(self, 200, fixed)
                elif server.scripted(path):
                    server._answer(self, request)
                else:
                    error = HttpError(404, "not_found_error", f"no {path} here")
                    send_json(self, 404, server.error_body(error))

            def do_GET(self) -> None:
                server._record(Request("GET", self.path, {}, {}))
                error = HttpError(404, "not_found_error", "no such endpoint")
                send_json(self, 404, server.error_body(error))

        return Handler

    def _answer(self, handler: BaseHTTPRequestHandler, request: Request) -> None:
        reply = list(self.responder(request))
        failure = next((s for s in reply if isinstance(s, HttpError)), None)
        if failure is not None:
            send_json(handler, failure.status, self.error_body(failure))
            return
        turn = Turn(request, self._next_id())
        if not self.streams(request):
            whole = self.whole(turn, reply)
            if whole is None:
                error = HttpError(400, "invalid_request_error", "only streams here")
                send_json(handler, 400, self.error_body(error))
            else:
                send_json(handler, 200, whole)
            return
        handler.send_response(200)
        handler.send_header("content-type", "text/event-stream")
        handler.send_header("cache-control", "no-cache")
        handler.send_header("connection", "close")
        handler.end_headers()
        handler.close_connection = True
        try:
            for chunk in self._events(turn, reply):
                handler.wfile.write(chunk)
                handler.wfile.flush()
        except (BrokenPipeError, ConnectionResetError):
            return  # the agent cancelled: it closed the stream

    def _events(self, turn: Turn, reply: Reply) -> Iterator[bytes]:
        yield from self.opening(turn)
        for step in reply:
            if isinstance(step, Gate):
                yield self.keepalive()
                step.reached.set()
                step.event.wait(step.bound)
            elif not isinstance(step, HttpError):
                yield from self.block(turn, step)
                turn.blocks += 1
        yield from self.closing(turn)


def send_json(handler: BaseHTTPRequestHandler, status: int, payload: Any) -> None:
    """Answer with a JSON body."""
    data = json.dumps(payload).encode()
    handler.send_response(status)
    handler.send_header("content-type", "application/json")
    handler.send_header("content-length", str(len(data)))
    handler.end_headers()
    handler.wfile.write(data)
