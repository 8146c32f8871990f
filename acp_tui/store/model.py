"""Store entities: frozen, slotted snapshots that the UI reads.

Invariants:

* An entity is an immutable snapshot of one revision. Queries return the same
  object until the entity changes, so "did it change?" is an identity check
  (`a is b`) or a `revision` comparison.
* `revision` comes from one store-wide counter that increases on every change, so
  an entity's revision increases whenever it changes (and is comparable across
  entities). It is ignored by `==`, so tests can compare an entity with one built
  by hand.
* Collections are tuples, `ContentView`s (O(1) immutable views of append-only
  content: see `_buffers`) or read-only mappings. Wire objects inside them are the
  objects received (not copies): treat them as read-only. The exception: a
  `Plan` keeps its wire objects packed and hands out equal copies (see `Plan`).
* Kinds, statuses, states, plan types, roles of content blocks, ... are open
  strings: unknown values are kept as received.
"""

from __future__ import annotations

import marshal
from collections.abc import Callable, Mapping, Sequence
from dataclasses import FrozenInstanceError, dataclass, field, fields
from typing import Any, Final, cast

from acp_tui.store._buffers import EMPTY_BYTES, BytesSnapshot, TextLog, TextSnapshot
from acp_tui.store.ops import (
    ElicitationFields,
    MessageOrigin,
    MessageRole,
    TurnUsageFields,
)
from acp_tui.store.values import JSONObject, JSONValue

__all__ = [
    "FINAL_TOOL_STATUSES",
    "Elicitation",
    "FieldLabel",
    "Message",
    "Notice",
    "Permission",
    "PermissionOption",
    "Plan",
    "SessionInfo",
    "SessionState",
    "Terminal",
    "ToolCall",
    "TurnUsage",
    "Usage",
    "block_text",
    "terminal_item",
    "terminal_ref",
]

FINAL_TOOL_STATUSES: Final = frozenset({"completed", "failed", "cancelled"})
"""Tool-call statuses after which a tool call no longer changes by itself."""


def block_text(block: JSONObject) -> str | None:
    """Return a content block's text if it is a text block, else `None`."""
    if block.get("type") == "text":
        text = block.get("text")
        if isinstance(text, str):
            return text
    return None


def terminal_ref(item: Mapping[str, object]) -> str | None:
    """The terminal a tool call's `terminal` content item shows, else `None`.

    The one reader of a terminal reference: widgets ask this, never the item.
    """
    if item.get("type") == "terminal":
        terminal_id = item.get("terminalId")
        if isinstance(terminal_id, str):
            return terminal_id
    return None


def terminal_item(terminal_id: str) -> JSONObject:
    """A `terminal` content item showing `terminal_id` (a standalone terminal's)."""
    return {"type": "terminal", "terminalId": terminal_id}


