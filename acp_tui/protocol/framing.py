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
  the buffer once; a line of at least `LONG_LINE_BYTES` is not copied at all: the
  buffer itself is handed over (a `bytearray`, see `Line`) and a fresh one is
  started.
* **No step is as long as a huge line.** `decode_long_line` decodes a long line
  in steps of about `DECODE_PIECE_BYTES`, awaiting a pause between them (the
  dispatcher lets the UI run there), and never builds a string the size of the
  line: a JSON string of at least `LONG_STRING_BYTES` comes as a `LongText`, its
  text in pieces (a 200 MB message chunk is about a hundred steps of a few
  milliseconds, where `json.loads` of it took one of over a second). Its result
  is `decode_line`'s, those strings aside, errors included.
"""

from __future__ import annotations

import collections
import json
import secrets
from collections.abc import Awaitable, Callable, Collection, Generator, Sequence
from dataclasses import dataclass
from typing import Any, Final, TypeAlias

import anyio
from anyio.abc import ByteReceiveStream

from acp_tui.safe_text import printable

__all__ = [
    "DECODE_PIECE_BYTES",
    "DEFAULT_MAX_LINE_BYTES",
    "LONG_LINE_BYTES",
    "LONG_STRING_BYTES",
    "DecodeError",
    "Line",
    "LineReader",
    "LongText",
    "OversizedLine",
    "decode_line",
    "decode_long_line",
    "decode_steps",
    "encode_message",
    "excerpt",
    "join_long_text",
]

DEFAULT_MAX_LINE_BYTES: Final = 256 * 1024 * 1024
"""Longest accepted line. ACP sends base64 terminal snapshots on one line, so the
limit is generous (4x the 64 MiB the tests exercise); it only exists so that an agent
that never writes a newline cannot exhaust memory."""

_READ_SIZE: Final = 1024 * 1024
"""Bytes asked of the stream per read: large reads keep 64 MiB lines to ~64 reads."""

SPLIT_BYTES: Final = 2 * _READ_SIZE
"""Bytes of whole lines the reader splits at once, at most (`LineReader._split`)."""

LONG_LINE_BYTES: Final = 4 * 1024 * 1024
"""A line at least this long is handed over without a copy (the reader's buffer)
and is worth decoding in steps (`decode_long_line`): `json.loads` of 4 MiB takes
some 15 ms, of 200 MB over a second."""

LONG_STRING_BYTES: Final = 512 * 1024
"""A JSON string of a long line at least this long (its bytes on the wire) is
decoded in pieces into a `LongText`."""

DECODE_PIECE_BYTES: Final = 2 * 1024 * 1024
"""About the bytes of a long line one step of `decode_long_line` handles (a few
milliseconds)."""

_MANY_STRINGS: Final = 50_000
"""A long line with more strings than this is mostly not long strings: it is
decoded whole (one step, as `decode_line`)."""

_STRINGS_PER_STEP: Final = 2_000
"""Short strings skipped per step (each costs a few microseconds)."""

_LONG_BACKSLASH_RUN: Final = 4096
"""A run of backslashes this long before a quote: decoded whole instead (counting
such runs byte by byte is the one case where a step would grow long)."""

Line: TypeAlias = bytes | bytearray
"""One line as read: `bytes`, or for a line of at least `LONG_LINE_BYTES` the
reader's own buffer, handed over without a copy (a `bytearray` nothing else
holds: read it, never change it)."""


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
        self._ready: collections.deque[bytes] = collections.deque()
        """Lines split off the buffer at once, not returned yet (`_split`)."""

    def receive_ready(self) -> Line | None:
        """The next line if it was split off already (`receive` would not wait).

        None: ask `receive`. Costs no coroutine: most lines of a flood are read
        this way (`Dispatcher.run`).
        """
        ready = self._ready
        return ready.popleft() if ready else None

    async def receive(self) -> Line | OversizedLine:
        """Return the next line or `OversizedLine`; raise `anyio.EndOfStream` at EOF."""
        if self._ready:
            return self._ready.popleft()
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
            if not self._discarding and (first := self._split()) is not None:
                return first

    def _split(self) -> bytes | None:
        """Split the buffer's whole lines at once, if they are all short; the first.

        A read holds hundreds of short lines (a replayed session's updates):
        one split of them all costs a fraction of finding and taking each (the
        read loop's floor, bench/long_session.py). Only when every line is under
        the limit and the lines are under `SPLIT_BYTES` together; otherwise (a
        long or oversized line among them) `receive` takes them one at a time.
        """
        buffer = self._buffer
        last = buffer.rfind(b"\n", 0, min(SPLIT_BYTES, self._max + 1))
        if last < 0:
            return None
        with memoryview(buffer) as view:
            lines = bytes(view[:last]).split(b"\n")
        del buffer[: last + 1]
        self._scanned = 0
        self._ready.extend(lines[1:])
        return lines[0]

    def _take(self, newline: int) -> Line:
        """The line ending at `newline`, taken out of the buffer with one copy.

        A long line (at least `_READ_SIZE`, most of the buffer) leaves a new
        buffer behind: the old one's memory, the size of the line, is freed now,
        not kept for the small lines after it (a 200 MB line held 400 MB more
        than it needs while it was decoded and handled). A line of at least
        `LONG_LINE_BYTES` is the old buffer itself, cut at the newline: copying
        200 MB took a step of 150-300 ms, mostly faulting in fresh memory.
        """
        buffer = self._buffer
        if newline >= LONG_LINE_BYTES:
            with memoryview(buffer) as view:
                self._buffer = bytearray(view[newline + 1 :])
            del buffer[newline:]
            return buffer
        with memoryview(buffer) as view:
            line = bytes(view[:newline])
            if newline >= _READ_SIZE and newline * 2 >= len(buffer):
                self._buffer = bytearray(view[newline + 1 :])
                return line
        del buffer[: newline + 1]
        return line

    def _at_eof(self) -> Line | OversizedLine:
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


_scan_once: Final[Callable[[str, int], tuple[Any, int]]] = json.JSONDecoder().scan_once  # type: ignore[attr-defined]
"""`json.loads`'s scanner: (value, end) of the JSON value at an index."""


def decode_line(line: Line) -> Any | DecodeError:
    """Parse one line as JSON. Returns the value, or a `DecodeError` (never raises).

    A line that is one JSON value and nothing else (every line an agent writes
    with `json.dumps`) is read by the C scanner that `json.loads` ends in, called
    directly: without `json.loads`'s two Python frames and two whitespace
    searches, a stream of 20,000 small lines decodes in about three quarters of
    the time. Anything else (blanks around the value, extra data, no value at
    all) goes through `json.loads`, which gives the same value or the same error.
    """
    try:
        # Decode first: ACP is UTF-8, and `json.loads(bytes)` would also sniff for
        # UTF-16/32 on every line, which costs more than the decode itself.
        text = line.decode("utf-8")
        try:
            value, end = _scan_once(text, 0)
        except StopIteration:  # no value at the start: json.loads says why
            return json.loads(text)
        return value if end == len(text) else json.loads(text)
    except UnicodeDecodeError as error:
        return DecodeError(f"invalid UTF-8 at byte {error.start}", bytes(line))
    except ValueError as error:  # json.JSONDecodeError and friends
        return DecodeError(f"invalid JSON: {error}", bytes(line))
    except RecursionError:
        return DecodeError("invalid JSON: nested too deeply", bytes(line))


class LongText:
    """A JSON string of a long line, in the pieces it was decoded in.

    `decode_long_line` gives every string of at least `LONG_STRING_BYTES` bytes
    as one of these, so that a 200 MB message never has to exist as one string:
    its reader takes its ends (`head`, `tail`), and only who needs all of it
    joins it (`text`, one step as long as the text).
    """

    __slots__ = ("_length", "pieces")

    def __init__(self, pieces: Sequence[str]) -> None:
        self.pieces = tuple(pieces)
        self._length = sum(map(len, self.pieces))

    def __len__(self) -> int:
        return self._length

    def head(self, count: int) -> str:
        """The first `count` characters (all of them if fewer)."""
        parts: list[str] = []
        for piece in self.pieces:
            if count <= 0:
                break
            parts.append(piece[:count])
            count -= len(piece)
        return "".join(parts)

    def tail(self, count: int) -> str:
        """The last `count` characters (all of them if fewer)."""
        parts: list[str] = []
        for piece in reversed(self.pieces):
            if count <= 0:
                break
            parts.append(piece[max(len(piece) - count, 0) :])
            count -= len(piece)
        parts.reverse()
        return "".join(parts)

    def text(self) -> str:
        """All of it, as one string."""
        return "".join(self.pieces)

    def __eq__(self, other: object) -> bool:
        if isinstance(other, LongText):
            return len(self) == len(other) and self.text() == other.text()
        return NotImplemented

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return f"LongText({self._length:,} characters in {len(self.pieces)} pieces)"


def join_long_text(value: Any, keep: Collection[tuple[str, ...]] = ()) -> Any:
    """`value` with each `LongText` in it joined into a string, but at `keep`.

    `keep` names paths of object keys from `value` (`("update", "content",
    "text")`) where a `LongText` stays as it is. Values without one are returned
    as they are.
    """
    return _joined(value, keep, ())


def _joined(
    value: Any, keep: Collection[tuple[str, ...]], path: tuple[str, ...]
) -> Any:
    if isinstance(value, LongText):
        return value if path in keep else value.text()
    if isinstance(value, dict):
        return {
            k.text() if isinstance(k, LongText) else k: _joined(v, keep, (*path, k))
            for k, v in value.items()
        }
    if isinstance(value, list):
        return [_joined(item, keep, (*path, "")) for item in value]
    return value


async def decode_long_line(
    line: Line, pause: Callable[[], Awaitable[None]]
) -> Any | DecodeError:
    """`decode_line` for a long line, in steps, awaiting `pause()` between them.

    Strings of at least `LONG_STRING_BYTES` bytes come as `LongText`; anything
    else is as `decode_line` gives it, errors included (a line this cannot take
    in pieces, or that turns out not to be valid, is decoded whole: one step).
    """
    steps = decode_steps(line)
    while True:
        try:
            next(steps)
        except StopIteration as done:
            return done.value
        await pause()


_NONCE: Final = "\ufffflong-text-" + secrets.token_hex(16) + "-"
"""What a long string is replaced with while the rest of its line is decoded (and
its index after it): no agent can send it, it is drawn anew in every process."""


def decode_steps(line: Line) -> Generator[None, None, Any | DecodeError]:
    """The steps of `decode_long_line`: each `next` does one, the last returns."""
    with memoryview(line) as view:
        result = yield from _decode_steps(line, view)
    return result


def _decode_steps(
    line: Line, view: memoryview
) -> Generator[None, None, Any | DecodeError]:
    end = len(line)
    skeleton: list[bytes | memoryview] = []
    texts: list[LongText] = []
    mark = pos = 0
    strings = 0
    while (quote := line.find(b'"', pos)) >= 0:
        strings += 1
        if strings > _MANY_STRINGS:
            return decode_line(line)
        if strings % _STRINGS_PER_STEP == 0:
            yield
        start = quote + 1
        pieces: list[str] = []
        decoded = scan = start
        while True:  # find the closing quote, window by window
            window = min(scan + DECODE_PIECE_BYTES, end)
            found = line.find(b'"', scan, window)
            if found >= 0:
                run = _backslashes_before(line, found, start)
                if run < 0:
                    return decode_line(line)
                if run % 2 == 0:
                    close = found
                    break
                scan = found + 1  # an escaped quote
                continue
            if window == end:  # no closing quote: not JSON
                return decode_line(line)
            scan = window
            if scan - decoded >= DECODE_PIECE_BYTES:
                cut = _split_point(line, decoded, scan)
                if not _take_piece(view, decoded, cut, pieces):
                    return decode_line(line)
                decoded = cut
            yield
        pos = close + 1
        if close - start < LONG_STRING_BYTES:
            continue  # a short string: decoded with the rest of the line
        while decoded < close:
            cut = close
            if close - decoded > DECODE_PIECE_BYTES:
                cut = _split_point(line, decoded, decoded + DECODE_PIECE_BYTES)
            if not _take_piece(view, decoded, cut, pieces):
                return decode_line(line)
            decoded = cut
            yield
        skeleton.append(view[mark:quote])
        skeleton.append(json.dumps(f"{_NONCE}{len(texts)}").encode("ascii"))
        texts.append(LongText(pieces))
        mark = pos
    if not texts:
        return decode_line(line)
    skeleton.append(view[mark:])
    value = decode_line(b"".join(skeleton))
    if isinstance(value, DecodeError):
        return decode_line(line)
    return _with_long_texts(value, texts)


def _with_long_texts(value: Any, texts: Sequence[LongText]) -> Any:
    if isinstance(value, str):
        if value.startswith(_NONCE):
            return texts[int(value[len(_NONCE) :])]
        return value
    if isinstance(value, dict):
        return {
            _long_key(k, texts): _with_long_texts(v, texts) for k, v in value.items()
        }
    if isinstance(value, list):
        return [_with_long_texts(item, texts) for item in value]
    return value


def _long_key(key: str, texts: Sequence[LongText]) -> str:
    if key.startswith(_NONCE):
        return texts[int(key[len(_NONCE) :])].text()
    return key


_BACKSLASH: Final = 0x5C


def _backslashes_before(line: Line, index: int, start: int) -> int:
    """How many backslashes end just before `index` (none before `start`).

    -1 for a run of `_LONG_BACKSLASH_RUN` or more.
    """
    at = index
    while at > start and line[at - 1] == _BACKSLASH:
        at -= 1
        if index - at >= _LONG_BACKSLASH_RUN:
            return -1
    return index - at


def _split_point(line: Line, low: int, high: int) -> int:
    """The last place at most `high`, past `low`, a string's bytes may be cut.

    `low` is such a place (a string's start, or an earlier cut). A cut must not
    fall inside a UTF-8 character, an escape, or between the two escapes of a
    surrogate pair (each piece is decoded alone). Such a place is found within a
    few bytes (an escaped surrogate pair is 12); `low` if not (then the caller
    decodes the line whole).
    """
    for at in range(high, max(low, high - 16), -1):
        if _cuttable(line, low, at):
            return at
    return low


def _starts_escape(line: Line, index: int, low: int) -> bool:
    return line[index] == _BACKSLASH and _backslashes_before(line, index, low) % 2 == 0


def _cuttable(line: Line, low: int, at: int) -> bool:
    if 0x80 <= line[at] < 0xC0:  # inside a UTF-8 character
        return False
    run = _backslashes_before(line, at, low)
    if run < 0 or run % 2:  # inside an escape: just after its backslash
        return False
    for back in range(2, 6):  # inside a \uXXXX
        index = at - back
        if index < low:
            break
        if line[index + 1] == 0x75 and _starts_escape(line, index, low):
            return False
    index = at - 6  # between a high surrogate's escape and a low one's
    return not (
        index >= low
        and _starts_escape(line, index, low)
        and line[index + 1] == 0x75
        and line[index + 2] in b"dD"
        and line[index + 3] in b"89abAB"
        and line[at : at + 2] == b"\\u"
        and line[at + 2 : at + 3] in (b"d", b"D")
        and line[at + 3 : at + 4] in (b"c", b"d", b"e", b"f", b"C", b"D", b"E", b"F")
    )


def _take_piece(view: memoryview, start: int, cut: int, pieces: list[str]) -> bool:
    """Append the string bytes `view[start:cut]`, decoded, to `pieces`.

    False (nothing appended) if they are not a piece: empty, or not valid.
    """
    piece = None if cut <= start else _decode_piece(view[start:cut])
    if piece is None:
        return False
    pieces.append(piece)
    return True


def _decode_piece(piece: memoryview) -> str | None:
    """A piece of a JSON string's bytes as text (None: not valid)."""
    try:
        text = str(piece, "utf-8")
        decoded = json.loads(f'"{text}"')
    except (UnicodeDecodeError, ValueError, RecursionError):
        return None
    return decoded if isinstance(decoded, str) else None


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


def excerpt(line: Line, limit: int = 200) -> str:
    """A short, printable rendering of a raw line for logs and on-screen messages.

    Control characters and invalid UTF-8 are escaped, so nothing an agent sends can
    act as a terminal escape sequence when the excerpt is displayed.
    """
    safe = printable(line[:limit].decode("utf-8", errors="backslashreplace"))
    if len(line) > limit:
        safe += f"… ({len(line)} bytes)"
    return safe
