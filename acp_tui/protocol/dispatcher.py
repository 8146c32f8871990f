"""JSON-RPC 2.0 dispatcher over a `MessageStream`, on anyio.

The dispatcher knows JSON-RPC and nothing about ACP: methods are strings, params
and results are decoded JSON (or pydantic models, dumped in wire form on the way
out). It owns:

* request-id allocation and correlation of responses by id (never by order);
* outbound timeouts, and `$/cancel_request` when a caller gives up on a request.
  The agent MUST still answer such a request (`-32800` or a late result): its ids
  are remembered for `CANCELLED_REPLY_WINDOW` seconds (at most
  `CANCELLED_IDS_KEPT` of them), so that answer is expected and dropped, while a
  response for an id we never cancelled, or a second one, is still reported;
* inbound requests, each served in its own task so they run concurrently, with the
  **one** place where an exception becomes a JSON-RPC error object (`_serve`). A
  request whose id is still being served is answered `-32600` and never reaches
  the handler; the first one keeps running;
* inbound `$/cancel_request`, which cancels the handler (answered `-32800`) or, if
  the handler opted in with `RequestContext.handles_cancellation`, only signals it
  so it can answer with a valid result (a permission request answers `cancelled`);
* inbound batches (JSON arrays) per the v2 alpha.3 rules. acp-tui never sends one.

Invariants:

* Nothing an agent sends can raise out of `run()`: bad lines become `Diagnostic`s
  (logged, and handed to `on_diagnostic` for the screen) plus the replies JSON-RPC
  asks for (`-32700` / `-32600` with `id: null`), and reading continues.
* Notifications are handled one at a time, in received order, and never answered.
  `session/update` order is meaningful, so they are not spawned into tasks.
* An inbound request handler runs up to its first suspension point before the next
  message is read, so state it applies synchronously on arrival (a permission
  request's tool-call subject) is ordered with the notifications around it.
* A line of at least `LONG_LINE_BYTES` is decoded in steps
  (`framing.decode_long_line`), with `yield_to_busy_loop` between them, so a
  200 MB message lets the UI draw and answer keys meanwhile. Its long strings
  come as `framing.LongText`, and are joined into strings before anyone sees
  them, except in a notification's params at the paths the owner named
  (`long_text_paths`): its handler takes the text in pieces (the client keeps
  only the ends of a huge message chunk, never building it whole).
* Work a notification handler left pending (`before_others`) is done before
  anything else can see it: before the read loop suspends, before any other kind
  of line or another method's notification is handled, and when the loop ends.
  The common notification shape (exactly `jsonrpc`, `method`, `params`) is taken
  without `parse_message`, and by `notification_now` when set.
"""

from __future__ import annotations

import itertools
import json
import logging
import time
from collections import OrderedDict
from collections.abc import AsyncIterator, Awaitable, Callable, Collection
from contextlib import asynccontextmanager, suppress
from dataclasses import dataclass, field
from typing import Any, Final, Literal

import anyio
import anyio.abc
import anyio.lowlevel
from pydantic import BaseModel, ValidationError

from acp_tui.protocol import loop_deadline
from acp_tui.protocol.before_suspending import suspended
from acp_tui.protocol.framing import (
    LONG_LINE_BYTES,
    DecodeError,
    Line,
    OversizedLine,
    decode_line,
    decode_long_line,
    encode_message,
    excerpt,
    join_long_text,
)
from acp_tui.protocol.jsonrpc import (
    INTERNAL_ERROR,
    INVALID_PARAMS,
    INVALID_REQUEST,
    METHOD_NOT_FOUND,
    PARSE_ERROR,
    REQUEST_CANCELLED,
    ErrorResponse,
    InvalidMessage,
    Notification,
    Request,
    RequestId,
    RequestTimeout,
    Response,
    RpcError,
    error_response,
    parse_message,
)
from acp_tui.protocol.text_shapes import TextShape
from acp_tui.protocol.transport import ConnectionClosed, MessageStream

