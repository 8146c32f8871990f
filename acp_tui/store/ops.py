"""Version-neutral store operations: the store's only input.

The client's translators turn v1 and v2 wire messages into these ops; nothing
above that seam knows which protocol version is spoken. Each op is a frozen,
slotted dataclass and means exactly one thing:

* `Upsert*` / `Patch*` create a missing entity and change only the fields that
  were sent. Patch fields are three-state (see `values.Patch`): `UNSET` (omitted)
  leaves a field unchanged, `None` clears it, a value replaces it. Arrays are
  replaced whole.
* `Append*` add one item (a content block, a tool-call content item, terminal
  bytes) to what is there, creating the entity if needed. Appends are O(1)
  amortized in the store, however long the content grows.
* `Replace*` / `Set*` replace a whole value (a plan's entries, the config option
  list, the command list, the foreground state).
* `Record*` keep things the store does not interpret (unknown updates, notices).

Invariants the translator can rely on:

* Wire objects (content blocks, tool-call content items, `_meta`, plan entries,
  config options, raw payloads) are passed through as plain JSON and kept as
  received: the store never reshapes them, and never mutates them. The translator
  must not mutate them after handing them over either.
* Ops are applied in the order received; the store has no notion of time between
  ops.
* An op type the store does not know is ignored (no change, no error). A field of
  the wrong Python type may raise `TypeError`: the translator is trusted.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import KW_ONLY, dataclass
from typing import Literal, TypeAlias

from acp_tui.store.config import ConfigOption
from acp_tui.store.values import UNSET, JSONObject, JSONValue, Patch

__all__ = [
    "AddElicitation",
    "AddNotice",
    "AddPermission",
    "AppendCompactionSummary",
    "AppendMessageChunk",
    "AppendMessageTexts",
    "AppendSessionMessageChunk",
    "AppendTerminalOutput",
    "AppendToolCallContent",
    "CancelUnfinishedToolCalls",
    "CompleteElicitation",
    "CutMessageText",
    "ElicitationFields",
    "InSubagent",
    "InterleavedTexts",
    "MarkCancelling",
    "MessageOrigin",
    "MessageRole",
    "Op",
    "PatchCompaction",
    "PatchSessionInfo",
    "PatchSessionMessage",
    "PatchSubagent",
    "PatchTerminal",
    "PatchToolCall",
    "PatchUsage",
    "RecordNotice",
    "RecordTerminalError",
    "RecordUnknownUpdate",
    "RemovePlan",
    "ReplacePlan",
    "ResolveElicitation",
    "ResolvePermission",
    "SetAvailableCommands",
    "SetConfigOptions",
    "SetMessageOrigin",
    "SetState",
    "SetTurnUsage",
    "TurnUsageFields",
    "UpsertMessage",
]

MessageRole: TypeAlias = Literal["user", "agent", "thought"]
"""Whose message: the user's, the agent's reply, or the agent's thoughts."""

MessageOrigin: TypeAlias = Literal["user", "agent"]
"""Who wrote a message. Agent and thought messages are the agent's; a `user`
message is the user's unless it is marked as the agent's (`SetMessageOrigin`)."""


# --- messages ---------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class UpsertMessage:
    """A whole-message update (v2 `user_message` / `agent_message` / `agent_thought`).

    Creates the message if `message_id` is new for `role` (with empty content when
    `content` is `UNSET`). A message is its id and its role: an agent may give a
    thought and the answer after it one id, and they are two messages (the store
    keys the later one `<id>#<role>`).
    """

    message_id: str
    role: MessageRole
    _: KW_ONLY
    content: Patch[Sequence[JSONObject]] = UNSET
    """A list replaces *all* current content (including earlier chunks); `None` or
    `[]` clears it (the message stays); `UNSET` leaves it alone."""
    meta: Patch[JSONObject] = UNSET
    """The message's `_meta`: see `meta_merge`."""
    meta_merge: bool = False
    """False (alpha.3): an object replaces `_meta`, `None` clears it. True (newer
    draft): an object merges by top-level key, a key whose value is `None` is
    removed, other values replace that key (no deep merge), `{}` changes nothing;
    `None` still clears."""


@dataclass(frozen=True, slots=True)
class AppendMessageChunk:
    """A message chunk: append one content block (creating the message if new).

    The chunk's own `_meta` (beside `content` on the wire) belongs to the chunk and
    never patches the message: the translator drops it. A `_meta` *inside* the
    content block is part of the block and is kept.
    """

    message_id: str
    role: MessageRole
    block: JSONObject


