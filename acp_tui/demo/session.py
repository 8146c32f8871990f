"""The version-neutral core: sessions, their turns, and the port to a connection.

`DemoAgent` owns the sessions of one process (opened with `new_session` or
`open`, persisted by `persist`), and runs prompt turns (`prompt`): each turn is a
`turn.Turn` running one scenario (`scenarios.run`). It never builds a wire message:
it talks to the connection through the `Port` protocol, which the two emitters
(`emit_v1.V1Emitter`, `emit_v2.V2Emitter`) implement.

Invariants:

* **One turn at a time per session.** A second prompt waits for the first to end
  (`session/cancel` cancels the running turn and the ones waiting).
* **Every turn ends** with a stop reason, also when cancelled (`cancelled`, after
  the turn's pending updates: unfinished tool calls marked cancelled, commands
  killed) and the session is saved. Only the connection ending (the server
  cancelling everything) ends a turn without a stop reason; it is saved anyway.
* **History is what was sent.** `Turn.emit` sends an event and appends it to the
  history under one shield, so the two never disagree, and a replay in a later
  process reproduces the live run.
* The session's `cwd` is reported, never written to: work happens in the
  session's scratch `workspace.Workspace` (which is the `cwd` itself only when
  that lies among the demo's own workspaces: see `Workspace.for_session`).
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Final, Literal, Protocol

import anyio

from acp_tui.demo import persist
from acp_tui.demo.config import Config
from acp_tui.demo.events import Event, JSONObject, event_from_json, event_to_json
from acp_tui.demo.pacing import Clock, Pace, timestamp
from acp_tui.demo.pty_runner import ExitStatus
from acp_tui.demo.workspace import Workspace

if TYPE_CHECKING:
    from acp_tui.demo.turn import Turn

__all__ = [
    "CLOSE_GRACE",
    "ClientCommand",
    "ClientRun",
    "DemoAgent",
    "DemoSession",
    "ElicitAsk",
    "OptionKind",
    "PermissionAsk",
    "Port",
    "SessionNotFound",
    "SessionSummary",
]

log = logging.getLogger(__name__)

CLOSE_GRACE: Final = 5.0
"""Seconds `close`/`delete` wait for a cancelled turn to wind down."""

OptionKind = Literal["allow_once", "allow_always", "reject_once"]


class SessionNotFound(LookupError):
    """No session with this id (in memory or on disk)."""


@dataclass(frozen=True, slots=True)
class PermissionAsk:
    """A permission request, version-neutral.

    The subject is the tool call `tool_call_id` (whose current fields are
    `tool_call`) or, when `command` is set, that command run in `cwd` (v2 sends a
    `command` subject; v1, which has none, sends the tool call).
    """

    title: str
    description: str
    tool_call_id: str
    tool_call: JSONObject
    command: str | None = None
    cwd: str | None = None
    terminal_id: str | None = None


@dataclass(frozen=True, slots=True)
class ElicitAsk:
    """An elicitation, version-neutral: a form (`schema`) or a URL to open.

    `url_id` is the URL elicitation's `elicitationId` (what
    `elicitation/complete` names); `tool_call_id` the tool call it belongs to.
    """

    message: str
    mode: Literal["form", "url"]
    schema: JSONObject | None = None
    url: str | None = None
    url_id: str | None = None
    tool_call_id: str | None = None


@dataclass(frozen=True, slots=True)
class ClientCommand:
    """A command for a client terminal (v1 `terminal/create`).

    Which session's, the demo's id for its terminal, the command line and its
    directory.
    """

    session_id: str
    terminal_id: str
    argv: Sequence[str]
    cwd: Path


@dataclass(slots=True)
class ClientRun:
    """A command the v1 client runs for us (`terminal/create`)."""

    on_created: Callable[[], Awaitable[None]]
    """Called once the client has created the terminal (before it exits)."""
    status: ExitStatus | None = None
    output: bytes | None = None
    stop: anyio.Event = field(default_factory=anyio.Event)
    """Set when the turn is cancelled: the command must be killed."""


class Port(Protocol):
    """What the core needs from the connection; one emitter per protocol version."""

    version: int
    """The negotiated ACP version."""
    client_terminal: bool
    """Whether commands run in the client's terminals (v1 `terminal: true`)."""
    elicitation_modes: frozenset[str]
    """The elicitation modes the client advertised (`form`, `url`)."""
    reports: frozenset[str]
    """The reports the client takes: `notices`, `compaction` (`events.Report`)."""
    subagents: bool
    """Whether the client takes subagents as child sessions (v1: declared)."""

    async def send(self, session_id: str, event: Event) -> None:
        """Send a neutral event as this version's wire messages (maybe none)."""
        ...

    async def state(
        self,
        session_id: str,
        state: str,
        stop_reason: str | None = None,
        *,
        usage: JSONObject | None = None,
    ) -> None:
        """Report the foreground state (v2 `state_update`; v1 has none).

        `usage`: the end-turn usage an idle state carries (unstable draft).
        """
        ...

    async def config_changed(self, session: DemoSession, *, mode_changed: bool) -> None:
        """Tell the client the agent changed the options itself."""
        ...

    async def ask_permission(self, session_id: str, ask: PermissionAsk) -> str | None:
        """Ask; returns the chosen option's kind, or None (cancelled or unknown)."""
        ...

    async def elicit(
        self, session_id: str, ask: ElicitAsk
    ) -> tuple[str, dict[str, Any] | None]:
        """Ask; the action and, if accepted, the content.

        `cancel` if the client gave no valid answer.
        """
        ...

    async def elicitation_complete(self, url_id: str) -> None:
        """Tell the client a URL elicitation's interaction finished."""
        ...

    async def extension(self, method: str, params: JSONObject) -> None:
        """Send a `_`-prefixed extension notification."""
        ...

    async def send_raw(self, session_id: str, update: JSONObject) -> None:
        """Send a `session/update` as given."""
        ...

    def connection_lost(self) -> None:
        """The client went away: send nothing more, stop waiting on the client."""
        ...

    async def run_on_client(self, command: ClientCommand, run: ClientRun) -> None:
        """v1: run a command in a client terminal; fills `run` (also on cancel)."""
        ...