@dataclass(frozen=True, slots=True)
class Message:
    """A user, agent or thought message.

    A message longer than the store keeps is *capped* (`capped`): `content` holds
    its first blocks (its head), `tail` the last characters of the text after
    them, and `cut_chars` / `cut_blocks` count what is missing in between.
    """

    message_id: str
    role: MessageRole
    content: Sequence[JSONObject]
    """The content blocks in order, as received (one per chunk); for a capped
    message, its head (the last block possibly cut short)."""
    meta: JSONObject | None = None
    """The message's `_meta` (never a chunk's)."""
    revision: int = field(default=0, compare=False)
    _text: TextLog | None = field(default=None, repr=False, compare=False)
    _text_len: int = field(default=0, repr=False, compare=False)
    origin: MessageOrigin = "user"
    """Who wrote it: `"agent"` for agent and thought messages, and for a `user`
    message the agent sent on its own (see `from_agent`); else `"user"`."""

    @property
    def from_agent(self) -> bool:
        """Whether this is a `user` message the agent wrote, not the user.

        It answers no prompt sent from this app and replays no history: it must
        never be shown, saved or exported as what the user typed.
        """
        return self.role == "user" and self.origin == "agent"

    cut_chars: int = 0
    """Characters of text dropped between the head and the tail."""
    cut_blocks: int = 0
    """Non-text blocks dropped past the head."""
    _tail: TextSnapshot | None = field(default=None, repr=False)
    key: str = field(default="", compare=False)
    """The store's key for it (changes and the timeline name it so): the id, or
    `<id>#<role>` for a later message of another role sharing the id."""

    @property
    def capped(self) -> bool:
        """Whether the message outgrew its head (text past it is in `tail`)."""
        return self._tail is not None

    @property
    def head_text(self) -> str:
        """The text of the head's blocks (all the text of a message not capped)."""
        if self._text is not None:
            return self._text.text(self._text_len)
        return "".join(t for b in self.content if (t := block_text(b)) is not None)

    @property
    def tail(self) -> str | None:
        """The text kept past the head (None: not capped)."""
        return None if self._tail is None else self._tail.value()

    @property
    def text(self) -> str:
        """All text kept: the head's, then the tail's (`cut_chars` missing between).

        Cached and extended incrementally while the message is not capped; a
        capped message joins its head and tail on each call.
        """
        if self._tail is None:
            return self.head_text
        return self.head_text + self._tail.value()

    @property
    def text_size(self) -> int:
        """How many characters of text the message was given, cut ones included."""
        if self._tail is None:
            return len(self.head_text)
        return self._tail.start + self._tail.total

    def text_after(self, position: int) -> str | None:
        """The text given after the first `position` characters (see `text_size`).

        None if some of it was cut: the caller must start again from `text`. Only
        the characters asked for are joined, so following a capped message as it
        grows costs what is new.
        """
        tail = self._tail
        if tail is None:
            return self.head_text[position:]
        if position < tail.start:  # from inside the head
            return None if tail.dropped else self.text[position:]
        if position < tail.start + tail.dropped:
            return None
        return tail.last(tail.start + tail.total - position)

    def runs(self) -> tuple[str | JSONObject, ...]:
        """The content for display: consecutive text blocks joined into one string.

        Non-text blocks (image, audio, resource, resource_link, unknown types) stay
        separate items, in order. A capped message's tail follows its head; where
        something was cut between them, a text run says exactly what (an export
        shows it: `cut_notice`).
        """
        runs: list[str | JSONObject] = []
        texts: list[str] = []
        for block in self.content:
            text = block_text(block)
            if text is not None:
                texts.append(text)
                continue
            if texts:
                runs.append("".join(texts))
                texts = []
            runs.append(block)
        if self._tail is not None:
            notice = self.cut_notice()
            if notice:
                if texts:
                    runs.append("".join(texts))
                runs.append(notice)
                texts = []
            texts.append(self._tail.value())
        if texts:
            runs.append("".join(texts))
        return tuple(runs)

    def cut_notice(self) -> str:
        """What was cut between the head and the tail, in words ("" if nothing)."""
        if not (self.cut_chars or self.cut_blocks):
            return ""
        lost = f"{self.cut_chars:,} characters"
        if self.cut_blocks:
            lost += f" and {self.cut_blocks:,} non-text blocks"
        return (
            f"[⋯ {lost} of this message are no longer kept here: the app keeps "
            "the start and the end of a very long message]"
        )


@dataclass(frozen=True, slots=True)
class ToolCall:
    """A tool call."""

    tool_call_id: str
    title: str | None = None
    kind: str = "other"
    status: str = "pending"
    content: Sequence[JSONObject] = ()
    """Content items in order (`content`, `diff`, `terminal`, unknown types)."""
    locations: tuple[JSONObject, ...] = ()
    raw_input: JSONValue = None
    raw_output: JSONValue = None
    meta: JSONObject | None = None
    name: str | None = None
    capabilities: JSONObject | None = None
    terminal_ids: tuple[str, ...] = ()
    """Ids of the terminals its `terminal` content items refer to, in order."""
    revision: int = field(default=0, compare=False)

    @property
    def is_final(self) -> bool:
        """Whether the status is `completed`, `failed` or `cancelled`."""
        return self.status in FINAL_TOOL_STATUSES


