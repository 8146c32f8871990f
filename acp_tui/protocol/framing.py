r"""Newline-delimited JSON framing for ACP over stdio.

One JSON-RPC message per `\\n`-terminated line, UTF-8, no embedded newlines.

Invariants:

* Nothing here raises on bad input. `LineReader.receive` returns `OversizedLine`
  for a line over the limit (its bytes are discarded, the stream stays usable), and
  `decode_line` returns a `DecodeError` value for invalid JSON or invalid UTF-8, so
  one bad line from an agent is reported and the connection keeps going.
* Reading is linear in the line length: bytes accumulate in one `bytearray` and the
  newline search resumes where the previous one stopped, so a 64 MiB line of base64
  terminal output costs one pass, not one pass per chunk. A line is copied out of
  the buffer once, and a long one leaves a fresh buffer behind (its memory freed).
"""

from __future__ import annotations

import json
import unicodedata
from dataclasses import dataclass
from typing import Any, Final

import anyio
from anyio.abc import ByteReceiveStream

__all__ = [
    "DEFAULT_MAX_LINE_BYTES",
    "JOINERS",
    "DecodeError",
    "LineReader",
    "OversizedLine",
    "decode_line",
    "encode_message",
    "excerpt",
    "printable",
]

DEFAULT_MAX_LINE_BYTES: Final = 256 * 1024 * 1024
"""Longest accepted line. ACP sends base64 terminal snapshots on one line, so the
limit is generous (4x the 64 MiB the tests exercise); it only exists so that an agent
that never writes a newline cannot exhaust memory."""

_READ_SIZE: Final = 1024 * 1024
"""Bytes asked of the stream per read: large reads keep 64 MiB lines to ~64 reads."""


@dataclass(frozen=True, slots=True)
class OversizedLine:
    """A line longer than the reader's limit. Its bytes were discarded."""

    size: int
    """How many bytes the line had (without the newline)."""
    limit: int


@dataclass(frozen=True, slots=True)
class DecodeError:
    """A line that is not valid UTF-8 JSON."""

    message: str
    """What was wrong, for the log and the user."""
    line: bytes
    """The offending line (possibly long: use `excerpt()` to show it)."""


class LineReader:
    r"""Split a byte stream into lines, in linear time, with a size limit.

    `receive()` returns one line without its `\\n` (a trailing `\\r` is left for the
    JSON decoder, which treats it as whitespace). At end of stream a final
    unterminated line is returned, then `anyio.EndOfStream` is raised.
    """

    def __init__(
        self,
        stream: ByteReceiveStream,
        *,
        max_line_bytes: int = DEFAULT_MAX_LINE_BYTES,
    ) -> None:
        self._stream = stream
        self._max = max_line_bytes
        self._buffer = bytearray()
        self._scanned = 0  # bytes of _buffer already known to hold no newline
        self._discarding = 0  # >0 while skipping the rest of an oversized line
        self._eof = False

    async def receive(self) -> bytes | OversizedLine:
        """Return the next line or `OversizedLine`; raise `anyio.EndOfStream` at EOF."""
        while True:
            newline = self._buffer.find(b"\n", self._scanned)
            if newline >= 0:
                size = self._discarding + newline
                if size > self._max:
                    self._discarding = 0
                    del self._buffer[: newline + 1]
                    self._scanned = 0
                    return OversizedLine(size=size, limit=self._max)
                line = self._take(newline)
                self._scanned = 0
                return line
            self._scanned = len(self._buffer)
            if self._discarding or self._scanned > self._max:
                self._discarding += self._scanned
                self._buffer.clear()
                self._scanned = 0
            if self._eof:
                return self._at_eof()
            try:
                chunk = await self._stream.receive(_READ_SIZE)
            except (anyio.EndOfStream, anyio.ClosedResourceError):
                self._eof = True
                continue
            self._buffer += chunk

    def _take(self, newline: int) -> bytes:
        """The line ending at `newline`, taken out of the buffer with one copy.

        A long line (at least `_READ_SIZE`, most of the buffer) leaves a new
        buffer behind: the old one's memory, the size of the line, is freed now,
        not kept for the small lines after it (a 200 MB line held 400 MB more
        than it needs while it was decoded and handled).
        """
        buffer = self._buffer
        with memoryview(buffer) as view:
            line = bytes(view[:newline])
            if newline >= _READ_SIZE and newline * 2 >= len(buffer):
                self._buffer = bytearray(view[newline + 1 :])
                return line
        del buffer[: newline + 1]
        return line

    def _at_eof(self) -> bytes | OversizedLine:
        if self._discarding:
            size = self._discarding
            self._discarding = 0
            return OversizedLine(size=size, limit=self._max)
        if self._buffer:
            line = bytes(self._buffer)
            self._buffer.clear()
            self._scanned = 0
            return line
        raise anyio.EndOfStream


