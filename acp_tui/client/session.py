"""The session layer: ACP methods over a negotiated connection, feeding the store.

https://agentclientprotocol.com/protocol/session-setup (v1) and
https://agentclientprotocol.com/protocol/v2/session-setup (v2).

`AcpClient` is the one object above the wire that knows which version the
connection speaks; callers (the UI, `acp-tui print`) use version-neutral methods
and read version-neutral `SessionStore`s:

* `session/update` notifications are validated against the negotiated version's
  model, translated (`translate_v1` / `translate_v2`) and applied to that session's
  store, in received order. Updates for a session whose `session/new` response has
  not arrived yet are held and applied first when it does; the response's own
  config options and commands never overwrite what updates already reported.
  A resume/load response is the other way round: the replay before it is
  history, so the config options (and v2 commands) it carries are the agent's
  latest state and replace the replayed ones (a list it omits leaves them).
* User messages the agent wrote itself (not the acknowledgment of a prompt sent
  from here, nor history replayed on reattach) are marked as the agent's in the
  same `apply_many` (`message_origins`).
* A prompt turn ends, in v2, with an idle `state_update` received after the prompt
  was sent (the `session/prompt` response only means "accepted"); in v1, with the
  `session/prompt` response, whose `stopReason` becomes the idle state.
* `cancel()` sends `session/cancel`, marks the current work's unfinished tool
  calls cancelled (those reported since the prompt was sent, or since v2
  agent-started work went busy; not an earlier turn's), answers every pending
  permission request `cancelled`, and leaves the turn running until the agent
  reports its end (late updates are still applied). When that cancelled work
  ends, whatever of it is still unfinished is marked cancelled too.
* The agent's requests: `session/request_permission` goes through the
  `PermissionPrompter` port (a `$/cancel_request` or a cancelled turn answers
  `cancelled`; an option that was not offered is never sent), and v1
  `fs/read_text_file` / `fs/write_text_file` are served inside the session's roots
  when enabled (every write shown in the conversation: `file_writes`). So are the
  v1 `terminal/*` methods (`client.terminals`), one `ClientTerminals` per session,
  whose commands run in the connection's task group. Anything else gets
  `-32601`.
* A session's roots (where `fs/*` and terminals may reach) are what the user
  chose, never what the agent says: the client's `roots` (the project directory
  and the directories the user added), or for one session the `roots` its caller
  passes once the user agreed to them. The `cwd` a session is opened or resumed
  with is only told to the agent: a `session/list` entry can name `/`, and
  resuming it must not open `/` to the agent. A `cwd` inside the roots goes first
  among them (terminals start there); one outside them adds nothing. Only a
  client given no roots at all falls back to each session's `cwd` and
  additional directories (callers that choose the `cwd` themselves).
* A session the user leaves (`leave_session`: another session opened in its
  place, or its tab closed) is forgotten: its late updates are logged and
  dropped, never applied to a store nothing shows, and its pending permission
  requests are answered `cancelled`. Where the agent supports `session/close`
  (v2 baseline, v1 `sessionCapabilities.close`) it is closed too.
* Client-owned terminals are killed and reaped when their session is closed,
  deleted or left, by `aclose()`, and in any case when the connection closes.
"""

from __future__ import annotations

import functools
import logging
import os
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Final, Literal, TypeAlias

import anyio
from pydantic import ValidationError

from acp_tui.client import v1 as translate_v1
from acp_tui.client import v2 as translate_v2
from acp_tui.client._wire import json_list, log_defaulted
from acp_tui.client.connection import ClientFeatures, Connection
from acp_tui.client.errors import UnsupportedOperation
from acp_tui.client.file_writes import FileWrites
from acp_tui.client.fs import FileSystemAccess
from acp_tui.client.message_origins import MessageOrigins
from acp_tui.client.ports import PermissionChoice, PermissionPrompter, PermissionRequest
from acp_tui.client.terminals import ClientTerminals
from acp_tui.config import McpServerSettings
from acp_tui.protocol.dispatcher import Diagnostic, RequestContext
from acp_tui.protocol.jsonrpc import (
    INTERNAL_ERROR,
    INVALID_PARAMS,
    METHOD_NOT_FOUND,
    RpcError,
)
from acp_tui.protocol.schema import v1, v2
from acp_tui.protocol.schema._base import to_wire
from acp_tui.protocol.transport import ConnectionClosed
from acp_tui.store import ops
from acp_tui.store.changes import Change
from acp_tui.store.store import SessionStore
from acp_tui.store.values import JSONObject

__all__ = [
    "AcpClient",
    "SessionFeatures",
    "SessionOpening",
    "SessionSummary",
    "StoreFactory",
    "UnsupportedOperation",
    "plain_store",
]

log = logging.getLogger(__name__)

MAX_EARLY_UPDATES: Final = 10_000
"""Updates held for a session id whose `session/new` response is still pending."""

TERMINAL_METHODS: Final = frozenset(
    {
        "terminal/create",
        "terminal/output",
        "terminal/wait_for_exit",
        "terminal/kill",
        "terminal/release",
    }
)
"""The v1 client-owned terminal methods (served when `features.terminal` is on)."""


