"""`SessionStore`: the version-neutral state of one ACP session.

The store is the single source of truth for what a session shows. Its only input
is `apply(op)` (see `ops`); it reports what changed as `Change` records (see
`changes`), to the caller and to subscribed listeners; widgets read entities (see
`model`) through its queries. It has no event loop, no threads and no I/O.

Invariants:

* **Ordered, per entity.** Ops are applied in the order given. Messages, tool
  calls, plans, terminals, permissions and elicitations are keyed by their ids;
  an op for an unknown id creates the entity (only `ResolvePermission`,
  `ResolveElicitation` and `CompleteElicitation` ignore unknown ids).
* **Wire objects are kept as received.** Content blocks, content items, `_meta`,
  config options and raw payloads are stored by reference, never reshaped, so
  `to_json` writes back exactly the wire keys. Plans keep theirs packed (equal
  copies on each access: `Plan`), so thousands of plans are thousands of objects
  for the garbage collector, not tens of thousands.
* **Appends are O(1) amortized.** A chunk appends to a list (message blocks, text
  parts, tool-call content) or to a byte log (terminal output); nothing copies the
  accumulated content per append. A replacement builds new lists (O(size of the
  new content)), so views handed out earlier stay valid.
* **Terminal output is capped** at `max_terminal_bytes` per terminal (default
  32 MiB): beyond it the oldest bytes are dropped (and a few more so the retained
  bytes start on a UTF-8 boundary); `Terminal.dropped_bytes` counts them.
* **A message is capped** at `max_message_chars` (default 16 Mi characters), so
  one entity cannot exhaust memory, whatever an agent streams (bench/exhaustion.py:
  a 200 MB chunk, a million tiny ones). Its *head* keeps content blocks as
  received while their cost (characters, plus `BLOCK_COST` per block for the
  objects around them) fits half the cap; the block that does not fit is kept
  cut to the room left (a new dict: the one exception to keeping wire objects by
  reference). Past the head, text goes to a *tail* that keeps the last half-cap
  characters (older ones dropped), and non-text blocks are dropped.
  `Message.cut_chars` and `Message.cut_blocks` count what was dropped, so the UI
  can say exactly what is missing. A chunk longer than the cap may come as its
  ends instead (`kept_ends`, `cut_chunk`): an `AppendMessageChunk` with its first
  characters, and a `CutMessageText` with how many were left out and its last
  ones. They leave the store exactly as the whole chunk would: the client hands
  a huge chunk over so (its text is never built whole), and the transcript
  journal writes a whole one so.
* **Terminals are independent of tool calls.** A `terminal` content item only
  refers to a terminal id; whichever arrives first creates the terminal's state.
  `terminal_ids_for_tool_call` and `tool_call_ids_for_terminal` link them.
* **Who wrote a message.** Agent and thought messages are the agent's. A `user`
  message is the user's until `SetMessageOrigin` marks it as the agent's (one
  the agent sent on its own): `Message.from_agent`, and `"origin": "agent"` in
  `to_json` (left out otherwise, so older documents read the same).
* **A message is its id and its role.** Agents may give two messages of different
  roles one id: claude-agent-acp gives a thinking block and the text after it the
  model message's id, as an `agent_thought_chunk` and an `agent_message_chunk`.
  They are two messages, in the order they began: the first of an id is keyed by
  the id itself, a later role by `<id>#<role>` (`message_key`), so changes, the
  timeline and `message()` use that key, and `Message.message_id` keeps the id
  the agent sent. The key depends only on the order of ops, so a journal replay
  or an agent's history replay gives the same keys.
* **Timeline.** Messages, tool calls, plans, terminals, permissions,
  elicitations, unknown updates, and the agent's notices, compactions and
  session messages (`store.reports`) appear once each, in order of first
  appearance. A terminal is listed only while no tool call refers to it (a
  standalone terminal); otherwise it is shown inside its tool call.
  `timeline_revision` bumps when the timeline changes.
* **Entities are snapshots.** A query returns the same frozen object until the
  entity changes; every change takes a new value of one store-wide revision
  counter.
* **Listeners** are called synchronously after each `apply` / `apply_many` with
  the changes of that call. A listener that raises is logged and skipped; the
  store and the other listeners carry on.
* **Unknown ops are ignored** (no change, no error).
"""

from __future__ import annotations

import base64
import logging
import time
from collections import Counter, deque
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import replace
from types import MappingProxyType
from typing import TYPE_CHECKING, Any, Final, TypeAlias, TypeVar

from acp_tui.store._buffers import ByteLog, Cached, ContentView, TextLog, TextTail
from acp_tui.store.changes import Change, ChangeAction, TimelineKind
from acp_tui.store.config import ConfigOption
from acp_tui.store.model import (
    FINAL_TOOL_STATUSES,
    Elicitation,
    Message,
    Notice,
    Permission,
    Plan,
    SessionInfo,
    SessionState,
    Terminal,
    ToolCall,
    TurnUsage,
    Usage,
    block_text,
    terminal_ref,
)
from acp_tui.store.ops import (
    AddElicitation,
    AddPermission,
    AppendMessageChunk,
    AppendMessageTexts,
    AppendTerminalOutput,
    AppendToolCallContent,
    CancelUnfinishedToolCalls,
    CompleteElicitation,
    CutMessageText,
    InSubagent,
    InterleavedTexts,
    MarkCancelling,
    MessageOrigin,
    MessageRole,
    Op,
    PatchSessionInfo,
    PatchSubagent,
    PatchTerminal,
    PatchToolCall,
    PatchUsage,
    RecordNotice,
    RecordTerminalError,
    RecordUnknownUpdate,
    RemovePlan,
    ReplacePlan,
    ResolveElicitation,
    ResolvePermission,
    SetAvailableCommands,
    SetConfigOptions,
    SetMessageOrigin,
    SetState,
    SetTurnUsage,
    UpsertMessage,
)
from acp_tui.store.reports import Reports
from acp_tui.store.subagents import Subagent, Subagents, texts_in_subagent

if TYPE_CHECKING:
    from acp_tui.store.child_store import ChildStore
from acp_tui.store.values import (
    UNSET,
    JSONObject,
    JSONValue,
    Patch,
    fields_json,
    plain_json,
)

__all__ = [
    "BLOCK_COST",
    "DEFAULT_MAX_MESSAGE_CHARS",
    "DEFAULT_MAX_TERMINAL_BYTES",
    "Listener",
    "SessionStore",
    "TimelineKind",
    "cut_chunk",
    "kept_ends",
]

_log = logging.getLogger(__name__)

MAX_TERMINAL_ERRORS: Final = 5
"""The most recent data errors kept per terminal."""

DEFAULT_MAX_TERMINAL_BYTES: Final = 32 * 2**20
"""Default cap on the output bytes kept per terminal (32 MiB)."""

DEFAULT_MAX_MESSAGE_CHARS: Final = 16 * 2**20
"""Default cap on what one message keeps: half for its head (blocks as received,
`BLOCK_COST` each beside their text), half for its tail (text only)."""

BLOCK_COST: Final = 300
"""What a content block costs beside its characters, counted against a message's
head: about the bytes of the Python objects around a chunk's text (its dict, its
type string, the string's header, two list slots). A million one-word chunks
would otherwise hold some 300 MB for 8 MB of text."""

