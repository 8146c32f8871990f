"""Every file the agent writes through the client is shown in the conversation.

A v1 `fs/write_text_file` request names no tool call (the spec leaves it to the
agent to report its edits in one), so an agent can change a file without the
conversation ever showing it. `FileWrites` serves the write for one session and
records what it did, as a diff of the file before and after (or, past
`MAX_SHOWN_BYTES`, a line saying how much was written), in the store:

* **In the tool call that is doing it**: exactly one unfinished tool call
  (status neither completed, failed nor cancelled) names the file (in its
  locations, a top-level string of its raw input, or a diff of its content).
  The diff is appended to its content, unless the content already shows this
  very write (a diff of the same path with the same new text). It stays there:
  when the agent later replaces the call's content with content that does not
  show the write, it is appended again (`guard`).
* **Otherwise, on a card of its own**: an `edit` tool call, completed, titled
  "The agent wrote `path` (N lines) without a tool call", with the file as its
  location, at the place the write happened. Its id (`acp-tui/write/<random>`)
  is never sent to the agent, so no agent update can change it. One exception:
  a write that some tool call's content already shows exactly (its last diff
  of the path) gets no card; the user has seen it.

A refused write (outside the session's roots, an I/O error) changes nothing and
is shown nowhere: the agent gets the error. The file's old text is read just
before the write, in a worker thread.
"""

from __future__ import annotations

import os
import secrets
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import Final

import anyio.to_thread

from acp_tui.client.fs import FileSystemAccess
from acp_tui.store.model import ToolCall
from acp_tui.store.ops import AppendToolCallContent, Op, PatchToolCall
from acp_tui.store.store import SessionStore
from acp_tui.store.values import UNSET, JSONObject, JSONValue

__all__ = ["MAX_SHOWN_BYTES", "WRITE_ID_PREFIX", "FileWrites", "written_lines"]

MAX_SHOWN_BYTES: Final = 2 * 1024 * 1024
"""A write whose old or new text is larger than this is shown without the text."""

WRITE_ID_PREFIX: Final = "acp-tui/write/"
"""The start of the id of a write's own card."""


class _TooLarge:
    """The old text of a file too large to show (or unreadable)."""


_TOO_LARGE: Final = _TooLarge()


def written_lines(text: str) -> int:
    """How many lines `text` has (a last line without a newline counts)."""
    return text.count("\n") + (1 if text and not text.endswith("\n") else 0)


def _read_old(real: str) -> str | _TooLarge | None:
    """The text of `real` before the write: None if missing, or `_TOO_LARGE`."""
    try:
        with open(real, "rb") as file:
            size = os.fstat(file.fileno()).st_size
            if size > MAX_SHOWN_BYTES:
                return _TOO_LARGE
            data = file.read(MAX_SHOWN_BYTES + 1)
    except FileNotFoundError:
        return None
    except OSError:
        return _TOO_LARGE
    if len(data) > MAX_SHOWN_BYTES:
        return _TOO_LARGE
    return data.decode("utf-8", errors="replace")


