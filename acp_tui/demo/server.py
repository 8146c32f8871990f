"""The demo agent's JSON-RPC side: negotiation and the ACP methods, per version.

`serve(stream, agent)` answers one client over a `MessageStream` with the
project's `Dispatcher`; `main()` (`python -m acp_tui.demo`) does it on stdio.

Negotiation (`initialize`):

* An offer of 2 or more whose params are proper v2 (`info` present) is answered
  with **2**; anything else (an offer of 1, or a v2 number with v1-shaped params)
  with **1**.
* On v1 the client's `clientCapabilities` are honoured even when they came as
  extra keys of a v2-shaped offer: with `terminal: true`, commands run in the
  client's terminals; `fs` is never needed (the demo's files are its own).
  The elicitation modes the client advertises (v1 `clientCapabilities`, v2
  `capabilities`) are the only ones `/ask` and `/login` use.

Invariants:

* **Order around responses.** Updates that must follow a response (the v2 user
  message after the `session/prompt` acknowledgment, the command list after
  `session/new`) wait until that response has been written (`WatchedStream`);
  a replay (`session/resume` with `replayFrom: start`, v1 `session/load`) is sent
  *before* its response.
* **Errors are JSON-RPC errors**: unknown methods `-32601`, bad params `-32602`
  (also an unknown `replayFrom` type or a bad cursor), unknown sessions `-32002`,
  anything before `initialize` `-32600`. Nothing the client sends ends the agent.
* When the client goes away (end of stdin, SIGTERM, SIGINT, SIGHUP), running
  turns are cancelled: their commands are killed and the sessions saved.
  `DemoServer.stop()` does it at once, before anything waits on the client: the
  turns of this connection are cancelled (pending permission requests
  withdrawn), requests the client can no longer answer (a v1 client terminal's
  `terminal/wait_for_exit`) are abandoned with no kill/output/release sent after
  them, nothing more is sent as an update, and stdout is never waited on again
  (`StdioStream.abandon`). End of input is seen by `WatchedStream` as it happens:
  the dispatcher only fails its pending requests once every handler has
  returned, and a v1 turn is one of those handlers.
"""

from __future__ import annotations

import functools
import json
import logging
import signal
import sys
from collections.abc import Awaitable, Callable, Sequence
from pathlib import PurePosixPath, PureWindowsPath
from typing import TYPE_CHECKING, Any, Final

import anyio
import anyio.abc
from pydantic import ValidationError

from acp_tui.demo import persist, session_admin, steering
from acp_tui.demo.emit_common import AGENT_INFO, elicitation_modes, report_opt_ins
from acp_tui.demo.events import JSONObject, fold
from acp_tui.demo.pacing import Pace, clock_from_env, delay_from_env, floor_from_env
from acp_tui.demo.session import DemoAgent, DemoSession, SessionNotFound
from acp_tui.demo.stdio import StdioStream
from acp_tui.demo.steering import STEERING_META
from acp_tui.protocol.dispatcher import Dispatcher, RequestContext
from acp_tui.protocol.framing import Line, OversizedLine
from acp_tui.protocol.jsonrpc import (
    INVALID_PARAMS,
    INVALID_REQUEST,
    METHOD_NOT_FOUND,
    RESOURCE_NOT_FOUND,
    RequestId,
    RpcError,
)
from acp_tui.protocol.schema import wire_models
from acp_tui.protocol.schema._base import to_wire
from acp_tui.protocol.schema.unstable import Usage as TurnUsage
from acp_tui.protocol.transport import ConnectionClosed, MessageStream

if TYPE_CHECKING:
    # Imported where used: a connection loads only its own version's wire models
    # (each costs a good part of the agent's start-up time).
    from acp_tui.demo.emit_v1 import V1Emitter
    from acp_tui.demo.emit_v2 import V2Emitter
    from acp_tui.protocol.schema import v1, v2

__all__ = ["REPLY_WAIT", "DemoServer", "WatchedStream", "main", "serve"]

log = logging.getLogger(__name__)

