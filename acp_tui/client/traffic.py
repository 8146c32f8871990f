"""An in-memory log of the JSON-RPC traffic with the agent, for the inspector.

`TrafficLog.wrap` wraps the stream factory given to `connect` (like
`acp_tui.protocol.recording.Recorder.wrap`) and keeps the last `MAX_ENTRIES`
lines, both ways, as `TrafficEntry` objects: direction, time, size, method, id,
the parsed JSON (or the raw text when it is not JSON), and, for the agent's
messages, whether they pass strict schema validation.

Invariants:

* **Cheap on the wire path.** Recording a line only stores it with its times,
  as one tuple of untracked values (no `TrafficEntry` yet: a resumed session
  of 100,000 updates made as many entries, which outlived the young
  collections and were tenured by the app's collector policy, bringing a full
  collection of the heap forward); it becomes an entry, parsed and matched, when
  a reader first asks (the inspector, only while shown), and schema validation
  (`TrafficEntry.problem`) runs only when someone asks for it, and is cached.
* **Bounded.** At most `max_entries` entries and `max_bytes` bytes of lines, and
  as many unanswered requests (between two reads, up to `SLACK` more lines are
  held: the oldest are dropped in one go, not one per line).
* **Latency** is measured from a request to the response with the same id going
  the other way (ours answered by the agent, the agent's answered by us); both
  entries carry it, and the response names the request's method.
* Entry indexes grow for the life of the log, so a reader can ask for the
  entries `since` the last index it saw (`TrafficLog.total`).

No Textual here: the UI reads the log on a timer.
"""

from __future__ import annotations

import json
import time
from collections import deque
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from itertools import islice
from typing import Any, Final, Literal, TypeAlias

from acp_tui.protocol.framing import DecodeError, Line, OversizedLine, decode_line
from acp_tui.protocol.jsonrpc import id_key
from acp_tui.protocol.observed import StreamOpener, observe
from acp_tui.protocol.version import known_version
from acp_tui.safe_text import printable

__all__ = [
    "MAX_BYTES",
    "MAX_ENTRIES",
    "SLACK",
    "DirectionFilter",
    "TrafficEntry",
    "TrafficLog",
    "filter_entries",
    "format_latency",
    "format_size",
    "matches",
    "pretty_json",
]

MAX_ENTRIES: Final = 2000
"""Entries kept by default (the oldest are dropped)."""

MAX_BYTES: Final = 32 * 1024 * 1024
"""Bytes of lines kept by default (the oldest entries are dropped first)."""

SLACK: Final = 256
"""Lines recorded past `max_entries` before the oldest are dropped (all at once,
not one per line); a reader never sees them."""

Direction = Literal["in", "out"]
"""`in`: agent to client; `out`: client to agent."""
DirectionFilter = Literal["in", "out", "both"]

_UNCHECKED: Final[Any] = object()

_ENDS: Final = (b"", b"\n")
"""Last bytes of a line `received` leaves to `record` (empty, or a newline)."""

_Recorded: TypeAlias = tuple[Line | OversizedLine, Direction, float, float, int]
"""A line not made an entry yet: (the line without its newline, or the
`OversizedLine`; direction; wall-clock time; monotonic time; connection)."""


@dataclass(slots=True, eq=False)
class TrafficEntry:
    """One line seen on the connection."""

    index: int
    """Position in the log (grows for the life of the log)."""
    direction: Direction
    time: float
    """Wall-clock seconds (epoch) when it was seen."""
    size: int
    """The line's length in bytes (without the newline)."""
    line: Line | None
    """The raw line without its newline (None: oversized, never kept)."""
    data: Any = None
    """The parsed JSON (None if the line is not JSON: see `raw`)."""
    raw: str | None = None
    """The text of a line that is not JSON, or why it could not be read."""
    method: str | None = None
    """The request's or notification's method; for a response, its request's."""
    id: Any = None
    """The JSON-RPC id (None for notifications)."""
    kind: Literal["request", "notification", "response", "other"] = "other"
    latency: float | None = None
    """Seconds from the request to its response (set on both)."""
    request_index: int | None = None
    """For a response: the index of the request it answers."""
    response_index: int | None = None
    """For a request: the index of its response, once it came."""
    version: int = 2
    """The protocol version in use when it was seen (whose models apply)."""
    seen: float = field(default=0.0, repr=False)
    """Monotonic seconds when it was seen (for latencies)."""
    connection: int = field(default=0, repr=False)
    """Which connection of the log it was seen on."""
    request_line: Line | None = field(default=None, repr=False)
    """For a response: the request's line (what the result must match)."""
    _problem: Any = field(default=_UNCHECKED, repr=False)

    @property
    def valid(self) -> bool:
        """Whether it passed strict schema validation."""
        return self.problem is None

    @property
    def problem(self) -> str | None:
        """Why the message is not valid (None: valid).

        The agent's messages and acp-tui's own are both checked: a problem in
        ours is a bug of acp-tui, and an agent may rightly refuse the message.
        """
        if self._problem is _UNCHECKED:
            self._problem = self._validate()
        return self._problem  # type: ignore[no-any-return]

    def _validate(self) -> str | None:
        if self.line is None:
            return self.raw or "oversized line"
        # Imported here: the wire models are slow to import, and the app's first
        # frame must not wait for them.
        from acp_tui.client.schema_check import check_schema

        version: Literal[1, 2] = known_version(self.version) or 2
        sent = [self.request_line] if self.request_line is not None else []
        side: Literal["agent", "client"] = (
            "agent" if self.direction == "in" else "client"
        )
        rows = check_schema(version, sent, [self.line], side=side)
        failed = [row.detail for row in rows if row.result == "fail"]
        return "; ".join(failed) if failed else None


