"""One prompt turn: the toolkit scenarios use, and the turn's life and cancellation.

A `Turn` runs one scenario inside its own cancel scope. Scenarios only call the
helpers here (`say`, `think`, `tool_call`, `update_tool`, `plan`, `ask`,
`run_command`, ...), which emit neutral events through `emit`.

Invariants:

* **`emit` is atomic**: the wire send and the history append happen under one
  shield, so a cancellation never leaves one without the other.
* **Cancellation at any moment.** `cancel()` cancels the scope at once, unless a
  permission request or an elicitation is pending: then the client must answer
  it (`cancelled`, `cancel`), and the scope is cancelled as soon as it does, or
  after `PERMISSION_GRACE` if it never does. A running command is killed by its
  runner's shielded cleanup.
* **A cancelled turn is tidied, then reported.** After the scope: unfinished tool
  calls get status `cancelled`, killed terminals get their exit status, unfinished
  plan entries become `cancelled`, a short message says what was stopped, and the
  turn ends `idle` / `cancelled`. A turn cancelled from outside (the connection
  ended) is tidied the same way before it unwinds, so its saved history is whole.
* The turn's updates follow the v2 lifecycle: the user message, `running`,
  output (`requires_action` around each permission request), then `idle` with the
  stop reason; the v1 emitter drops the states and the v1 server answers the
  prompt with the stop reason instead.
"""

from __future__ import annotations

import logging
import re
import sys
from collections.abc import Awaitable, Callable, Sequence
from pathlib import Path
from typing import Any, Final, TypeVar

import anyio
import anyio.lowlevel

from acp_tui.demo.config import MODEL_CONTEXT
from acp_tui.demo.events import (
    Event,
    Info,
    JSONObject,
    Message,
    MessageChunk,
    Plan,
    PlanRemoved,
    Role,
    Terminal,
    TerminalOutput,
    ToolCall,
    ToolContentChunk,
    Usage,
)
from acp_tui.demo.pacing import Clock, Pace, timestamp
from acp_tui.demo.pty_runner import ExitStatus, PtyRun
from acp_tui.demo.session import (
    ClientCommand,
    ClientRun,
    DemoSession,
    ElicitAsk,
    PermissionAsk,
    Port,
)

__all__ = ["FINAL_STATUSES", "PERMISSION_GRACE", "Turn", "chunks", "text_of"]

log = logging.getLogger(__name__)

_A = TypeVar("_A")

PERMISSION_GRACE: Final = 10.0
"""Seconds a cancelled turn waits for the client to answer a pending permission
request with `cancelled` (as it must) before it stops waiting."""

FINAL_STATUSES: Final = frozenset({"completed", "failed", "cancelled"})

_WORDS: Final = re.compile(r"\s*\S+|\s+")
WORDS_PER_CHUNK: Final = 3

TITLE_LENGTH: Final = 48


def chunks(text: str, words: int = WORDS_PER_CHUNK) -> list[str]:
    """Split text into streaming chunks of a few words (they join back exactly)."""
    pieces = _WORDS.findall(text)
    return ["".join(pieces[i : i + words]) for i in range(0, len(pieces), words)]


def text_of(blocks: Sequence[JSONObject]) -> str:
    """The text of a prompt (text blocks joined; other blocks named)."""
    parts = []
    for block in blocks:
        kind = block.get("type")
        if kind == "text":
            parts.append(str(block.get("text", "")))
        elif kind == "resource_link":
            parts.append(f"[{block.get('name', 'link')}]")
        elif kind == "resource":
            resource = block.get("resource")
            uri = resource.get("uri") if isinstance(resource, dict) else None
            parts.append(f"[{uri or 'resource'}]")
        else:
            parts.append(f"[{kind}]")
    return " ".join(part for part in parts if part)


def _title(text: str) -> str:
    line = " ".join(text.split())
    if not line:
        return "Untitled"
    return line if len(line) <= TITLE_LENGTH else line[: TITLE_LENGTH - 1] + "…"


