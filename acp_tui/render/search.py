"""Searching a session's conversation: over the store's text, not the widgets.

The conversation mounts only a window of its entries (see
`acp_tui.ui.widgets.conversation`), so a search reads the store: each timeline
entry's searchable text (`entry_text`) is

* a message (user, agent, thought): all the text the store keeps;
* a tool call: its title, its locations, its content's text, each diff's patch
  (v2 `patch.text`, or v1 old and new text as written), each diff's changed
  paths, and the text of each terminal it shows (the emulated scrollback and
  screen, `terminal.final_text`);
* a terminal no tool call shows: its command and its text;
* a plan: its entries' content.

Agent text is data: the query and the text are compared as plain strings, so
markup, escapes and control characters match as the characters they are.

`ConversationSearch` finds every occurrence of a query, in timeline order, as
`SearchMatch`es (the entry's `(kind, id)` and the offset in its text). The work
is split in steps (`step(budget)`), so a caller can spread a long scan over
frames; entries that change while the agent streams are marked (`changed`) and
only they are scanned again, and a message that grew is scanned only from where
the last scan could still match. Case-insensitive by default (`str.lower` on
both sides: offsets are those of the lowered text, which for a few characters
differs in length from the original).
"""

from __future__ import annotations

import time
from bisect import bisect_left, bisect_right
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Final, TypeAlias

from acp_tui.store.model import Terminal, ToolCall, block_text, terminal_ref
from acp_tui.store.store import SessionStore
from acp_tui.terminal.final_text import final_text

__all__ = [
    "SEARCHED_KINDS",
    "ConversationSearch",
    "EntryKey",
    "SearchMatch",
    "entry_text",
]

EntryKey: TypeAlias = tuple[str, str]
"""A timeline entry: `(kind, id)`."""

SEARCHED_KINDS: Final = frozenset({"message", "tool_call", "terminal", "plan"})
"""The timeline kinds whose text is searched."""

MAX_MATCHES: Final = 100_000
"""Matches kept at most (a one-letter query on a huge session)."""


@dataclass(frozen=True, slots=True)
class SearchMatch:
    """One occurrence of the query: its entry and where it starts in its text."""

    key: EntryKey
    start: int
    end: int


def _terminal_text(terminal: Terminal | None) -> str:
    if terminal is None:
        return ""
    parts = [terminal.command or "", final_text(terminal.output)]
    return "\n".join(part for part in parts if part)


def _diff_text(item: Mapping[str, object]) -> list[str]:
    parts: list[str] = []
    for name in ("path", "oldPath"):
        value = item.get(name)
        if isinstance(value, str):
            parts.append(value)
    patch = item.get("patch")
    if isinstance(patch, Mapping) and isinstance(patch.get("text"), str):
        parts.append(str(patch["text"]))
    for name in ("oldText", "newText"):
        value = item.get(name)
        if isinstance(value, str):
            parts.append(value)
    changes = item.get("changes")
    if isinstance(changes, Sequence) and not isinstance(changes, str):
        for change in changes:
            if isinstance(change, Mapping):
                parts.extend(
                    str(change[name])
                    for name in ("path", "oldPath")
                    if isinstance(change.get(name), str)
                )
    return parts


def tool_call_text(store: SessionStore, tool_call: ToolCall) -> str:
    """A tool call's searchable text (see the module docstring)."""
    parts: list[str] = [tool_call.title or ""]
    for location in tool_call.locations:
        path = location.get("path")
        if isinstance(path, str):
            parts.append(path)
    for item in tool_call.content:
        kind = item.get("type")
        if kind == "content":
            block = item.get("content")
            text = block_text(block) if isinstance(block, Mapping) else None
            if text is not None:
                parts.append(text)
        elif kind == "diff":
            parts.extend(_diff_text(item))
        elif kind == "terminal":
            parts.append(_terminal_text(store.terminal(terminal_ref(item) or "")))
    return "\n".join(part for part in parts if part)


