"""Bounded outbound queues: the bridge's backpressure.

The agent's lines wait in a `Mailbox` until the client's stream takes them. A
full mailbox makes `put` wait, which stops the bridge reading the agent's stdout,
so a slow reader slows the agent down (its pipe fills) instead of growing memory.
"""

from __future__ import annotations

import collections
from typing import Final

import anyio

__all__ = ["MAX_BUFFERED_BYTES", "MAX_BUFFERED_MESSAGES", "Mailbox"]

MAX_BUFFERED_BYTES: Final = 8 * 1024 * 1024
"""Bytes one mailbox holds before `put` waits (one message larger than this is
still taken when the mailbox is empty)."""

MAX_BUFFERED_MESSAGES: Final = 4096
"""Messages one mailbox holds before `put` waits."""


class Mailbox:
    """A queue of lines bounded in bytes and in count, with one reader."""

    def __init__(
        self,
        *,
        max_bytes: int = MAX_BUFFERED_BYTES,
        max_messages: int = MAX_BUFFERED_MESSAGES,
    ) -> None:
        self._items: collections.deque[bytes] = collections.deque()
        self._bytes = 0
        self._max_bytes = max_bytes
        self._max_messages = max_messages
        self._changed = anyio.Event()
        self._closed = False
        self.has_reader = False
        """Whether a stream is taking from this mailbox (one at a time)."""

    @property
    def buffered_bytes(self) -> int:
        """Bytes queued."""
        return self._bytes

    def __len__(self) -> int:
        return len(self._items)

    def _notify(self) -> None:
        self._changed.set()
        self._changed = anyio.Event()

    def _full_for(self, size: int) -> bool:
        if not self._items:
            return False
        return (
            self._bytes + size > self._max_bytes
            or len(self._items) >= self._max_messages
        )

    async def put(self, line: bytes) -> bool:
        """Queue `line`, waiting while the mailbox is full.

        Returns:
            False if the mailbox was closed (the line is dropped).
        """
        while not self._closed and self._full_for(len(line)):
            await self._changed.wait()
        if self._closed:
            return False
        self._items.append(line)
        self._bytes += len(line)
        self._notify()
        return True

    async def get(self) -> bytes:
        """The oldest line, waiting for one.

        Raises:
            anyio.EndOfStream: The mailbox is closed and empty.
        """
        while not self._items:
            if self._closed:
                raise anyio.EndOfStream
            await self._changed.wait()
        line = self._items.popleft()
        self._bytes -= len(line)
        self._notify()
        return line

    def clear(self) -> None:
        """Drop every queued line."""
        self._items.clear()
        self._bytes = 0
        self._notify()

    def close(self) -> None:
        """Refuse further lines, drop the queued ones; `get` then ends."""
        self._closed = True
        self.clear()