class Turn:
    """One prompt turn of a session."""

    def __init__(
        self, session: DemoSession, port: Port, pace: Pace, clock: Clock
    ) -> None:
        self.session = session
        self.port = port
        self.pace = pace
        self.clock = clock
        self.scope = anyio.CancelScope()
        self.cancel_requested = False
        self.group = 0
        self._permissions = 0
        self._tool_status: dict[str, str] = {}
        self._plans: dict[str, list[JSONObject]] = {}
        self._terminals: dict[str, PtyRun | ClientRun] = {}
        self._stopped: list[str] = []
        self.steerable = False
        """Whether prompts sent into this turn are taken (`demo.steering`)."""
        self.steered: list[str] = []
        """Prompts sent into this turn, not taken yet (`demo.steering`)."""
        self._cancel_one: dict[str, anyio.Event] = {}
        """Tool calls the client may cancel alone, and whether it asked to."""

    # ------------------------------------------------------------ lifecycle

    def cancel(self, *, withdraw: bool = False) -> None:
        """Stop the turn (see the module docstring).

        Args:
            withdraw: Do not wait for pending permission requests to be answered:
                withdraw them (`$/cancel_request`). For `session/close` and
                `session/delete`, after which the client may never answer.
        """
        self.cancel_requested = True
        for run in self._terminals.values():
            if isinstance(run, ClientRun):
                run.stop.set()  # the client kills it; the turn ends when it has
        if self._permissions and not withdraw:
            self.scope.deadline = min(
                self.scope.deadline, anyio.current_time() + PERMISSION_GRACE
            )
        else:
            self.scope.cancel()

    async def run(self, blocks: list[JSONObject]) -> str | None:
        """Run the turn to its end; returns the stop reason."""
        from acp_tui.demo import scenarios  # scenarios import this module

        session = self.session
        self.group = session.counters.get("turn", 0) + 1
        session.counters["turn"] = self.group
        text = text_of(blocks)
        await self.emit(Message(session.next_id("msg"), "user", list(blocks)))
        session.turn_tokens = None
        await self.port.state(session.session_id, "running")
        if self.group == 1 and not text.lstrip().startswith("/title"):
            session.title = _title(text)
            await self.emit(Info({"title": session.title}))
        stop: str | None = "end_turn"
        try:
            with self.scope:
                if self.cancel_requested:  # cancelled while waiting for its turn
                    self.scope.cancel()
                    await anyio.lowlevel.checkpoint()
                try:
                    stop = await scenarios.run(self, text)
                except Exception as error:  # a bug must end the turn, not the agent
                    log.exception("scenario failed")
                    await self.say(f"\n\n*The demo agent hit a bug:* `{error!r}`\n")
        except anyio.get_cancelled_exc_class():
            # The server is cancelling everything (the client went away): the turn
            # gets no stop reason, but its history still says how it ended (once
            # the connection has ended the port sends nothing: this only records).
            with anyio.CancelScope(shield=True):
                await self._tidy_up()
            raise
        if self.cancel_requested or self.scope.cancelled_caught:
            stop = "cancelled"
            await self._tidy_up()
        await self._usage()
        session.updated_at = timestamp(self.clock)
        await self.emit(Info({"updatedAt": session.updated_at}))
        await self.port.state(
            session.session_id, "idle", stop, usage=session.turn_tokens
        )
        return stop

    async def _tidy_up(self) -> None:
        for terminal_id, run in list(self._terminals.items()):
            if isinstance(run, ClientRun) and run.output is not None:
                await self.emit(TerminalOutput(terminal_id, run.output))
            ended = run.status or ExitStatus(signal="SIGKILL")
            await self.emit(Terminal(terminal_id, {"exitStatus": ended.to_json()}))
        self._terminals.clear()
        for tool_call_id, status in list(self._tool_status.items()):
            if status not in FINAL_STATUSES:
                await self.update_tool(tool_call_id, status="cancelled")
        for plan_id, entries in list(self._plans.items()):
            if any(e["status"] != "completed" for e in entries):
                await self.plan(
                    plan_id,
                    [
                        e
                        if e["status"] == "completed"
                        else {**e, "status": "cancelled"}
                        for e in entries
                    ],
                )
        stopped = ", ".join(self._stopped) or "streaming"
        await self.say(f"⏹ Cancelled: I stopped {stopped}.", paced=False)

    async def _usage(self) -> None:
        """Report context usage: a deterministic function of the history.

        Never less than the last use reported (`/usage` fills the window).
        """
        session = self.session
        characters = 0
        reported = 0
        for event in session.history:
            if isinstance(event, MessageChunk):
                characters += len(str(event.block.get("text", "")))
            elif isinstance(event, Message):
                characters += sum(len(str(b.get("text", ""))) for b in event.content)
            elif isinstance(event, Usage):
                reported = event.used
        used = max(1200 + characters // 4, reported)
        size = MODEL_CONTEXT.get(session.config.model, 32_000)
        cost = round(
            used * 0.000003 * (4 if session.config.model == "demo-deep" else 1), 6
        )
        await self.emit(Usage(min(used, size), size, cost))

    # ------------------------------------------------------------- emitting

    async def emit(self, event: Event) -> None:
        """Send an event and record it in the history (atomically)."""
        with anyio.CancelScope(shield=True):
            await self.port.send(self.session.session_id, event)
            self.session.history.append(event)

    async def say(self, text: str, *, role: Role = "agent", paced: bool = True) -> str:
        """Stream `text` as a new message, a few words per chunk; returns its id."""
        message_id = self.session.next_id("msg")
        await self.stream(message_id, text, role=role, paced=paced)
        return message_id

    async def stream(
        self, message_id: str, text: str, *, role: Role = "agent", paced: bool = True
    ) -> None:
        """Append `text` to a message, chunk by chunk, at the streaming pace."""
        for piece in chunks(text):
            await self.emit(
                MessageChunk(message_id, role, {"type": "text", "text": piece})
            )
            if paced:
                await self.pace.tick()

    async def think(self, sentences: Sequence[str]) -> str:
        """Stream a thought; its length follows the thought-level option."""
        level = self.session.config.thought_level
        count = {"low": 1, "medium": 3}.get(level, len(sentences))
        return await self.say(" ".join(sentences[:count]), role="thought")

    async def pause(self, factor: float = 5.0) -> None:
        """Wait a few chunks' time (a tool "working")."""
        await self.pace.tick(factor)

    # ------------------------------------------------------------ tool calls

    async def tool_call(
        self,
        title: str,
        kind: str,
        *,
        status: str = "pending",
        locations: list[JSONObject] | None = None,
        raw_input: Any = None,
        content: list[JSONObject] | None = None,
        name: str | None = None,
        cancellable: bool = False,
    ) -> str:
        """Create a tool call; returns its id.

        `name` is the tool's programmatic name; `cancellable` offers the client
        to cancel it alone (`cancel_tool`, `cancel_one_requested`).
        """
        tool_call_id = self.session.next_id("call")
        fields: JSONObject = {"title": title, "kind": kind, "status": status}
        if name is not None:
            fields["name"] = name
        if cancellable:
            fields["capabilities"] = {"cancel": {}}
            self._cancel_one[tool_call_id] = anyio.Event()
        if content is not None:
            fields["content"] = content
        if locations is not None:
            fields["locations"] = locations
        if raw_input is not None:
            fields["rawInput"] = raw_input
        self._tool_status[tool_call_id] = status
        await self.emit(ToolCall(tool_call_id, fields))
        return tool_call_id

    async def update_tool(self, tool_call_id: str, **fields: Any) -> None:
        """Patch a tool call (`status`, `content`, `locations`, `raw_output`...)."""
        wire = {_camel(key): value for key, value in fields.items()}
        if "status" in wire:
            self._tool_status[tool_call_id] = wire["status"]
        await self.emit(ToolCall(tool_call_id, wire))

    def cancel_tool(self, tool_call_id: str) -> bool:
        """The client asked to cancel one tool call; False if it cannot be."""
        event = self._cancel_one.get(tool_call_id)
        if event is None or self._tool_status.get(tool_call_id) in FINAL_STATUSES:
            return False
        event.set()
        return True

    def cancel_one_requested(self, tool_call_id: str) -> anyio.Event:
        """Set once the client asks to cancel this (cancellable) tool call."""
        return self._cancel_one[tool_call_id]

    async def tool_chunk(self, tool_call_id: str, item: JSONObject) -> None:
        """Append one content item to a tool call."""
        await self.emit(ToolContentChunk(tool_call_id, item))

    def tool_fields(self, tool_call_id: str) -> JSONObject:
        """The tool call's current fields (from the history), for a permission.

        Of its content, only the diffs are kept: a permission request about an
        edit carries the proposed diff, as real agents send it
        (claude-agent-acp: `content: [{type: diff, ...}]`, kind `edit`).
        """
        fields: JSONObject = {}
        for event in self.session.history:
            if isinstance(event, ToolCall) and event.tool_call_id == tool_call_id:
                fields.update(event.fields)
        diffs = [item for item in fields.pop("content", []) if item["type"] == "diff"]
        if diffs:
            fields["content"] = diffs
        return fields

    # ----------------------------------------------------------------- plans

    async def plan(self, plan_id: str | None, entries: list[JSONObject]) -> str:
        """Create (`plan_id` None) or replace a plan; returns its id."""
        plan_id = plan_id or self.session.next_id("plan")
        self._plans[plan_id] = [dict(e) for e in entries]
        await self.emit(Plan(plan_id, self.group, [dict(e) for e in entries]))
        return plan_id

    async def markdown_plan(self, plan_id: str | None, markdown: str) -> str:
        """Create or replace a markdown plan; returns its id."""
        plan_id = plan_id or self.session.next_id("plan")
        await self.emit(Plan(plan_id, self.group, [], markdown))
        return plan_id

    async def remove_plan(self, plan_id: str) -> None:
        """Dismiss a plan (`plan_removed`)."""
        self._plans.pop(plan_id, None)
        await self.emit(PlanRemoved(plan_id))

    async def plan_status(self, plan_id: str, index: int, status: str) -> None:
        """Move one entry of a plan to `status` (the whole plan is resent)."""
        entries = [dict(e) for e in self._plans[plan_id]]
        entries[index]["status"] = status
        await self.plan(plan_id, entries)

    # ----------------------------------------------------------- permissions

    async def ask(self, ask: PermissionAsk, remember: str) -> bool:
        """Ask for permission (unless "Always allow" was chosen for `remember`).

        Returns:
            Whether the action is allowed. A cancelled turn raises (cancelled).
        """
        session = self.session
        if remember in session.allow_always:
            await self.say(
                f"_(You chose “Always allow” for {remember} actions in this session, "
                "so I won't ask again.)_\n\n"
            )
            return True
        kind = await self._question(
            lambda: self.port.ask_permission(session.session_id, ask)
        )
        if kind == "allow_always":
            session.allow_always.add(remember)
        return kind in ("allow_once", "allow_always")

    async def elicit(self, ask: ElicitAsk) -> tuple[str, dict[str, Any] | None]:
        """Ask the user through the client (an elicitation).

        Returns:
            The action (`accept`, `decline`, `cancel`) and, if accepted, the
            content. A cancelled turn raises (cancelled) once the client has
            answered.
        """
        session_id = self.session.session_id
        return await self._question(lambda: self.port.elicit(session_id, ask))

    async def _question(self, ask: Callable[[], Awaitable[_A]]) -> _A:
        """Wait for the client to answer `ask` (`requires_action` meanwhile).

        A cancel waits for the answer (at most `PERMISSION_GRACE`), then the
        turn is cancelled.
        """
        session_id = self.session.session_id
        await self.port.state(session_id, "requires_action")
        self._permissions += 1
        try:
            answer = await ask()
        finally:
            self._permissions -= 1
        if self.cancel_requested:
            self.scope.cancel()
            await anyio.lowlevel.checkpoint()
        await self.port.state(session_id, "running")
        return answer

    # -------------------------------------------------------------- commands

    async def run_command(
        self,
        tool_call_id: str,
        argv: Sequence[str],
        display: str,
        cwd: Path,
    ) -> ExitStatus:
        """Run a command, shown as the tool call's terminal; returns how it ended.

        v2 and v1 without client terminals: it runs here, in a PTY, streamed as an
        agent-owned terminal. v1 with `terminal: true`: the client runs it, in the
        session's cwd (clients confine terminals to the session's directories, and
        the scratch workspace is outside them), so `argv` names files absolutely.
        """
        session = self.session
        terminal_id = session.next_id("term")
        reference = [{"type": "terminal", "terminalId": terminal_id}]
        self._stopped.append(f"`{display}`")
        await self.emit(Terminal(terminal_id, {"command": display, "cwd": str(cwd)}))
        if self.port.client_terminal:

            async def created() -> None:
                await self.update_tool(
                    tool_call_id, status="in_progress", content=reference
                )

            client = ClientRun(created)
            self._terminals[terminal_id] = client
            command = ClientCommand(
                session.session_id, terminal_id, argv, Path(session.cwd)
            )
            await self.port.run_on_client(command, client)
            if client.output is not None:
                await self.emit(TerminalOutput(terminal_id, client.output))
            status = client.status or ExitStatus()
        else:
            await self.update_tool(
                tool_call_id, status="in_progress", content=reference
            )
            run = PtyRun(argv, cwd)
            self._terminals[terminal_id] = run

            async def output(data: bytes) -> None:
                await self.emit(TerminalOutput(terminal_id, data))

            status = await run.run(output)
        del self._terminals[terminal_id]
        self._stopped.remove(f"`{display}`")
        await self.emit(Terminal(terminal_id, {"exitStatus": status.to_json()}))
        return status

    @staticmethod
    def python() -> str:
        """The interpreter the demo's commands run with."""
        return sys.executable


def _camel(name: str) -> str:
    head, *rest = name.split("_")
    return head + "".join(part.title() for part in rest)