class FileWrites:
    """Serves one session's `fs/write_text_file` and shows each write (see above).

    Args:
        store: The session's store.
        roots: The session's file-system access (confinement, the atomic write).
        cwd: The session's directory (paths inside it are shown relative to it).
        new_id: Makes the random part of a card's id.
    """

    def __init__(
        self,
        store: SessionStore,
        roots: FileSystemAccess,
        cwd: Path,
        new_id: Callable[[], str] = lambda: secrets.token_hex(8),
    ) -> None:
        self._store = store
        self._roots = roots
        self._cwd = os.path.normpath(cwd)
        self._new_id = new_id
        self._attached: dict[str, list[JSONObject]] = {}
        """What was written, by the tool call showing it (kept through updates)."""
        self._in_order = anyio.Lock()
        """Writes are made one at a time, in the order their requests came."""

    async def write(self, path: str, content: str, *, allow_git: bool = False) -> None:
        """Write the file (atomically, confined), then show the write.

        `allow_git`: the user lets the agent write under `.git` (see `client.fs`).

        Writes are made in the order their requests came, one at a time: each
        request is served by a task of its own, and the file work runs in worker
        threads, so a write delayed there (a loaded machine) could land after a
        later write of the same file, and leave the older content on disk. An
        agent that sends a write without waiting for the last one's answer gets
        what it sent last. (The interop test's opencode edit was found reverted
        twice in loaded CI runs, which this would explain; not reproduced.)

        Raises:
            RpcError: The write was refused or failed (nothing is shown).
        """
        async with self._in_order:  # (fair: taken in the order asked)
            real = self._roots.confine(path)
            old = await anyio.to_thread.run_sync(_read_old, real)
            await self._roots.write_text_file(path, content, allow_git=allow_git)
            self._store.apply_many(self._shown(path, real, old, content))

    def guard(self, operations: Sequence[Op]) -> Sequence[Op]:
        """Return `operations`, with the writes a content replacement drops.

        A tool call that shows a write keeps showing it: if the agent replaces its
        content with content that does not show that write, the write is
        appended again.
        """
        if not self._attached:
            return operations
        out: list[Op] = []
        for op in operations:
            out.append(op)
            if (
                isinstance(op, PatchToolCall)
                and op.content is not UNSET
                and op.tool_call_id in self._attached
            ):
                content = op.content or ()
                for item in self._attached[op.tool_call_id]:
                    if not any(_same_write(item, shown) for shown in content):
                        out.append(AppendToolCallContent(op.tool_call_id, item))
        return out

    # --- how a write is shown --------------------------------------------------

    def _shown(
        self, path: str, real: str, old: str | _TooLarge | None, content: str
    ) -> list[Op]:
        item = self._item(path, old, content)
        names = {os.path.normpath(path), real}
        calls = self._store.tool_calls()
        naming = [c for c in calls if not c.is_final and _names(c, names)]
        if len(naming) == 1:
            (call,) = naming
            if any(_same_write(item, shown) for shown in call.content):
                return []
            self._attached.setdefault(call.tool_call_id, []).append(item)
            return [AppendToolCallContent(call.tool_call_id, item)]
        if any(_last_diff(c, names) == content for c in calls):
            return []  # a tool call showed exactly this write
        title = (
            f"The agent wrote {self._display(path)} "
            f"({_count(written_lines(content), 'line')}) without a tool call"
        )
        return [
            PatchToolCall(
                f"{WRITE_ID_PREFIX}{self._new_id()}",
                title=title,
                kind="edit",
                status="completed",
                locations=[{"path": path}],
                content=[item],
            )
        ]

    @staticmethod
    def _item(path: str, old: str | _TooLarge | None, content: str) -> JSONObject:
        if old is _TOO_LARGE or len(content) > MAX_SHOWN_BYTES:
            size = len(content.encode("utf-8", errors="surrogatepass"))
            text = f"Wrote {size:,} bytes to {path}: too large to show."
            return {"type": "content", "content": {"type": "text", "text": text}}
        old_text = old if isinstance(old, str) else None
        return {"type": "diff", "path": path, "oldText": old_text, "newText": content}

    def _display(self, path: str) -> str:
        normal = os.path.normpath(path)
        if normal.startswith(self._cwd.rstrip(os.sep) + os.sep):
            return os.path.relpath(normal, self._cwd)
        return normal


def _count(number: int, noun: str) -> str:
    return f"{number} {noun}" if number == 1 else f"{number} {noun}s"


def _paths(call: ToolCall) -> Iterator[JSONValue]:
    """Every path a tool call names: locations, raw input strings, diff paths."""
    for location in call.locations:
        yield location.get("path")
    raw = call.raw_input
    if isinstance(raw, dict):
        yield from raw.values()
    for item in call.content:
        if item.get("type") == "diff":
            yield item.get("path")


def _names(call: ToolCall, names: set[str]) -> bool:
    return any(
        isinstance(path, str) and path and os.path.normpath(path) in names
        for path in _paths(call)
    )


def _last_diff(call: ToolCall, names: set[str]) -> JSONValue:
    """The new text of the call's last diff of the file, if any."""
    found: JSONValue = None
    for item in call.content:
        path = item.get("path")
        if (
            item.get("type") == "diff"
            and isinstance(path, str)
            and os.path.normpath(path) in names
        ):
            found = item.get("newText")
    return found


def _same_write(written: JSONObject, shown: JSONObject) -> bool:
    """Whether content item `shown` shows the write `written`."""
    if written.get("type") != "diff":
        return shown == written
    path = shown.get("path")
    return (
        shown.get("type") == "diff"
        and isinstance(path, str)
        and os.path.normpath(path) == os.path.normpath(str(written.get("path")))
        and shown.get("newText") == written.get("newText")
    )