Listener: TypeAlias = Callable[[Sequence[Change]], None]
"""A store listener: called with the changes of one `apply` / `apply_many`."""

_Changes: TypeAlias = tuple[Change, ...]
_NO_CHANGES: Final[_Changes] = ()

_Request = TypeVar("_Request", Permission, Elicitation)
"""A request of the agent the store keeps until answered."""

_Snap = TypeVar("_Snap")
"""An entity's snapshot (`Message`, `ToolCall`, `Terminal`)."""


def _patched_meta(
    current: JSONObject | None, value: Patch[JSONObject], merge: bool
) -> JSONObject | None:
    """Apply a three-state `_meta` patch (replace, or merge by top-level key)."""
    if value is UNSET:
        return current
    if value is None or not merge:
        return value
    if not value:
        return current
    merged: dict[str, JSONValue] = {} if current is None else dict(current)
    for key, item in value.items():
        if item is None:
            merged.pop(key, None)
        else:
            merged[key] = item
    return MappingProxyType(merged)


_plain = plain_json

_INFO_KEYS: Final = {"title": "title", "updated_at": "updatedAt", "meta": "_meta"}
"""The document's keys of `SessionInfo` (`to_json`; unset ones are left out)."""
_TURN_USAGE_KEYS: Final = {
    "total": "totalTokens",
    "input": "inputTokens",
    "output": "outputTokens",
    "thought": "thoughtTokens",
    "cached_read": "cachedReadTokens",
    "cached_write": "cachedWriteTokens",
}
"""The document's keys of `TurnUsage` (`to_json`; unreported ones are left out)."""


def _block_cost(block: JSONObject) -> int:
    """What keeping `block` costs against a message's head (see `BLOCK_COST`)."""
    cost = BLOCK_COST
    for value in block.values():
        if isinstance(value, str):
            cost += len(value)
        elif isinstance(value, Mapping):  # an embedded resource's text or blob
            cost += sum(len(v) for v in value.values() if isinstance(v, str))
    return cost


_TEXT_BLOCK_COST: Final = BLOCK_COST + len("text")
"""`_block_cost` of a plain text block, besides its text (its `"type"`'s value)."""


def kept_ends(max_message_chars: int, size: int) -> tuple[int, int] | None:
    """What a store may keep of a chunk's text of `size` characters, at most.

    `(first, last)`: a store capped at `max_message_chars` keeps no more than the
    chunk's first `first` characters (the head's budget) and its last `last`
    (the tail's cap), whatever came before it. None: it may keep all of it.
    """
    first = max_message_chars - max_message_chars // 2
    last = max_message_chars // 2
    if size <= first + last:
        return None
    return first, last


def cut_chunk(
    op: AppendMessageChunk, first: str, omitted: int, last: str
) -> tuple[AppendMessageChunk, CutMessageText]:
    """`op` as the ops that keep only the ends of its text.

    Its block with the text `first`, then `omitted` characters left out, then
    `last`.

    With the ends `kept_ends` names, a store applying them ends exactly as `op`
    would have left it (the same content, tail, counts and `to_json`).
    """
    block = {**op.block, "text": first}
    return (
        AppendMessageChunk(op.message_id, op.role, block),
        CutMessageText(op.message_id, op.role, omitted, last),
    )


def _snapshot_of(state: Cached[_Snap] | None) -> _Snap | None:
    """`state`'s snapshot, or None where there is no such entity."""
    return None if state is None else state.snapshot()


class _MessageState(Cached[Message]):
    __slots__ = (
        "blocks",
        "cost",
        "cut_blocks",
        "head_chars",
        "key",
        "message_id",
        "meta",
        "origin",
        "revision",
        "role",
        "tail",
        "text",
    )

    def __init__(self, message_id: str, role: MessageRole, key: str) -> None:
        self.message_id = message_id
        self.key = key
        self.role: MessageRole = role
        self.origin: MessageOrigin = "user" if role == "user" else "agent"
        self.blocks: list[JSONObject] = []
        self.text = TextLog()
        self.meta: JSONObject | None = None
        self.revision = 0
        self.snap: Message | None = None
        self.cost = 0
        """What the head's blocks cost (see `BLOCK_COST`)."""
        self.head_chars = 0
        """Characters of text in the head."""
        self.tail: TextTail | None = None
        """Past the head: the text kept (None while the head has room)."""
        self.cut_blocks = 0
        """Non-text blocks dropped past the head."""

    def _build(self) -> Message:
        tail = self.tail
        return Message(
            self.message_id,
            self.role,
            ContentView(self.blocks),
            self.meta,
            self.revision,
            self.text,
            len(self.text.parts),
            self.origin,
            cut_chars=0 if tail is None else tail.dropped,
            cut_blocks=self.cut_blocks,
            _tail=None if tail is None else tail.snapshot(),
            key=self.key,
        )

    def reset(self) -> None:
        """Forget the content (it is about to be replaced)."""
        self.blocks = []
        self.text = TextLog()
        self.cost = 0
        self.head_chars = 0
        self.tail = None
        self.cut_blocks = 0

    def add(self, block: JSONObject, budget: int, tail_cap: int) -> None:
        """Append one block: to the head while it fits `budget`, else past it."""
        text = block_text(block)
        tail = self.tail
        if tail is None:
            cost = _block_cost(block)
            if self.cost + cost <= budget:
                self.blocks.append(block)
                self.cost += cost
                if text is not None:
                    self.text.parts.append(text)
                    self.head_chars += len(text)
                return
            # The head is full: keep what fits of this block, the rest is past it.
            room = budget - self.cost - (cost - len(text or ""))
            skip = 0
            if text is not None and room > 0:
                head = text[:room]
                self.blocks.append({**block, "text": head})
                self.text.parts.append(head)
                self.head_chars += room
                skip = room
            self.cost = budget
            tail = self.tail = TextTail(tail_cap, start=self.head_chars)
            if text is not None:
                tail.append(text, skip)
                return
        if text is not None:
            tail.append(text)
        else:
            self.cut_blocks += 1

    def add_texts(
        self, texts: Sequence[str], budget: int, tail_cap: int
    ) -> list[JSONObject]:
        """`add` a plain text block for each of `texts`, in order; the blocks.

        A run that fits the head whole is added in one step (every block of it
        fits where it comes, as the costs only add up); else block by block.
        """
        blocks: list[JSONObject] = [{"type": "text", "text": text} for text in texts]
        if self.tail is None:
            chars = sum(map(len, texts))
            cost = self.cost + len(texts) * _TEXT_BLOCK_COST + chars
            if cost <= budget:
                self.blocks += blocks
                self.text.parts += texts
                self.cost = cost
                self.head_chars += chars
                return blocks
        for block in blocks:
            self.add(block, budget, tail_cap)
        return blocks

    def cut(self, omitted: int, text: str, budget: int, tail_cap: int) -> None:
        """Close the head, leave out `omitted` characters, then keep `text`."""
        tail = self.tail
        if tail is None:
            self.cost = budget
            tail = self.tail = TextTail(tail_cap, start=self.head_chars)
        tail.skip(omitted)
        tail.append(text)