@dataclass(frozen=True, slots=True)
class SessionSummary:
    """One entry of `session/list`, in wire form (`raw`) plus the common fields."""

    session_id: str
    cwd: str
    title: str | None
    updated_at: str | None
    raw: JSONObject


@dataclass(frozen=True, slots=True)
class SessionOpening:
    """What a store factory is told about the session it makes a store for."""

    session_id: str
    cwd: Path
    how: Literal["new", "load", "resume"]
    """`new` (`session/new`), `load` (reattached with the history replayed: v1
    `session/load`, v2 `session/resume` with `replayFrom`), `resume` (reattached
    without a replay)."""
    protocol_version: int
    agent_name: str | None = None
    """The name the agent reported in `initialize` (None: it gave none)."""


StoreFactory: TypeAlias = Callable[[SessionOpening], SessionStore]
"""Makes the store of a session the client opens (say, one that saves its ops)."""


def plain_store(opening: SessionOpening) -> SessionStore:
    """The default store factory: a plain in-memory `SessionStore`."""
    return SessionStore(opening.session_id, cwd=str(opening.cwd))


@dataclass(frozen=True, slots=True)
class SessionFeatures:
    """Which session methods the agent offers (from its negotiated capabilities)."""

    list: bool = False
    """`session/list`."""
    replay: bool = False
    """Reattach with the history replayed (v2 `session/resume`, v1 `session/load`)."""
    resume: bool = False
    """Reattach without a replay (v2 `session/resume`, v1 `session/resume`)."""
    delete: bool = False
    """`session/delete`."""
    additional_directories: bool = False
    """`additionalDirectories` on session setup (v1 and v2 capability markers)."""
    close: bool = False
    """`session/close` (v2: part of the session baseline; v1: its marker)."""


@dataclass(slots=True)
class _Turn:
    """The bookkeeping of one prompt turn."""

    done: anyio.Event = field(default_factory=anyio.Event)
    busy_seen: bool = False
    stop_reason: str | None = None


@dataclass(slots=True)
class _Session:
    store: SessionStore
    cwd: Path
    roots: FileSystemAccess
    v1: translate_v1.V1Translator | None
    origins: MessageOrigins
    """Marks the user messages the agent wrote itself (not the user's)."""
    writes: FileWrites
    """Serves v1 `fs/write_text_file` and shows every write."""
    terminals: ClientTerminals | None = None
    """v1 client-owned terminals, when served."""
    turn: _Turn | None = None
    cancelled: anyio.Event = field(default_factory=anyio.Event)
    """Set by `cancel()`. A permission request watches the event current when it
    arrives, so every request pending at the cancel, and any the agent sends
    before the cancelled work ends, is answered `cancelled`. Replaced by a fresh
    event once that work has ended (`work_ended`)."""
    work_tool_calls: dict[str, None] = field(default_factory=dict)
    """The tool calls reported during the current work, in order: since the
    prompt was sent, or since v2 agent-started work went busy. What a cancel
    marks cancelled (checklist 4.12.2: the current work's, not an earlier
    turn's)."""
    busy: bool = False
    """v2: the last state seen was busy (for agent-started work, which begins
    with no prompt)."""
    unsubscribe: Callable[[], None] | None = None
    """Stops the client following the store's changes (`AcpClient._forget`)."""

    def start_work(self) -> None:
        """New work begins: the tool calls reported before are not part of it."""
        self.work_tool_calls.clear()

    def unfinished_work_tool_calls(self) -> list[ops.Op]:
        """`cancelled` for each of the current work's unfinished tool calls."""
        marks: list[ops.Op] = []
        for tool_call_id in self.work_tool_calls:
            tool_call = self.store.tool_call(tool_call_id)
            if tool_call is not None and not tool_call.is_final:
                marks.append(ops.PatchToolCall(tool_call_id, status="cancelled"))
        return marks

    def work_ended(self) -> None:
        """The current work is over.

        If it was cancelled, what it left unfinished never will be: marked
        cancelled (late updates were applied until now), and later permission
        requests are asked again.
        """
        if self.cancelled.is_set():
            marks = self.unfinished_work_tool_calls()
            if marks:
                self.store.apply_many(marks)
            self.cancelled = anyio.Event()
        self.work_tool_calls.clear()