@dataclass(frozen=True, slots=True)
class AppendMessageTexts:
    """A run of plain text chunks of one message, in order (a batch of chunks).

    Means exactly `AppendMessageChunk(message_id, role, {"type": "text", "text":
    text})` for each `text` of `texts`, in order: the store ends the same, with
    the same changes (one per text), and a journal writes the same lines (one
    chunk each). The client's intake gathers a streamed run of plain text chunks
    into one (`client.update_intake`): a run costs no op, no block and no store
    or journal call per chunk. Each text is exactly a `str`.
    """

    message_id: str
    role: MessageRole
    texts: Sequence[str]

    def chunks(self) -> list[AppendMessageChunk]:
        """The run as the `AppendMessageChunk`s it stands for, in order."""
        message_id, role = self.message_id, self.role
        return [
            AppendMessageChunk(message_id, role, {"type": "text", "text": text})
            for text in self.texts
        ]


@dataclass(frozen=True, slots=True)
class CutMessageText:
    """A message's text went on with `omitted` characters not kept, then `text`.

    What is kept of a chunk too long for any message (longer than the store's
    `max_message_chars`): an `AppendMessageChunk` with the chunk's block cut to
    its first characters, then this op with how many characters were left out and
    the chunk's last ones (`SessionStore.cut_chunk` makes the pair). The store
    ends as the whole chunk would have left it, without the whole text ever being
    built, encoded or journaled: a 200 MB chunk is handled as about 16 MB. Past
    this op the message's head is closed (no later block joins it).
    """

    message_id: str
    role: MessageRole
    omitted: int
    """Characters left out (never shown, journaled or kept), at least 0."""
    text: str
    """The text after them."""


@dataclass(frozen=True, slots=True)
class SetMessageOrigin:
    """Mark who wrote a `user` message (it starts as the user's).

    The client marks a user message the agent sent on its own (one that answers
    no prompt sent from this app and replays no history) as `"agent"`, so it is
    never shown, saved or exported as what the user typed; `"user"` takes a mark
    back. An unknown id, or a message that is not a `user` message, is ignored.
    The mark stays whatever content comes later.
    """

    message_id: str
    origin: MessageOrigin


# --- tool calls -------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class PatchToolCall:
    """A tool-call upsert (v2 `tool_call_update`, v1 `tool_call` and its update).

    A first-seen id creates the tool call with the defaults: title `None`, kind
    `"other"`, status `"pending"`, content and locations `[]`, everything else
    `None`. Then each field: `UNSET` unchanged, `None` clears (kind back to
    `"other"`, status to `"pending"`, content/locations to `[]`, the rest to
    `None`), a value replaces. Kinds and statuses are open strings.
    """

    tool_call_id: str
    _: KW_ONLY
    title: Patch[str] = UNSET
    kind: Patch[str] = UNSET
    status: Patch[str] = UNSET
    content: Patch[Sequence[JSONObject]] = UNSET
    """Replaces everything accumulated (later appends append to it)."""
    locations: Patch[Sequence[JSONObject]] = UNSET
    raw_input: Patch[JSONValue] = UNSET
    raw_output: Patch[JSONValue] = UNSET
    meta: Patch[JSONObject] = UNSET
    meta_merge: bool = False
    """How an object `meta` applies: see `UpsertMessage.meta_merge`."""
    name: Patch[str] = UNSET
    capabilities: Patch[JSONObject] = UNSET


@dataclass(frozen=True, slots=True)
class AppendToolCallContent:
    """A `tool_call_content_chunk`: append one content item.

    An unknown id creates the tool call with the defaults first.
    """

    tool_call_id: str
    item: JSONObject


@dataclass(frozen=True, slots=True)
class CancelUnfinishedToolCalls:
    """Mark every unfinished tool call `cancelled` (right after the user cancels).

    Final statuses are `completed`, `failed` and `cancelled`; anything else,
    including unknown statuses, counts as unfinished.
    """


# --- plans ------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class ReplacePlan:
    """A plan update: replace plan `plan_id`'s entries completely.

    v1 has one plan per session: the translator uses the id `"main"` and the type
    `"items"`. An unknown `plan_type` is kept; `raw` (the whole wire plan object)
    lets the UI show it generically.
    """

    plan_id: str
    plan_type: str
    entries: Sequence[JSONObject]
    raw: JSONObject


@dataclass(frozen=True, slots=True)
class RemovePlan:
    """The agent dismissed plan `plan_id`: it leaves the plans and the timeline.

    Unknown ids change nothing. A later `ReplacePlan` of the same id adds it anew.
    """

    plan_id: str


