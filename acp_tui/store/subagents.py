"""Subagents: child sessions a session owns, each with a store of its own.

A subagent is version-neutral: an id (the child's session id), the parent's
display title and description, the tool call that launched it (when known), a
status (`"running"`, `"waiting"`, `"done"`, `"failed"`, `"cancelled"`,
`"unknown"`), when it started and ended, and a `ChildStore` (a
`SessionStore`) holding its own messages, tool calls and terminals.
`SessionStore` keeps them in a
`Subagents` book and journals them like any op (`ops.PatchSubagent`,
`ops.InSubagent`), so a transcript replays them. Stdlib only.

A run of a subagent's text chunks (`InSubagent` of `AppendMessageTexts`, nested
as deep as the subagent is: `texts_in_subagent`) is applied as its chunks one by
one would be: the subagent's store changes the same, with the same revisions,
and the parent tells a `subagent` change per chunk (each with that chunk's
change inside), not one for the run.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING, Final

from acp_tui.store.changes import Change
from acp_tui.store.ops import AppendMessageTexts, InSubagent, Op, PatchSubagent
from acp_tui.store.values import UNSET, JSONValue

if TYPE_CHECKING:
    from acp_tui.store.child_store import ChildStore

__all__ = ["ENDED", "Subagent", "Subagents", "texts_in_subagent"]

ENDED: Final = frozenset({"done", "failed", "cancelled"})
"""The statuses that end a subagent's work."""


@dataclass(frozen=True, slots=True)
class Subagent:
    """A snapshot of one subagent."""

    subagent_id: str
    title: str | None
    description: str | None
    parent_tool_call_id: str | None
    status: str
    stop_reason: str | None
    error: str | None
    can_cancel: bool
    started_ms: int | None
    ended_ms: int | None

    @property
    def name(self) -> str:
        """What to call it: its title, else its description, else its id."""
        return self.title or self.description or self.subagent_id

    @property
    def running(self) -> bool:
        """Whether its work has not ended."""
        return self.status not in ENDED

    def elapsed_ms(self, now_ms: int) -> int | None:
        """How long it ran (until `now_ms` while running); None if unknown."""
        if self.started_ms is None:
            return None
        end = self.ended_ms if self.ended_ms is not None else now_ms
        return max(0, end - self.started_ms)


def texts_in_subagent(op: Op) -> AppendMessageTexts | None:
    """The run of text chunks an `InSubagent` holds (however nested), or None.

    `op` itself where it is a run (`AppendMessageTexts`).
    """
    while type(op) is InSubagent:
        op = op.inner
    return op if type(op) is AppendMessageTexts else None


class _Entry:
    __slots__ = ("snapshot", "store")

    def __init__(self, snapshot: Subagent, store: ChildStore) -> None:
        self.snapshot = snapshot
        self.store = store


def _patched(current: str | None, value: str | object | None) -> str | None:
    if value is UNSET:
        return current
    assert value is None or isinstance(value, str)
    return value


class Subagents:
    """The subagents of one session, in order of announcement.

    Args:
        make_store: Builds a subagent's own store from its id.
        add_to_timeline: Called once with a new subagent's id.
    """

    def __init__(
        self,
        make_store: Callable[[str], ChildStore],
        add_to_timeline: Callable[[str], None],
    ) -> None:
        self._make_store = make_store
        self._add_to_timeline = add_to_timeline
        self._entries: dict[str, _Entry] = {}

    def __len__(self) -> int:
        return len(self._entries)

    def __iter__(self) -> Iterator[Subagent]:
        return (entry.snapshot for entry in self._entries.values())

    def get(self, subagent_id: str) -> Subagent | None:
        """The subagent `subagent_id`, or None."""
        entry = self._entries.get(subagent_id)
        return entry.snapshot if entry is not None else None

    def store(self, subagent_id: str) -> ChildStore | None:
        """The subagent's own store, or None."""
        entry = self._entries.get(subagent_id)
        return entry.store if entry is not None else None

    def _entry(self, subagent_id: str, at_ms: int | None) -> tuple[_Entry, bool]:
        entry = self._entries.get(subagent_id)
        if entry is not None:
            return entry, False
        snapshot = Subagent(
            subagent_id, None, None, None, "running", None, None, False, at_ms, None
        )
        entry = self._entries[subagent_id] = _Entry(
            snapshot, self._make_store(subagent_id)
        )
        self._add_to_timeline(subagent_id)
        return entry, True

    def patch(self, op: PatchSubagent) -> tuple[Change, ...]:
        """Apply a `PatchSubagent`."""
        entry, added = self._entry(op.subagent_id, op.at_ms)
        old = entry.snapshot
        status = op.status if op.status is not None else old.status
        started, ended = old.started_ms, old.ended_ms
        if started is None:
            started = op.at_ms
        if op.status is not None and op.status != old.status:
            ended = op.at_ms if status in ENDED else None
        entry.snapshot = Subagent(
            old.subagent_id,
            _patched(old.title, op.title),
            _patched(old.description, op.description),
            _patched(old.parent_tool_call_id, op.parent_tool_call_id),
            status,
            _patched(old.stop_reason, op.stop_reason),
            _patched(old.error, op.error),
            old.can_cancel if op.can_cancel is None else op.can_cancel,
            started,
            ended,
        )
        if not added and entry.snapshot == old:
            return ()
        return (Change("subagent", op.subagent_id, "added" if added else "updated"),)

    def apply_inner(self, op: InSubagent) -> tuple[Change, ...]:
        """Apply an `InSubagent` to the subagent's own store."""
        run = texts_in_subagent(op.inner)
        if run is not None:
            return self._apply_run(op, run)
        entry, added = self._entry(op.subagent_id, None)
        inner = entry.store.apply_here(op.inner)
        if not inner and not added:
            return ()
        return (
            Change(
                "subagent",
                op.subagent_id,
                "added" if added else "appended",
                inner=inner,
            ),
        )

    def _apply_run(self, op: InSubagent, run: AppendMessageTexts) -> tuple[Change, ...]:
        """`apply_inner` of a run of text chunks: a change per chunk, as they would.

        An empty run changes nothing (no subagent created), as no chunk would.
        """
        if not run.texts:
            return ()
        subagent_id = op.subagent_id
        entry, added = self._entry(subagent_id, None)
        inner = entry.store.apply_here(op.inner)
        changes = [
            Change("subagent", subagent_id, "appended", inner=(change,))
            for change in inner
        ]
        if added:  # (a change per text: `SessionStore._append_message_texts`)
            changes[0] = Change("subagent", subagent_id, "added", inner=(inner[0],))
        return tuple(changes)

    def to_json(self) -> list[JSONValue]:
        """Each subagent as JSON, with its own session's document."""
        out: list[JSONValue] = []
        for entry in self._entries.values():
            s = entry.snapshot
            item: dict[str, JSONValue] = {
                "id": s.subagent_id,
                "title": s.title,
                "description": s.description,
                "parentToolCallId": s.parent_tool_call_id,
                "status": s.status,
                "stopReason": s.stop_reason,
                "error": s.error,
                "session": entry.store.to_json(),
            }
            out.append(item)
        return out