def entry_text(store: SessionStore, key: EntryKey) -> str:
    """The searchable text of one timeline entry ("" for kinds not searched)."""
    kind, entity_id = key
    if kind == "message":
        message = store.message(entity_id)
        return message.text if message is not None else ""
    if kind == "tool_call":
        tool_call = store.tool_call(entity_id)
        return tool_call_text(store, tool_call) if tool_call is not None else ""
    if kind == "terminal":
        return _terminal_text(store.terminal(entity_id))
    if kind == "plan":
        plan = store.plan(entity_id)
        if plan is None:
            return ""
        return "\n".join(
            str(entry.get("content", "")) for entry in plan.entries if entry
        )
    return ""


def _revision(store: SessionStore, key: EntryKey) -> int:
    """A number that changes when the entry's text may have (cheap to ask)."""
    kind, entity_id = key
    if kind == "message":
        message = store.message(entity_id)
        return message.revision if message is not None else -1
    if kind == "tool_call":
        tool_call = store.tool_call(entity_id)
        if tool_call is None:
            return -1
        terminals = (store.terminal(t) for t in tool_call.terminal_ids)
        return tool_call.revision + sum(t.revision for t in terminals if t)
    if kind == "terminal":
        terminal = store.terminal(entity_id)
        return terminal.revision if terminal is not None else -1
    if kind == "plan":
        plan = store.plan(entity_id)
        return plan.revision if plan is not None else -1
    return 0


def _find_all(text: str, needle: str, start: int = 0) -> list[int]:
    found: list[int] = []
    position = text.find(needle, start)
    while position >= 0 and len(found) < MAX_MATCHES:
        found.append(position)
        position = text.find(needle, position + 1)
    return found


@dataclass(slots=True)
class _Scanned:
    """What the last scan of one entry saw."""

    revision: int
    text: str
    """The text scanned (lowered for a case-insensitive search)."""
    starts: list[int]