class Plan:
    """A plan (`plan_type` `"items"` has entries; other types are kept raw).

    A frozen snapshot like the other entities (`==` ignores `revision`), but its
    wire objects are kept packed (`marshal` bytes, the entries once): `entries`
    and `raw` are unpacked on each access (a few microseconds for 20 entries),
    equal to what was given (the same types, tuples and lists, key order and
    strings), new objects every time: a caller that needs both, or one twice,
    calls `unpacked()` once. `entry_count` needs no unpacking.

    An agent can send thousands of plans (bench/exhaustion.py: 10,000 of 20
    entries each), all kept for the conversation and the transcript. As objects,
    each plan held a tuple, a dict and a list besides itself, all tracked by the
    cyclic garbage collector: 40,000 objects that every collection of the whole
    heap walked (`acp_tui.ui.gc_policy`). Packed, a plan is one tracked object,
    in about a quarter of the memory. Values that `marshal` cannot pack (not
    plain JSON: a mapping proxy, a subclass) are kept as given.

    Args:
        plan_id: The plan's id (v1: `"main"`).
        plan_type: Its type (`"items"` has entries).
        entries: Its entries (wire objects).
        raw: The whole wire plan object.
        revision: The store's revision of this snapshot.
    """

    __slots__ = ("_count", "_id", "_packed", "_revision", "_type")
    __match_args__ = ("plan_id", "plan_type", "entries", "raw", "revision")

    _id: str
    _type: str
    _revision: int
    _count: int
    _packed: bytes | tuple[tuple[JSONObject, ...], JSONObject]

    def __init__(
        self,
        plan_id: str,
        plan_type: str,
        entries: Sequence[JSONObject],
        raw: JSONObject,
        revision: int = 0,
    ) -> None:
        both = (tuple(entries), raw)
        packed: bytes | tuple[tuple[JSONObject, ...], JSONObject]
        try:
            packed = marshal.dumps(cast(Any, both))
        except ValueError:  # not plain JSON objects: keep them
            packed = both
        set_slot = object.__setattr__
        set_slot(self, "_id", plan_id)
        set_slot(self, "_type", plan_type)
        set_slot(self, "_revision", revision)
        set_slot(self, "_count", len(both[0]))
        set_slot(self, "_packed", packed)

    @property
    def plan_id(self) -> str:
        """The plan's id."""
        return self._id

    @property
    def plan_type(self) -> str:
        """Its type (`"items"` has entries)."""
        return self._type

    @property
    def revision(self) -> int:
        """The store's revision of this snapshot (not compared by `==`)."""
        return self._revision

    @property
    def entry_count(self) -> int:
        """How many entries it has (without unpacking them)."""
        return self._count

    def unpacked(self) -> tuple[tuple[JSONObject, ...], JSONObject]:
        """`(entries, raw)` from one unpacking (new copies on each call)."""
        packed = self._packed
        if isinstance(packed, bytes):
            both: tuple[tuple[JSONObject, ...], JSONObject] = marshal.loads(packed)
            return both
        return packed

    @property
    def entries(self) -> tuple[JSONObject, ...]:
        """The entries, in order (a new copy on each access)."""
        return self.unpacked()[0]

    @property
    def raw(self) -> JSONObject:
        """The whole wire plan object (a new copy on each access)."""
        return self.unpacked()[1]

    def __setattr__(self, name: str, value: object) -> None:
        raise FrozenInstanceError(f"cannot assign to field {name!r}")

    def __delattr__(self, name: str) -> None:
        raise FrozenInstanceError(f"cannot delete field {name!r}")

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Plan):
            return NotImplemented
        if (self.plan_id, self.plan_type) != (other.plan_id, other.plan_type):
            return False
        if self._packed == other._packed:
            return True
        return self.unpacked() == other.unpacked()

    __hash__ = None  # type: ignore[assignment]  # equal plans hold dicts

    def __repr__(self) -> str:
        entries, raw = self.unpacked()
        return (
            f"Plan(plan_id={self.plan_id!r}, plan_type={self.plan_type!r}, "
            f"entries={entries!r}, raw={raw!r}, revision={self.revision!r})"
        )

    def __reduce__(self) -> tuple[type[Plan], tuple[object, ...]]:
        entries, raw = self.unpacked()
        return (Plan, (self.plan_id, self.plan_type, entries, raw, self.revision))