__all__ = [
    "CANCEL_REQUEST",
    "Diagnostic",
    "Dispatcher",
    "NotificationHandler",
    "RequestContext",
    "RequestHandler",
    "RequestTimeout",
    "background_tasks",
    "yield_to_busy_loop",
]

log = logging.getLogger(__name__)

READ_SLICE: Final = 0.002
"""Seconds of back-to-back line handling after which the read loop yields to the
event loop, so a flood of updates cannot starve the UI's frames."""

BUSY_TURN: Final = 0.0003
"""Seconds the rest of the event loop took for one turn, at or above which it
counts as busy (an idle loop hands the turn back within some microseconds)."""

BUSY_TURNS: Final = 6
"""Turns of the event loop the read loop gives a busy loop at the end of a slice.

One turn was not enough: what the UI does for a change is a chain of steps, one
turn each (a tool-call card mounts level by level, each level's mount awaited by
its parent, then the layout and the frame), and a flood put a whole `READ_SLICE`
of reading between every two of them (bench/terminal.py: the frame gap around a
card that appears during a flood). An idle loop still costs the reader one turn
per slice, and a loop that stays busy cannot starve it: it reads a slice after
at most this many turns."""


async def yield_to_busy_loop() -> None:
    """Let the rest of the event loop run, for more than one turn while it is busy.

    Each turn is a checkpoint; another follows while the last took the others at
    least `BUSY_TURN`, or while a frame is due (`loop_deadline`: its timer, woken,
    runs a turn or two later), up to `BUSY_TURNS` in all.
    """
    for _ in range(BUSY_TURNS):
        started = time.monotonic()
        await anyio.lowlevel.checkpoint()
        now = time.monotonic()
        if now - started < BUSY_TURN and not loop_deadline.is_due(now):
            return


@asynccontextmanager
async def background_tasks() -> AsyncIterator[anyio.abc.TaskGroup]:
    """A task group whose tasks are cancelled (and waited for) when the block ends.

    An exception raised in the block propagates as itself, not wrapped in an
    `ExceptionGroup`. `Dispatcher.running` and the client's connection both use it.
    """
    error: Exception | None = None
    async with anyio.create_task_group() as group:
        try:
            yield group
        except Exception as raised:
            error = raised
        finally:
            group.cancel_scope.cancel()
    if error is not None:
        raise error


CANCEL_REQUEST: Final = "$/cancel_request"

CANCELLED_IDS_KEPT: Final = 256
"""Ids of our cancelled requests whose answer is still expected, at most (the
oldest is forgotten first)."""

CANCELLED_REPLY_WINDOW: Final = 300.0
"""Seconds after our `$/cancel_request` during which the agent's answer to that
request (`-32800` or a late result) is expected, not reported as a bad message."""

CANCEL_SEND_TIMEOUT: Final = 1.0
"""Seconds allowed for sending `$/cancel_request` while a cancelled caller unwinds
(shielded, so it must be bounded)."""

DiagnosticKind = Literal[
    "parse_error",
    "invalid_message",
    "oversized_line",
    "unknown_response",
    "peer_error",
    "handler_error",
    "notification_error",
    "send_failed",
]


@dataclass(frozen=True, slots=True)
class Diagnostic:
    """Something the peer did wrong, or a handler failure, for the log and the user."""

    kind: DiagnosticKind
    message: str
    excerpt: str = ""
    """A short, escaped excerpt of the offending line, safe to print."""

    def __str__(self) -> str:
        return f"{self.message}: {self.excerpt}" if self.excerpt else self.message


@dataclass(slots=True)
class RequestContext:
    """What an inbound request handler knows about its request."""

    id: RequestId
    method: str
    cancel_requested: anyio.Event = field(default_factory=anyio.Event)
    """Set when the peer sends `$/cancel_request` for this request."""
    handles_cancellation: bool = False
    """If a handler sets this, `$/cancel_request` only sets `cancel_requested`, and the
    handler must answer (with a valid result or `RpcError(-32800)`). Otherwise the
    handler is cancelled and the dispatcher answers `-32800`."""


