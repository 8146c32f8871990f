r"""Server-Sent Events, decoded as bytes with a size limit (no third-party code).

`SseDecoder.feed(chunk)` returns the complete events' data: one JSON-RPC
message each (`bytes`), or `OversizedLine` for an event whose data went over
the limit (its bytes are discarded as they come, so memory stays bounded, and
the stream goes on, as with stdio's oversized line). Bytes are never decoded
here: invalid UTF-8 reaches the dispatcher, which reports it as for stdio.
Comments (`: keepalive`) and fields other than `data` are ignored; lines end
with `\\n`, `\\r\\n` or `\\r`.
"""

from __future__ import annotations

from acp_tui.protocol.framing import Line, OversizedLine

__all__ = ["SseDecoder"]


class SseDecoder:
    """An incremental SSE parser yielding the data of each event."""

    def __init__(self, max_bytes: int) -> None:
        self._max = max_bytes
        self._line = bytearray()
        self._data = bytearray()
        self._has_data = False
        self._size = 0
        """Bytes of the current event's data, also those discarded."""
        self._over = False
        self._skipping_line = False
        """The current line is too long and is being discarded to its end."""
        self._after_cr = False

    def feed(self, chunk: bytes) -> list[Line | OversizedLine]:
        """Take the next bytes; return the events they complete."""
        events: list[Line | OversizedLine] = []
        view = memoryview(chunk)
        start = 0
        if self._after_cr and chunk[:1] == b"\n":
            start = 1  # the \n of a \r\n split across chunks
        self._after_cr = False
        while start < len(chunk):
            cut = _line_end(chunk, start)
            if cut < 0:
                self._append(view[start:])
                break
            self._append(view[start:cut])
            end = cut + 1
            if chunk[cut] == 13:  # \r: maybe \r\n
                if end < len(chunk):
                    if chunk[end] == 10:
                        end += 1
                else:
                    self._after_cr = True
            self._end_line(events)
            start = end
        return events

    def _append(self, piece: memoryview) -> None:
        if self._skipping_line:
            self._size += len(piece)
            return
        self._line += piece
        if len(self._line) > self._max + 8:  # "data: " and slack
            prefix = 6 if self._line.startswith(b"data: ") else 5
            self._size += len(self._line) - prefix
            self._line.clear()
            self._skipping_line = True
            self._over = True
            self._has_data = True

    def _end_line(self, events: list[Line | OversizedLine]) -> None:
        if self._skipping_line:
            self._skipping_line = False
            return
        line = self._line
        if not line:
            self._dispatch(events)
            return
        self._line = bytearray()
        if line == b"data":
            self._add_data(b"")
        elif line.startswith(b"data:"):
            skip = 6 if line[5:6] == b" " else 5
            self._add_data(memoryview(line)[skip:])

    def _add_data(self, value: bytes | memoryview) -> None:
        if self._has_data:
            self._size += 1
            if not self._over:
                self._data += b"\n"
        self._has_data = True
        self._size += len(value)
        if self._over:
            return
        if self._size > self._max:
            self._over = True
            self._data = bytearray()
        else:
            self._data += value

    def _dispatch(self, events: list[Line | OversizedLine]) -> None:
        if self._over:
            events.append(OversizedLine(size=self._size, limit=self._max))
        elif self._has_data and self._data:
            events.append(bytes(self._data))
        self._data = bytearray()
        self._has_data = False
        self._over = False
        self._size = 0


def _line_end(chunk: bytes, start: int) -> int:
    r"""The index of the first \\n or \\r at or after `start`, or -1."""
    newline = chunk.find(b"\n", start)
    carriage = chunk.find(b"\r", start, newline if newline >= 0 else len(chunk))
    return carriage if carriage >= 0 else newline