@dataclass(slots=True)
class DemoSession:
    """One session: its settings, its history and its scratch workspace."""

    session_id: str
    cwd: str
    workspace: Workspace
    config: Config = field(default_factory=Config)
    title: str | None = None
    updated_at: str | None = None
    history: list[Event] = field(default_factory=list)
    counters: dict[str, int] = field(default_factory=dict)
    allow_always: set[str] = field(default_factory=set)
    """Permission keys (`edit`, `execute`) the user chose "Always allow" for."""
    mode_switched: bool = False
    """Whether the agent has already switched itself out of plan mode."""
    turns: list[Turn] = field(default_factory=list)
    """Turns running or waiting (`turn.Turn`), oldest first."""
    lock: anyio.Lock = field(default_factory=anyio.Lock)
    turn_tokens: JSONObject | None = None
    """The current turn's end-turn usage in wire form (`totalTokens`, ...), if
    its scenario reports one (`/usage`): sent when the turn ends. Not saved."""

    def next_id(self, prefix: str) -> str:
        """A new id for a message, tool call, plan or terminal (`msg-7`)."""
        number = self.counters.get(prefix, 0) + 1
        self.counters[prefix] = number
        return f"{prefix}-{number}"

    def prompts(self) -> int:
        """How many prompts the session has had."""
        return self.counters.get("turn", 0)

    def to_record(self) -> dict[str, Any]:
        """The JSON document `persist` stores."""
        return {
            "version": 1,
            "sessionId": self.session_id,
            "cwd": self.cwd,
            "title": self.title,
            "updatedAt": self.updated_at,
            "config": self.config.to_json(),
            "counters": dict(self.counters),
            "allowAlways": sorted(self.allow_always),
            "modeSwitched": self.mode_switched,
            "history": [event_to_json(event) for event in self.history],
        }

    @classmethod
    def from_record(cls, record: dict[str, Any]) -> DemoSession:
        """Rebuild a session from its stored document.

        Raises:
            ValueError: The document is damaged.
        """
        session_id = str(record["sessionId"])
        counters = record.get("counters") or {}
        return cls(
            session_id=session_id,
            cwd=str(record.get("cwd") or "/"),
            workspace=Workspace.for_session(session_id, record.get("cwd")),
            config=Config.from_json(record.get("config")),
            title=record.get("title") if isinstance(record.get("title"), str) else None,
            updated_at=record.get("updatedAt")
            if isinstance(record.get("updatedAt"), str)
            else None,
            history=[event_from_json(item) for item in record.get("history") or []],
            counters={str(k): int(v) for k, v in dict(counters).items()},
            allow_always={str(k) for k in record.get("allowAlways") or []},
            mode_switched=bool(record.get("modeSwitched")),
        )

    def save(self) -> None:
        """Persist the session now."""
        persist.save(self.to_record())