class _ToolCallState(Cached[ToolCall]):
    __slots__ = (
        "capabilities",
        "content",
        "kind",
        "locations",
        "meta",
        "name",
        "raw_input",
        "raw_output",
        "revision",
        "status",
        "terminal_refs",
        "title",
        "tool_call_id",
    )

    def __init__(self, tool_call_id: str) -> None:
        self.tool_call_id = tool_call_id
        self.title: str | None = None
        self.kind = "other"
        self.status = "pending"
        self.content: list[JSONObject] = []
        self.locations: tuple[JSONObject, ...] = ()
        self.raw_input: JSONValue = None
        self.raw_output: JSONValue = None
        self.meta: JSONObject | None = None
        self.name: str | None = None
        self.capabilities: JSONObject | None = None
        self.terminal_refs: dict[str, None] = {}
        self.revision = 0
        self.snap: ToolCall | None = None

    def _build(self) -> ToolCall:
        return ToolCall(
            self.tool_call_id,
            self.title,
            self.kind,
            self.status,
            ContentView(self.content),
            self.locations,
            self.raw_input,
            self.raw_output,
            self.meta,
            self.name,
            self.capabilities,
            tuple(self.terminal_refs),
            self.revision,
        )


class _TerminalState(Cached[Terminal]):
    __slots__ = (
        "capabilities",
        "command",
        "cwd",
        "errors",
        "exit_status",
        "in_timeline",
        "log",
        "meta",
        "resets",
        "revision",
        "size",
        "terminal_id",
    )

    def __init__(self, terminal_id: str, cap: int) -> None:
        self.terminal_id = terminal_id
        self.command: str | None = None
        self.cwd: str | None = None
        self.exit_status: JSONObject | None = None
        self.meta: JSONObject | None = None
        self.size: JSONObject | None = None
        self.capabilities: JSONObject | None = None
        self.errors: tuple[str, ...] = ()
        self.resets = 0
        self.log = ByteLog(cap)
        self.in_timeline = False
        self.revision = 0
        self.snap: Terminal | None = None

    def _build(self) -> Terminal:
        return Terminal(
            self.terminal_id,
            self.command,
            self.cwd,
            self.exit_status,
            self.meta,
            self.size,
            self.capabilities,
            self.resets,
            self.log.dropped,
            self.revision,
            self.errors,
            self.log.snapshot(),
        )


