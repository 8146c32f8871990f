"""Who wrote each user message: the user, or the agent impersonating them.

An agent reports user messages itself (v2 `user_message`, `user_message_chunk`
in both versions), and nothing on the wire says whether the user typed them. An
agent that sends one in the middle of a turn would have it shown, saved and
exported as "you". `MessageOrigins` decides, for one session, which user
messages are the user's and marks the others with `SetMessageOrigin(id,
"agent")`, so every layer above shows them as the agent's. A user message is the
user's when it is one of:

* **The acknowledgment of a prompt sent from here** (v2: the agent reports the
  prompt back as a user message). While a prompt waits for it, the first *new*
  user message claims it, unless the prompt's response named another id
  (`messageId`, which then wins: a message that claimed it before is marked
  the agent's, the named one is the user's). Its text must be the text that was
  sent (compared with whitespace collapsed; a message still streaming must be
  a prefix of it): an agent that rewrites the prompt gets its version marked.
  The acknowledgment may be streamed in chunks until the turn moves on (another
  message, a tool call, a plan, a terminal, a permission); content the agent
  adds to it later, or to any earlier user message, marks it.
* **History replayed while the session is reattached** (v1 `session/load` and
  `session/resume`, v2 `session/resume`), until the agent answers: nothing
  sent from here can be in it, and the client has no way to check the agent's
  account of the past, so it is shown as history, as the agent tells it. A
  message that was marked in the live session keeps its mark in the saved
  transcript; the agent's own replay of it cannot say, so it is shown as
  history.
* **v1 prompts** are stored by the client itself (`AcpClient.prompt`): they
  never pass through here. Every user message the agent sends during a v1
  turn, or while no turn runs, is the agent's.

Everything else is the agent's: a user message during a turn (v2: after the
acknowledgment), between turns, or before any prompt.

The decision is made from the ops of each update, before they are applied
(`mark`), so the mark lands in the same `apply_many` as the message it marks:
no listener ever sees the message without it.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Final

from acp_tui.store.model import block_text
from acp_tui.store.ops import (
    AddPermission,
    AppendMessageChunk,
    AppendTerminalOutput,
    AppendToolCallContent,
    Op,
    PatchTerminal,
    PatchToolCall,
    RecordUnknownUpdate,
    ReplacePlan,
    SetMessageOrigin,
    UpsertMessage,
)
from acp_tui.store.store import SessionStore
from acp_tui.store.values import UNSET, JSONObject

__all__ = ["MessageOrigins"]

_MESSAGE_OPS: Final = (UpsertMessage, AppendMessageChunk)

_MOVES_ON: Final = (
    PatchToolCall,
    AppendToolCallContent,
    ReplacePlan,
    PatchTerminal,
    AppendTerminalOutput,
    AddPermission,
    RecordUnknownUpdate,
)
"""Ops after which the turn has moved past the prompt's acknowledgment."""


def _squeezed(text: str) -> str:
    return " ".join(text.split())


def _text(blocks: Iterable[JSONObject]) -> str:
    return "".join(t for b in blocks if (t := block_text(b)) is not None)