def _has_messages(record: dict[str, Any]) -> bool:
    """Whether a stored session holds a message (its history has one)."""
    history = record.get("history")
    return isinstance(history, list) and any(
        isinstance(event, dict) and event.get("kind") in ("message", "message_chunk")
        for event in history
    )


@dataclass(frozen=True, slots=True)
class SessionSummary:
    """One `session/list` entry."""

    session_id: str
    cwd: str
    title: str | None
    updated_at: str | None


class DemoAgent:
    """The demo agent's sessions and turns, independent of the protocol version.

    Args:
        clock: Fills `updatedAt` (nothing else reads the time).
        pace: The streaming pace.
    """

    def __init__(self, *, clock: Clock, pace: Pace) -> None:
        self.clock = clock
        self.pace = pace
        self.sessions: dict[str, DemoSession] = {}

    # ------------------------------------------------------------ sessions

    def new_session(self, cwd: str) -> DemoSession:
        """Create, seed and save a new session."""
        session_id = persist.claim_id()
        session = DemoSession(session_id, cwd, Workspace.for_session(session_id, cwd))
        session.workspace.ensure()
        session.updated_at = timestamp(self.clock)
        session.save()
        self.sessions[session_id] = session
        return session

    def open(self, session_id: str, cwd: str | None = None) -> DemoSession:
        """A session by id, from memory or from disk.

        Raises:
            SessionNotFound: No such session.
        """
        session = self.sessions[session_id] = self.find(session_id)
        session.workspace.ensure()
        return session

    def find(self, session_id: str) -> DemoSession:
        """A session by id: the open one, else read from disk (not opened here).

        Raises:
            SessionNotFound: No such session (or its record is damaged).
        """
        session = self.sessions.get(session_id)
        if session is not None:
            return session
        record = persist.load(session_id)
        if record is None:
            raise SessionNotFound(session_id)
        try:
            return DemoSession.from_record(record)
        except (KeyError, TypeError, ValueError) as error:
            log.warning("session %s is damaged: %r", session_id, error)
            raise SessionNotFound(session_id) from None

    def get(self, session_id: str) -> DemoSession:
        """A session opened in this process.

        Raises:
            SessionNotFound: Not opened (with new, resume or load) here.
        """
        session = self.sessions.get(session_id)
        if session is None:
            raise SessionNotFound(session_id)
        return session

    def list_page(
        self,
        cwd: str | None,
        cursor: str | None,
        keep: Callable[[str], bool] | None = None,
    ) -> tuple[list[SessionSummary], str | None]:
        """One page of sessions, newest first, and the next page's cursor.

        A session without a message (opened, then left before any prompt) is
        not listed: there is nothing in it to go back to. It can still be
        resumed by id. `keep` filters by id (the archive filter).

        Raises:
            persist.InvalidCursor: A cursor this agent did not hand out.
        """
        records = [
            r
            for r in persist.list_records()
            if (cwd is None or r.get("cwd") == cwd)
            and _has_messages(r)
            and (keep is None or keep(str(r["sessionId"])))
        ]
        offset = persist.decode_cursor(cursor) if cursor is not None else 0
        page = records[offset : offset + persist.PAGE_SIZE]
        summaries = [
            SessionSummary(
                str(r["sessionId"]),
                str(r.get("cwd") or "/"),
                r.get("title") if isinstance(r.get("title"), str) else None,
                r.get("updatedAt") if isinstance(r.get("updatedAt"), str) else None,
            )
            for r in page
        ]
        following = offset + persist.PAGE_SIZE
        next_cursor = (
            persist.encode_cursor(following) if following < len(records) else None
        )
        return summaries, next_cursor

    def cancel(self, session_id: str, *, withdraw: bool = False) -> None:
        """Cancel the session's running turn and the ones waiting (if any).

        Args:
            session_id: The session.
            withdraw: Also withdraw pending permission requests at once (see
                `Turn.cancel`).
        """
        session = self.sessions.get(session_id)
        if session is None:
            return
        for turn in list(session.turns):
            turn.cancel(withdraw=withdraw)

    def cancel_tool(self, session_id: str, tool_call_id: str) -> bool:
        """`tool_call/cancel`: stop one tool call alone (the turn goes on).

        Returns:
            False if no turn of the session offers to cancel that tool call.
        """
        session = self.sessions.get(session_id)
        if session is None:
            return False
        return any(turn.cancel_tool(tool_call_id) for turn in list(session.turns))

    def disconnect(self, port: Port) -> None:
        """The client of `port` went away: cancel the turns running on it.

        Pending permission requests are withdrawn (the client cannot answer any
        more); each turn still tidies up, and its session is saved as it ends.
        """
        for session in list(self.sessions.values()):
            for turn in list(session.turns):
                if turn.port is port:
                    turn.cancel(withdraw=True)

    async def close(self, session_id: str) -> None:
        """Cancel the session's work, wait for it (bounded), save and forget it.

        Raises:
            SessionNotFound: Not opened in this process.
        """
        session = self.get(session_id)
        await self._wind_down(session)
        session.save()
        del self.sessions[session_id]

    async def delete(self, session_id: str) -> None:
        """Cancel the session's work and remove it and its own workspace.

        A workspace it shares (its `cwd`, see `Workspace.for_session`) stays.

        Raises:
            SessionNotFound: No such session.
        """
        session = self.sessions.get(session_id)
        if session is not None:
            await self._wind_down(session)
            del self.sessions[session_id]
        elif persist.load(session_id) is None:
            raise SessionNotFound(session_id)
        persist.delete(session_id)
        Workspace.for_session(session_id).destroy()

    async def _wind_down(self, session: DemoSession) -> None:
        self.cancel(session.session_id, withdraw=True)
        with anyio.move_on_after(CLOSE_GRACE):
            async with session.lock:
                pass

    # --------------------------------------------------------------- turns

    async def prompt(
        self,
        session: DemoSession,
        port: Port,
        blocks: list[JSONObject],
        *,
        accepted: Callable[[], Awaitable[None]] | None = None,
    ) -> str | None:
        """Run one prompt turn; returns its stop reason.

        Args:
            session: The session.
            port: The connection.
            blocks: The prompt's content blocks.
            accepted: Awaited before anything is sent (v2: until the
                `session/prompt` response is out, so the user message follows it).
        """
        from acp_tui.demo.turn import Turn  # turn imports this module

        turn = Turn(session, port, self.pace, self.clock)
        session.turns.append(turn)
        try:
            if accepted is not None:
                await accepted()
            async with session.lock:
                return await turn.run(blocks)
        finally:
            session.turns.remove(turn)
            session.updated_at = session.updated_at or timestamp(self.clock)
            try:
                session.save()
            except OSError as error:  # a full disk must not end the turn badly
                log.warning("could not save session %s: %r", session.session_id, error)