RequestHandler = Callable[[str, Any, RequestContext], Awaitable[Any]]
NotificationHandler = Callable[[str, Any], Awaitable[None]]
DiagnosticHandler = Callable[[Diagnostic], None]


async def _method_not_found(method: str, params: Any, context: RequestContext) -> Any:
    raise RpcError(METHOD_NOT_FOUND, "Method not found", method)


async def _ignore(method: str, params: Any) -> None:
    return None


class _Pending:
    __slots__ = ("event", "on_answer", "outcome")

    def __init__(self, on_answer: Callable[[], None] | None = None) -> None:
        self.event = anyio.Event()
        self.outcome: Response | ErrorResponse | ConnectionClosed | None = None
        self.on_answer = on_answer


Reply = Callable[[dict[str, Any]], Awaitable[None]]


class Dispatcher:
    """Correlates and routes JSON-RPC messages over one `MessageStream`.

    Args:
        stream: The framed connection.
        on_request: Serves inbound requests; return a JSON value or a pydantic
            model, or raise `RpcError`. Unset: every request gets `-32601`.
        on_notification: Receives inbound notifications, in order.
        on_diagnostic: Told about bad input and handler failures (also logged).
        long_text_paths: Paths of keys in a notification's params where the
            handler takes a long line's long string as a `framing.LongText`
            (everywhere else it is a string).
    """

    def __init__(
        self,
        stream: MessageStream,
        *,
        on_request: RequestHandler | None = None,
        on_notification: NotificationHandler | None = None,
        on_diagnostic: DiagnosticHandler | None = None,
        long_text_paths: Collection[tuple[str, ...]] = (),
    ) -> None:
        self._stream = stream
        self._long_text_paths = frozenset(("params", *path) for path in long_text_paths)
        self.on_request: RequestHandler = on_request or _method_not_found
        self.on_notification: NotificationHandler = on_notification or _ignore
        self.on_diagnostic = on_diagnostic
        self._ids = itertools.count()
        self._pending: dict[RequestId, _Pending] = {}
        self._inbound: dict[RequestId, tuple[anyio.CancelScope, RequestContext]] = {}
        self._send_lock = anyio.Lock()
        self._task_group: anyio.abc.TaskGroup | None = None
        self._close_reason: str | None = None
        self._closed = anyio.Event()
        self._cancelled: OrderedDict[RequestId, float] = OrderedDict()
        """Our requests given up with `$/cancel_request`: id -> when."""
        self.cancelled_ids_kept = CANCELLED_IDS_KEPT
        """At most this many cancelled ids are remembered."""
        self.cancelled_reply_window = CANCELLED_REPLY_WINDOW
        """Seconds a cancelled id's answer is expected."""
        self.before_others: Callable[[], None] | None = None
        """Set by a notification handler that left work pending: called (once,
        and unset) before anything but that handler may see what it did: before
        the read loop suspends (waiting for a line, or letting the rest of the
        loop run), before any other kind of line is handled or a notification
        of another method, and when the loop ends (`client.update_intake`
        applies a run of updates at once). A failure is reported, never raised.
        Unset, a line costs nothing more."""
        self._last_method = ""
        """The method of the last plain notification handled."""
        self.notification_now: Callable[[str, Any], Awaitable[None] | None] | None = (
            None
        )
        """Takes plain notifications (exactly `jsonrpc`, `method`, `params`) in
        place of `on_notification`, at once: it returns what is left to await
        (None: nothing), so most notifications cost no coroutine. Its failure is
        reported as `on_notification`'s."""
        self.notification_text: Callable[[Any, str], bool] | None = None
        """Takes a plain notification that repeats a learnt one but for its last
        string (`protocol.text_shapes`): the token `learn_text_shape` gave, and
        the string. True: taken (as `notification_now` would have taken the whole
        line, with nothing left to await); False: the line takes the general
        path, as if this were unset. Its failure is reported as
        `on_notification`'s."""
        self.learn_text_shape: tuple[str, Any] | None = None
        """Set by `notification_now`, while it takes a line, to `(key, token)`:
        the line ends in the string of `key` (the last member of its innermost
        object), and a later line that repeats it but for that string goes to
        `notification_text` with `token`. Each such request replaces the shape
        learnt before (none, where the line does not end so)."""
        self._text_shape: TextShape | None = None

    # ----------------------------------------------------------------- lifecycle

    @property
    def closed(self) -> bool:
        """True once the peer's output has ended."""
        return self._close_reason is not None

    async def run(self) -> None:
        """Read and route messages until the peer's output ends."""
        reason = "the agent closed its output"
        try:
            async with anyio.create_task_group() as task_group:
                self._task_group = task_group
                slice_started = time.monotonic()
                receive = self._stream.receive
                # A line split off already (most lines of a flood) costs no
                # coroutine where the stream tells it (`receive_ready`).
                ready: Callable[[], Line | None] | None = getattr(
                    self._stream, "receive_ready", None
                )
                while True:
                    line: Line | OversizedLine | None = (
                        None if ready is None else ready()
                    )
                    if line is None:
                        try:
                            # Stepped by hand: a line already buffered costs no
                            # awaitable of ours (`suspended` otherwise).
                            reading = receive()
                            try:
                                signal = reading.send(None)
                            except StopIteration as stop:
                                line = stop.value
                            else:
                                line = await suspended(
                                    reading, signal, self._before_others
                                )
                        except (anyio.EndOfStream, anyio.ClosedResourceError):
                            break
                        except (anyio.BrokenResourceError, ConnectionClosed) as error:
                            reason = f"the connection broke: {error}"
                            break
                    assert line is not None  # (read, or the loop was left)
                    try:
                        later = self._handle_now(line)
                        if later is not None:
                            await later
                    except Exception as error:  # a bug here must not end the session
                        log.exception("failed to handle a line from the agent")
                        self._report(
                            "handler_error",
                            f"internal error handling a message: {error!r}",
                            line if isinstance(line, bytes | bytearray) else b"",
                        )
                    now = time.monotonic()
                    if now - slice_started > READ_SLICE or loop_deadline.is_due(now):
                        # A flooding agent's lines are all buffered, so reading
                        # never waits; let the rest of the loop (the UI) run,
                        # sooner when a frame is due.
                        self._before_others()
                        await yield_to_busy_loop()
                        slice_started = time.monotonic()
                # Fail our pending requests now, before waiting for the handler
                # tasks: a handler (shielded or not) waiting on one of them would
                # otherwise wait for this loop, which waits for it.
                self._shut(reason)
                task_group.cancel_scope.cancel()
        finally:
            self._task_group = None
            self._before_others()
            self._shut(reason)

    def _before_others(self) -> None:
        """Call `before_others` (see its docstring), reporting a failure."""
        hook = self.before_others
        if hook is None:
            return
        self.before_others = None
        try:
            hook()
        except Exception as error:
            log.exception("a notification handler's pending work failed")
            self._report(
                "notification_error",
                f"could not handle a notification: {type(error).__name__}: {error}",
            )

    @asynccontextmanager
    async def running(self) -> AsyncIterator[Dispatcher]:
        """Run the dispatcher in the background for the duration of the block.

        An exception raised in the block propagates as itself, not wrapped in an
        `ExceptionGroup` by the internal task group.
        """
        async with background_tasks() as task_group:
            task_group.start_soon(self.run)
            yield self

    async def wait_closed(self) -> str:
        """Wait until the peer's output has ended; returns why."""
        await self._closed.wait()
        return self._close_reason or "closed"

    def _shut(self, reason: str) -> None:
        if self._close_reason is None:
            self._close_reason = reason
        self._closed.set()
        for pending in self._pending.values():
            if pending.outcome is None:
                pending.outcome = ConnectionClosed(reason)
                pending.event.set()

    # ------------------------------------------------------------------ outbound

    async def request(
        self,
        method: str,
        params: Any = None,
        *,
        # A timeout here, not the caller's fail_after, because expiry must also
        # send $/cancel_request for this id.
        timeout: float | None = None,  # noqa: ASYNC109
        on_answer: Callable[[], None] | None = None,
    ) -> Any:
        """Send a request and wait for its result.

        Args:
            method: The JSON-RPC method.
            params: A JSON object, a pydantic model (dumped in wire form) or None.
            timeout: Seconds to wait for the response; None waits indefinitely.
            on_answer: Called when the answer (result or error) is read, before
                the next message is read: what the peer sent after its answer is
                handled after this call, even though the caller itself resumes
                later.

        Returns:
            The decoded `result`.

        Raises:
            RpcError: The peer answered with an error.
            RequestTimeout: No answer in time (`$/cancel_request` was sent).
            ConnectionClosed: The connection ended first.
        """
        if self._close_reason is not None:
            raise ConnectionClosed(self._close_reason)
        request_id = next(self._ids)
        pending = _Pending(on_answer)
        self._pending[request_id] = pending
        message: dict[str, Any] = {"jsonrpc": "2.0", "id": request_id, "method": method}
        if params is not None:
            message["params"] = _jsonable(params)
        try:
            await self._send(message)
            try:
                with anyio.fail_after(timeout):
                    await pending.event.wait()
            except TimeoutError:
                await self._send_cancel(request_id)
                raise RequestTimeout(method, timeout or 0.0) from None
        except anyio.get_cancelled_exc_class():
            with (
                anyio.CancelScope(shield=True),
                anyio.move_on_after(CANCEL_SEND_TIMEOUT),
            ):
                await self._send_cancel(request_id)
            raise
        finally:
            self._pending.pop(request_id, None)
        outcome = pending.outcome
        if isinstance(outcome, Response):
            return outcome.result
        if isinstance(outcome, ErrorResponse):
            raise outcome.error
        assert outcome is not None
        raise ConnectionClosed(outcome.reason)

    async def notify(self, method: str, params: Any = None) -> None:
        """Send a notification.

        Raises:
            ConnectionClosed: The peer's input is closed.
        """
        message: dict[str, Any] = {"jsonrpc": "2.0", "method": method}
        if params is not None:
            message["params"] = _jsonable(params)
        await self._send(message)

    async def _send_cancel(self, request_id: RequestId) -> None:
        if self._close_reason is not None:
            return
        # Recorded first: the agent may answer before the notification is sent.
        self._remember_cancelled(request_id)
        with suppress(ConnectionClosed):
            await self.notify(CANCEL_REQUEST, {"requestId": request_id})

    def _remember_cancelled(self, request_id: RequestId) -> None:
        """Expect the answer to a request we cancelled, for a while (bounded).

        The agent MUST answer it: `-32800`, or a result if it finished anyway.
        """
        self._cancelled.pop(request_id, None)
        self._cancelled[request_id] = time.monotonic()
        while len(self._cancelled) > max(self.cancelled_ids_kept, 0):
            self._cancelled.popitem(last=False)

    def _expected_late_reply(self, request_id: RequestId | None) -> bool:
        """Whether a response with no pending request answers one we cancelled.

        Each cancelled id is used once: a second answer for it is a bad message.
        """
        if request_id is None:
            return False
        cancelled_at = self._cancelled.pop(request_id, None)
        if cancelled_at is None:
            return False
        return time.monotonic() - cancelled_at <= self.cancelled_reply_window

    async def _send(self, message: Any) -> None:
        line = encode_message(message)
        async with self._send_lock:
            try:
                await self._stream.send(line)
            except (anyio.BrokenResourceError, anyio.ClosedResourceError) as error:
                raise ConnectionClosed(f"cannot write to the agent: {error}") from None

    async def _send_reply(self, message: Any) -> None:
        try:
            await self._send(message)
        except ConnectionClosed as error:
            self._report("send_failed", f"could not send a reply: {error.reason}")

    # ------------------------------------------------------------------- inbound

    def _handle_now(self, line: Line | OversizedLine) -> Awaitable[None] | None:
        """Handle a line now; what is left to await (None: nothing).

        A plain notification (most lines) is handled here, costing no coroutine
        unless its handler leaves one; any other line goes to `_handle_line`.
        """
        if type(line) is not bytes or len(line) >= LONG_LINE_BYTES:
            return self._handle_line(line)
        shape = self._text_shape
        if shape is not None and (text := shape.text(line)) is not None:
            taken = self._repeated(shape, text)
            if taken is not False:
                return None
        data = decode_line(line)
        if (  # `_plain_notification`, inline: this runs for every line
            type(data) is not dict
            or data.keys() != _NOTIFICATION_KEYS
            or data["jsonrpc"] != "2.0"
            or type(method := data["method"]) is not str
            or type(params := data["params"]) is not dict
            or method == CANCEL_REQUEST
            or method.startswith("$/")
        ):
            if isinstance(data, DecodeError) and (not line or line.isspace()):
                return None  # a blank line
            return self._handle_data(line, data)
        if method != self._last_method:
            self._before_others()
            self._last_method = method
        now = self.notification_now
        if now is None:
            return self._notify_handler(method, params)
        self.learn_text_shape = None
        try:  # (no coroutine per notification)
            later = now(method, params)
        except Exception as error:
            self._handler_failed(method, error)
            return None
        if (learn := self.learn_text_shape) is not None:
            self.learn_text_shape = None
            self._text_shape = TextShape.learn(line, learn[0], method, learn[1])
        return None if later is None else self._handler_awaited(method, later)

    def _repeated(self, shape: TextShape, text: str) -> bool | None:
        """A line of the learnt shape, to `notification_text` (False: not taken).

        None: taken, and it failed (reported).
        """
        take = self.notification_text
        if take is None:
            return False
        method = shape.method
        if method != self._last_method:  # (as `_handle_now` does on the whole line)
            self._before_others()
            self._last_method = method
        try:
            return take(shape.token, text) or False
        except Exception as error:
            self._handler_failed(method, error)
            return None

    async def _handler_awaited(self, method: str, later: Awaitable[None]) -> None:
        """What `notification_now` left to await (its failure is reported)."""
        try:
            await later
        except Exception as error:
            self._handler_failed(method, error)

    async def _handle_line(self, line: Line | OversizedLine) -> None:
        if isinstance(line, OversizedLine):
            self._before_others()
            self._report(
                "oversized_line",
                f"discarded a line of {line.size} bytes (limit {line.limit})",
            )
            await self._send_reply(
                error_response(
                    None, RpcError(PARSE_ERROR, "Parse error", "line too long")
                )
            )
            return
        if len(line) >= LONG_LINE_BYTES:
            if line.isspace():
                return
            self._before_others()
            data = await self._decode_long(line)
        elif not line.strip():
            return
        else:
            data = decode_line(line)
        await self._handle_data(line, data)

    async def _handle_data(self, line: Line, data: Any) -> None:
        """Handle a line decoded as `data` (or the `DecodeError` it gave)."""
        if isinstance(data, DecodeError):
            self._before_others()
            self._report("parse_error", f"unreadable line ({data.message})", line)
            await self._send_reply(
                error_response(None, RpcError(PARSE_ERROR, "Parse error", data.message))
            )
            return
        if isinstance(data, list):
            self._before_others()
            await self._handle_batch(data, line)
            return
        if _plain_notification(data):  # most lines: what parse_message would say
            method = data["method"]
            if method != CANCEL_REQUEST and not method.startswith("$/"):
                if method != self._last_method:
                    self._before_others()
                    self._last_method = method
                now = self.notification_now
                if now is None:
                    await self._notify_handler(method, data["params"])
                    return
                try:  # (no coroutine per notification)
                    later = now(method, data["params"])
                    if later is not None:
                        await later
                except Exception as error:
                    self._handler_failed(method, error)
                return
        self._before_others()
        message = parse_message(data)
        if isinstance(message, InvalidMessage):
            self._report("invalid_message", f"invalid message ({message.reason})", line)
            await self._send_reply(_invalid_request(message))
        elif isinstance(message, Request):
            await self._start_serving(message, self._send_reply)
        else:
            await self._route(message, line)

    async def _decode_long(self, line: Line) -> Any:
        """A long line decoded in steps (see the module docstring).

        Its long strings are joined, but at the paths a notification's handler
        takes them in pieces.
        """
        data = await decode_long_line(line, yield_to_busy_loop)
        if isinstance(data, DecodeError):
            return data
        notification = isinstance(data, dict) and "id" not in data
        return join_long_text(data, self._long_text_paths if notification else ())

    async def _route(
        self, message: Notification | Response | ErrorResponse, line: Line
    ) -> None:
        if isinstance(message, Notification):
            await self._notification(message)
            return
        pending = self._pending.get(message.id) if message.id is not None else None
        if pending is None or pending.outcome is not None:
            if self._expected_late_reply(message.id):
                log.debug("the answer to cancelled request %r arrived", message.id)
            elif isinstance(message, ErrorResponse) and message.id is None:
                self._report(
                    "peer_error", f"the agent reported an error: {message.error}"
                )
            else:
                self._report(
                    "unknown_response", "a response for no pending request", line
                )
            return
        pending.outcome = message
        pending.event.set()
        if pending.on_answer is not None:
            pending.on_answer()

    async def _notification(self, message: Notification) -> None:
        if message.method == CANCEL_REQUEST:
            self._cancel_inbound(message.params)
            return
        if message.method.startswith("$/"):
            log.debug("ignoring protocol notification %s", message.method)
            return
        await self._notify_handler(message.method, message.params)

    async def _notify_handler(self, method: str, params: Any) -> None:
        """Hand a notification to `on_notification` (its failure is reported)."""
        try:
            await self.on_notification(method, params)
        except Exception as error:
            self._handler_failed(method, error)

    def _handler_failed(self, method: str, error: Exception) -> None:
        log.exception("notification handler failed for %s", method)
        self._report(
            "notification_error",
            f"could not handle {method}: {type(error).__name__}: {error}",
        )

    def _cancel_inbound(self, params: Any) -> None:
        request_id = params.get("requestId") if isinstance(params, dict) else None
        entry = self._inbound.get(request_id) if request_id is not None else None
        if entry is None:
            log.debug("$/cancel_request for no running request: %r", request_id)
            return
        scope, context = entry
        context.cancel_requested.set()
        if not context.handles_cancellation:
            scope.cancel()

    async def _start_serving(self, request: Request, reply: Reply) -> None:
        if self._task_group is None:  # pragma: no cover - run() owns the group
            return
        await self._task_group.start(self._serve, request, reply)

    async def _serve(
        self,
        request: Request,
        reply: Reply,
        *,
        task_status: anyio.abc.TaskStatus[None] = anyio.TASK_STATUS_IGNORED,
    ) -> None:
        if request.id in self._inbound:
            # The first request with this id keeps running. Serving this one too
            # would give the agent two answers for one id, and a
            # `$/cancel_request` could not say which of the two it means.
            task_status.started()
            self._report(
                "invalid_message",
                f"the agent reused request id {request.id!r} while a request with "
                f"that id is still being handled ({request.method})",
            )
            await reply(
                error_response(
                    request.id,
                    RpcError(
                        INVALID_REQUEST,
                        "Invalid Request",
                        f"request id {request.id!r} is already in use",
                    ),
                )
            )
            return
        context = RequestContext(request.id, request.method)
        scope = anyio.CancelScope()
        self._inbound[request.id] = (scope, context)
        task_status.started()
        response: dict[str, Any] | None = None
        try:
            with scope:
                try:
                    result = await self.on_request(
                        request.method, request.params, context
                    )
                    response = {
                        "jsonrpc": "2.0",
                        "id": request.id,
                        "result": _jsonable(result),
                    }
                except RpcError as error:
                    response = error_response(request.id, error)
                except ValidationError as error:
                    response = error_response(
                        request.id,
                        RpcError(INVALID_PARAMS, "Invalid params", _summary(error)),
                    )
                except Exception as error:
                    log.exception("handler for %s failed", request.method)
                    self._report(
                        "handler_error",
                        f"{request.method} failed: {type(error).__name__}: {error}",
                    )
                    response = error_response(
                        request.id,
                        RpcError(
                            INTERNAL_ERROR,
                            "Internal error",
                            f"{type(error).__name__}: {error}",
                        ),
                    )
        finally:
            del self._inbound[request.id]
        if response is None:  # cancelled by $/cancel_request
            response = error_response(
                request.id, RpcError(REQUEST_CANCELLED, "Request cancelled")
            )
        await reply(response)

    async def _handle_batch(self, items: list[Any], line: Line) -> None:
        """Serve a JSON array per the v2 alpha.3 batch rules.

        `[]` gets one `-32600`; each invalid entry gets its own `-32600` with
        `id: null`; notifications and responses are handled in array order; the
        replies to the requests (and invalid entries) go back as one array, and an
        array that needs no reply gets none.
        """
        if not items:
            self._report("invalid_message", "an empty batch", line)
            await self._send_reply(
                error_response(
                    None, RpcError(INVALID_REQUEST, "Invalid Request", "empty batch")
                )
            )
            return
        replies: list[dict[str, Any]] = []
        requests: list[Request] = []
        for item in items:
            message = parse_message(item)
            if isinstance(message, InvalidMessage):
                self._report(
                    "invalid_message",
                    f"invalid batch entry ({message.reason})",
                    json.dumps(item).encode(),
                )
                replies.append(error_response(None, _invalid_error(message)))
            elif isinstance(message, Request):
                requests.append(message)
            else:
                await self._route(message, line)
        if not requests:
            if replies:
                await self._send_reply(replies)
            return
        if self._task_group is not None:
            await self._task_group.start(self._serve_batch, requests, replies)

    async def _serve_batch(
        self,
        requests: list[Request],
        replies: list[dict[str, Any]],
        *,
        task_status: anyio.abc.TaskStatus[None] = anyio.TASK_STATUS_IGNORED,
    ) -> None:
        async def collect(response: dict[str, Any]) -> None:
            replies.append(response)

        async with anyio.create_task_group() as group:
            for request in requests:
                await group.start(self._serve, request, collect)
            task_status.started()
        await self._send_reply(replies)

    def _report(self, kind: DiagnosticKind, message: str, line: Line = b"") -> None:
        diagnostic = Diagnostic(kind, message, excerpt(line) if line else "")
        log.warning("%s", diagnostic)
        if self.on_diagnostic is not None:
            try:
                self.on_diagnostic(diagnostic)
            except Exception:
                log.exception("diagnostic handler failed")