class SessionStore:
    """The state of one ACP session, fed by version-neutral ops.

    Args:
        session_id: The ACP session id.
        cwd: The session's directory (absolute), as the client opened it: paths
            are shown relative to it. None when not known.
        max_terminal_bytes: The most output bytes kept per terminal; older bytes
            are dropped.
        max_message_chars: What one message keeps (see the module docstring):
            half for its head, half for its tail. None: the module's
            `DEFAULT_MAX_MESSAGE_CHARS`, read when the store is made.
        max_notices: How many notices to keep (the oldest are dropped).
        clock: The time source for `SessionState.ended_at`.
    """

    def __init__(
        self,
        session_id: str,
        *,
        cwd: str | None = None,
        max_terminal_bytes: int = DEFAULT_MAX_TERMINAL_BYTES,
        max_message_chars: int | None = None,
        max_notices: int = 100,
        clock: Callable[[], float] = time.time,
    ) -> None:
        if max_terminal_bytes < 0:
            raise ValueError("max_terminal_bytes must not be negative")
        if max_message_chars is None:
            max_message_chars = DEFAULT_MAX_MESSAGE_CHARS
        if max_message_chars < 0:
            raise ValueError("max_message_chars must not be negative")
        self._max_message_chars = max_message_chars
        self._head_budget = max_message_chars - max_message_chars // 2
        self._tail_cap = max_message_chars // 2
        self._session_id = session_id
        self._cwd = cwd
        self._max_terminal_bytes = max_terminal_bytes
        self._clock = clock
        self._revision = 0
        self._listeners: tuple[Listener, ...] = ()

        self._messages: dict[str, _MessageState] = {}
        self._message_keys: dict[tuple[str, MessageRole], str] = {}
        self._tool_calls: dict[str, _ToolCallState] = {}
        self._plans: dict[str, Plan] = {}
        self._removed_plans: dict[str, None] = {}
        self._cancelling: set[tuple[str, str]] = set()
        self._terminals: dict[str, _TerminalState] = {}
        self._terminal_refs: dict[str, dict[str, None]] = {}
        self._permissions: dict[str, Permission] = {}
        self._elicitations: dict[str, Elicitation] = {}
        self._unknown_updates: list[JSONObject] = []
        self._notices: deque[Notice] = deque(maxlen=max_notices)
        self._notice_count = 0
        self._config_options: tuple[ConfigOption, ...] = ()
        self._config_wire: tuple[JSONObject, ...] = ()
        self._commands: tuple[JSONObject, ...] = ()
        self._session_info = SessionInfo()
        self._usage: Usage | None = None
        self._turn_usage: TurnUsage | None = None
        self._state = SessionState()

        self._timeline: list[tuple[TimelineKind, str]] = []
        self._timeline_view: tuple[tuple[TimelineKind, str], ...] | None = ()
        self._timeline_shown: list[tuple[TimelineKind, str]] | None = []
        """`timeline()`'s entries, kept as entries are added (None: to filter
        again), so a long session's view is copied, not filtered, per entry."""
        self._timeline_revision = 0
        self._subagents = Subagents(
            self._subagent_store_for, lambda i: self._add_to_timeline("subagent", i)
        )

        # Handlers take their own op type; the table is keyed by that type.
        self._reports = Reports(
            self._next_revision, self._add_to_timeline, _patched_meta
        )
        self._handlers: dict[type, Callable[[Any], _Changes]] = {
            UpsertMessage: self._upsert_message,
            AppendMessageChunk: self._append_message_chunk,
            AppendMessageTexts: self._append_message_texts,
            CutMessageText: self._cut_message_text,
            SetMessageOrigin: self._set_message_origin,
            PatchToolCall: self._patch_tool_call,
            AppendToolCallContent: self._append_tool_call_content,
            CancelUnfinishedToolCalls: self._cancel_unfinished_tool_calls,
            ReplacePlan: self._replace_plan,
            RemovePlan: self._remove_plan,
            MarkCancelling: self._mark_cancelling,
            PatchTerminal: self._patch_terminal,
            AppendTerminalOutput: self._append_terminal_output,
            RecordTerminalError: self._record_terminal_error,
            SetConfigOptions: self._set_config_options,
            SetAvailableCommands: self._set_available_commands,
            PatchSessionInfo: self._patch_session_info,
            PatchUsage: self._patch_usage,
            SetTurnUsage: self._set_turn_usage,
            SetState: self._set_state,
            AddPermission: self._add_permission,
            ResolvePermission: self._resolve_permission,
            AddElicitation: self._add_elicitation,
            ResolveElicitation: self._resolve_elicitation,
            CompleteElicitation: self._complete_elicitation,
            RecordUnknownUpdate: self._record_unknown_update,
            RecordNotice: self._record_notice,
            **self._reports.handlers(),
            PatchSubagent: self._subagents.patch,
            InSubagent: self._subagents.apply_inner,
            InterleavedTexts: self._interleaved_texts,
        }

    # --- applying ops -----------------------------------------------------

    def apply(self, op: Op) -> tuple[Change, ...]:
        """Apply one op, notify the listeners, and return what changed.

        Args:
            op: The operation. An op type the store does not know changes nothing.

        Returns:
            The changes (usually one).
        """
        handler = self._handlers.get(type(op)) or self._handler_for(type(op))
        if handler is None:
            return _NO_CHANGES
        changes = handler(op)
        if changes and self._listeners:
            self._notify(changes)
        return changes

    def apply_many(self, ops: Iterable[Op]) -> tuple[Change, ...]:
        """Apply ops in order, then notify the listeners once with all changes.

        If an op raises, the changes of the ops before it are still reported to
        the listeners before the exception propagates.

        Args:
            ops: The operations.

        Returns:
            The changes of all the ops, in order.
        """
        collected: list[Change] = []
        handlers = self._handlers
        try:
            for op in ops:
                handler = handlers.get(type(op)) or self._handler_for(type(op))
                if handler is not None:
                    collected.extend(handler(op))
        finally:
            changes = tuple(collected)
            if changes and self._listeners:
                self._notify(changes)
        return changes

    def subscribe(self, listener: Listener) -> Callable[[], None]:
        """Call `listener` with the changes of every later `apply`.

        Args:
            listener: Called synchronously after each apply. If it raises, the
                exception is logged and the other listeners still run.

        Returns:
            A function that unsubscribes the listener (calling it twice is fine).
        """
        self._listeners = (*self._listeners, listener)

        def unsubscribe() -> None:
            listeners = list(self._listeners)
            if listener in listeners:
                listeners.remove(listener)
                self._listeners = tuple(listeners)

        return unsubscribe

    def _notify(self, changes: _Changes) -> None:
        for listener in self._listeners:
            try:
                listener(changes)
            except Exception:
                _log.exception("store listener %r failed", listener)

    def _handler_for(self, op_type: type) -> Callable[[Any], _Changes] | None:
        for base in op_type.__mro__[1:]:
            handler = self._handlers.get(base)
            if handler is not None:
                self._handlers[op_type] = handler
                return handler
        _log.debug("ignoring unknown store op %s", op_type.__name__)
        return None

    def _next_revision(self) -> int:
        self._revision += 1
        return self._revision

    def _add_to_timeline(self, kind: TimelineKind, entity_id: str) -> None:
        entry = (kind, entity_id)
        self._timeline.append(entry)
        shown = self._timeline_shown
        if shown is not None and (
            kind != "terminal" or entity_id not in self._terminal_refs
        ):
            shown.append(entry)
        self._timeline_view = None
        self._timeline_revision += 1

    def _subagent_store_for(self, subagent_id: str) -> ChildStore:
        from acp_tui.store.child_store import ChildStore  # (a SessionStore)

        return ChildStore(
            subagent_id,
            self.apply_many,
            cwd=self._cwd,
            max_terminal_bytes=self._max_terminal_bytes,
            max_message_chars=self._max_message_chars,
            clock=self._clock,
        )

    def subagent(self, subagent_id: str) -> Subagent | None:
        """The subagent `subagent_id` (a child session this one owns), or None."""
        return self._subagents.get(subagent_id)

    def subagents(self) -> tuple[Subagent, ...]:
        """Every subagent, in order of announcement."""
        return tuple(self._subagents)

    def subagent_store(self, subagent_id: str) -> SessionStore | None:
        """The subagent's own store (its messages, tool calls, terminals), or None."""
        return self._subagents.store(subagent_id)

    def _timeline_changed(self) -> None:
        self._timeline_view = None
        self._timeline_shown = None
        self._timeline_revision += 1

    # --- messages ---------------------------------------------------------

    def message_key(self, message_id: str, role: MessageRole) -> str | None:
        """The key of the message `message_id` of `role`, or None if there is none.

        The key is the id for the first message of an id, `<id>#<role>` for a later
        one of another role (see the module docstring).
        """
        return self._message_keys.get((message_id, role))

    def _message(self, message_id: str, role: MessageRole) -> tuple[str, _MessageState]:
        """The key and state of the message `message_id` of `role`, created if new."""
        key = self._message_keys.get((message_id, role))
        if key is not None:
            return key, self._messages[key]
        key = message_id
        suffix = 1
        while key in self._messages:  # another role took the id (or the key)
            key = f"{message_id}#{role}" + (str(suffix) if suffix > 1 else "")
            suffix += 1
        self._message_keys[(message_id, role)] = key
        state = _MessageState(message_id, role, key)
        self._messages[key] = state
        self._add_to_timeline("message", key)
        return key, state

    def _upsert_message(self, op: UpsertMessage) -> _Changes:
        known = (op.message_id, op.role) in self._message_keys
        key, state = self._message(op.message_id, op.role)
        action: ChangeAction = "updated" if known else "added"
        content = op.content
        if content is not UNSET:
            state.reset()
            budget, tail_cap = self._head_budget, self._tail_cap
            for block in content or ():
                state.add(block, budget, tail_cap)
            if action != "added":
                action = "replaced"
        state.meta = _patched_meta(state.meta, op.meta, op.meta_merge)
        state.revision = self._next_revision()
        state.snap = None
        return (Change("message", key, action),)

    def _append_message_chunk(self, op: AppendMessageChunk) -> _Changes:
        block = op.block
        key = self._message_keys.get((op.message_id, op.role))
        action: ChangeAction = "appended"
        if key is None:
            key, state = self._message(op.message_id, op.role)
            action = "added"
        else:
            state = self._messages[key]
        state.add(block, self._head_budget, self._tail_cap)
        self._revision += 1
        state.revision = self._revision
        state.snap = None
        return (Change("message", key, action, block),)

    def _append_message_texts(self, op: AppendMessageTexts) -> _Changes:
        """`_append_message_chunk` for each text of the run (`AppendMessageTexts`)."""
        texts = op.texts
        if not texts:
            return _NO_CHANGES
        key = self._message_keys.get((op.message_id, op.role))
        added = key is None
        if key is None:
            key, state = self._message(op.message_id, op.role)
        else:
            state = self._messages[key]
        blocks = state.add_texts(texts, self._head_budget, self._tail_cap)
        self._revision += len(blocks)
        state.revision = self._revision
        state.snap = None
        changes = [Change("message", key, "appended", block) for block in blocks]
        if added:
            changes[0] = Change("message", key, "added", blocks[0])
        return tuple(changes)

    def _interleaved_texts(self, op: InterleavedTexts) -> _Changes:
        """Each run at once, where that is the same (`ops.InterleavedTexts`).

        Runs of different stores change nothing of each other's (a subagent's
        op changes only the subagent's store, once it exists), and a run tells
        a change per text: so the changes, each run's in turn, are dealt back
        in `order`. A subagent's store tells its listeners at once, though (and
        so do the subagents around it): no two runs may be in one subagent of
        this store (its listeners would hear them grouped). Else the chunks are
        applied one by one, in order.
        """
        runs = op.runs
        order = op.order
        if not self._runs_apart(runs, order):
            return tuple(
                change for chunk in op.chunks() for change in self._handled(chunk)
            )
        changes = [iter(self._handled(run)) for run in runs]
        return tuple(next(changes[index]) for index in order)

    def _runs_apart(self, runs: Sequence[Op], order: Sequence[int]) -> bool:
        """Whether the runs may be applied each at once (`_interleaved_texts`).

        They are of stores that exist, no two of them in one subagent of this
        store (or both this store's), and `order` names each as many times as
        it has texts.
        """
        counts = Counter(order)
        tops: set[str | None] = set()
        """This store's subagents that hold a run's store (None: this store)."""
        for index, run in enumerate(runs):
            texts = texts_in_subagent(run)
            if texts is None or counts.pop(index, 0) != len(texts.texts):
                return False
            top = run.subagent_id if type(run) is InSubagent else None
            store: SessionStore | None = self
            inner = run
            while type(inner) is InSubagent:
                store = store.subagent_store(inner.subagent_id) if store else None
                inner = inner.inner
            if store is None or top in tops:
                return False
            tops.add(top)
        return not counts

    def _handled(self, op: Op) -> _Changes:
        """`op` applied (no listener told)."""
        handler = self._handlers.get(type(op)) or self._handler_for(type(op))
        return handler(op) if handler is not None else _NO_CHANGES

    def _cut_message_text(self, op: CutMessageText) -> _Changes:
        known = (op.message_id, op.role) in self._message_keys
        key, state = self._message(op.message_id, op.role)
        action: ChangeAction = "appended" if known else "added"
        state.cut(max(op.omitted, 0), op.text, self._head_budget, self._tail_cap)
        state.revision = self._next_revision()
        state.snap = None
        return (Change("message", key, action),)

    def _set_message_origin(self, op: SetMessageOrigin) -> _Changes:
        key = self._message_keys.get((op.message_id, "user"))
        state = None if key is None else self._messages[key]
        if state is None or state.origin == op.origin:
            return _NO_CHANGES
        state.origin = op.origin
        state.revision = self._next_revision()
        state.snap = None
        return (Change("message", key, "updated"),)

    # --- tool calls -------------------------------------------------------

    def _tool_call_state(self, tool_call_id: str) -> tuple[_ToolCallState, bool]:
        state = self._tool_calls.get(tool_call_id)
        if state is not None:
            return state, False
        state = _ToolCallState(tool_call_id)
        self._tool_calls[tool_call_id] = state
        self._add_to_timeline("tool_call", tool_call_id)
        return state, True

    def _patch_tool_call(self, op: PatchToolCall) -> _Changes:
        state, created = self._tool_call_state(op.tool_call_id)
        action: ChangeAction = "added" if created else "updated"
        extra: list[Change] = []
        if op.title is not UNSET:
            state.title = op.title
        if op.kind is not UNSET:
            state.kind = "other" if op.kind is None else op.kind
        if op.status is not UNSET:
            state.status = "pending" if op.status is None else op.status
        content = op.content
        if content is not UNSET:
            state.content = list(content) if content else []
            extra = self._relink_terminals(state)
            if not created:
                action = "replaced"
        if op.locations is not UNSET:
            state.locations = tuple(op.locations) if op.locations else ()
        if op.raw_input is not UNSET:
            state.raw_input = op.raw_input
        if op.raw_output is not UNSET:
            state.raw_output = op.raw_output
        state.meta = _patched_meta(state.meta, op.meta, op.meta_merge)
        if op.name is not UNSET:
            state.name = op.name
        if op.capabilities is not UNSET:
            state.capabilities = op.capabilities
        state.revision = self._next_revision()
        state.snap = None
        change = Change("tool_call", op.tool_call_id, action)
        return (change, *extra) if extra else (change,)

    def _append_tool_call_content(self, op: AppendToolCallContent) -> _Changes:
        state, created = self._tool_call_state(op.tool_call_id)
        item = op.item
        state.content.append(item)
        state.revision = self._next_revision()
        state.snap = None
        change = Change(
            "tool_call", op.tool_call_id, "added" if created else "appended", item
        )
        terminal_id = terminal_ref(item)
        if terminal_id is not None and terminal_id not in state.terminal_refs:
            state.terminal_refs[terminal_id] = None
            added = self._link_terminal(terminal_id, state.tool_call_id)
            if added is not None:
                return (change, added)
        return (change,)

    def _relink_terminals(self, state: _ToolCallState) -> list[Change]:
        old = state.terminal_refs
        new: dict[str, None] = {}
        for item in state.content:
            terminal_id = terminal_ref(item)
            if terminal_id is not None:
                new[terminal_id] = None
        if not old and not new:
            return []
        state.terminal_refs = new
        for terminal_id in old:
            if terminal_id not in new:
                self._unlink_terminal(terminal_id, state.tool_call_id)
        changes: list[Change] = []
        for terminal_id in new:
            if terminal_id not in old:
                added = self._link_terminal(terminal_id, state.tool_call_id)
                if added is not None:
                    changes.append(added)
        return changes

    def _link_terminal(self, terminal_id: str, tool_call_id: str) -> Change | None:
        users = self._terminal_refs.setdefault(terminal_id, {})
        terminal = self._terminals.get(terminal_id)
        if not users and terminal is not None and terminal.in_timeline:
            self._timeline_changed()  # it stops being a standalone terminal
        users[tool_call_id] = None
        if terminal is not None:
            return None
        terminal = _TerminalState(terminal_id, self._max_terminal_bytes)
        terminal.revision = self._next_revision()
        self._terminals[terminal_id] = terminal
        return Change("terminal", terminal_id, "added")

    def _unlink_terminal(self, terminal_id: str, tool_call_id: str) -> None:
        users = self._terminal_refs.get(terminal_id)
        if users is None:
            return
        users.pop(tool_call_id, None)
        if not users:
            del self._terminal_refs[terminal_id]
            terminal = self._terminals.get(terminal_id)
            if terminal is not None and terminal.in_timeline:
                self._timeline_changed()  # standalone again

    def _cancel_unfinished_tool_calls(self, op: CancelUnfinishedToolCalls) -> _Changes:
        changes: list[Change] = []
        for state in self._tool_calls.values():
            if state.status not in FINAL_TOOL_STATUSES:
                state.status = "cancelled"
                state.revision = self._next_revision()
                state.snap = None
                changes.append(Change("tool_call", state.tool_call_id, "updated"))
        return tuple(changes)

    # --- plans ------------------------------------------------------------

    def _replace_plan(self, op: ReplacePlan) -> _Changes:
        created = op.plan_id not in self._plans
        if created:
            self._removed_plans.pop(op.plan_id, None)
            self._add_to_timeline("plan", op.plan_id)
        self._plans[op.plan_id] = Plan(
            op.plan_id, op.plan_type, op.entries, op.raw, self._next_revision()
        )
        return (Change("plan", op.plan_id, "added" if created else "replaced"),)

    def _remove_plan(self, op: RemovePlan) -> _Changes:
        if self._plans.pop(op.plan_id, None) is None:
            return _NO_CHANGES
        self._removed_plans[op.plan_id] = None
        self._timeline.remove(("plan", op.plan_id))
        self._timeline_changed()
        self._next_revision()
        return (Change("plan", op.plan_id, "removed"),)

    def _mark_cancelling(self, op: MarkCancelling) -> _Changes:
        kind = op.kind
        if kind == "tool_call":
            known = op.entity_id in self._tool_calls
        else:
            known = kind == "terminal" and op.entity_id in self._terminals
        key = (kind, op.entity_id)
        if not known or (key in self._cancelling) == op.cancelling:
            return _NO_CHANGES
        if op.cancelling:
            self._cancelling.add(key)
        else:
            self._cancelling.discard(key)
        self._next_revision()
        return (
            Change(
                "tool_call" if kind == "tool_call" else "terminal",
                op.entity_id,
                "updated",
            ),
        )

    # --- terminals --------------------------------------------------------

    def _terminal_state(self, terminal_id: str) -> tuple[_TerminalState, bool]:
        state = self._terminals.get(terminal_id)
        created = state is None
        if state is None:
            state = _TerminalState(terminal_id, self._max_terminal_bytes)
            self._terminals[terminal_id] = state
        if not state.in_timeline:
            # Its own state arrived: it has a place in the timeline (shown there
            # only while no tool call refers to it).
            state.in_timeline = True
            self._add_to_timeline("terminal", terminal_id)
        return state, created

    def _patch_terminal(self, op: PatchTerminal) -> _Changes:
        state, created = self._terminal_state(op.terminal_id)
        action: ChangeAction = "added" if created else "updated"
        if op.command is not UNSET:
            state.command = op.command
        if op.cwd is not UNSET:
            state.cwd = op.cwd
        if op.output is not UNSET:
            state.log.reset(op.output or b"")
            state.resets += 1
            if not created:
                action = "replaced"
        if op.exit_status is not UNSET:
            state.exit_status = op.exit_status
        state.meta = _patched_meta(state.meta, op.meta, op.meta_merge)
        if op.size is not UNSET:
            state.size = op.size
        if op.capabilities is not UNSET:
            state.capabilities = op.capabilities
        state.revision = self._next_revision()
        state.snap = None
        return (Change("terminal", op.terminal_id, action),)

    def _append_terminal_output(self, op: AppendTerminalOutput) -> _Changes:
        state, created = self._terminal_state(op.terminal_id)
        state.log.append(op.data)
        state.revision = self._next_revision()
        state.snap = None
        return (
            Change(
                "terminal", op.terminal_id, "added" if created else "appended", op.data
            ),
        )

    def _record_terminal_error(self, op: RecordTerminalError) -> _Changes:
        state, created = self._terminal_state(op.terminal_id)
        state.errors = (*state.errors, op.message)[-MAX_TERMINAL_ERRORS:]
        state.revision = self._next_revision()
        state.snap = None
        return (Change("terminal", op.terminal_id, "added" if created else "updated"),)

    # --- session-level state ----------------------------------------------

    def _set_config_options(self, op: SetConfigOptions) -> _Changes:
        self._config_options = tuple(op.options)
        self._config_wire = tuple(option.raw for option in self._config_options)
        return (Change("config_options", None, "replaced"),)

    def _set_available_commands(self, op: SetAvailableCommands) -> _Changes:
        self._commands = tuple(op.commands)
        return (Change("commands", None, "replaced"),)

    def _patch_session_info(self, op: PatchSessionInfo) -> _Changes:
        info = self._session_info
        self._session_info = SessionInfo(
            info.title if op.title is UNSET else op.title,
            info.updated_at if op.updated_at is UNSET else op.updated_at,
            _patched_meta(info.meta, op.meta, op.meta_merge),
            self._next_revision(),
        )
        return (Change("session_info", None, "updated"),)

    def _patch_usage(self, op: PatchUsage) -> _Changes:
        usage = self._usage
        action: ChangeAction = "updated"
        if usage is None:
            usage = Usage()
            action = "added"
        self._usage = Usage(
            usage.used if op.used is UNSET else op.used,
            usage.size if op.size is UNSET else op.size,
            usage.cost if op.cost is UNSET else op.cost,
            usage.meta if op.meta is UNSET else op.meta,
            self._next_revision(),
        )
        return (Change("usage", None, action),)

    def _set_turn_usage(self, op: SetTurnUsage) -> _Changes:
        action: ChangeAction = "added" if self._turn_usage is None else "updated"
        self._turn_usage = TurnUsage(
            op.total,
            op.input,
            op.output,
            op.thought,
            op.cached_read,
            op.cached_write,
            self._next_revision(),
        )
        return (Change("usage", None, action),)

    def _set_state(self, op: SetState) -> _Changes:
        previous = self._state
        idle = op.state == "idle"
        turns_ended = previous.turns_ended
        ended_at = previous.ended_at
        if idle and not previous.is_idle:
            turns_ended += 1
            ended_at = self._clock()
        last_stop_reason = previous.last_stop_reason
        if idle and op.stop_reason is not None:
            last_stop_reason = op.stop_reason
        self._state = SessionState(
            op.state,
            op.stop_reason,
            op.error,
            op.raw,
            last_stop_reason,
            turns_ended,
            ended_at,
            self._next_revision(),
        )
        return (Change("state", None, "updated"),)

    # --- permissions and elicitations --------------------------------------

    def _add_permission(self, op: AddPermission) -> _Changes:
        return self._ask(
            "permission",
            self._permissions,
            op.permission_id,
            lambda revision: Permission(
                op.permission_id,
                op.title,
                op.description,
                op.subject,
                tuple(op.options),
                op.tool_call_id,
                op.meta,
                None,
                revision,
            ),
        )

    def _resolve_permission(self, op: ResolvePermission) -> _Changes:
        return self._answer(
            "permission", self._permissions, op.permission_id, outcome=op.outcome
        )

    def _add_elicitation(self, op: AddElicitation) -> _Changes:
        return self._ask(
            "elicitation",
            self._elicitations,
            op.elicitation_id,
            lambda revision: Elicitation.asked(op, revision),
        )

    def _resolve_elicitation(self, op: ResolveElicitation) -> _Changes:
        return self._answer(
            "elicitation", self._elicitations, op.elicitation_id, outcome=op.outcome
        )

    def _complete_elicitation(self, op: CompleteElicitation) -> _Changes:
        elicitation = self._elicitations.get(op.elicitation_id)
        if elicitation is not None and elicitation.completed:
            return _NO_CHANGES
        return self._answer(
            "elicitation", self._elicitations, op.elicitation_id, completed=True
        )

    def _ask(
        self,
        kind: TimelineKind,
        requests: dict[str, _Request],
        request_id: str,
        request: Callable[[int], _Request],
    ) -> _Changes:
        """Add a request (made with its revision); a known id is updated in place."""
        created = request_id not in requests
        if created:
            self._add_to_timeline(kind, request_id)
        requests[request_id] = request(self._next_revision())
        return (Change(kind, request_id, "added" if created else "updated"),)

    def _answer(
        self,
        kind: TimelineKind,
        requests: dict[str, _Request],
        request_id: str,
        **changes: Any,
    ) -> _Changes:
        """Update a known request's fields (an unknown id is ignored)."""
        request = requests.get(request_id)
        if request is None:
            return _NO_CHANGES
        requests[request_id] = replace(
            request, **changes, revision=self._next_revision()
        )
        return (Change(kind, request_id, "updated"),)

    # --- other records ----------------------------------------------------

    def _record_unknown_update(self, op: RecordUnknownUpdate) -> _Changes:
        update_id = str(len(self._unknown_updates))
        self._unknown_updates.append(op.raw)
        self._add_to_timeline("unknown_update", update_id)
        return (Change("unknown_update", update_id, "added"),)

    def _record_notice(self, op: RecordNotice) -> _Changes:
        notice_id = str(self._notice_count)
        self._notice_count += 1
        self._notices.append(
            Notice(notice_id, op.severity, op.title, op.description, op.raw)
        )
        return (Change("notice", notice_id, "added"),)

    # --- queries ----------------------------------------------------------

    @property
    def session_id(self) -> str:
        """The ACP session id."""
        return self._session_id

    @property
    def cwd(self) -> str | None:
        """The session's directory (absolute), or None: paths read relative to it."""
        return self._cwd

    @property
    def max_terminal_bytes(self) -> int:
        """The most output bytes kept per terminal."""
        return self._max_terminal_bytes

    @property
    def max_message_chars(self) -> int:
        """What one message keeps (half head, half tail; see the module docstring)."""
        return self._max_message_chars

    def message(self, key: str, role: MessageRole | None = None) -> Message | None:
        """Return a message by its key (a change's or the timeline's id), or `None`.

        With `role`, `key` is the id the agent sent and the message of that role
        is returned (see `message_key`).
        """
        if role is not None:
            found = self._message_keys.get((key, role))
            if found is None:
                return None
            key = found
        return _snapshot_of(self._messages.get(key))

    def messages(self) -> tuple[Message, ...]:
        """Return every message, in order of first appearance."""
        return tuple(s.snapshot() for s in self._messages.values())

    def tool_call(self, tool_call_id: str) -> ToolCall | None:
        """Return a tool call, or `None` if unknown."""
        return _snapshot_of(self._tool_calls.get(tool_call_id))

    def tool_calls(self) -> tuple[ToolCall, ...]:
        """Return every tool call, in order of first appearance."""
        return tuple(s.snapshot() for s in self._tool_calls.values())

    def plan(self, plan_id: str) -> Plan | None:
        """Return a plan, or `None` if unknown."""
        return self._plans.get(plan_id)

    def removed_plans(self) -> tuple[str, ...]:
        """The ids of the plans the agent removed (and did not send again)."""
        return tuple(self._removed_plans)

    def cancelling(self, kind: str, entity_id: str) -> bool:
        """Whether the client asked to cancel this unfinished tool call or terminal.

        Args:
            kind: `"tool_call"` or `"terminal"`.
            entity_id: Its id.

        Returns:
            True from the request until the entity reaches a final status (a
            tool call's `completed`/`failed`/`cancelled`, a terminal's exit).
        """
        if (kind, entity_id) not in self._cancelling:
            return False
        if kind == "tool_call":
            tool_call = self.tool_call(entity_id)
            return tool_call is not None and not tool_call.is_final
        terminal = self.terminal(entity_id)
        return terminal is not None and not terminal.exited

    def plans(self) -> tuple[Plan, ...]:
        """Return every plan, in order of first appearance."""
        return tuple(self._plans.values())

    def terminal(self, terminal_id: str) -> Terminal | None:
        """Return a terminal, or `None` if neither its state nor a reference came."""
        return _snapshot_of(self._terminals.get(terminal_id))

    def terminals(self) -> tuple[Terminal, ...]:
        """Return every terminal, in order of first appearance."""
        return tuple(s.snapshot() for s in self._terminals.values())

    def terminal_ids_for_tool_call(self, tool_call_id: str) -> tuple[str, ...]:
        """Return the ids of the terminals a tool call's content refers to."""
        state = self._tool_calls.get(tool_call_id)
        return () if state is None else tuple(state.terminal_refs)

    def tool_call_ids_for_terminal(self, terminal_id: str) -> tuple[str, ...]:
        """Return the ids of the tool calls whose content refers to a terminal."""
        return tuple(self._terminal_refs.get(terminal_id, ()))

    def permission(self, permission_id: str) -> Permission | None:
        """Return a permission request, or `None` if unknown."""
        return self._permissions.get(permission_id)

    def permissions(self) -> tuple[Permission, ...]:
        """Return every permission request, in order received."""
        return tuple(self._permissions.values())

    def pending_permissions(self) -> tuple[Permission, ...]:
        """Return the permission requests not answered yet, in order received."""
        return tuple(p for p in self._permissions.values() if p.outcome is None)

    def elicitation(self, elicitation_id: str) -> Elicitation | None:
        """Return an elicitation, or `None` if unknown."""
        return self._elicitations.get(elicitation_id)

    def elicitations(self) -> tuple[Elicitation, ...]:
        """Return every elicitation, in order received."""
        return tuple(self._elicitations.values())

    def timeline(self) -> tuple[tuple[TimelineKind, str], ...]:
        """Return `(kind, id)` of what to display, in order of first appearance.

        Terminals referred to by a tool call are left out (they show inside it).
        """
        view = self._timeline_view
        if view is None:
            shown = self._timeline_shown
            if shown is None:
                refs = self._terminal_refs
                shown = self._timeline_shown = [
                    entry
                    for entry in self._timeline
                    if entry[0] != "terminal" or entry[1] not in refs
                ]
            view = self._timeline_view = tuple(shown)
        return view

    @property
    def timeline_revision(self) -> int:
        """A counter that bumps whenever `timeline()` changes."""
        return self._timeline_revision

    @property
    def config_options(self) -> tuple[JSONObject, ...]:
        """The config options in wire form, as received (for export and tests).

        The UI reads `settings`, the same options version-neutral.
        """
        return self._config_wire

    @property
    def settings(self) -> tuple[ConfigOption, ...]:
        """The config options, version-neutral (array order is the priority)."""
        return self._config_options

    @property
    def commands(self) -> tuple[JSONObject, ...]:
        """The available commands, as received."""
        return self._commands

    @property
    def session_info(self) -> SessionInfo:
        """Title, update time and `_meta` of the session."""
        return self._session_info

    @property
    def usage(self) -> Usage | None:
        """Context usage, or `None` before the first usage update."""
        return self._usage

    @property
    def turn_usage(self) -> TurnUsage | None:
        """The last turn's token usage, or `None` if no turn reported one."""
        return self._turn_usage

    @property
    def state(self) -> SessionState:
        """The foreground state (a new session is idle)."""
        return self._state

    @property
    def unknown_updates(self) -> tuple[JSONObject, ...]:
        """Unknown updates, raw, in order received."""
        return tuple(self._unknown_updates)

    @property
    def reports(self) -> Reports:
        """The agent's notices, compactions and session messages (`store.reports`)."""
        return self._reports

    @property
    def notices(self) -> tuple[Notice, ...]:
        """The most recent notices, oldest first."""
        return tuple(self._notices)

    # --- export -----------------------------------------------------------

    def to_json(
        self,
        terminal_text: Callable[[Terminal], str | None] | None = None,
        content: Callable[[Sequence[JSONObject]], list[JSONValue]] | None = None,
    ) -> dict[str, JSONValue]:
        """Return a JSON-ready snapshot of the session (plain dicts and lists).

        Wire objects keep exactly their wire keys; `_meta` keys appear only when
        set. The result is a deep copy: changing it does not touch the store.

        Args:
            terminal_text: If given, called for each terminal; a string result is
                added as the terminal's `text` (the emulator's rendering).
            content: If given, what each message's content (its head's blocks)
                becomes instead of a plain copy; it must return new objects only.
                A truncated message's tail block follows what it returns.

        Returns:
            The snapshot, ready for `json.dumps`.
        """
        state = self._state
        out: dict[str, JSONValue] = {
            "sessionId": self._session_id,
            "timeline": [{"kind": k, "id": i} for k, i in self.timeline()],
            "messages": [
                self._message_json(m, content or _plain) for m in self.messages()
            ],
            "toolCalls": [self._tool_call_json(t) for t in self.tool_calls()],
            "plans": [self._plan_json(p) for p in self._plans.values()],
            "terminals": [
                self._terminal_json(t, terminal_text) for t in self.terminals()
            ],
            "configOptions": _plain(self._config_wire),
            "commands": _plain(self._commands),
            "usage": None if self._usage is None else self._usage_json(self._usage),
            "info": fields_json(self._session_info, _INFO_KEYS),
            "permissions": [self._permission_json(p) for p in self.permissions()],
            "unknownUpdates": _plain(self._unknown_updates),
            "state": state.state,
            "stopReason": state.stop_reason,
        }
        if state.error is not None:
            out["error"] = _plain(state.error)
        if self._turn_usage is not None:  # left out when none, like elicitations
            out["turnUsage"] = fields_json(self._turn_usage, _TURN_USAGE_KEYS)
        out.update(self._reports.to_json())  # keys left out when empty, likewise
        if len(self._subagents):  # left out when none: older documents read the same
            out["subagents"] = self._subagents.to_json()
        if self._removed_plans:  # left out when none: older documents read the same
            out["removedPlans"] = list(self._removed_plans)
        if self._elicitations:  # left out when none: older documents read the same
            out["elicitations"] = [
                self._elicitation_json(e) for e in self._elicitations.values()
            ]
        return out

    @staticmethod
    def _message_json(
        message: Message, content: Callable[[Sequence[JSONObject]], JSONValue]
    ) -> dict[str, JSONValue]:
        out: dict[str, JSONValue] = {
            "messageId": message.message_id,
            "role": message.role,
            "content": content(message.content),
        }
        if message.key and message.key != message.message_id:
            out["key"] = message.key  # what the timeline names it by
        tail = message.tail
        if tail is not None:
            # Past the head only text is kept: one text block, and what was cut.
            blocks = out["content"]
            assert isinstance(blocks, list)
            blocks.append({"type": "text", "text": tail})
            out["truncated"] = {
                "cutChars": message.cut_chars,
                "cutBlocks": message.cut_blocks,
            }
        if message.meta is not None:
            out["_meta"] = _plain(message.meta)
        if message.from_agent:
            out["origin"] = "agent"
        return out

    @staticmethod
    def _tool_call_json(tool_call: ToolCall) -> dict[str, JSONValue]:
        out: dict[str, JSONValue] = {
            "toolCallId": tool_call.tool_call_id,
            "title": tool_call.title,
            "kind": tool_call.kind,
            "status": tool_call.status,
            "content": _plain(tool_call.content),
            "locations": _plain(tool_call.locations),
            "rawInput": _plain(tool_call.raw_input),
            "rawOutput": _plain(tool_call.raw_output),
        }
        if tool_call.meta is not None:
            out["_meta"] = _plain(tool_call.meta)
        if tool_call.name is not None:
            out["name"] = tool_call.name
        if tool_call.capabilities is not None:
            out["capabilities"] = _plain(tool_call.capabilities)
        return out

    @staticmethod
    def _plan_json(plan: Plan) -> JSONValue:
        entries, raw = plan.unpacked()
        if plan.plan_type != "items":
            return _plain(raw)
        out: dict[str, JSONValue] = {
            "planId": plan.plan_id,
            "type": plan.plan_type,
            "entries": _plain(entries),
        }
        meta = raw.get("_meta")
        if meta is not None:
            out["_meta"] = _plain(meta)
        return out

    @staticmethod
    def _terminal_json(
        terminal: Terminal, text: Callable[[Terminal], str | None] | None
    ) -> dict[str, JSONValue]:
        out: dict[str, JSONValue] = {
            "terminalId": terminal.terminal_id,
            "command": terminal.command,
            "cwd": terminal.cwd,
            "exitStatus": _plain(terminal.exit_status),
            "output": base64.b64encode(terminal.output).decode("ascii"),
        }
        if terminal.meta is not None:
            out["_meta"] = _plain(terminal.meta)
        if terminal.size is not None:
            out["size"] = _plain(terminal.size)
        if terminal.capabilities is not None:
            out["capabilities"] = _plain(terminal.capabilities)
        if terminal.dropped_bytes:
            out["droppedBytes"] = terminal.dropped_bytes
        if terminal.errors:
            out["errors"] = list(terminal.errors)
        if text is not None:
            rendered = text(terminal)
            if rendered is not None:
                out["text"] = rendered
        return out

    @staticmethod
    def _usage_json(usage: Usage) -> dict[str, JSONValue]:
        out: dict[str, JSONValue] = {"used": usage.used, "size": usage.size}
        if usage.cost is not None:
            out["cost"] = _plain(usage.cost)
        if usage.meta is not None:
            out["_meta"] = _plain(usage.meta)
        return out

    @staticmethod
    def _elicitation_json(elicitation: Elicitation) -> dict[str, JSONValue]:
        out: dict[str, JSONValue] = {
            "id": elicitation.elicitation_id,
            "mode": elicitation.mode,
            "message": elicitation.message,
        }
        if elicitation.requested_schema is not None:
            out["requestedSchema"] = _plain(elicitation.requested_schema)
        if elicitation.url is not None:
            out["url"] = elicitation.url
        if elicitation.url_id is not None:
            out["elicitationId"] = elicitation.url_id
        if elicitation.tool_call_id is not None:
            out["toolCallId"] = elicitation.tool_call_id
        if elicitation.meta is not None:
            out["_meta"] = _plain(elicitation.meta)
        out["outcome"] = _plain(elicitation.outcome)
        if elicitation.completed:
            out["completed"] = True
        return out

    @staticmethod
    def _permission_json(permission: Permission) -> dict[str, JSONValue]:
        out: dict[str, JSONValue] = {
            "permissionId": permission.permission_id,
            "title": permission.title,
            "description": permission.description,
            "subject": _plain(permission.subject),
            "options": _plain(permission.options),
            "outcome": _plain(permission.outcome),
        }
        if permission.tool_call_id is not None:
            out["toolCallId"] = permission.tool_call_id
        if permission.meta is not None:
            out["_meta"] = _plain(permission.meta)
        return out