REPLY_WAIT: Final = 2.0
"""Longest wait for a response to be written before what must follow it is sent
anyway (a safety net: the response is normally out within microseconds)."""


class WatchedStream:
    """A `MessageStream` that can tell when the response to a request is written.

    Args:
        inner: The connection.
        on_end: Called (synchronously) as soon as the client's input ends.
    """

    def __init__(
        self, inner: MessageStream, on_end: Callable[[], None] | None = None
    ) -> None:
        self.inner = inner
        self.on_end = on_end
        self._waiters: dict[bytes, anyio.Event] = {}
        self._abandoned = False

    def reply_sent(self, request_id: RequestId) -> anyio.Event:
        """An event set once the response to `request_id` has been written."""
        prefix = b'{"jsonrpc":"2.0","id":' + json.dumps(request_id).encode() + b","
        if self._abandoned:  # nobody reads it: waiting for it is pointless
            done = anyio.Event()
            done.set()
            return done
        return self._waiters.setdefault(prefix, anyio.Event())

    async def receive(self) -> Line | OversizedLine:
        """The next line from the client; at its end, `on_end` is called first."""
        try:
            return await self.inner.receive()
        except (
            anyio.EndOfStream,
            anyio.ClosedResourceError,
            anyio.BrokenResourceError,
            ConnectionClosed,
        ):
            if self.on_end is not None:
                self.on_end()
            raise

    def abandon(self) -> None:
        """The client is gone: stop waiting on it.

        Whoever waits for a response to be written is released, and the output
        is never waited on again (`StdioStream.abandon`).
        """
        self._abandoned = True
        for event in self._waiters.values():
            event.set()
        self._waiters.clear()
        if isinstance(self.inner, StdioStream):
            self.inner.abandon()

    async def send(self, line: bytes) -> None:
        """Write a line; wake whoever waits for it (a response)."""
        await self.inner.send(line)
        if self._waiters and line.startswith(b'{"jsonrpc":"2.0","id":'):
            for prefix in list(self._waiters):
                if line.startswith(prefix):
                    self._waiters.pop(prefix).set()

    async def aclose(self) -> None:
        """Close the inner stream."""
        await self.inner.aclose()


def _absolute(path: str) -> bool:
    return PurePosixPath(path).is_absolute() or PureWindowsPath(path).is_absolute()


def _session_id(params: Any) -> str:
    """The `sessionId` of `session/close` / `session/delete` params (both versions)."""
    session_id = params.get("sessionId") if isinstance(params, dict) else None
    if not isinstance(session_id, str):
        raise _bad_params("sessionId must be a string")
    return session_id


def _bad_params(message: str) -> RpcError:
    return RpcError(INVALID_PARAMS, "Invalid params", message)


def _not_found(session_id: str) -> RpcError:
    return RpcError(RESOURCE_NOT_FOUND, "Resource not found", {"sessionId": session_id})


Handler = Callable[[Any, RequestContext], Awaitable[Any]]