@dataclass(frozen=True, slots=True)
class MarkCancelling:
    """The client asked the agent to cancel one tool call or terminal (or gave up).

    `kind` is `"tool_call"` or `"terminal"`; `cancelling` False clears the mark
    (the request failed). The mark shows only until the entity reaches a final
    status (`SessionStore.cancelling`).
    """

    kind: str
    entity_id: str
    cancelling: bool = True


# --- terminals --------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class PatchTerminal:
    """A terminal upsert (v2 `terminal_update`, or a v1 client-owned terminal).

    A first-seen id creates the terminal with every field empty.
    """

    terminal_id: str
    _: KW_ONLY
    command: Patch[str] = UNSET
    cwd: Patch[str] = UNSET
    output: Patch[bytes] = UNSET
    """An authoritative snapshot (already base64-decoded) that replaces all stored
    bytes; `None` clears them. Either way the terminal's `resets` counter bumps, so
    an emulator knows to reset."""
    exit_status: Patch[JSONObject] = UNSET
    """Any object, even `{}`, means exited; `None` clears a previous exit status."""
    meta: Patch[JSONObject] = UNSET
    meta_merge: bool = False
    """How an object `meta` applies: see `UpsertMessage.meta_merge`."""
    size: Patch[JSONObject] = UNSET
    capabilities: Patch[JSONObject] = UNSET


@dataclass(frozen=True, slots=True)
class AppendTerminalOutput:
    """A `terminal_output_chunk`: append bytes (each chunk base64-decoded alone).

    An unknown id creates the terminal first.
    """

    terminal_id: str
    data: bytes


@dataclass(frozen=True, slots=True)
class RecordTerminalError:
    """Terminal data that could not be used (invalid base64): shown on the terminal.

    An unknown id creates the terminal first. The output is left as it was (the
    stream carries on with the next chunk).
    """

    terminal_id: str
    message: str


# --- session-level state ----------------------------------------------------


@dataclass(frozen=True, slots=True)
class SetConfigOptions:
    """Replace the whole config option list (array order is the priority).

    The options are version-neutral (`store.config.ConfigOption`): the dialect
    read them from the wire (`store.config.read_option`).
    """

    options: Sequence[ConfigOption]


@dataclass(frozen=True, slots=True)
class SetAvailableCommands:
    """Replace the whole available command list."""

    commands: Sequence[JSONObject]


@dataclass(frozen=True, slots=True)
class PatchSessionInfo:
    """A `session_info_update`: omitted unchanged, `None` clears, value replaces."""

    _: KW_ONLY
    title: Patch[str] = UNSET
    updated_at: Patch[str] = UNSET
    meta: Patch[JSONObject] = UNSET
    meta_merge: bool = False
    """How an object `meta` applies: see `UpsertMessage.meta_merge`."""


@dataclass(frozen=True, slots=True)
class PatchUsage:
    """A `usage_update`: omitted unchanged, `None` clears, value replaces."""

    _: KW_ONLY
    used: Patch[int] = UNSET
    size: Patch[int] = UNSET
    cost: Patch[JSONObject] = UNSET
    meta: Patch[JSONObject] = UNSET


@dataclass(frozen=True, slots=True)
class TurnUsageFields:
    """A turn's token usage (`SetTurnUsage`, `model.TurnUsage`: both).

    Not an op itself: `SetTurnUsage` carries these fields, and the store's
    `model.TurnUsage` keeps them. `None` fields were not reported.
    """

    total: int
    input: int
    output: int
    thought: int | None = None
    cached_read: int | None = None
    cached_write: int | None = None


@dataclass(frozen=True, slots=True)
class SetTurnUsage(TurnUsageFields):
    """The token usage of the turn that just ended (unstable end-turn usage).

    v1: the `session/prompt` response's `usage`; v2: the idle `state_update`'s.
    Replaces the last turn's. Its fields: `TurnUsageFields`.
    """


# --- foreground state -------------------------------------------------------


@dataclass(frozen=True, slots=True)
class SetState:
    """The agent's foreground state (v2 `state_update`; v1 prompt start and end).

    `state` is an open string: only `"idle"` is idle, anything else (`running`,
    `requires_action`, unknown) is busy. `stop_reason` comes with an idle that ends
    foreground work (the translator passes `None` for a missing or malformed one);
    `error` with a stop reason `error`. `raw` is the wire update, if any.
    """

    state: str
    stop_reason: str | None = None
    error: JSONObject | None = None
    raw: JSONObject | None = None


# --- permission requests ----------------------------------------------------