@dataclass(frozen=True, slots=True)
class Terminal:
    """A terminal's state: agent-owned (v2) or client-owned (v1).

    `output` holds at most the store's byte cap: the oldest bytes are dropped
    (`dropped_bytes` counts them since the last reset).
    """

    terminal_id: str
    command: str | None = None
    cwd: str | None = None
    exit_status: JSONObject | None = None
    """Any object, even `{}`, means exited."""
    meta: JSONObject | None = None
    size: JSONObject | None = None
    capabilities: JSONObject | None = None
    resets: int = 0
    """Bumps whenever the output is replaced by a snapshot or cleared: an emulator
    that fed an older value must reset and feed `output` again."""
    dropped_bytes: int = 0
    """Oldest bytes dropped by the cap since the last reset."""
    revision: int = field(default=0, compare=False)
    errors: tuple[str, ...] = ()
    """Data that could not be used (invalid base64), newest last (the last few)."""
    _output: BytesSnapshot = field(default=EMPTY_BYTES, repr=False, compare=False)

    @property
    def output(self) -> bytes:
        """The retained output bytes (joined on first use, then cached)."""
        return self._output.value()

    @property
    def output_size(self) -> int:
        """How many output bytes are retained (without joining them)."""
        return self._output.size

    def output_tail(self, count: int) -> bytes:
        """The last `count` retained output bytes (joins only what they span)."""
        return self._output.tail(count)

    @property
    def exited(self) -> bool:
        """Whether an exit status was reported."""
        return self.exit_status is not None


@dataclass(frozen=True, slots=True)
class Permission:
    """A permission request from the agent, and its outcome once answered."""

    permission_id: str
    title: str | None
    description: str | None = None
    subject: JSONObject | None = None
    options: tuple[JSONObject, ...] = ()
    tool_call_id: str | None = None
    meta: JSONObject | None = None
    outcome: JSONObject | None = None
    """The wire outcome object once answered, else `None`."""
    revision: int = field(default=0, compare=False)

    @property
    def pending(self) -> bool:
        """Whether it still waits for an answer."""
        return self.outcome is None

    @property
    def outcome_kind(self) -> JSONValue:
        """`"selected"`, `"cancelled"`, another kind as sent, or None (pending)."""
        return None if self.outcome is None else self.outcome.get("outcome")

    @property
    def chosen_id(self) -> JSONValue:
        """The id of the option chosen (`selected` outcomes), as sent, else None."""
        return None if self.outcome is None else self.outcome.get("optionId")

    @property
    def chosen_option(self) -> PermissionOption | None:
        """The offered option that was chosen, if the outcome names one."""
        chosen = self.chosen_id
        if chosen is None:
            return None
        return next((o for o in self.choices if o.option_id == chosen), None)

    @property
    def choices(self) -> tuple[PermissionOption, ...]:
        """The offered options, neutral (an option without a string id is left out)."""
        return tuple(
            PermissionOption(option_id, _text(o.get("name")), _text(o.get("kind")))
            for o in self.options
            if isinstance(option_id := o.get("optionId"), str)
        )