def decode_line(line: bytes) -> Any | DecodeError:
    """Parse one line as JSON. Returns the value, or a `DecodeError` (never raises)."""
    try:
        # Decode first: ACP is UTF-8, and `json.loads(bytes)` would also sniff for
        # UTF-16/32 on every line, which costs more than the decode itself.
        return json.loads(line.decode("utf-8"))
    except UnicodeDecodeError as error:
        return DecodeError(f"invalid UTF-8 at byte {error.start}", line)
    except ValueError as error:  # json.JSONDecodeError and friends
        return DecodeError(f"invalid JSON: {error}", line)
    except RecursionError:
        return DecodeError("invalid JSON: nested too deeply", line)


def encode_message(message: Any) -> bytes:
    r"""Encode one message as a UTF-8 JSON line ending in `\\n`.

    `json.dumps` escapes control characters inside strings and adds no whitespace,
    so the result never contains an embedded newline. Strings holding lone
    surrogates (which UTF-8 cannot carry) fall back to `\\u` escapes.
    """
    try:
        text = json.dumps(message, ensure_ascii=False, separators=(",", ":"))
        return text.encode("utf-8") + b"\n"
    except UnicodeEncodeError:
        text = json.dumps(message, ensure_ascii=True, separators=(",", ":"))
        return text.encode("ascii") + b"\n"


def excerpt(line: bytes, limit: int = 200) -> str:
    """A short, printable rendering of a raw line for logs and on-screen messages.

    Control characters and invalid UTF-8 are escaped, so nothing an agent sends can
    act as a terminal escape sequence when the excerpt is displayed.
    """
    safe = printable(line[:limit].decode("utf-8", errors="backslashreplace"))
    if len(line) > limit:
        safe += f"… ({len(line)} bytes)"
    return safe


JOINERS: Final = frozenset("\u200c\u200d")
"""Zero-width (non-)joiners: dropped by `printable`. An emoji sequence joined
with ZWJ is drawn as one glyph by some terminals and as its parts by others, so
its width is unknowable; its parts side by side are the same emoji, at a width
every terminal agrees on."""


def _made_printable(ch: str, keep: str) -> str:
    if ch.isprintable() or ch in keep:
        return ch
    if ch in JOINERS:
        return ""
    if unicodedata.category(ch) == "Zs":  # no-break and other spaces
        return " "
    return ch.encode("unicode_escape").decode("ascii")


def printable(text: str, keep: str = "") -> str:
    r"""Escape every non-printable character (ESC, BEL, CR, bidi controls...).

    Agent-supplied text passes through this before it is written to a real terminal
    by anything other than the sandboxed UI, so it can never act as a control code.
    Two kinds of character are not escaped, since they are common in ordinary
    text (a model's "10\u00a0000", an emoji with a skin tone or a job) and cannot
    act on a terminal: spaces other than U+0020 become a plain space, and
    zero-width joiners are dropped (see `JOINERS`).

    Args:
        text: The text to make safe.
        keep: Characters to leave alone (e.g. `"\n\t"` for multi-line text).
    """
    if text.isprintable():
        return text
    if len(text) <= _PIECE:
        return "".join([_made_printable(ch, keep) for ch in text])
    # Long text (a message of megabytes, with line breaks to keep): only the
    # pieces holding something to escape are rebuilt character by character.
    pieces = []
    for start in range(0, len(text), _PIECE):
        piece = text[start : start + _PIECE]
        clean = piece
        for ch in keep:
            clean = clean.replace(ch, "")
        if clean.isprintable():
            pieces.append(piece)
        else:
            pieces.append("".join([_made_printable(ch, keep) for ch in piece]))
    return "".join(pieces)


_PIECE: Final = 4096
"""`printable` checks a long text in pieces of this many characters."""