class TrafficLog:
    """The last lines of every connection, both ways.

    Recording only stores the line and its times; lines are parsed and matched
    (method, id, latency, version) when a reader first asks for them, in order.

    Args:
        max_entries: How many entries to keep.
        max_bytes: How many bytes of lines to keep (the oldest entries go first;
            the newest is always kept).
        clock: Wall-clock seconds, for the entries' time.
        monotonic: Monotonic seconds, for latencies.
    """

    def __init__(
        self,
        max_entries: int = MAX_ENTRIES,
        *,
        max_bytes: int = MAX_BYTES,
        clock: Callable[[], float] = time.time,
        monotonic: Callable[[], float] = time.monotonic,
    ) -> None:
        self.max_entries = max_entries
        self.max_bytes = max_bytes
        self._entries: deque[TrafficEntry] = deque()
        """The entries made (parsed), oldest first; `_recorded` follow them."""
        self._recorded: deque[_Recorded] = deque()
        """The lines recorded since a reader last asked, oldest first."""
        self._bytes = 0
        self._clock = clock
        self._monotonic = monotonic
        self._total = 0
        self._connection = 0
        self._parsing_connection = 0
        self._pending: dict[tuple[Direction, Any], TrafficEntry] = {}
        """Unanswered requests by (their direction, id key)."""
        self._version = 2

    @property
    def total(self) -> int:
        """How many entries were ever added (the next entry's index)."""
        return self._total

    @property
    def version(self) -> int:
        """The protocol version of the last connection (from `initialize`)."""
        self._parse()
        return self._version

    def __len__(self) -> int:
        self._drop_oldest()
        return len(self._entries) + len(self._recorded)

    def entries(self) -> list[TrafficEntry]:
        """The entries kept, oldest first."""
        self._parse()
        return list(self._entries)

    def since(self, index: int) -> list[TrafficEntry]:
        """The entries kept whose index is `index` or later, oldest first."""
        self._parse()
        first = self._total - len(self._entries)
        return list(islice(self._entries, max(index - first, 0), None))

    def get(self, index: int) -> TrafficEntry | None:
        """The entry with this index, if still kept."""
        self._parse()
        position = index - (self._total - len(self._entries))
        if 0 <= position < len(self._entries):
            return self._entries[position]
        return None

    def begin_connection(self) -> None:
        """A new connection: ids start over (unanswered requests are dropped)."""
        self._connection += 1

    def wrap(self, factory: StreamOpener) -> StreamOpener:
        """A stream factory whose streams add every line to this log."""
        return observe(factory, self, on_open=self.begin_connection)

    def received(self, line: Line | OversizedLine) -> None:
        """Add a line the agent wrote (`in`; a `LineObserver`)."""
        if type(line) is bytes and line[-1:] not in _ENDS and not line.isspace():
            # (`record`'s common case, inline: this runs for every line)
            recorded = self._recorded
            recorded.append(
                (line, "in", self._clock(), self._monotonic(), self._connection)
            )
            self._total += 1
            self._bytes += len(line)
            if (
                len(recorded) + len(self._entries) > self.max_entries + SLACK
                or self._bytes > self.max_bytes
            ):
                self._drop_oldest()
            return
        self.record("in", line)

    def sent(self, line: Line) -> None:
        """Add a line the client sends (`out`; a `LineObserver`)."""
        self.record("out", line)

    def record(self, direction: Direction, line: Line | OversizedLine) -> None:
        """Add one line (never raises; blank lines are skipped).

        The line is kept as it is, with its times (see the module docstring).
        """
        if isinstance(line, OversizedLine):
            size = 0  # (not kept: no bytes to count)
        else:
            if line.endswith(b"\n"):
                line = line[:-1]
            if not line or line.isspace():  # (stops at the first other byte)
                return
            size = len(line)
        recorded = self._recorded
        recorded.append(
            (line, direction, self._clock(), self._monotonic(), self._connection)
        )
        self._total += 1
        self._bytes += size
        if (
            len(recorded) + len(self._entries) > self.max_entries + SLACK
            or self._bytes > self.max_bytes
        ):
            self._drop_oldest()

    def _drop_oldest(self) -> None:
        """Drop the oldest entries past the bounds (the newest is always kept)."""
        entries, recorded = self._entries, self._recorded
        while len(entries) + len(recorded) > 1 and (
            len(entries) + len(recorded) > self.max_entries
            or self._bytes > self.max_bytes
        ):
            if entries:
                gone = entries.popleft()
                if gone.line is not None:
                    self._bytes -= gone.size
            else:
                line = recorded.popleft()[0]
                if not isinstance(line, OversizedLine):
                    self._bytes -= len(line)

    def _entry(self, index: int, recorded: _Recorded) -> TrafficEntry:
        """The entry of a recorded line (not parsed yet)."""
        line, direction, seen_at, seen, connection = recorded
        if isinstance(line, OversizedLine):
            entry = TrafficEntry(
                index,
                direction,
                seen_at,
                line.size,
                None,
                raw=f"a line of {line.size} bytes (over the limit, not kept)",
            )
        else:
            entry = TrafficEntry(index, direction, seen_at, len(line), line)
        entry.seen = seen
        entry.connection = connection
        return entry

    def _parse(self) -> None:
        """Make entries of the lines recorded since the last call, in order."""
        self._drop_oldest()
        recorded = self._recorded
        if not recorded:
            return
        first = self._total - len(recorded)
        for offset, line in enumerate(recorded):
            entry = self._entry(first + offset, line)
            if entry.connection != self._parsing_connection:
                self._parsing_connection = entry.connection
                self._pending.clear()
                self._version = 2
            entry.version = self._version
            if entry.line is not None:
                decoded = decode_line(entry.line)
                if isinstance(decoded, DecodeError):
                    entry.raw = entry.line.decode("utf-8", errors="replace")
                else:
                    entry.data = decoded
                    if isinstance(decoded, dict):
                        self._classify(entry, decoded)
            self._entries.append(entry)
        recorded.clear()

    def _classify(self, entry: TrafficEntry, message: dict[str, Any]) -> None:
        method = message.get("method")
        if isinstance(method, str):
            entry.method = method
            if "id" in message:
                entry.kind = "request"
                entry.id = message["id"]
                if method == "initialize":  # shaped as the version it offers
                    params = message.get("params")
                    offered = known_version(
                        params.get("protocolVersion")
                        if isinstance(params, dict)
                        else None
                    )
                    if offered is not None:
                        entry.version = offered
                self._pending[(entry.direction, id_key(message["id"]))] = entry
                while len(self._pending) > self.max_entries:
                    del self._pending[next(iter(self._pending))]
            else:
                entry.kind = "notification"
            return
        if "id" not in message:
            return
        entry.kind = "response"
        entry.id = message["id"]
        other: Direction = "out" if entry.direction == "in" else "in"
        request = self._pending.pop((other, id_key(message["id"])), None)
        if request is None:
            return
        entry.method = request.method
        entry.latency = request.latency = max(entry.seen - request.seen, 0.0)
        entry.request_index = request.index
        request.response_index = entry.index
        entry.request_line = request.line
        if request.method == "initialize":
            result = message.get("result")
            answered = known_version(
                result.get("protocolVersion") if isinstance(result, dict) else None
            )
            if answered is not None:
                self._version = answered