class MessageOrigins:
    """Marks the user messages of one session that the agent wrote (see above).

    Args:
        store: The session's store (read to know which messages exist).
        reattaching: The session is being reattached: what comes before
            `reattached()` is replayed history.
    """

    def __init__(self, store: SessionStore, *, reattaching: bool = False) -> None:
        self._store = store
        self._replaying = reattaching
        self._waiting = False
        """A prompt waits for its acknowledgment."""
        self._named: str | None = None
        """The message id the prompt's response named, if any."""
        self._ack: str | None = None
        """The message acknowledging the current prompt."""
        self._ack_open = False
        """The acknowledgment may still be streamed into."""
        self._ack_text = ""
        self._sent = ""
        """The current prompt's text (squeezed)."""
        self._agent_messages: set[str] = set()
        """Ids of the agent and thought messages seen: their ops need no decision
        (a message is its id and its role: a user message may share such an id)."""
        self._marked: set[str] = set()
        """User messages marked as the agent's: their ops need no decision."""

    # --- what the session layer tells it -----------------------------------------

    def reattached(self) -> None:
        """The agent answered the reattach: later user messages are not history."""
        self._replaying = False

    def prompt_sent(self, blocks: Sequence[JSONObject]) -> None:
        """A prompt went out: the next new user message may acknowledge it."""
        self._sent = _squeezed(_text(blocks))
        self._waiting = True
        self._named = None
        self._ack = None
        self._ack_open = False
        self._ack_text = ""

    def prompt_accepted(self, message_id: str | None) -> list[Op]:
        """The prompt's response came; `message_id` is the id it names, if any.

        Returns:
            The marks to apply: a message that claimed the acknowledgment but is
            not the one named is the agent's; the named one, if it came already
            and says what was sent, is the user's.
        """
        if message_id is None or message_id == self._ack:
            return []
        marks: list[Op] = []
        if self._ack is not None:  # another message claimed it: not the prompt's
            marks.append(SetMessageOrigin(self._ack, "agent"))
            self._marked.add(self._ack)
            self._ack = None
            self._ack_open = False
            self._waiting = True
        self._named = message_id
        message = self._store.message(message_id, "user")
        if self._waiting and message is not None and self._matches(message.text):
            self._claim(message_id, message.text)
            if message.from_agent:
                marks.append(SetMessageOrigin(message_id, "user"))
                self._marked.discard(message_id)
        return marks

    def turn_ended(self) -> list[Op]:
        """The prompt's turn is over: nothing more can acknowledge it.

        Returns:
            A mark for an acknowledgment that stopped short of what was sent.
        """
        marks = self._close_ack()
        self._waiting = False
        self._named = None
        self._ack = None
        return marks

    # --- the ops of one update ---------------------------------------------------

    def needs_no_mark(self, message_id: str) -> bool:
        """Whether a chunk of the agent or thought message `message_id` needs no mark.

        True once the message was seen (`mark` passes its chunks through): its
        chunks may be applied without asking `mark`.
        """
        return message_id in self._agent_messages

    def mark(self, operations: Sequence[Op]) -> Sequence[Op]:
        """Return `operations` with the marks they call for.

        Each op that makes the agent the author of a user message is followed by
        its `SetMessageOrigin(id, "agent")`. Without marks, `operations` itself is
        returned: the ops of an agent message cost one set lookup each (this runs
        for every streamed chunk).
        """
        if len(operations) == 1:  # a streamed chunk of a known agent message
            op = operations[0]
            if (
                type(op) is AppendMessageChunk
                and op.role != "user"
                and op.message_id in self._agent_messages
            ):
                return operations
        marks: list[tuple[int, list[Op]]] = []
        batch: _Batch | None = None
        agent_messages, marked = self._agent_messages, self._marked
        for index, op in enumerate(operations):
            if isinstance(op, _MESSAGE_OPS):
                if op.role != "user":
                    if op.message_id in agent_messages:
                        continue
                    agent_messages.add(op.message_id)  # new: the turn moved on
                    found = self._close_ack()
                elif op.message_id in marked:
                    continue
                else:
                    if batch is None:
                        batch = _Batch()
                    found = self._message_op(op, batch)
            elif self._ack_open and isinstance(op, _MOVES_ON):
                found = self._close_ack()
            else:
                continue
            if found:
                marks.append((index, found))
        if not marks:
            return operations
        out: list[Op] = []
        done = 0
        for index, found in marks:
            out.extend(operations[done : index + 1])
            out.extend(found)
            done = index + 1
        out.extend(operations[done:])
        return out

    def _message_op(
        self, op: UpsertMessage | AppendMessageChunk, batch: _Batch
    ) -> list[Op]:
        message_id = op.message_id  # a user message's (`mark` sees to that)
        if message_id in batch.texts:  # created or changed earlier in this batch
            before = batch.texts[message_id]
        else:
            existing = self._store.message(message_id, "user")
            if existing is None:  # created by this op
                before = ""
            elif not existing.from_agent:
                before = existing.text
            else:  # already marked: its own business
                self._marked.add(message_id)
                return []
        if isinstance(op, AppendMessageChunk):
            text = before + (block_text(op.block) or "")
        elif op.content is UNSET:
            return []  # only its `_meta`
        else:
            text = _text(op.content or ())
        batch.texts[message_id] = text
        if self._replaying or self._keeps(message_id, text):
            return []
        self._marked.add(message_id)
        if message_id == self._ack:
            self._ack = None
        return [SetMessageOrigin(message_id, "agent")]

    def _keeps(self, message_id: str, text: str) -> bool:
        """Whether a user message may now read `text` and stay the user's."""
        if message_id == self._ack:
            if self._ack_open and self._matches(text):
                self._ack_text = text
                return True
            return False
        if self._ack is None and self._may_claim(message_id) and self._matches(text):
            self._claim(message_id, text)
            return True
        return False

    # --- helpers -------------------------------------------------------------------

    def _may_claim(self, message_id: str) -> bool:
        """Whether `message_id` may acknowledge the prompt that waits for one."""
        return self._waiting and self._named in (None, message_id)

    def _matches(self, text: str) -> bool:
        """Whether `text` is (so far) the prompt's text."""
        return self._sent.startswith(_squeezed(text))

    def _claim(self, message_id: str, text: str) -> None:
        self._waiting = False
        self._ack = message_id
        self._ack_open = True
        self._ack_text = text

    def _close_ack(self) -> list[Op]:
        """The acknowledgment is complete: it must be all that was sent."""
        if not self._ack_open or self._ack is None:
            return []
        self._ack_open = False
        if _squeezed(self._ack_text) == self._sent:
            return []
        ack, self._ack = self._ack, None
        self._marked.add(ack)
        return [SetMessageOrigin(ack, "agent")]


class _Batch:
    """What `mark` learnt from the earlier ops of one update."""

    __slots__ = ("texts",)

    def __init__(self) -> None:
        self.texts: dict[str, str] = {}
        """The texts of the user messages created or changed so far."""