_NOTIFICATION_KEYS: Final = frozenset({"jsonrpc", "method", "params"})


def _plain_notification(data: Any) -> bool:
    """Whether `data` is exactly `{"jsonrpc": "2.0", "method": str, "params": {}}`.

    The common shape of a notification (every streamed update), taken without
    `parse_message`, which classifies such data as `Notification(method, params)`
    too (a test checks); anything else goes through it.
    """
    return (
        type(data) is dict
        and data.keys() == _NOTIFICATION_KEYS
        and data["jsonrpc"] == "2.0"
        and type(data["method"]) is str
        and type(data["params"]) is dict
    )


def _invalid_error(message: InvalidMessage) -> RpcError:
    return RpcError(INVALID_REQUEST, "Invalid Request", message.reason)


def _invalid_request(message: InvalidMessage) -> dict[str, Any]:
    return error_response(message.id, _invalid_error(message))


def _jsonable(value: Any) -> Any:
    if isinstance(value, BaseModel):
        return value.model_dump(mode="json", by_alias=True, exclude_unset=True)
    return value


def _summary(error: ValidationError, limit: int = 5) -> str:
    parts = []
    for item in error.errors(include_url=False)[:limit]:
        where = ".".join(str(part) for part in item["loc"]) or "(root)"
        parts.append(f"{where}: {item['msg']}")
    more = error.error_count() - limit
    if more > 0:
        parts.append(f"and {more} more")
    return "; ".join(parts)