# --- Reading helpers for the inspector. -------------------------------------------


def matches(
    entry: TrafficEntry, method: str = "", direction: DirectionFilter = "both"
) -> bool:
    """Whether the entry passes the filters.

    Args:
        entry: The entry to test.
        method: A case-insensitive substring of the method ("" for all; an entry
            without a method only passes "").
        direction: `in`, `out` or `both`.
    """
    if direction != "both" and entry.direction != direction:
        return False
    wanted = method.strip().casefold()
    if not wanted:
        return True
    return entry.method is not None and wanted in entry.method.casefold()


def filter_entries(
    entries: Iterable[TrafficEntry],
    method: str = "",
    direction: DirectionFilter = "both",
) -> list[TrafficEntry]:
    """The entries that pass the filters (see `matches`), in order."""
    return [entry for entry in entries if matches(entry, method, direction)]


def pretty_json(entry: TrafficEntry) -> str:
    r"""The entry as indented JSON (or its raw text), safe for a terminal.

    Every non-printable character except the newlines of the layout is escaped,
    including any inside strings (JSON escapes them already unless the agent
    sent, say, bidi controls, which `ensure_ascii=False` would keep).
    """
    if entry.raw is not None and entry.data is None:
        return printable(entry.raw)
    text = json.dumps(entry.data, indent=2, ensure_ascii=False)
    return printable(text, keep="\n")


def format_size(size: int) -> str:
    """A byte count for a table cell: `512 B`, `1.5 KB`, `2.0 MB`."""
    if size < 1024:
        return f"{size} B"
    if size < 1024 * 1024:
        return f"{size / 1024:.1f} KB"
    return f"{size / (1024 * 1024):.1f} MB"


def format_latency(latency: float | None) -> str:
    """A latency for a table cell: `12 ms`, `1.50 s` ("" if none)."""
    if latency is None:
        return ""
    if latency < 1.0:
        return f"{latency * 1000:.0f} ms"
    return f"{latency:.2f} s"
