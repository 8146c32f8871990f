"""Append-only buffers behind the store's streaming content, and their views.

Invariants (what makes the views cheap *and* immutable):

* A growing list (message blocks, text parts, tool-call content, terminal chunks)
  is only ever mutated by `append`. Replacing or clearing the content swaps in a
  *new* list; the old one is never touched again.
* A view captures the list and its current length, so it is an O(1), truly
  immutable snapshot of a prefix: later appends fall beyond its length, and later
  replacements build another list.
* Appends are O(1) amortized: nothing copies the content per append.
* The capped logs (`ByteLog`, `TextTail`) drop their oldest content by moving a
  start index into their list (and compacting into a *new* list now and then),
  so their snapshots, like the views, stay valid and immutable.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from itertools import islice
from typing import AnyStr, Generic, TypeVar, overload

__all__ = [
    "ByteLog",
    "BytesSnapshot",
    "Cached",
    "ContentView",
    "TextLog",
    "TextSnapshot",
    "TextTail",
]

_T = TypeVar("_T")
_S = TypeVar("_S")


class Cached(Generic[_S]):
    """Mutable state whose immutable snapshot is built once per change.

    Whoever changes the state sets `snap` to None; `snapshot()` then builds a new
    one (`_build`) and keeps it until the next change.
    """

    __slots__ = ("snap",)

    snap: _S | None

    def snapshot(self) -> _S:
        """The immutable snapshot of the current state (cached until a change)."""
        snap = self.snap
        if snap is None:
            snap = self.snap = self._build()
        return snap

    def _build(self) -> _S:
        raise NotImplementedError


def _last_of(
    chunks: list[AnyStr], first: int, end: int, offset: int, count: int
) -> list[AnyStr]:
    """The last `count` units of `chunks[first:end]`, oldest first.

    The first chunk is read from `offset`; only the chunks they span are touched.
    """
    parts: list[AnyStr] = []
    index = end - 1
    while count > 0 and index >= first:
        chunk = chunks[index]
        if index == first and offset:
            chunk = chunk[offset:]
        if len(chunk) >= count:
            parts.append(chunk[len(chunk) - count :])
            count = 0
        else:
            parts.append(chunk)
            count -= len(chunk)
        index -= 1
    parts.reverse()
    return parts


def _skip(
    chunks: list[AnyStr], first: int, offset: int, count: int
) -> tuple[int, int, int]:
    """Move the start (`first` chunk, `offset` in it) past `count` units.

    Returns the new `(first, offset)` and how many units the chunks lacked.
    """
    while count and first < len(chunks):
        available = len(chunks[first]) - offset
        if count >= available:
            count -= available
            first += 1
            offset = 0
        else:
            offset += count
            count = 0
    return first, offset, count


class ContentView(Sequence[_T]):
    """A read-only, immutable view of the first `len(self)` items of a list.

    Compares equal to a list, tuple or other `ContentView` with equal items.
    """

    __slots__ = ("_items", "_len")

    def __init__(self, items: list[_T], length: int | None = None) -> None:
        self._items = items
        self._len = len(items) if length is None else length

    def __len__(self) -> int:
        return self._len

    @overload
    def __getitem__(self, index: int) -> _T: ...

    @overload
    def __getitem__(self, index: slice) -> tuple[_T, ...]: ...

    def __getitem__(self, index: int | slice) -> _T | tuple[_T, ...]:
        if isinstance(index, slice):
            return tuple(self._items[: self._len][index])
        n = self._len
        i = index + n if index < 0 else index
        if not 0 <= i < n:
            raise IndexError("content index out of range")
        return self._items[i]

    def __iter__(self) -> Iterator[_T]:
        # islice stops at the captured length even if the list grows meanwhile.
        return islice(self._items, self._len)

    def __reversed__(self) -> Iterator[_T]:
        for i in range(self._len - 1, -1, -1):
            yield self._items[i]

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, ContentView | list | tuple):
            return NotImplemented
        if len(other) != self._len:
            return False
        return all(a == b for a, b in zip(self, other, strict=True))

    def __repr__(self) -> str:
        return f"ContentView({list(self)!r})"


class TextLog:
    """The text parts of one message's content, joined lazily and incrementally.

    `text(n)` returns the join of the first `n` parts. The last join is cached and
    extended with only the new parts, so polling the text while chunks stream in
    costs the new text plus one string copy, never a re-join of every part.
    """

    __slots__ = ("_joined", "_joined_n", "parts")

    def __init__(self, parts: list[str] | None = None) -> None:
        self.parts: list[str] = [] if parts is None else parts
        self._joined = ""
        self._joined_n = 0

    def text(self, n: int) -> str:
        """Return the first `n` parts joined."""
        k = self._joined_n
        if n == k:
            return self._joined
        if n == 1:  # one part (a huge chunk's head): itself, not a copy
            self._joined, self._joined_n = self.parts[0], 1
            return self._joined
        if n > k:
            self._joined = "".join((self._joined, *self.parts[k:n]))
            self._joined_n = n
            return self._joined
        return "".join(self.parts[:n])


class _Joined(Generic[AnyStr]):
    """Chunks `[first:end]` (the first read from `offset`) and a `tail`, immutable.

    The snapshots of the capped logs: the data is joined on first use and cached.
    """

    __slots__ = ("_chunks", "_end", "_first", "_offset", "_tail", "_value")

    _chunks: list[AnyStr]
    _tail: AnyStr
    _value: AnyStr | None

    def __init__(
        self, chunks: list[AnyStr], first: int, end: int, offset: int, tail: AnyStr
    ) -> None:
        self._chunks = chunks
        self._first = first
        self._end = end
        self._offset = offset
        self._tail = tail
        self._value = None

    def value(self) -> AnyStr:
        """Return the retained bytes or text."""
        if self._value is None:
            parts = self._chunks[self._first : self._end]
            if parts and self._offset:
                parts[0] = parts[0][self._offset :]
            parts.append(self._tail)
            self._value = self._tail[:0].join(parts)
        return self._value

    def _last(self, count: int) -> AnyStr:
        """The last `count` retained units, joining only the chunks they span."""
        tail = self._tail
        if count <= 0:
            return tail[:0]
        if self._value is not None:
            return self._value[-count:]
        if count <= len(tail):
            return tail[len(tail) - count :]
        needed = count - len(tail)
        parts = _last_of(self._chunks, self._first, self._end, self._offset, needed)
        parts.append(tail)
        return tail[:0].join(parts)


class BytesSnapshot(_Joined[bytes]):
    """An immutable view of a terminal's retained output at one revision.

    The bytes are joined on first use and cached.
    """

    __slots__ = ("_size",)

    def __init__(
        self, chunks: list[bytes], start: int, end: int, offset: int, tail: bytes
    ) -> None:
        super().__init__(chunks, start, end, offset, tail)
        self._size: int | None = None

    @property
    def size(self) -> int:
        """How many bytes are retained (without joining them)."""
        if self._size is None:
            if self._value is not None:
                self._size = len(self._value)
            else:
                chunks = self._chunks
                total = sum(len(chunks[i]) for i in range(self._first, self._end))
                if self._first < self._end:
                    total -= self._offset
                self._size = total + len(self._tail)
        return self._size

    def tail(self, count: int) -> bytes:
        """The last `count` retained bytes, joining only the chunks they span.

        A renderer that fed the output so far needs only what arrived since; this
        avoids joining the whole log (up to the store's cap) on every update.
        """
        return self._last(count)


EMPTY_BYTES = BytesSnapshot([], 0, 0, 0, b"")

_TAIL_MAX = 16 * 1024
"""Small appends gather in a bytearray tail; at this size it becomes a chunk."""


def _is_continuation(byte: int) -> bool:
    return 0x80 <= byte < 0xC0


class ByteLog(Cached[BytesSnapshot]):
    """A terminal's output: appendable bytes with a cap that drops the oldest.

    Storage is a list of immutable `bytes` chunks (only ever appended to; see the
    module invariants) plus a small `bytearray` tail that gathers small appends,
    so appends are O(1) amortized, a snapshot copies at most the tail, and the
    per-chunk overhead stays small even for one-byte appends.

    When more than `cap` bytes are retained, the oldest are dropped (whole chunks,
    or an offset into the first one), then up to three more so the retained bytes
    do not start inside a UTF-8 sequence. `dropped` counts every byte dropped
    since the last `reset`.
    """

    __slots__ = (
        "_chunks",
        "_offset",
        "_start",
        "_tail",
        "cap",
        "dropped",
        "size",
    )

    def __init__(self, cap: int) -> None:
        if cap < 0:
            raise ValueError("the byte cap must not be negative")
        self.cap = cap
        self._chunks: list[bytes] = []
        self._start = 0
        self._offset = 0
        self._tail = bytearray()
        self.snap: BytesSnapshot | None = EMPTY_BYTES
        self.size = 0
        self.dropped = 0

    def reset(self, data: bytes = b"") -> None:
        """Replace every retained byte with `data` (itself capped)."""
        self._chunks = []
        self._start = 0
        self._offset = 0
        self._tail = bytearray()
        self.snap = EMPTY_BYTES
        self.size = 0
        self.dropped = 0
        self.append(data)

    def append(self, data: bytes) -> None:
        """Append `data`, then drop the oldest bytes beyond the cap."""
        n = len(data)
        if not n:
            return
        self.snap = None
        cap = self.cap
        if n >= cap:
            # The new data alone fills the cap: it replaces everything.
            dropped = self.size + n - cap
            self.dropped += dropped
            self._chunks = [bytes(data[n - cap :])] if cap else []
            self._start = 0
            self._offset = 0
            self._tail = bytearray()
            self.size = cap
            if dropped:
                self._align()
            return
        tail = self._tail
        if len(tail) + n <= _TAIL_MAX:
            tail += data
        else:
            if tail:
                self._chunks.append(bytes(tail))
                tail.clear()
            if n > _TAIL_MAX // 2:
                self._chunks.append(bytes(data))
            else:
                tail += data
        self.size += n
        if self.size > cap:
            self._drop(self.size - cap)
            self._align()

    def _build(self) -> BytesSnapshot:
        """An immutable view of the retained bytes (`snapshot()`)."""
        return BytesSnapshot(
            self._chunks,
            self._start,
            len(self._chunks),
            self._offset,
            bytes(self._tail),
        )

    def _drop(self, count: int) -> None:
        chunks = self._chunks
        self.size -= count
        self.dropped += count
        self._start, self._offset, count = _skip(
            chunks, self._start, self._offset, count
        )
        if count:
            del self._tail[:count]
        if self._start > 32 and self._start * 2 > len(chunks):
            # Compact into a new list; views of the old one stay valid.
            self._chunks = chunks[self._start :]
            self._start = 0

    def _first_byte(self) -> int | None:
        if self._start < len(self._chunks):
            return self._chunks[self._start][self._offset]
        return self._tail[0] if self._tail else None

    def _align(self) -> None:
        for _ in range(3):
            first = self._first_byte()
            if first is None or not _is_continuation(first):
                return
            self._drop(1)


_SMALL_MAX = 16 * 1024
"""Small text appends gather in a list; at this many characters they are joined
into one chunk (a tail of many tiny chunks keeps few strings)."""


class TextSnapshot(_Joined[str]):
    """An immutable view of a `TextTail` at one moment.

    `start` is the absolute position (in characters of the whole text, head
    included) of the first character the tail was ever given; `total` how many
    it was given; `dropped` how many of those the cap dropped (the oldest). The
    text is joined on first use and cached.
    """

    __slots__ = ("dropped", "size", "start", "total")

    def __init__(
        self,
        chunks: list[str],
        first: int,
        end: int,
        offset: int,
        small: str,
        *,
        start: int,
        total: int,
        dropped: int,
    ) -> None:
        super().__init__(chunks, first, end, offset, small)
        self.start = start
        self.total = total
        self.dropped = dropped
        self.size = total - dropped
        """How many characters are retained."""

    def last(self, count: int) -> str:
        """The last `count` retained characters, joining only the chunks they span."""
        return self._last(count)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, TextSnapshot):
            return NotImplemented
        return (
            self.start == other.start
            and self.total == other.total
            and self.dropped == other.dropped
            and self.value() == other.value()
        )

    def __hash__(self) -> int:
        return hash((self.start, self.total, self.dropped))

    def __repr__(self) -> str:
        return (
            f"TextSnapshot(start={self.start}, total={self.total}, "
            f"dropped={self.dropped}, size={self.size})"
        )


class TextTail(Cached[TextSnapshot]):
    """The last `cap` characters of a text that goes on growing.

    The text after a capped message's head (see `SessionStore`): appends are
    O(1) amortized, like `ByteLog`'s, and the oldest characters beyond `cap` are
    dropped (`dropped` counts them). `start` is where in the whole text the
    tail begins (the head's length), so positions are comparable with it.
    """

    __slots__ = (
        "_chunks",
        "_first",
        "_offset",
        "_small",
        "_small_len",
        "_small_max",
        "cap",
        "dropped",
        "start",
        "total",
    )

    def __init__(self, cap: int, start: int = 0) -> None:
        if cap < 0:
            raise ValueError("the text cap must not be negative")
        self.cap = cap
        self.start = start
        self.total = 0
        """Characters appended so far (retained or dropped)."""
        self.dropped = 0
        self._chunks: list[str] = []
        self._first = 0
        self._offset = 0
        self._small: list[str] = []
        self._small_len = 0
        self._small_max = min(_SMALL_MAX, max(cap // 4, 64))
        """Small appends are joined into a chunk past this size: well under the
        cap, so dropping the oldest text finds it in the chunks."""
        self.snap: TextSnapshot | None = None

    @property
    def size(self) -> int:
        """How many characters are retained."""
        return self.total - self.dropped

    def append(self, text: str, start: int = 0) -> None:
        """Append `text` (from `start`), then drop the oldest characters beyond the cap.

        Only what is kept is copied: the last `cap` characters of a 200 MB text.
        """
        n = len(text) - start
        if n <= 0:
            return
        self.snap = None
        self.total += n
        cap = self.cap
        if n >= cap:
            # The new text alone fills the cap: it replaces everything.
            self.dropped = self.total - cap
            self._chunks = [text[len(text) - cap :]] if cap else []
            self._first = 0
            self._offset = 0
            self._small = []
            self._small_len = 0
            return
        if start:
            text = text[start:]
        if n > self._small_max // 2:
            self._gather()
            self._chunks.append(text)
        else:
            self._small.append(text)
            self._small_len += n
            if self._small_len > self._small_max:
                self._gather()
        excess = self.size - cap
        if excess > 0:
            self._drop(excess)

    def skip(self, count: int) -> None:
        """Count `count` more characters, not kept: they and all retained are dropped.

        What is retained is dropped too: text appended later does not follow it.
        """
        if count <= 0:
            return
        self.snap = None
        self.total += count
        self.dropped = self.total
        self._chunks = []
        self._first = 0
        self._offset = 0
        self._small = []
        self._small_len = 0

    def _build(self) -> TextSnapshot:
        """An immutable view of the retained text (`snapshot()`)."""
        return TextSnapshot(
            self._chunks,
            self._first,
            len(self._chunks),
            self._offset,
            "".join(self._small),
            start=self.start,
            total=self.total,
            dropped=self.dropped,
        )

    def _gather(self) -> None:
        if self._small:
            self._chunks.append("".join(self._small))
            self._small = []
            self._small_len = 0

    def _drop(self, count: int) -> None:
        self.dropped += count
        chunks = self._chunks
        self._first, self._offset, count = _skip(
            chunks, self._first, self._offset, count
        )
        if count:
            # Into the small appends (only when the chunks are all gone).
            rest = "".join(self._small)[count:]
            self._small = [rest] if rest else []
            self._small_len = len(rest)
        if self._first > 4 and self._first * 2 > len(chunks):
            # Compact into a new list (snapshots of the old one stay valid): the
            # dropped chunks hold at most about the retained text.
            self._chunks = chunks[self._first :]
            self._first = 0
