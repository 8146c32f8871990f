"""`session/update` notifications into their session's store, in received order.

`UpdateIntake` is the inbound half of `AcpClient` (`client.session`): it finds
the update's session, has the session's translator turn it into store ops, and
applies them (marking the agent's own user messages, guarding file writes).

Invariants:

* **Received order.** Updates are applied in the order they were read; the
  dispatcher runs a notification handler to its first await before it reads the
  next line.
* **Early updates are held, not lost.** An update for a session id whose
  `session/new` response has not arrived yet (an agent may report a session
  before answering) is held, at most `MAX_EARLY_UPDATES` per id, and applied
  first when the session opens. Once no `session/new` is pending, what no
  session claimed is dropped.
* **A huge chunk does not freeze the loop.** A chunk whose long text the reader
  set aside (`client.long_text`) is applied in steps, the rest of the loop (the
  UI) running between them.
* **Bad updates are reported, never raised.** A malformed update is logged and
  told to `on_diagnostic`; the connection goes on.
* **A run of chunks is applied at once, before anything else sees the store.**
  Once `batch_through(dispatcher)` wired it, the ops of an agent or thought
  message's chunk (most of a stream, nearly all of a replayed session) are kept
  pending and applied together, in one store batch (one journal write, one
  change notification): when any other update comes (first), when
  `MAX_PENDING_OPS` are pending, and when the dispatcher is about to let
  anything else run (`Dispatcher.before_others`: before its read loop suspends,
  before another kind of line or notification). The store's content is the same
  as with one batch per update, in the same order. Chunks of a user message are
  applied at once: marking them reads the store.
* **A run of plain text chunks is one op.** A chunk the translator names a
  plain text chunk (`SessionTranslator.text_chunk`) of an agent or thought
  message seen before (no mark to decide) costs no op: its text joins the
  pending run of its message (`ops.AppendMessageTexts`), which the store
  applies and the journal writes as the chunks one by one (the same content,
  changes and lines), without a call per chunk. The dispatcher reads only the
  text of a line that repeats such a chunk's line but for its text
  (`Dispatcher.learn_text_shape`, `protocol.text_shapes`). A terminal's output
  (`AppendTerminalOutput`) is kept pending as a chunk is.
* **So is a subagent's.** Subagents streaming in parallel interleave their
  chunks: a stretch of subagents' plain text chunks (of their messages, not
  the user's) is one op, `ops.InterleavedTexts`, a run per subagent (an
  `ops.InSubagent` of `ops.AppendMessageTexts`) and the order the chunks came
  in. The store applies each run at once and tells the changes in that order,
  the journal writes the chunks' lines in that order: the same content,
  revisions, changes and lines as the chunks one by one. The stretch ends with
  anything else kept pending, and when a subagent goes on with another
  message, or one inside it streams too (a run per subagent of the root).
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable, Coroutine, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any, Final

from pydantic import ValidationError

from acp_tui.client.dialect import SessionTranslator
from acp_tui.client.long_text import holds_long_text, put_back, set_aside
from acp_tui.client.subagents import Child, ChildSessions, HasDialect, Notifier
from acp_tui.client.tracked_session import TrackedSession
from acp_tui.protocol.dispatcher import Diagnostic, Dispatcher, yield_to_busy_loop
from acp_tui.protocol.framing import LongText
from acp_tui.store import ops
from acp_tui.store.ops import (
    AppendMessageChunk,
    AppendMessageTexts,
    AppendTerminalOutput,
    InterleavedTexts,
    MessageRole,
)

__all__ = ["MAX_EARLY_UPDATES", "UpdateIntake"]

log = logging.getLogger(__name__)

MAX_EARLY_UPDATES: Final = 10_000
"""Updates held for a session id whose `session/new` response is still pending."""

MAX_PENDING_OPS: Final = 4096
"""Ops of streamed chunks kept pending at most (see the module docstring)."""


@dataclass(slots=True)
class _Lane:
    """A subagent's run in the stretch of subagents' chunks (`UpdateIntake`)."""

    child: Child
    message: tuple[str, MessageRole]
    """The message id and role of its chunks."""
    texts: list[str]
    """Its texts (its `AppendMessageTexts`'s, still growing)."""
    index: int
    """Its index in the stretch's runs."""


class UpdateIntake:
    """Applies each `session/update` to its session's store.

    Args:
        sessions: The client's open sessions by id (read, never changed here).
        on_diagnostic: Told about malformed updates (also logged).
    """

    def __init__(
        self,
        sessions: Mapping[str, TrackedSession],
        on_diagnostic: Callable[[Diagnostic], None] | None,
        client: HasDialect | None = None,
    ) -> None:
        self._sessions = sessions
        self.children = ChildSessions(
            None if client is None else lambda store: client.dialect.translator(store)
        )
        """Announced subagent sessions, whose updates go to their root's store."""
        self._on_diagnostic = on_diagnostic
        self._early: dict[str, list[Any]] = {}
        self._pending_new = 0
        self._dispatcher: Dispatcher | None = None
        self._pending: list[ops.Op] = []
        """Chunk ops not applied yet, all of `_pending_session`'s."""
        self._pending_session: TrackedSession | None = None
        self._texts: list[str] | None = None
        """The run of plain text chunks after `_pending` (`_texts_id`'s, of
        `_texts_role`), not made an op yet (`_end_texts`)."""
        self._texts_id = ""
        self._texts_role: MessageRole = "agent"
        self._lanes: dict[str, _Lane] = {}
        """The runs of the stretch of subagents' chunks (`_order`'s), by the
        root's subagent they are in (a run per subagent of the root: the store
        applies them at once, `ops.InterleavedTexts`)."""
        self._runs: list[ops.Op] = []
        """Those runs, in `_pending`'s last op (`ops.InterleavedTexts`)."""
        self._order: list[int] | None = None
        """That op's order (None: no stretch is open)."""
        self._lane_chunks = 0
        """Subagents' chunks pending."""

    def batch_through(self, dispatcher: Dispatcher) -> None:
        """Keep runs of chunks pending until `dispatcher` lets anything else run.

        Its `session/update`s come here at once (`Dispatcher.notification_now`),
        its other notifications go on to its `on_notification`.
        """
        self._dispatcher = dispatcher
        others = dispatcher.on_notification

        def now(method: str, params: Any) -> Awaitable[None] | None:
            if method == "session/update":
                return self.receive_now(params)
            return others(method, params)

        dispatcher.notification_now = now
        dispatcher.notification_text = self._text_again

    def flush(self) -> None:
        """Apply the pending chunk ops (see the module docstring)."""
        session = self._pending_session
        if session is None:
            return
        self._end_texts()
        self._lane_chunks = 0
        operations = self._pending
        self._pending = []
        self._pending_session = None
        if self._dispatcher is not None:
            self._dispatcher.before_others = None
        session.store.apply_many(operations)

    @contextmanager
    def new_session_pending(self) -> Iterator[None]:
        """While a `session/new` is pending, updates for unknown ids are held."""
        self._pending_new += 1
        try:
            yield
        finally:
            self._pending_new -= 1
            if not self._pending_new:  # another session/new may still claim some
                self._early.clear()

    def opened(self, session: TrackedSession) -> None:
        """Apply the updates held for a session that has just opened."""
        self.flush()
        for params in self._early.pop(session.store.session_id, []):
            self._apply_held(session, params)

    async def receive(self, params: Any) -> None:
        """Apply one `session/update` (held, or logged and dropped if unknown)."""
        later = self.receive_now(params)
        if later is not None:
            await later

    def receive_now(self, params: Any) -> Coroutine[Any, Any, None] | None:
        """`receive`, done now; or what is left to await (None: nothing).

        An update is applied before this returns, but a subagent's and a chunk
        whose long text was set aside, which are applied by the coroutine
        returned (a long text in steps). Streamed chunks thus cost no coroutine.
        """
        session_id = params.get("sessionId") if isinstance(params, dict) else None
        session = (
            self._sessions.get(session_id) if isinstance(session_id, str) else None
        )
        child = None
        if session is None and isinstance(session_id, str):
            child = self._child(session_id)
        if child is not None:
            return self._receive_child_now(child, params)
        if session is None:
            if isinstance(session_id, str) and self._pending_new:
                early = self._early.setdefault(session_id, [])
                if len(early) < MAX_EARLY_UPDATES:
                    early.append(params)
                return None
            log.info("update for unknown session %r ignored", session_id)
            return None
        if self._dispatcher is not None:
            chunk = session.translator.text_chunk(params)
            if (
                chunk is not None
                and chunk[1] != "user"
                and session.origins.needs_no_mark(chunk[0])
            ):
                # A chunk of a message seen before (most updates): its text
                # joins the run (`_texts`), no op made for it.
                message_id, role, text = chunk
                self._add_text(session, message_id, role, text)
                # The next lines that repeat this one but for its text come to
                # `_text_again` (the dispatcher reads only their text).
                self._dispatcher.learn_text_shape = (
                    "text",
                    (session, message_id, role),
                )
                return None
        update = params.get("update")
        content = update.get("content") if type(update) is dict else None
        if type(content) is dict and isinstance(content.get("text"), LongText):
            # (`holds_long_text`, inline: this runs for every chunk)
            params, long_text = set_aside(params)
            if long_text is not None:
                self.flush()
                return self._apply_long(session, params, long_text)
        try:  # (`_translated`, inline: this runs for every update)
            operations = session.translator.translate(params)
        except ValidationError as error:
            self.flush()  # (reported after the updates before it are applied)
            self._malformed(params, error)
            return None
        if len(operations) == 1 and type(op := operations[0]) is AppendMessageChunk:
            # A streamed chunk, most updates: no file write to guard, no
            # subagent to note (`_apply` and `note` would pass it through).
            if self._dispatcher is not None and op.role != "user":
                marked = session.origins.mark(operations)
                if session is self._pending_session and len(marked) == 1:
                    self._end_texts()
                    self._pending.append(marked[0])  # (`_keep`'s common case)
                    if len(self._pending) >= MAX_PENDING_OPS:
                        self.flush()
                else:
                    self._keep(session, marked)
                return None
            self.flush()  # (marking a user message's chunk reads the store)
            session.store.apply_many(session.origins.mark(operations))
            return None
        if (
            self._dispatcher is not None
            and len(operations) == 1
            and type(operations[0]) is AppendTerminalOutput
        ):
            # A terminal's output joins the run too: no file write to guard,
            # no subagent to note, and marking it reads nothing of the store.
            self._keep(session, session.origins.mark(operations))
            return None
        self.flush()
        self._apply(session, operations)
        self.children.note(session, (), operations)
        return None

    def _keep(self, session: TrackedSession, operations: Sequence[ops.Op]) -> None:
        """Keep a chunk's ops pending (applied at once if the run is long)."""
        self._pending_for(session)
        self._pending.extend(operations)
        if len(self._pending) + self._lane_chunks >= MAX_PENDING_OPS:
            self.flush()

    def _pending_for(self, session: TrackedSession) -> None:
        """Make `session` the pending one (another's applied), its run ended."""
        if session is not self._pending_session:
            self.flush()
            self._pending_session = session
            assert self._dispatcher is not None
            self._dispatcher.before_others = self.flush  # (unset by `flush`)
        else:
            self._end_texts()

    def _add_text(
        self, session: TrackedSession, message_id: str, role: MessageRole, text: str
    ) -> None:
        """Add a plain text chunk of a message seen before to its run."""
        texts = self._texts
        if (
            texts is None
            or session is not self._pending_session
            or message_id != self._texts_id
            or role != self._texts_role
        ):
            texts = self._start_texts(session, message_id, role)
        texts.append(text)
        if len(texts) + len(self._pending) + self._lane_chunks >= MAX_PENDING_OPS:
            self.flush()

    def _text_again(self, token: Any, text: str) -> bool:
        """A chunk that repeats a learnt one but for its text (`receive_now`'s).

        `token` is what `receive_now` gave with the learnt line: its session,
        message id and role. The chunk is that message's, as long as the
        session is still open under its id (False: the dispatcher reads the
        line whole; `receive_now` decides).
        """
        session: TrackedSession
        role: MessageRole
        session, message_id, role = token
        if self._sessions.get(session.store.session_id) is not session:
            return False
        self._add_text(session, message_id, role, text)
        return True

    def _start_texts(
        self, session: TrackedSession, message_id: str, role: MessageRole
    ) -> list[str]:
        """A new run of text chunks of this message, after what is pending."""
        self._keep(session, ())  # (ends the run before, or flushes another session's)
        texts: list[str] = []
        self._texts = texts
        self._texts_id = message_id
        self._texts_role = role
        return texts

    def _end_texts(self) -> None:
        """The run of text chunks made one op, pending (`ops.AppendMessageTexts`).

        And the stretch of subagents' chunks ends: what is pending next comes
        after it.
        """
        texts = self._texts
        if texts is not None:
            self._texts = None
            op = AppendMessageTexts(self._texts_id, self._texts_role, texts)
            self._pending.append(op)
        if self._order is not None:
            self._order = None
            self._runs = []
            self._lanes.clear()

    def _receive_child_now(
        self, child: Child, params: Any
    ) -> Coroutine[Any, Any, None] | None:
        """A subagent session's update, as `receive_now` (its root's store).

        A subagent's streamed chunk joins the root's pending run, as the root's
        own do: subagents streaming in parallel interleave their chunks, so
        each chunk was a store batch of its own (20 subagents streaming 10,000
        chunks took 1.8x one agent's time; bench/ui.py). A plain text chunk
        joins its lane's run (`_add_lane_text`).
        """
        if self._dispatcher is not None:
            chunk = child.translator.text_chunk(params)
            if chunk is not None and chunk[1] != "user":
                message_id, role, text = chunk
                self._add_lane_text(child, message_id, role, text)
                return None
        if holds_long_text(params):
            self.flush()
            return self._receive_child(child, params)  # (a long text, in steps)
        operations = self._translated(params, child.translator)
        if operations is None:
            return None
        if (
            self._dispatcher is not None
            and len(operations) == 1
            and type(op := operations[0]) is AppendMessageChunk
            and op.role != "user"
        ):
            # (no subagent to note: `Subagents.note` looks for PatchSubagent)
            self._keep(child.root, child.wrap(operations))
            return None
        self.flush()
        child.root.store.apply_many(child.wrap(operations))
        self.children.note(child.root, child.path, operations)
        return None

    def _add_lane_text(
        self, child: Child, message_id: str, role: MessageRole, text: str
    ) -> None:
        """A subagent's plain text chunk joins the stretch (module docstring)."""
        order = self._order
        top = child.path[0]
        lane = self._lanes.get(top) if order is not None else None
        message = (message_id, role)
        if (
            order is not None
            and lane is not None
            and lane.child is child
            and lane.message == message
        ):
            lane.texts.append(text)
        else:
            if (  # (a run per top subagent; a batch is one session's)
                lane is not None
                or order is None
                or child.root is not self._pending_session
            ):
                self._pending_for(child.root)  # (ends the stretch)
                order = self._order = []
                self._pending.append(InterleavedTexts(self._runs, order))
            lane = _Lane(child, message, [text], len(self._runs))
            run = AppendMessageTexts(message_id, role, lane.texts)
            self._runs.extend(child.wrap((run,)))
            self._lanes[top] = lane
        order.append(lane.index)
        self._lane_chunks += 1
        if self._lane_chunks + len(self._pending) >= MAX_PENDING_OPS:
            self.flush()

    async def _receive_child(self, child: Child, params: Any) -> None:
        """A subagent session's update, into its root session's store."""
        params, long_text = set_aside(params)
        try:
            operations = child.translator.translate(params)
        except ValidationError as error:
            self._malformed(params, error)
            return
        if long_text is not None:
            await yield_to_busy_loop()
            store = child.root.store
            operations = put_back(operations, long_text, store.max_message_chars)
        child.root.store.apply_many(child.wrap(operations))
        self.children.note(child.root, child.path, operations)

    def _child(self, session_id: str) -> Child | None:
        """The announced child `session_id` of a session still open."""
        child = self.children.get(session_id)
        root = child.root if child is not None else None
        if root is None or self._sessions.get(root.store.session_id) is not root:
            return None
        return child

    def session_of(self, session_id: str) -> TrackedSession | None:
        """The open session `session_id`, or a child's (see `Child.session`)."""
        session = self._sessions.get(session_id)
        child = self._child(session_id) if session is None else None
        return child.session() if child is not None else session

    async def cancel_marks(
        self, session: TrackedSession, dispatcher: Notifier
    ) -> list[ops.Op]:
        """A cancel of `session`'s work: the ops marking what it cancelled.

        The current work's unfinished tool calls, and every running subagent;
        the children the agent lets the client cancel get a `session/cancel`.
        """
        self.flush()
        marks = session.unfinished_work_tool_calls()
        return marks + await self.children.cancel(session, dispatcher)

    def _apply_held(self, session: TrackedSession, params: Any) -> None:
        """Apply an update held before its session opened (nothing set aside yet)."""
        params, long_text = set_aside(params)
        operations = self._translated(params, session.translator)
        if operations is None:
            return
        if long_text is not None:
            store = session.store
            operations = put_back(operations, long_text, store.max_message_chars)
        self._apply(session, operations)
        self.children.note(session, (), operations)

    async def _apply_long(
        self, session: TrackedSession, params: Any, long_text: LongText
    ) -> None:
        """`_apply_held` for a chunk whose long text was set aside, in steps.

        Building what the store keeps of the text, then journaling and applying
        each op of it (a huge chunk's head, then its tail: megabytes each) are
        steps of their own, the rest of the loop (the UI) running between them.
        """
        operations = self._translated(params, session.translator)
        if operations is None:
            return
        await yield_to_busy_loop()
        operations = put_back(operations, long_text, session.store.max_message_chars)
        for op in operations:
            await yield_to_busy_loop()
            self._apply(session, [op])

    def _translated(
        self, params: Any, translator: SessionTranslator
    ) -> list[ops.Op] | None:
        """The store ops of one `session/update` (None: malformed, reported)."""
        try:
            return translator.translate(params)
        except ValidationError as error:
            self.flush()  # (reported after the updates before it are applied)
            self._malformed(params, error)
            return None

    @staticmethod
    def _apply(session: TrackedSession, operations: Sequence[ops.Op]) -> None:
        session.store.apply_many(session.writes.guard(session.origins.mark(operations)))

    def _malformed(self, params: Any, error: ValidationError) -> None:
        update = params.get("update") if isinstance(params, dict) else None
        kind = update.get("sessionUpdate") if isinstance(update, dict) else None
        first = error.errors(include_url=False)[0]
        where = ".".join(str(part) for part in first["loc"])
        message = (
            f"ignored a malformed {kind or 'session'} update ({where}: {first['msg']})"
        )
        log.warning("%s", message)
        if self._on_diagnostic is not None:
            self._on_diagnostic(Diagnostic("notification_error", message))