class AcpClient:
    """ACP sessions over one connection.

    Create it first, pass its `handle_request` / `handle_notification` to
    `connection.connect()`, then `attach()` the connection.

    Args:
        prompter: Answers the agent's permission requests.
        features: Which client methods are served (v1 `fs` and `terminal`).
        mcp_servers: MCP servers to pass on new and resumed sessions.
        on_diagnostic: Told about malformed updates (also logged).
        store_factory: Makes each session's store (default: `plain_store`).
        roots: The directories the user lets the agent's `fs/*` and terminal
            requests reach, absolute, the project directory first. Every session
            is confined to them, whatever `cwd` it is opened or resumed with.
            Empty: each session's own `cwd` and additional directories.
    """

    def __init__(
        self,
        *,
        prompter: PermissionPrompter,
        features: ClientFeatures | None = None,
        mcp_servers: Mapping[str, McpServerSettings] | None = None,
        on_diagnostic: Callable[[Diagnostic], None] | None = None,
        store_factory: StoreFactory = plain_store,
        roots: Sequence[Path] = (),
    ) -> None:
        for root in roots:
            if not root.is_absolute():
                raise ValueError(f"roots must be absolute: {root}")
        self.prompter = prompter
        self.roots: tuple[Path, ...] = tuple(roots)
        """What sessions may reach unless their caller names other roots."""
        self.features = features or ClientFeatures()
        self.mcp_servers = dict(mcp_servers or {})
        self.on_diagnostic = on_diagnostic
        self._connection: Connection | None = None
        self._sessions: dict[str, _Session] = {}
        self._early: dict[str, list[Any]] = {}
        self._pending_new = 0
        self._store_factory = store_factory

    # ---------------------------------------------------------------- wiring

    def attach(self, connection: Connection) -> None:
        """Use this negotiated connection."""
        self._connection = connection

    @property
    def connection(self) -> Connection:
        """The attached connection."""
        if self._connection is None:
            raise RuntimeError("AcpClient.attach() was not called")
        return self._connection

    @property
    def version(self) -> int:
        """The negotiated protocol version."""
        return self.connection.protocol_version

    @property
    def agent_name(self) -> str | None:
        """The name the agent reported in `initialize` (None: it gave none)."""
        result = self.connection.initialize_result
        if isinstance(result, v2.InitializeResponse):
            info: v1.Implementation | v2.Implementation | None = result.info
        else:
            info = result.agent_info
        return None if info is None else info.name

    def store(self, session_id: str) -> SessionStore:
        """The store of a session this client opened."""
        return self._sessions[session_id].store

    def session_features(self) -> SessionFeatures:
        """The session methods the agent advertised."""
        if self.version == 1:
            caps = self._v1_caps()
            sessions = caps.session_capabilities
            return SessionFeatures(
                list=sessions.list is not None,
                replay=caps.load_session,
                resume=sessions.resume is not None,
                delete=sessions.delete is not None,
                additional_directories=sessions.additional_directories is not None,
                close=sessions.close is not None,
            )
        v2_caps = self._v2_session_caps()
        if v2_caps is None:
            return SessionFeatures()
        return SessionFeatures(
            list=True,
            replay=True,
            resume=True,
            delete=v2_caps.delete is not None,
            additional_directories=v2_caps.additional_directories is not None,
            close=True,
        )

    async def _call(self, method: str, params: Any) -> Any:
        return await self.connection.dispatcher.request(method, params)

    # ------------------------------------------------------------ capabilities

    def _v1_caps(self) -> v1.AgentCapabilities:
        result = self.connection.initialize_result
        assert isinstance(result, v1.InitializeResponse)
        return result.agent_capabilities

    def _v2_session_caps(self) -> v2.SessionCapabilities | None:
        result = self.connection.initialize_result
        assert isinstance(result, v2.InitializeResponse)
        return result.capabilities.session

    def _mcp_entries(self) -> list[JSONObject]:
        """Configured MCP servers in the wire shape, for transports the agent has."""
        entries: list[JSONObject] = []
        for name, server in self.mcp_servers.items():
            if self.version == 1:
                caps = self._v1_caps().mcp_capabilities
                if server.type == "http" and not (caps and caps.http):
                    continue
                if server.type == "sse" and not (caps and caps.sse):
                    continue
                entries.append(_mcp_entry(name, server, 1))
            else:
                session = self._v2_session_caps()
                mcp = session.mcp if session is not None else None
                if server.type == "sse":
                    continue  # not in v2
                if server.type == "stdio" and not (mcp and mcp.stdio is not None):
                    continue
                if server.type == "http" and not (mcp and mcp.http is not None):
                    continue
                entries.append(_mcp_entry(name, server, 2))
        return entries

    def _additional_directories(self, directories: Sequence[Path]) -> list[str]:
        if not directories:
            return []
        if self.version == 1:
            caps = self._v1_caps().session_capabilities
            supported = caps is not None and caps.additional_directories is not None
        else:
            session = self._v2_session_caps()
            supported = (
                session is not None and session.additional_directories is not None
            )
        if not supported:
            raise UnsupportedOperation(
                "the agent does not support additional directories"
            )
        return [str(d) for d in directories]

    # ---------------------------------------------------------------- sessions

    async def _roots(
        self, cwd: Path, extra: Sequence[Path], roots: Sequence[Path] | None
    ) -> FileSystemAccess:
        """A session's roots (see the module docstring); resolves in a thread."""
        chosen = list(roots if roots is not None else self.roots or (cwd, *extra))
        if not chosen:
            raise ValueError("a session needs at least one root")
        inside = cwd.is_absolute() and cwd != chosen[0]
        if inside and await anyio.to_thread.run_sync(_inside, cwd, chosen):
            chosen.insert(0, cwd)  # allowed anyway: where terminals start
        return FileSystemAccess(chosen[0], chosen[1:])

    def _open(
        self,
        session_id: str,
        cwd: Path,
        roots: FileSystemAccess,
        how: Literal["new", "load", "resume"] = "new",
    ) -> _Session:
        opening = SessionOpening(session_id, cwd, how, self.version, self.agent_name)
        store = self._store_factory(opening)
        translator = translate_v1.V1Translator(store) if self.version == 1 else None
        origins = MessageOrigins(store, reattaching=how != "new")
        writes = FileWrites(store, roots, cwd)
        session = _Session(store, cwd, roots, translator, origins, writes)
        tasks = self.connection.tasks
        if self.version == 1 and self.features.terminal and tasks is not None:
            session.terminals = ClientTerminals(store, roots, tasks)
        replaced = self._sessions.get(session_id)
        if replaced is not None:  # reopened under the same id: the old store is done
            if replaced.unsubscribe is not None:
                replaced.unsubscribe()
            replaced.cancelled.set()  # its pending permission requests: cancelled
        self._sessions[session_id] = session
        session.unsubscribe = store.subscribe(
            functools.partial(self._on_changes, session)
        )
        for params in self._early.pop(session_id, []):
            self._apply_update(session, params)
        return session

    async def new_session(
        self,
        cwd: Path,
        additional_directories: Sequence[Path] = (),
        *,
        roots: Sequence[Path] | None = None,
    ) -> SessionStore:
        """`session/new` in `cwd` (absolute); returns the new session's store.

        `roots`, when given, replace the client's roots for this session (the
        user agreed to them).
        """
        params: dict[str, Any] = {"cwd": str(cwd), "mcpServers": self._mcp_entries()}
        extra = self._additional_directories(additional_directories)
        if extra:
            params["additionalDirectories"] = extra
        access = await self._roots(cwd, additional_directories, roots)
        self._pending_new += 1
        try:
            raw = await self._call("session/new", params)
            session: _Session
            if self.version == 1:
                result1 = v1.NewSessionResponse.model_validate(raw)
                session = self._open(result1.session_id, cwd, access)
                assert session.v1 is not None
                session.v1.modes = result1.modes
                options = session.v1.config_options(
                    json_list(result1.config_options or [])
                )
                commands: list[JSONObject] = []
            else:
                result2 = v2.NewSessionResponse.model_validate(raw)
                session = self._open(result2.session_id, cwd, access)
                options = json_list(result2.config_options)
                commands = json_list(result2.available_commands)
        finally:
            self._pending_new -= 1
            if not self._pending_new:  # another session/new may still claim some
                self._early.clear()
        _set_lists(session.store, options, commands)
        return session.store

    async def list_sessions(self, cwd: Path | None = None) -> list[SessionSummary]:
        """`session/list`, following `nextCursor` to the end (cursors stay opaque)."""
        if self.version == 1:
            caps = self._v1_caps().session_capabilities
            if caps is None or caps.list is None:
                raise UnsupportedOperation("the agent does not list sessions")
        elif self._v2_session_caps() is None:
            raise UnsupportedOperation("the agent does not support sessions")
        summaries: list[SessionSummary] = []
        cursor: str | None = None
        seen: set[str] = set()
        while True:
            params: dict[str, Any] = {}
            if cwd is not None:
                params["cwd"] = str(cwd)
            if cursor is not None:
                params["cursor"] = cursor
            raw = await self._call("session/list", params)
            model = (
                v1.ListSessionsResponse
                if self.version == 1
                else v2.ListSessionsResponse
            )
            page = model.model_validate(raw)
            for info in page.sessions:
                summaries.append(
                    SessionSummary(
                        info.session_id,
                        info.cwd,
                        info.title,
                        info.updated_at,
                        to_wire(info),
                    )
                )
            cursor = page.next_cursor
            if cursor is None or cursor in seen:  # a repeated cursor would loop forever
                return summaries
            seen.add(cursor)

    async def resume_session(
        self,
        session_id: str,
        cwd: Path,
        *,
        replay: bool,
        additional_directories: Sequence[Path] = (),
        roots: Sequence[Path] | None = None,
    ) -> SessionStore:
        """Reattach to a session; with `replay`, its history is replayed first.

        v2: `session/resume` with `replayFrom: {"type": "start"}` (or none). v1:
        `session/load` (replays; needs `loadSession`) or `session/resume` (no
        replay; needs `sessionCapabilities.resume`). `cwd` is told to the agent
        (ACP wants the session's own); the session reaches only the client's
        roots, or `roots` when the caller gives them (the user agreed to them).
        """
        extra = self._additional_directories(additional_directories)
        method = "session/resume"
        if self.version == 1:
            caps = self._v1_caps()
            if replay:
                if not caps.load_session:
                    raise UnsupportedOperation("the agent cannot load sessions")
                method = "session/load"
            elif caps.session_capabilities.resume is None:
                raise UnsupportedOperation("the agent cannot resume sessions")
        params: dict[str, Any] = {
            "sessionId": session_id,
            "cwd": str(cwd),
            "mcpServers": self._mcp_entries(),
        }
        if extra:
            params["additionalDirectories"] = extra
        if self.version == 2 and replay:
            params["replayFrom"] = {"type": "start"}
        access = await self._roots(cwd, additional_directories, roots)
        # Open first: replayed updates arrive before the response.
        how: Literal["load", "resume"] = "load" if replay else "resume"
        session = self._open(session_id, cwd, access, how)
        # The response is the agent's latest state: the lists it carries replace
        # what the replay reported (a list it omits leaves the replayed one).
        options: list[JSONObject] | None = None
        commands: list[JSONObject] | None = None
        try:
            raw = await self._call(method, params)
            if self.version == 1:
                model = v1.LoadSessionResponse if replay else v1.ResumeSessionResponse
                result1 = model.model_validate(raw)
                assert session.v1 is not None
                session.v1.modes = result1.modes
                # The modes come with the response, after the replay: options
                # the replay stored stay (unless the response lists its own),
                # and get the mode option the replay could not synthesise yet.
                if result1.config_options is not None:
                    options = session.v1.config_options(
                        json_list(result1.config_options)
                    )
                elif result1.modes is not None:
                    replayed = [dict(o) for o in session.store.config_options]
                    options = session.v1.config_options(replayed)
            else:
                result2 = v2.ResumeSessionResponse.model_validate(raw or {})
                if _carries_list(raw, "configOptions"):
                    options = json_list(result2.config_options)
                if _carries_list(raw, "availableCommands"):
                    commands = json_list(result2.available_commands)
        except BaseException:
            if self._sessions.get(session_id) is session:
                del self._sessions[session_id]  # not resumed: no half-open session
            raise
        session.origins.reattached()  # later user messages are not history
        if session.v1 is not None:
            session.v1.end_message()  # the replay's last message is over
        if options is not None:
            session.store.apply(ops.SetConfigOptions(options))
        if commands is not None:
            session.store.apply(ops.SetAvailableCommands(commands))
        return session.store

    async def close_session(self, session_id: str) -> None:
        """`session/close` (cancels the session's work, like `session/cancel`).

        The session is forgotten first (its updates are no longer applied, its
        pending permission requests are answered `cancelled`), even if the agent
        then refuses to close it.
        """
        if not self.session_features().close:
            raise UnsupportedOperation("the agent cannot close sessions")
        await self._forget(session_id)
        await self._call("session/close", {"sessionId": session_id})

    async def leave_session(self, store: SessionStore) -> bool:
        """The user left this session: stop following it, and close it if we can.

        Its updates are no longer applied (an update for it is then one for an
        unknown session: logged and dropped), its pending permission requests
        are answered `cancelled`, its client-owned terminals are killed, and,
        where the agent supports `session/close`, the agent is told to close it.
        A session reopened since under the same id (a newer store) is left alone.

        Returns:
            True if `session/close` was sent and answered.

        Raises:
            RpcError: The agent refused to close it (it is forgotten anyway).
        """
        session = self._sessions.get(store.session_id)
        if session is None or session.store is not store:
            return False
        if not self.session_features().close:
            await self._forget(store.session_id)
            return False
        await self.close_session(store.session_id)
        return True

    async def delete_session(self, session_id: str) -> None:
        """`session/delete` (needs the agent's `delete` capability)."""
        if self.version == 1:
            caps = self._v1_caps().session_capabilities
            supported = caps is not None and caps.delete is not None
        else:
            session = self._v2_session_caps()
            supported = session is not None and session.delete is not None
        if not supported:
            raise UnsupportedOperation("the agent cannot delete sessions")
        await self._call("session/delete", {"sessionId": session_id})
        await self._forget(session_id)

    async def _forget(self, session_id: str) -> None:
        """Drop an open session (closed, deleted or left by the user).

        Its updates are no longer applied, its pending permission requests are
        answered `cancelled`, a v2 turn waiting for its end ends `cancelled` (its
        work is over), and its client-owned terminals are killed and reaped.
        """
        session = self._sessions.pop(session_id, None)
        if session is None:
            return
        if session.unsubscribe is not None:
            session.unsubscribe()
        session.cancelled.set()
        turn = session.turn
        if turn is not None and self.version == 2:
            turn.stop_reason = "cancelled"
            turn.done.set()
        if session.terminals is not None:
            await session.terminals.aclose()

    async def aclose(self) -> None:
        """Kill and reap the client-owned terminals of every session (bounded).

        Sessions stay open. The connection does the same when it closes, so this is
        for a client that ends before its connection.
        """
        for session in list(self._sessions.values()):
            if session.terminals is not None:
                await session.terminals.aclose()

    # ------------------------------------------------------------------ turns

    async def prompt(self, session_id: str, blocks: Sequence[JSONObject]) -> str | None:
        """Send a prompt and wait for the turn to end; returns the stop reason.

        Raises:
            RpcError: The agent rejected the prompt (v1: the turn failed).
        """
        session = self._sessions[session_id]
        turn = _Turn()
        session.turn = turn
        # The work before this prompt is over for this turn (a cancelled one's
        # leftovers are marked). The cancelled event is replaced only then, not
        # unconditionally: a request still pending from before this prompt must
        # be answered too if this turn is cancelled.
        session.work_ended()
        session.start_work()
        params = {"sessionId": session_id, "prompt": list(blocks)}
        store = session.store
        if self.version == 1:
            translator = session.v1
            assert translator is not None
            translator.end_message()
            message_id = translator.new_message_id("user")
            store.apply(ops.UpsertMessage(message_id, "user", content=list(blocks)))
            translator.end_message()
            store.apply(ops.SetState("running"))
            try:
                raw = await self._call("session/prompt", params)
            except BaseException:
                store.apply(ops.SetState("idle"))
                raise
            finally:
                translator.end_message()
                session.work_ended()  # v1: the response ends the turn
            response = v1.PromptResponse.model_validate(raw)
            store.apply(ops.SetState("idle", response.stop_reason, raw=raw))
            return response.stop_reason
        session.origins.prompt_sent(blocks)
        try:
            # `{}` or `{messageId}`: accepted; the id names its acknowledgment.
            raw = await self._call("session/prompt", params)
            named = raw.get("messageId") if isinstance(raw, dict) else None
            store.apply_many(
                session.origins.prompt_accepted(
                    named if isinstance(named, str) else None
                )
            )
            await self._until_turn_ends(turn)
        finally:
            store.apply_many(session.origins.turn_ended())
        return turn.stop_reason

    async def _until_turn_ends(self, turn: _Turn) -> None:
        """Wait for the idle that ends a v2 turn, or fail if the connection ends."""
        dispatcher = self.connection.dispatcher
        closed: list[str] = []
        async with anyio.create_task_group() as group:

            async def ended() -> None:
                await turn.done.wait()
                group.cancel_scope.cancel()

            async def connection_lost() -> None:
                closed.append(await dispatcher.wait_closed())
                group.cancel_scope.cancel()

            group.start_soon(ended)
            group.start_soon(connection_lost)
        if not turn.done.is_set():
            raise ConnectionClosed(closed[0] if closed else "the connection ended")

    async def cancel(self, session_id: str) -> None:
        """Cancel the session's current work (the turn ends when the agent says)."""
        session = self._sessions[session_id]
        await self.connection.dispatcher.notify(
            "session/cancel", {"sessionId": session_id}
        )
        session.cancelled.set()
        marks = session.unfinished_work_tool_calls()
        if marks:
            session.store.apply_many(marks)

    async def set_config_option(
        self, session_id: str, config_id: str, value: Any
    ) -> None:
        """`session/set_config_option`; the returned list replaces the stored one.

        In v1, the mode option synthesised from `modes` is set with
        `session/set_mode` instead (the agent knows no such config option).
        """
        session = self._sessions[session_id]
        translator = session.v1
        if (
            translator is not None
            and translator.mode_synthesised
            and config_id == translate_v1.MODE_OPTION_ID
        ):
            await self.set_mode(session_id, str(value))
            update = v1.CurrentModeUpdate(current_mode_id=str(value))
            session.store.apply_many(translator.translate_update(update))
            return
        params: dict[str, Any] = {"sessionId": session_id, "configId": config_id}
        if isinstance(value, bool):
            params["type"] = "boolean"
        elif self.version == 2:
            params["type"] = "id"
        params["value"] = value
        raw = await self._call("session/set_config_option", params)
        model = (
            v1.SetSessionConfigOptionResponse
            if self.version == 1
            else v2.SetSessionConfigOptionResponse
        )
        result = model.model_validate(raw)
        options = json_list(result.config_options)
        if translator is not None:
            options = translator.config_options(options)
        session.store.apply(ops.SetConfigOptions(options))

    async def set_mode(self, session_id: str, mode_id: str) -> None:
        """v1 `session/set_mode`."""
        if self.version != 1:
            raise UnsupportedOperation("modes are config options in ACP v2")
        await self._call(
            "session/set_mode", {"sessionId": session_id, "modeId": mode_id}
        )

    def _require_v2_auth(self) -> None:
        # v2: no (or empty) authMethods means auth/login and auth/logout MUST NOT
        # be called.
        if not self.connection.initialize_result.auth_methods:
            raise UnsupportedOperation("the agent offers no authentication methods")

    async def authenticate(self, method_id: str) -> None:
        """v2 `auth/login {methodId}`; v1 `authenticate {methodId}`.

        A v2 `terminal` method is not logged in this way: the client runs the
        agent's command in a terminal instead (not done by this layer).
        """
        if self.version == 1:
            await self._call("authenticate", {"methodId": method_id})
            return
        self._require_v2_auth()
        await self._call("auth/login", {"methodId": method_id})

    def can_logout(self) -> bool:
        """Whether the agent may be sent a logout.

        v2: it lists authentication methods; v1: `agentCapabilities.auth.logout`.
        """
        if self.version == 1:
            auth = self._v1_caps().auth
            return auth is not None and auth.logout is not None
        return bool(self.connection.initialize_result.auth_methods)

    async def logout(self) -> None:
        """v2 `auth/logout`; v1 `logout` (needs `agentCapabilities.auth.logout`).

        Afterwards any session request may fail with `auth_required` (checklist
        4.3.3): the caller offers the login then.
        """
        if not self.can_logout():
            raise UnsupportedOperation("the agent does not support logout")
        await self._call("logout" if self.version == 1 else "auth/logout", {})

    # ------------------------------------------------------- turn bookkeeping

    def _on_changes(self, session: _Session, changes: Sequence[Change]) -> None:
        state_changed = False
        for change in changes:
            if change.kind == "tool_call" and change.id is not None:
                session.work_tool_calls[change.id] = None
            elif change.kind == "state":
                state_changed = True
        if self.version == 1 or not state_changed:
            return
        state = session.store.state
        turn = session.turn
        if state.is_busy:
            if turn is not None:
                turn.busy_seen = True
            elif not session.busy:
                session.start_work()  # the agent starts work of its own
            session.busy = True
            return
        session.busy = False
        if turn is not None:
            if state.stop_reason is None and not turn.busy_seen:
                return  # an idle from before this turn's work started
            turn.stop_reason = state.stop_reason
            turn.done.set()
            session.turn = None
        session.work_ended()

    # ------------------------------------------------------------- inbound

    async def handle_notification(self, method: str, params: Any) -> None:
        """Serve the agent's notifications (`session/update`; others ignored)."""
        if method != "session/update":
            log.debug("ignoring notification %s", method)
            return
        session_id = params.get("sessionId") if isinstance(params, dict) else None
        session = (
            self._sessions.get(session_id) if isinstance(session_id, str) else None
        )
        if session is None:
            if isinstance(session_id, str) and self._pending_new:
                early = self._early.setdefault(session_id, [])
                if len(early) < MAX_EARLY_UPDATES:
                    early.append(params)
                return
            log.info("update for unknown session %r ignored", session_id)
            return
        self._apply_update(session, params)

    def _apply_update(self, session: _Session, params: Any) -> None:
        try:
            if session.v1 is not None:
                notification1 = v1.SessionNotification.model_validate(params)
                operations = session.v1.translate_update(notification1.update)
            else:
                notification2 = v2.UpdateSessionNotification.model_validate(params)
                operations = translate_v2.translate_update(notification2.update)
        except ValidationError as error:
            self._malformed(params, error)
            return
        session.store.apply_many(session.writes.guard(session.origins.mark(operations)))

    def _report(self, message: str) -> None:
        if self.on_diagnostic is not None:
            self.on_diagnostic(Diagnostic("handler_error", message))

    def _malformed(self, params: Any, error: ValidationError) -> None:
        update = params.get("update") if isinstance(params, dict) else None
        kind = update.get("sessionUpdate") if isinstance(update, dict) else None
        first = error.errors(include_url=False)[0]
        where = ".".join(str(part) for part in first["loc"])
        message = (
            f"ignored a malformed {kind or 'session'} update ({where}: {first['msg']})"
        )
        log.warning("%s", message)
        if self.on_diagnostic is not None:
            self.on_diagnostic(Diagnostic("notification_error", message))

    async def handle_request(
        self, method: str, params: Any, context: RequestContext
    ) -> Any:
        """Serve the agent's requests."""
        if method == "session/request_permission":
            return await self._permission(params, context)
        if self.version == 1 and method == "fs/read_text_file":
            if not self.features.read_text_file:
                raise RpcError(METHOD_NOT_FOUND, "Method not found", method)
            read = v1.ReadTextFileRequest.model_validate(params)
            log_defaulted(log, method, params, read)
            roots = self._session_for(read.session_id).roots
            content = await roots.read_text_file(read.path, read.line, read.limit)
            return {"content": content}
        if self.version == 1 and method == "fs/write_text_file":
            if not self.features.write_text_file:
                raise RpcError(METHOD_NOT_FOUND, "Method not found", method)
            write = v1.WriteTextFileRequest.model_validate(params)
            # Shown in the conversation: it names no tool call (`file_writes`).
            writes = self._session_for(write.session_id).writes
            await writes.write(
                write.path, write.content, allow_git=self.features.git_writes
            )
            return {}
        if self.version == 1 and method in TERMINAL_METHODS:
            if not self.features.terminal:
                raise RpcError(METHOD_NOT_FOUND, "Method not found", method)
            return await self._terminal_request(method, params)
        raise RpcError(METHOD_NOT_FOUND, "Method not found", method)

    async def _terminal_request(self, method: str, params: Any) -> JSONObject:
        """Serve one v1 `terminal/*` request.

        https://agentclientprotocol.com/protocol/terminals
        """
        if method == "terminal/create":
            create = v1.CreateTerminalRequest.model_validate(params)
            log_defaulted(log, method, params, create)
            terminals = self._terminals_for(create.session_id)
            terminal_id = await terminals.create(
                create.command,
                create.args,
                {variable.name: variable.value for variable in create.env},
                create.cwd,
                create.output_byte_limit,
            )
            return {"terminalId": terminal_id}
        if method == "terminal/output":
            output = v1.TerminalOutputRequest.model_validate(params)
            terminals = self._terminals_for(output.session_id)
            return terminals.output(output.terminal_id).to_json()
        if method == "terminal/wait_for_exit":
            wait = v1.WaitForTerminalExitRequest.model_validate(params)
            terminals = self._terminals_for(wait.session_id)
            status = await terminals.wait_for_exit(wait.terminal_id)
            return status.to_json()
        if method == "terminal/kill":
            kill = v1.KillTerminalRequest.model_validate(params)
            await self._terminals_for(kill.session_id).kill(kill.terminal_id)
            return {}
        release = v1.ReleaseTerminalRequest.model_validate(params)
        await self._terminals_for(release.session_id).release(release.terminal_id)
        return {}

    def _terminals_for(self, session_id: str) -> ClientTerminals:
        terminals = self._session_for(session_id).terminals
        if terminals is None:  # a connection without a task group to run them in
            raise RpcError(
                INTERNAL_ERROR, "Terminals are not available on this connection"
            )
        return terminals

    def _session_for(self, session_id: str) -> _Session:
        session = self._sessions.get(session_id)
        if session is None:
            raise RpcError(
                INVALID_PARAMS, "Invalid params", f"unknown session {session_id}"
            )
        return session

    async def _permission(self, params: Any, context: RequestContext) -> Any:
        # Applied synchronously, before the first await: the dispatcher guarantees
        # this runs before the next message is read, so the tool-call subject is
        # ordered with the updates around it.
        if self.version == 1:
            request1 = v1.RequestPermissionRequest.model_validate(params)
            session = self._session_for(request1.session_id)
            tool_patch = translate_v1.tool_call_patch(request1.tool_call)
            session.store.apply(tool_patch)
            tool_call = session.store.tool_call(request1.tool_call.tool_call_id)
            title = tool_call.title if tool_call is not None else None
            description = None
            subject: JSONObject | None = {
                "type": "tool_call",
                "toolCall": to_wire(request1.tool_call),
            }
            options: Sequence[v1.PermissionOption | v2.PermissionOption]
            options = request1.options
            tool_call_id: str | None = request1.tool_call.tool_call_id
            meta = request1.meta
        else:
            request2 = v2.RequestPermissionRequest.model_validate(params)
            session = self._session_for(request2.session_id)
            title, description = request2.title, request2.description
            subject = (
                to_wire(request2.subject) if request2.subject is not None else None
            )
            tool_call_id = None
            if isinstance(request2.subject, v2.ToolCallPermissionSubject):
                session.store.apply(
                    translate_v2.tool_call_patch(request2.subject.tool_call)
                )
                tool_call_id = request2.subject.tool_call.tool_call_id
            elif isinstance(request2.subject, v2.CommandPermissionSubject):
                tool_call_id = request2.subject.tool_call_id
            options = request2.options
            meta = request2.meta
        permission_id = str(context.id)
        choices = tuple(PermissionChoice(o.option_id, o.name, o.kind) for o in options)
        session.store.apply(
            ops.AddPermission(
                permission_id,
                title,
                description,
                subject,
                [to_wire(o) for o in options],
                tool_call_id,
                meta,
            )
        )
        context.handles_cancellation = True
        request = PermissionRequest(
            session.store.session_id,
            permission_id,
            title,
            description,
            subject,
            choices,
            tool_call_id,
        )
        chosen = await self._ask(request, context, session.cancelled)
        offered = {choice.option_id for choice in choices}
        outcome: JSONObject
        if chosen is not None and chosen in offered:
            outcome = {"outcome": "selected", "optionId": chosen}
        else:  # dismissed, withdrawn, cancelled, or not an offered option
            outcome = {"outcome": "cancelled"}
        session.store.apply(ops.ResolvePermission(permission_id, outcome))
        return {"outcome": outcome}

    async def _ask(
        self,
        request: PermissionRequest,
        context: RequestContext,
        cancelled: anyio.Event,
    ) -> str | None:
        """The prompter's answer, or None if the request is withdrawn or cancelled."""
        answer: list[str | None] = [None]
        async with anyio.create_task_group() as group:

            async def ask() -> None:
                try:
                    answer[0] = await self.prompter.ask(request)
                except Exception as error:  # a broken prompter must not approve
                    log.exception("the permission prompter failed")
                    self._report(f"could not ask for permission: {error!r}")
                group.cancel_scope.cancel()

            async def watch(event: anyio.Event) -> None:
                await event.wait()
                group.cancel_scope.cancel()

            group.start_soon(ask)
            group.start_soon(watch, context.cancel_requested)
            group.start_soon(watch, cancelled)
        return answer[0]