@dataclass(frozen=True, slots=True)
class Elicitation(ElicitationFields):
    """An elicitation request from the agent, and the response once answered.

    What was asked: `ElicitationFields` (`mode` is `form`, with
    `requested_schema`, or `url`, with `url` and `url_id`; another mode is kept
    as sent). `outcome` is the wire response sent (`{"action": ...,
    "content": ...}`), None while it waits. `completed`: the agent said a URL
    interaction finished (`elicitation/complete`).
    """

    outcome: JSONObject | None = None
    completed: bool = False
    revision: int = field(default=0, compare=False)

    @classmethod
    def asked(cls, request: ElicitationFields, revision: int) -> Elicitation:
        """A pending elicitation with the fields of `request` (an `AddElicitation`)."""
        return cls(
            **{f.name: getattr(request, f.name) for f in fields(ElicitationFields)},
            revision=revision,
        )

    @property
    def pending(self) -> bool:
        """Whether it still waits for an answer."""
        return self.outcome is None

    @property
    def action(self) -> str | None:
        """`accept`, `decline`, `cancel` (another as sent), or None (pending)."""
        return None if self.outcome is None else _text(self.outcome.get("action"))

    @property
    def content(self) -> Mapping[str, JSONValue] | None:
        """The values an `accept` sent (None: none sent, or not accepted)."""
        if self.outcome is None or self.action != "accept":
            return None
        content = self.outcome.get("content")
        return content if isinstance(content, Mapping) else None

    def answer_text(self, label: FieldLabel | None = None) -> str:
        """How it was answered, in words (plain, not yet made printable).

        `waiting for an answer`, `answered — name: value; ...` (a form's values),
        `accepted` (a URL opened), `declined`, `cancelled`, or the action as
        sent; a completed URL elicitation adds `, completed`. `label` gives each
        value's label and the value as read (a field's title, a choice's title;
        `client.elicitation_form.answer_text` reads them from the schema);
        without it, the property name and the value sent.
        """
        action = self.action
        if action is None:
            text = "waiting for an answer"
        elif action == "accept":
            content = self.content
            if content:
                labelled = (
                    label(name, value) if label is not None else (name, value)
                    for name, value in content.items()
                )
                values = "; ".join(
                    f"{name}: {_shown_value(value)}" for name, value in labelled
                )
                text = f"answered — {values}"
            else:
                text = "accepted"
        else:
            text = {"decline": "declined", "cancel": "cancelled"}.get(action, action)
        return f"{text}, completed" if self.completed else text


FieldLabel = Callable[[str, JSONValue], tuple[str, JSONValue]]
"""A form field's label and its value as read, from its name and the value sent."""


@dataclass(frozen=True, slots=True)
class PermissionOption:
    """One option a permission request offers (neutral)."""

    option_id: str
    name: str | None
    """Its label, if the agent gave a string one."""
    kind: str | None
    """`allow_once`, `allow_always`, `reject_once`, `reject_always`, or another."""


def _shown_value(value: object) -> str:
    """A form value as read in a sentence (lists joined, booleans yes/no)."""
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, list):
        return "[" + ", ".join(_shown_value(v) for v in value) + "]"
    return str(value)


def _text(value: object) -> str | None:
    return value if isinstance(value, str) else None


@dataclass(frozen=True, slots=True)
class SessionInfo:
    """Session metadata from `session_info_update`."""

    title: str | None = None
    updated_at: str | None = None
    meta: JSONObject | None = None
    revision: int = field(default=0, compare=False)


@dataclass(frozen=True, slots=True)
class Usage:
    """Context usage from `usage_update`."""

    used: int | None = None
    size: int | None = None
    cost: JSONObject | None = None
    meta: JSONObject | None = None
    revision: int = field(default=0, compare=False)


@dataclass(frozen=True, slots=True)
class TurnUsage(TurnUsageFields):
    """The token usage of the last turn (end-turn usage; not cumulative).

    Its fields: `TurnUsageFields`.
    """

    revision: int = field(default=0, compare=False)


@dataclass(frozen=True, slots=True)
class SessionState:
    """The agent's foreground state.

    A new session starts `idle` with no stop reason. Only `"idle"` is idle: an
    unknown state is busy.
    """

    state: str = "idle"
    stop_reason: str | None = None
    """The stop reason of the current state report."""
    error: JSONObject | None = None
    raw: JSONObject | None = None
    last_stop_reason: str | None = None
    """The last stop reason reported with an idle state (kept while busy)."""
    turns_ended: int = 0
    """How many times the state went from busy to idle. A repeated idle (such as
    the one after a resume replay) is not a new turn end."""
    ended_at: float | None = None
    """The store clock's time of the last busy-to-idle transition."""
    revision: int = field(default=0, compare=False)

    @property
    def is_idle(self) -> bool:
        """Whether the agent is ready for a prompt (only the state `"idle"`)."""
        return self.state == "idle"

    @property
    def is_busy(self) -> bool:
        """Whether foreground work is going on (any state but `"idle"`)."""
        return self.state != "idle"


@dataclass(frozen=True, slots=True)
class Notice:
    """A live notice (a toast), not session history."""

    notice_id: str
    severity: str
    title: str
    description: str | None = None
    raw: JSONObject | None = None