@dataclass(frozen=True, slots=True)
class AddPermission:
    """A `session/request_permission` request was received.

    `permission_id` is the store's key for it (the translator can use the
    JSON-RPC request id as a string). A `tool_call` subject should also be applied
    as a `PatchToolCall` (before this op), and its id passed as `tool_call_id`.
    Re-adding a known id updates it in place and makes it pending again.
    """

    permission_id: str
    title: str | None
    description: str | None = None
    subject: JSONObject | None = None
    options: Sequence[JSONObject] = ()
    tool_call_id: str | None = None
    meta: JSONObject | None = None


@dataclass(frozen=True, slots=True)
class ResolvePermission:
    """A permission request was answered (or cancelled): record its outcome.

    `outcome` is the wire outcome object, e.g. `{"outcome": "selected",
    "optionId": "x"}` or `{"outcome": "cancelled"}`. An unknown id is ignored.
    """

    permission_id: str
    outcome: JSONObject


# --- elicitations -------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class ElicitationFields:
    """What an `elicitation/create` asks (`AddElicitation`, `Elicitation`: both).

    Not an op itself: `AddElicitation` carries these fields, and the store's
    `model.Elicitation` keeps them.

    `elicitation_id` is the store's key for it (the JSON-RPC request id as a
    string, as for permissions). `mode` is `form` (with `requested_schema`, the
    restricted JSON Schema as received) or `url` (with `url` and `url_id`, the
    wire `elicitationId` an `elicitation/complete` names); other modes are kept
    as sent. `tool_call_id` names the tool call it is about, if any.
    """

    elicitation_id: str
    mode: str
    message: str
    requested_schema: JSONObject | None = None
    url: str | None = None
    url_id: str | None = None
    tool_call_id: str | None = None
    meta: JSONObject | None = None


@dataclass(frozen=True, slots=True)
class AddElicitation(ElicitationFields):
    """An `elicitation/create` request of a session was received.

    Its fields and their meaning: `ElicitationFields`.
    """


@dataclass(frozen=True, slots=True)
class ResolveElicitation:
    """An elicitation was answered (or cancelled): record the response sent.

    `outcome` is the wire response, e.g. `{"action": "accept", "content": {...}}`,
    `{"action": "decline"}` or `{"action": "cancel"}`. An unknown id is ignored.
    """

    elicitation_id: str
    outcome: JSONObject


@dataclass(frozen=True, slots=True)
class CompleteElicitation:
    """A URL elicitation's interaction finished (`elicitation/complete`).

    An unknown id is ignored.
    """

    elicitation_id: str


# --- subagents ----------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class PatchSubagent:
    """A subagent (a child session the session owns) was announced or changed.

    A first-seen id creates it (status `"running"`, started at `at_ms`) and adds it
    to the timeline; later ops patch the fields sent (three-state, like
    `PatchToolCall`). `status` is neutral: `"running"`, `"waiting"` (blocked on
    the user), `"done"`, `"failed"`, `"cancelled"` or `"unknown"`; `None` leaves
    it. A status that ends the work records `at_ms` as its end; `"running"`
    again clears the end. Times are milliseconds since the epoch, carried in the
    op so a replayed journal shows the same times.
    """

    subagent_id: str
    _: KW_ONLY
    title: Patch[str] = UNSET
    description: Patch[str] = UNSET
    parent_tool_call_id: Patch[str] = UNSET
    status: str | None = None
    stop_reason: Patch[str] = UNSET
    error: Patch[str] = UNSET
    can_cancel: bool | None = None
    """Whether the client may cancel the child's work (None: unchanged)."""
    at_ms: int | None = None


@dataclass(frozen=True, slots=True)
class InSubagent:
    """An op of a subagent's own session (its messages, tool calls, terminals).

    Applied to the subagent's own store (created if the id is new, as if
    `PatchSubagent` had announced it).
    """

    subagent_id: str
    inner: Op