class DemoServer:
    """One client connection to the demo agent."""

    def __init__(self, agent: DemoAgent, stream: MessageStream) -> None:
        self.agent = agent
        self.stream = WatchedStream(stream, on_end=self.stop)
        self.dispatcher = Dispatcher(
            self.stream,
            on_request=self.handle_request,
            on_notification=self.handle_notification,
        )
        self.port: V1Emitter | V2Emitter | None = None
        self._tasks: anyio.abc.TaskGroup | None = None
        self._handlers: dict[str, Handler] = {}
        self.stopped = False

    async def run(self) -> None:
        """Serve until the client closes the connection."""
        async with anyio.create_task_group() as tasks:
            self._tasks = tasks
            try:
                await self.dispatcher.run()
            finally:
                self.stop()
            tasks.cancel_scope.cancel()

    def stop(self) -> None:
        """The client went away: wind this connection down now (idempotent).

        Cancels the connection's turns (their commands are killed and their
        sessions saved as they unwind), abandons what waits on the client and
        stops sending (see the module docstring). It never waits: the turns
        unwind in their own tasks.
        """
        if self.stopped:
            return
        self.stopped = True
        if self.port is not None:
            self.port.connection_lost()
            self.agent.disconnect(self.port)
        self.stream.abandon()

    # ------------------------------------------------------------- routing

    async def handle_request(
        self, method: str, params: Any, context: RequestContext
    ) -> Any:
        """Serve one request (see the module docstring for the error rules)."""
        if method == "initialize":
            return self._initialize(params)
        if self.port is None:
            raise RpcError(INVALID_REQUEST, "Invalid Request", "initialize first")
        handler = self._handlers.get(method)
        if handler is None:
            raise RpcError(METHOD_NOT_FOUND, "Method not found", method)
        return await handler(params if params is not None else {}, context)

    async def handle_notification(self, method: str, params: Any) -> None:
        """`session/cancel`; anything else is ignored."""
        if method != "session/cancel" or self.port is None:
            return
        session_id = params.get("sessionId") if isinstance(params, dict) else None
        if not isinstance(session_id, str):
            log.warning("ignored a malformed session/cancel")
            return
        self.agent.cancel(session_id)

    def _after_reply(
        self, request_id: RequestId, action: Callable[[], Awaitable[None]]
    ) -> None:
        """Run `action` once the response to `request_id` is written."""
        sent = self.stream.reply_sent(request_id)

        async def later() -> None:
            with anyio.move_on_after(REPLY_WAIT):
                await sent.wait()
            await action()

        assert self._tasks is not None
        self._tasks.start_soon(later)

    # ---------------------------------------------------------- initialize

    def _initialize(self, params: Any) -> JSONObject:
        if self.port is not None:
            raise RpcError(INVALID_REQUEST, "Invalid Request", "already initialized")
        params = params if isinstance(params, dict) else {}
        offered = params.get("protocolVersion")
        version = 1
        if isinstance(offered, int) and not isinstance(offered, bool) and offered >= 2:
            from acp_tui.protocol.schema import v2

            try:
                offer = v2.InitializeRequest.model_validate(params)
                version = 2
            except ValidationError:
                version = 1  # a v2 number with v1-shaped params: speak v1
        if version == 2:
            from acp_tui.demo import emit_v2

            self.port = emit_v2.V2Emitter(
                self.dispatcher,
                elicitation_modes=elicitation_modes(offer.capabilities.elicitation),
            )
            self._handlers = self._v2_handlers()
            return session_admin.advertise(
                {**emit_v2.initialize_result(AGENT_INFO), "_meta": STEERING_META}
            )
        from acp_tui.demo import emit_v1
        from acp_tui.protocol.schema import v1

        try:
            capabilities = v1.ClientCapabilities.model_validate(
                params.get("clientCapabilities") or {}
            )
        except ValidationError:
            capabilities = v1.ClientCapabilities()
        self.port = emit_v1.V1Emitter(
            self.dispatcher,
            client_terminal=capabilities.terminal,
            elicitation_modes=elicitation_modes(capabilities.elicitation),
            reports=report_opt_ins(capabilities.session),
            subagents=isinstance(
                (params.get("clientCapabilities") or {}).get("subagents"), dict
            ),
        )
        self._handlers = self._v1_handlers()
        return session_admin.advertise(
            {**emit_v1.initialize_result(AGENT_INFO), "_meta": STEERING_META}
        )

    def _common_handlers(self) -> dict[str, Handler]:
        """The session methods both versions serve alike."""
        return {
            "session/new": self._new,
            "session/list": self._list,
            "session/close": self._close,
            "session/delete": self._delete,
            "session/set_config_option": self._set_config_option,
            "_session/steering": functools.partial(steering.steer, self),
            "session/fork": self._fork,
            "session/set_title": self._set_title,
            "session/archive": self._archive,
            "session/unarchive": self._unarchive,
            "session/status": self._status,
        }

    def _v2_handlers(self) -> dict[str, Handler]:
        return {
            **self._common_handlers(),
            "session/resume": self._resume_v2,
            "session/prompt": self._prompt_v2,
            "tool_call/cancel": self._cancel_tool_v2,
        }

    def _v1_handlers(self) -> dict[str, Handler]:
        return {
            **self._common_handlers(),
            "session/load": self._load_v1,
            "session/resume": self._resume_v1,
            "session/set_mode": self._set_mode_v1,
            "session/prompt": self._prompt_v1,
        }

    # ------------------------------------------------------------- helpers

    def _request(self, model: str, params: Any) -> Any:
        """`params` validated by the negotiated version's request model `model`.

        The version's models load here, on first use: a v2 connection never
        loads the v1 ones (see acp_tui.protocol.schema).
        """
        models = wire_models(self._emitter().version)
        return getattr(models, model).model_validate(params)

    def _emitter(self) -> V1Emitter | V2Emitter:
        assert self.port is not None
        return self.port

    def _setup_result(self, session: DemoSession) -> JSONObject:
        """`configOptions` (and v1 `modes`) of a session setup response."""
        return self._emitter().setup_result(session.config)

    def _open(self, session_id: str) -> DemoSession:
        try:
            return self.agent.open(session_id)
        except SessionNotFound:
            raise _not_found(session_id) from None

    def _session(self, session_id: str) -> DemoSession:
        try:
            return self.agent.get(session_id)
        except SessionNotFound:
            raise _not_found(session_id) from None

    @staticmethod
    def _check_cwd(cwd: str, extra: Sequence[str] = ()) -> None:
        for path in (cwd, *extra):
            if not _absolute(path):
                raise _bad_params(f"not an absolute path: {path!r}")

    # ------------------------------------------------------------ sessions

    async def _new(self, params: Any, context: RequestContext) -> JSONObject:
        request: v1.NewSessionRequest | v2.NewSessionRequest = self._request(
            "NewSessionRequest", params
        )
        self._check_cwd(request.cwd, request.additional_directories)
        session = self.agent.new_session(request.cwd)
        emitter = self._emitter()
        self._after_reply(context.id, lambda: emitter.send_commands(session.session_id))
        return {"sessionId": session.session_id, **self._setup_result(session)}

    async def _list(self, params: Any, context: RequestContext) -> JSONObject:
        request: v1.ListSessionsRequest | v2.ListSessionsRequest = self._request(
            "ListSessionsRequest", params
        )
        if request.cwd is not None:
            self._check_cwd(request.cwd)
        try:
            archived, wanted = session_admin.list_filter(
                params.get("archived") if isinstance(params, dict) else None
            )
        except ValueError as error:
            raise _bad_params(str(error)) from None
        try:
            page, cursor = self.agent.list_page(
                request.cwd,
                request.cursor,
                lambda sid: session_admin.keeps(archived, wanted, sid),
            )
        except persist.InvalidCursor:
            raise _bad_params("unknown cursor") from None
        sessions = []
        for summary in page:
            info: JSONObject = {"sessionId": summary.session_id, "cwd": summary.cwd}
            info["archived"] = summary.session_id in archived
            if summary.title is not None:
                info["title"] = summary.title
            if summary.updated_at is not None:
                info["updatedAt"] = summary.updated_at
            sessions.append(info)
        result: JSONObject = {"sessions": sessions}
        if cursor is not None:
            result["nextCursor"] = cursor
        return result

    async def _replay(self, session: DemoSession) -> None:
        emitter = self._emitter()
        await emitter.replay(session, fold(session.history))
        await emitter.send_commands(session.session_id)
        await emitter.send_config(session)

    async def _resume_v2(self, params: Any, context: RequestContext) -> JSONObject:
        from acp_tui.protocol.schema import v2

        request = v2.ResumeSessionRequest.model_validate(params)
        self._check_cwd(request.cwd, request.additional_directories)
        replay = request.replay_from
        if replay is not None and not isinstance(replay, v2.ReplayFromStart):
            raise _bad_params(f"unsupported replayFrom type {replay.type!r}")
        session = self._open(request.session_id)
        if replay is not None:
            await self._replay(session)
        else:
            emitter = self._emitter()
            self._after_reply(
                context.id, lambda: emitter.send_commands(session.session_id)
            )
        return self._setup_result(session)

    async def _load_v1(self, params: Any, context: RequestContext) -> JSONObject:
        from acp_tui.protocol.schema import v1

        request = v1.LoadSessionRequest.model_validate(params)
        self._check_cwd(request.cwd, request.additional_directories)
        session = self._open(request.session_id)
        await self._replay(session)
        return self._setup_result(session)

    async def _resume_v1(self, params: Any, context: RequestContext) -> JSONObject:
        from acp_tui.protocol.schema import v1

        request = v1.ResumeSessionRequest.model_validate(params)
        self._check_cwd(request.cwd, request.additional_directories)
        session = self._open(request.session_id)
        emitter = self._emitter()
        self._after_reply(context.id, lambda: emitter.send_commands(session.session_id))
        return self._setup_result(session)

    async def _close(self, params: Any, context: RequestContext) -> JSONObject:
        session_id = _session_id(params)
        try:
            await self.agent.close(session_id)
        except SessionNotFound:
            if persist.load(session_id) is None:
                raise _not_found(session_id) from None
        return {}

    async def _delete(self, params: Any, context: RequestContext) -> JSONObject:
        session_id = _session_id(params)
        try:
            await self.agent.delete(session_id)
        except SessionNotFound:
            raise _not_found(session_id) from None
        return {}

    # ------------------------------------ fork, titles, archive, status

    async def _fork(self, params: Any, context: RequestContext) -> JSONObject:
        params = params if isinstance(params, dict) else {}
        request = self._request("NewSessionRequest", {"mcpServers": [], **params})
        self._check_cwd(request.cwd, request.additional_directories)
        source = _session_id(params)
        try:
            session = session_admin.fork(
                self.agent, source, request.cwd, params.get("_meta")
            )
        except SessionNotFound:
            raise _not_found(source) from None
        except ValueError as error:
            raise _bad_params(str(error)) from None
        emitter = self._emitter()
        self._after_reply(context.id, lambda: emitter.send_commands(session.session_id))
        return {"sessionId": session.session_id, **self._setup_result(session)}

    async def _set_title(self, params: Any, context: RequestContext) -> JSONObject:
        session_id = _session_id(params)
        title = params.get("title")
        if not isinstance(title, str):
            raise _bad_params("title must be a string")
        try:
            return {"title": session_admin.set_title(self.agent, session_id, title)}
        except SessionNotFound:
            raise _not_found(session_id) from None
        except ValueError as error:
            raise _bad_params(str(error)) from None

    async def _archive(self, params: Any, context: RequestContext) -> JSONObject:
        return await self._set_archived(params, archived=True)

    async def _unarchive(self, params: Any, context: RequestContext) -> JSONObject:
        return await self._set_archived(params, archived=False)

    async def _set_archived(self, params: Any, *, archived: bool) -> JSONObject:
        session_id = _session_id(params)
        try:
            await session_admin.archive(self.agent, session_id, archived)
        except SessionNotFound:
            raise _not_found(session_id) from None
        return {}

    async def _status(self, params: Any, context: RequestContext) -> JSONObject:
        session_id = _session_id(params)
        try:
            result = session_admin.status(self.agent, session_id)
        except SessionNotFound:
            raise _not_found(session_id) from None
        if not self._emitter().status_has_state:
            result.pop("state", None)
        return result

    # ------------------------------------------------------------- options

    async def _set_config_option(
        self, params: Any, context: RequestContext
    ) -> JSONObject:
        request = self._request("SetSessionConfigOptionRequest", params)
        if request.type not in (None, "id"):  # v1 names no type for a select
            raise _bad_params(f"option values are ids, not {request.type!r}")
        session_id, config_id = request.session_id, request.config_id
        value: Any = request.value
        session = self._session(session_id)
        if not isinstance(value, str):
            raise _bad_params("option values are ids (strings)")
        try:
            session.config.set(config_id, value)
        except KeyError:
            raise _bad_params(f"unknown config option {config_id!r}") from None
        except ValueError as error:
            raise _bad_params(str(error)) from None
        session.save()
        return {"configOptions": self._setup_result(session)["configOptions"]}

    async def _set_mode_v1(self, params: Any, context: RequestContext) -> JSONObject:
        from acp_tui.protocol.schema import v1

        request = v1.SetSessionModeRequest.model_validate(params)
        session = self._session(request.session_id)
        try:
            session.config.set("mode", request.mode_id)
        except ValueError as error:
            raise _bad_params(str(error)) from None
        session.save()
        emitter = self._emitter()
        self._after_reply(context.id, lambda: emitter.send_config(session))
        return {}

    # -------------------------------------------------------------- prompts

    def _blocks(self, prompt: Sequence[Any]) -> list[JSONObject]:
        if not prompt:
            raise _bad_params("the prompt is empty")
        return [to_wire(block) for block in prompt]

    async def _prompt_v2(self, params: Any, context: RequestContext) -> JSONObject:
        from acp_tui.protocol.schema import v2

        request = v2.PromptRequest.model_validate(params)
        session = self._session(request.session_id)
        blocks = self._blocks(request.prompt)
        sent = self.stream.reply_sent(context.id)

        async def accepted() -> None:
            with anyio.move_on_after(REPLY_WAIT):
                await sent.wait()

        self.start_turn(session, blocks, accepted)
        return {}

    def start_turn(
        self,
        session: DemoSession,
        blocks: list[JSONObject],
        accepted: Callable[[], Awaitable[None]] | None = None,
    ) -> None:
        """Run a turn in the background (v2 prompts, a steer with none running)."""
        emitter = self._emitter()

        async def turn() -> None:
            try:
                await self.agent.prompt(session, emitter, blocks, accepted=accepted)
            except Exception:  # never let one turn take the connection down
                log.exception("the turn of %s failed", session.session_id)

        assert self._tasks is not None
        self._tasks.start_soon(turn)

    async def _cancel_tool_v2(self, params: Any, context: RequestContext) -> JSONObject:
        """`tool_call/cancel`: accepted ({}) if the turn offers it; the turn goes on."""
        from acp_tui.protocol.schema import v2

        request = v2.CancelToolCallRequest.model_validate(params)
        self._session(request.session_id)
        if not self.agent.cancel_tool(request.session_id, request.tool_call_id):
            raise _bad_params("this tool call cannot be cancelled (now)")
        return {}

    async def _prompt_v1(self, params: Any, context: RequestContext) -> JSONObject:
        from acp_tui.protocol.schema import v1

        request = v1.PromptRequest.model_validate(params)
        session = self._session(request.session_id)
        blocks = self._blocks(request.prompt)
        stop = await self.agent.prompt(session, self._emitter(), blocks)
        response = v1.PromptResponse(stop_reason=stop or "cancelled")
        if session.turn_tokens is not None:  # the unstable end-turn usage
            response.usage = TurnUsage.model_validate(session.turn_tokens)
        return to_wire(response)


async def serve(stream: MessageStream, agent: DemoAgent) -> None:
    """Answer one client on `stream` until it closes the connection."""
    await DemoServer(agent, stream).run()


async def _serve_stdio(agent: DemoAgent) -> None:
    server = DemoServer(agent, StdioStream())
    async with anyio.create_task_group() as tasks:

        async def watch_signals() -> None:
            with anyio.open_signal_receiver(
                signal.SIGTERM, signal.SIGINT, signal.SIGHUP
            ) as signals:
                async for received in signals:
                    log.info("stopping on %s", signal.Signals(received).name)
                    server.stop()
                    tasks.cancel_scope.cancel()
                    return

        tasks.start_soon(watch_signals)
        await server.run()
        tasks.cancel_scope.cancel()


def main() -> int:
    """`python -m acp_tui.demo`: the demo agent on stdin/stdout."""
    logging.basicConfig(
        stream=sys.stderr,
        level=logging.WARNING,
        format="acp-tui-demo %(levelname)s %(name)s: %(message)s",
    )
    agent = DemoAgent(
        clock=clock_from_env(), pace=Pace(delay_from_env(), floor_from_env())
    )
    anyio.run(_serve_stdio, agent)
    return 0