class ConversationSearch:
    """Every occurrence of a query in a store's conversation (module docstring).

    Args:
        store: The session's store.
    """

    def __init__(self, store: SessionStore) -> None:
        self.store = store
        self.query = ""
        self.case_sensitive = False
        self._needle = ""
        self._keys: list[EntryKey] = []
        self._order: dict[EntryKey, int] = {}
        self._timeline_revision = -1
        self._scanned: dict[EntryKey, _Scanned] = {}
        self._todo: dict[EntryKey, None] = {}
        """Entries to scan (again), in the order they were marked."""
        self._matches: list[SearchMatch] | None = []
        """Every match in timeline order (None: to be gathered again)."""
        self._positions: list[tuple[int, int]] | None = None
        """Each match's (timeline index, start), for bisecting."""

    # ------------------------------------------------------------ the query

    def set_query(self, query: str, *, case_sensitive: bool = False) -> None:
        """Search for `query` from scratch (an empty query finds nothing)."""
        self.query = query
        self.case_sensitive = case_sensitive
        self._needle = query if case_sensitive else query.lower()
        self._scanned.clear()
        self._todo.clear()
        self._matches = []
        self._timeline_revision = -1
        if query:
            self._sync_timeline()
            self._todo = dict.fromkeys(self._keys)

    def changed(self, keys: Iterable[EntryKey]) -> None:
        """Entries (or entities) changed: scan them again at the next step.

        A terminal's change marks the tool calls that show it.
        """
        if not self.query:
            return
        for kind, entity_id in keys:
            if kind == "terminal":
                for owner in self.store.tool_call_ids_for_terminal(entity_id):
                    self._todo[("tool_call", owner)] = None
            if kind in SEARCHED_KINDS:
                self._todo[(kind, entity_id)] = None

    # ------------------------------------------------------------ the work

    @property
    def pending(self) -> bool:
        """Whether some entries wait to be scanned."""
        return bool(self._todo) or (
            bool(self.query) and self.store.timeline_revision != self._timeline_revision
        )

    def _sync_timeline(self) -> None:
        revision = self.store.timeline_revision
        if revision == self._timeline_revision:
            return
        self._timeline_revision = revision
        keys: list[EntryKey] = [
            (kind, entity_id)
            for kind, entity_id in self.store.timeline()
            if kind in SEARCHED_KINDS
        ]
        known = set(self._keys)
        for key in keys:
            if key not in known:
                self._todo[key] = None
        present = set(keys)
        for gone in [key for key in self._scanned if key not in present]:
            del self._scanned[gone]  # moved into a tool call, or gone
        self._keys = keys
        self._order = {key: index for index, key in enumerate(keys)}
        self._matches = None

    def step(self, budget: float = 0.008) -> bool:
        """Scan marked entries for about `budget` seconds; True when none are left."""
        if not self.query:
            return True
        self._sync_timeline()
        deadline = time.perf_counter() + budget
        todo = self._todo
        while todo:
            key = next(iter(todo))
            del todo[key]
            self._scan(key)
            if time.perf_counter() >= deadline:
                break
        return not todo

    def _scan(self, key: EntryKey) -> None:
        revision = _revision(self.store, key)
        previous = self._scanned.get(key)
        if previous is not None and previous.revision == revision:
            return
        text = entry_text(self.store, key)
        if not self.case_sensitive:
            text = text.lower()
        needle = self._needle
        if (
            previous is not None
            and len(text) >= len(previous.text)
            and text.startswith(previous.text)
        ):  # grew: only the new end can hold new matches
            since = max(0, len(previous.text) - len(needle) + 1)
            kept = [start for start in previous.starts if start < since]
            starts = kept + _find_all(text, needle, since)
        else:
            starts = _find_all(text, needle)
        if previous is None or starts != previous.starts:
            self._matches = None
        self._scanned[key] = _Scanned(revision, text, starts)

    def finish(self) -> None:
        """Scan everything marked now (tests, and small sessions)."""
        while not self.step(1.0):
            pass

    # ------------------------------------------------------------ the results

    @property
    def matches(self) -> list[SearchMatch]:
        """Every match found so far, in timeline order."""
        matches = self._matches
        if matches is None:
            size = len(self._needle)
            matches = []
            scanned = self._scanned
            for key in self._keys:
                seen = scanned.get(key)
                if seen is not None and seen.starts:
                    matches.extend(SearchMatch(key, s, s + size) for s in seen.starts)
                    if len(matches) >= MAX_MATCHES:
                        del matches[MAX_MATCHES:]
                        break
            self._matches = matches
            self._positions = None
        return matches

    def nearest(self, after: SearchMatch | None, direction: int) -> int | None:
        """The index of the match after (1) or before (-1) `after`, wrapping round.

        `after` None: the first (or last) match. None: no match at all. The
        match `after` itself counts for neither direction unless it is gone.
        """
        matches = self.matches
        if not matches:
            return None
        if after is None:
            return 0 if direction > 0 else len(matches) - 1
        positions = self._positions
        order = self._order
        if positions is None or len(positions) != len(matches):
            positions = [(order.get(m.key, -1), m.start) for m in matches]
            self._positions = positions
        here = (order.get(after.key, -1), after.start)
        if direction > 0:
            index = bisect_right(positions, here)
            return index if index < len(matches) else 0
        index = bisect_left(positions, here) - 1
        return index if index >= 0 else len(matches) - 1

    def fraction(self, match: SearchMatch) -> float:
        """How far into its entry's text `match` starts (0 to 1): where to look."""
        seen = self._scanned.get(match.key)
        if seen is None or not seen.text:
            return 0.0
        return min(1.0, match.start / len(seen.text))

    def index_of(self, match: SearchMatch) -> int | None:
        """Where `match` is among the matches now (None: gone)."""
        index = self.nearest(match, -1)
        if index is None:
            return None
        following = (index + 1) % len(self.matches)
        return following if self.matches[following] == match else None