@dataclass(frozen=True, slots=True)
class InterleavedTexts:
    """Runs of text chunks of several stores, interleaved as they came.

    Each of `runs` is a run of text chunks (`AppendMessageTexts`) of the
    session's own or, in `InSubagent`s however nested, of a subagent's; `order`
    names, chunk by chunk in the order they came, the run it is the next text
    of. Means exactly those chunks in that order (`chunks`): the stores end the
    same, with the same changes in the same order, and a journal writes the
    same lines. The client's intake gathers subagents streaming in parallel so
    (`client.update_intake`): a run costs one op, not one per chunk. A store
    applies each run at once where that is the same: the runs are of stores
    that exist already (no subagent is announced by them), no two in one
    subagent of the store (or both its own), and `order` names each run as
    many times as it has texts; else chunk by chunk.
    """

    runs: Sequence[Op]
    order: Sequence[int]

    def chunks(self) -> list[Op]:
        """The chunks, in `order` (each in its subagents, as its run is).

        An index past its run's texts (or of no run) names no chunk; texts
        `order` does not name are not chunks.
        """
        queues: list[list[Op]] = []
        for run in self.runs:
            path: list[str] = []
            inner = run
            while type(inner) is InSubagent:
                path.append(inner.subagent_id)
                inner = inner.inner
            chunks: list[Op] = []
            if type(inner) is AppendMessageTexts:
                for chunk in inner.chunks():
                    op: Op = chunk
                    for subagent_id in reversed(path):
                        op = InSubagent(subagent_id, op)
                    chunks.append(op)
            chunks.reverse()
            queues.append(chunks)
        ordered: list[Op] = []
        for index in self.order:
            queue = queues[index] if 0 <= index < len(queues) else None
            if queue:
                ordered.append(queue.pop())
        return ordered


# --- other records ----------------------------------------------------------


@dataclass(frozen=True, slots=True)
class RecordUnknownUpdate:
    """An unknown `sessionUpdate` (vendor or future): keep the raw payload."""

    raw: JSONObject


@dataclass(frozen=True, slots=True)
class RecordNotice:
    """A live notice (a toast): kept in a bounded list, not in the timeline."""

    severity: str
    title: str
    description: str | None = None
    raw: JSONObject | None = None


# --- what the agent reports about itself (kept by `store.reports`) --------


@dataclass(frozen=True, slots=True)
class AddNotice:
    """A notice the agent sent (`notice`): a new entry in the timeline.

    Advisory only; `severity` is an open string (`info`, `warning`, `error`).
    """

    severity: str
    title: str
    description: str | None = None
    meta: JSONObject | None = None


@dataclass(frozen=True, slots=True)
class PatchCompaction:
    """A `compaction_update`: a compaction upsert by the agent's id.

    A first-seen id creates it (its place in the timeline). `status` is required
    and open; `summary` replaces the blocks accumulated (`None` or `[]` clears),
    `error` and `meta` are three-state.
    """

    compaction_id: str
    status: str
    _: KW_ONLY
    summary: Patch[Sequence[JSONObject]] = UNSET
    error: Patch[str] = UNSET
    meta: Patch[JSONObject] = UNSET
    meta_merge: bool = False
    """How an object `meta` applies: see `UpsertMessage.meta_merge` (v2 merges)."""


@dataclass(frozen=True, slots=True)
class AppendCompactionSummary:
    """A `compaction_summary_chunk`: append one block to a compaction's summary.

    A first-seen id creates an `in_progress` compaction.
    """

    compaction_id: str
    block: JSONObject


@dataclass(frozen=True, slots=True)
class PatchSessionMessage:
    """A `session_message`: an upsert of a message between sessions, by its id.

    Participants and references are three-state; `content` replaces the blocks
    accumulated (`None` clears).
    """

    message_id: str
    _: KW_ONLY
    sender_session_id: Patch[str] = UNSET
    recipient_session_id: Patch[str] = UNSET
    sender_message_id: Patch[str] = UNSET
    recipient_message_id: Patch[str] = UNSET
    content: Patch[Sequence[JSONObject]] = UNSET
    meta: Patch[JSONObject] = UNSET
    meta_merge: bool = False
    """How an object `meta` applies: see `UpsertMessage.meta_merge` (v2 merges)."""


@dataclass(frozen=True, slots=True)
class AppendSessionMessageChunk:
    """A `session_message_chunk`: append one block (a first-seen id creates it)."""

    message_id: str
    block: JSONObject


Op: TypeAlias = (
    UpsertMessage
    | AppendMessageChunk
    | AppendMessageTexts
    | CutMessageText
    | SetMessageOrigin
    | PatchToolCall
    | AppendToolCallContent
    | CancelUnfinishedToolCalls
    | ReplacePlan
    | RemovePlan
    | MarkCancelling
    | PatchTerminal
    | AppendTerminalOutput
    | RecordTerminalError
    | SetConfigOptions
    | SetAvailableCommands
    | PatchSessionInfo
    | PatchUsage
    | SetTurnUsage
    | SetState
    | AddPermission
    | ResolvePermission
    | AddElicitation
    | ResolveElicitation
    | CompleteElicitation
    | RecordUnknownUpdate
    | RecordNotice
    | AddNotice
    | PatchCompaction
    | AppendCompactionSummary
    | PatchSessionMessage
    | AppendSessionMessageChunk
    | PatchSubagent
    | InSubagent
    | InterleavedTexts
)
"""Every store operation."""