def _inside(path: Path, roots: Sequence[Path]) -> bool:
    """Whether `path` lies in one of `roots`, all resolved (symlinks followed)."""
    real = Path(os.path.realpath(path))
    return any(real.is_relative_to(os.path.realpath(root)) for root in roots)


def _set_lists(
    store: SessionStore,
    options: Sequence[JSONObject],
    commands: Sequence[JSONObject],
) -> None:
    """Store a setup response's lists, unless updates already reported them."""
    if options and not store.config_options:
        store.apply(ops.SetConfigOptions(options))
    if commands and not store.commands:
        store.apply(ops.SetAvailableCommands(commands))


def _carries_list(raw: Any, key: str) -> bool:
    """Whether a response object reports the list `key` (an array, maybe empty)."""
    return isinstance(raw, dict) and isinstance(raw.get(key), list)


def _mcp_entry(name: str, server: McpServerSettings, version: int) -> JSONObject:
    """A configured MCP server in the wire shape of `version`.

    The shapes match except that a v1 stdio server carries no `type` tag.
    """
    entry: dict[str, Any] = (
        {} if version == 1 and server.type == "stdio" else {"type": server.type}
    )
    entry["name"] = name
    if server.type == "stdio":
        entry["command"] = server.command
        entry["args"] = list(server.args)
        entry["env"] = [{"name": k, "value": v} for k, v in server.env.items()]
    else:
        entry["url"] = server.url
        entry["headers"] = [{"name": k, "value": v} for k, v in server.headers.items()]
    return entry
