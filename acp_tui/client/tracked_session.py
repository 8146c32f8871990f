"""One open session as `AcpClient` tracks it, and the bookkeeping of its work.

A `TrackedSession` holds the session's store, the roots its client-side
requests may reach, the dialect's side of it (`SessionTranslator`), and the
state of its current work:

* `work_tool_calls` are the tool calls reported during the current work (since
  the prompt was sent, or since v2 agent-started work went busy); a cancel marks
  those unfinished `cancelled`, never an earlier turn's.
* `cancelled` is the event a permission request watches; it is replaced by a
  fresh one only once the cancelled work has ended (`work_ended`).
* In v2 a turn ends with an idle state received after the prompt's work went
  busy (or an idle carrying a stop reason): `on_changes` follows the store and
  ends the `Turn`. In v1 the `session/prompt` response ends it, so `on_changes`
  only collects tool calls.

`session_roots` chooses where a session may reach (see `client.session`), and
a `StoreFactory` makes its store from a `SessionOpening` (`client.session`
re-exports both, with `plain_store`).
"""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal, TypeAlias

import anyio

from acp_tui.client.dialect import SessionTranslator
from acp_tui.client.file_writes import FileWrites
from acp_tui.client.fs import FileSystemAccess
from acp_tui.client.message_origins import MessageOrigins
from acp_tui.client.terminals import ClientTerminals
from acp_tui.store import ops
from acp_tui.store.changes import Change
from acp_tui.store.config import ConfigOption
from acp_tui.store.store import SessionStore
from acp_tui.store.values import JSONObject

__all__ = [
    "SessionOpening",
    "StoreFactory",
    "TrackedSession",
    "Turn",
    "plain_store",
    "session_roots",
    "set_setup_lists",
]


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


@dataclass(slots=True)
class Turn:
    """The bookkeeping of one prompt turn."""

    done: anyio.Event = field(default_factory=anyio.Event)
    busy_seen: bool = False
    stop_reason: str | None = None


@dataclass(slots=True)
class TrackedSession:
    """An open session: its store, where it may reach, and its work."""

    store: SessionStore
    cwd: Path
    roots: FileSystemAccess
    translator: SessionTranslator
    """The dialect's side of this session (`dialect.SessionTranslator`)."""
    origins: MessageOrigins
    """Marks the user messages the agent wrote itself (not the user's)."""
    writes: FileWrites
    """Serves v1 `fs/write_text_file` and shows every write."""
    terminals: ClientTerminals | None = None
    """v1 client-owned terminals, when served."""
    turn: Turn | None = None
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
    turn_ends_with_response: bool = False
    """The dialect's turn-end rule: v1's `session/prompt` response ends a turn
    (`AcpClient.prompt`), v2's idle `state_update` does (`on_changes`)."""

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

    def on_changes(self, changes: Sequence[Change]) -> None:
        """Follow the store: the work's tool calls, and (v2) the turn's end."""
        state_changed = False
        for change in changes:
            if change.kind == "tool_call" and change.id is not None:
                self.work_tool_calls[change.id] = None
            elif change.kind == "state":
                state_changed = True
        if self.turn_ends_with_response or not state_changed:
            return
        state = self.store.state
        turn = self.turn
        if state.is_busy:
            if turn is not None:
                turn.busy_seen = True
            elif not self.busy:
                self.start_work()  # the agent starts work of its own
            self.busy = True
            return
        self.busy = False
        if turn is not None:
            if state.stop_reason is None and not turn.busy_seen:
                return  # an idle from before this turn's work started
            turn.stop_reason = state.stop_reason
            turn.done.set()
            self.turn = None
        self.work_ended()


async def session_roots(
    cwd: Path,
    extra: Sequence[Path],
    roots: Sequence[Path] | None,
    default: Sequence[Path],
) -> FileSystemAccess:
    """A session's roots: `roots`, else `default`, else `cwd` and `extra`.

    A `cwd` inside them goes first (terminals start there); one outside adds
    nothing. Resolves symlinks in a thread.
    """
    chosen = list(roots if roots is not None else default or (cwd, *extra))
    if not chosen:
        raise ValueError("a session needs at least one root")
    inside = cwd.is_absolute() and cwd != chosen[0]
    if inside and await anyio.to_thread.run_sync(_inside, cwd, chosen):
        chosen.insert(0, cwd)  # allowed anyway: where terminals start
    return FileSystemAccess(chosen[0], chosen[1:])


def _inside(path: Path, roots: Sequence[Path]) -> bool:
    """Whether `path` lies in one of `roots`, all resolved (symlinks followed)."""
    real = Path(os.path.realpath(path))
    return any(real.is_relative_to(os.path.realpath(root)) for root in roots)


def set_setup_lists(
    store: SessionStore,
    options: Sequence[ConfigOption],
    commands: Sequence[JSONObject],
) -> None:
    """Store a setup response's lists, unless updates already reported them."""
    if options and not store.config_options:
        store.apply(ops.SetConfigOptions(options))
    if commands and not store.commands:
        store.apply(ops.SetAvailableCommands(commands))
