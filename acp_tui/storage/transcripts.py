"""Session transcripts, saved as they grow, so a crash loses nothing.

Every session store the app (or `acp-tui print`) opens is a `JournaledStore` whose
ops are appended to a JSON-lines file:

    paths.data_dir() / "transcripts" / <agent slug> / <session slug>.jsonl

**The agent is who the agent says it is** (`agent_identity`): the name it reported
in `initialize` (v1 `agentInfo.name`, v2 `info.name`), with control characters
dropped, whitespace collapsed and cut to `AGENT_NAME_CHARS`; only an agent that
reports no name is filed under the command's name (the CLI's `--agent` name: a
catalogue name, or the program's file name, which for every Python agent is
`python3`). Versions before this filed every transcript by the command's name.
Those older files (their header has no `command`) are still listed beside the
agent's own when the caller names the command as `legacy`
(`list_transcripts(agent, legacy=...)`), and the first time the agent reopens
such a session its file (with its old segments) moves under the agent's name.
A file of the new format under a command's name belongs to an agent that gave
no name: never listed for, nor adopted by, a named one.

Slugs are safe file names: letters, digits, `_`, `-` and inner `.` are kept, any
other character is `%XX`-escaped (UTF-8 bytes), and very long ones are cut and
end in `~` and a hash. The real ids are stored inside the file, so a name never
has to be decoded. Each line is one JSON object:

* an `open` header, `{"open": {"sessionId", "agent", "protocolVersion", "cwd",
  "time", "how", "command"}}`, once per store opened for the session (`agent`
  is the identity above, `command` the command's name; older headers have no
  `command`). `how` is `new`
  (`session/new`), `load` (reattached with the history replayed: v1
  `session/load`, v2 `session/resume` with `replayFrom`) or `resume` (reattached
  without a replay). A header and the op lines after it form a *segment*;
* an op record (`acp_tui.store.journal.op_to_record`), `{"op": ..., ...}`.

Beside each transcript, `<session slug>.summary.json` holds what the session list
needs (title, first user text, message count), rewritten atomically when one of
them changes, so `list_transcripts` reads one small file per session. A user
message the agent wrote (`SetMessageOrigin`, journaled like any op, so the mark
survives in the transcript) is never the first user text. Transcripts written
before that op existed simply have no marks.

Invariants:

* The writer appends the lines of the `apply` / `apply_many` calls made while
  the event loop does not turn with one `os.write` (`os.writev`) once it turns
  (`acp_tui.storage.write_behind`: a replay applies thousands of batches a
  second), on a file it keeps open until `close_transcript` (or until it is
  collected); without a running loop, once per call. So an app crash that
  unwinds (an exception, a handled signal: the held lines are written at exit)
  loses nothing already applied; a process killed outright may lose what was
  applied since the loop last turned (a couple of milliseconds of messages:
  before, nothing); no fsync: an OS crash may lose more. A run of plain text
  chunks is encoded as one piece of text (`chunk_lines.ChunkLines`). The other
  exception: a message chunk's text of `LONG_LINE_CHARS` or more (what a store
  keeps of a huge chunk, megabytes) is encoded and written on a thread
  (`acp_tui.storage.spool`), and the lines after it queue behind it until it is
  written (a tenth of a second or so), so the event loop never stalls on it;
  `close_transcript` waits for them. A store that
  never gets a message writes nothing: the file starts (header first) with the
  first message op, or once a few hundred lines are waiting.
* A message chunk longer than the store keeps of a message is journaled as what
  it keeps (`acp_tui.store.store.cut_chunk`: its first and last characters and
  how many were left out), which rebuilds the same store.
* Terminal output is capped per terminal at `JOURNAL_TERMINAL_BYTES` (or the
  store's `max_terminal_bytes` if smaller) since the terminal's last reset: later
  bytes are not journaled (a 10 MB build would otherwise be encoded a second time,
  as 13 MB of base64, while it streams: bench/terminal.py), and when the terminal
  exits, the last `JOURNAL_TERMINAL_BYTES` it retained (about 10 ms to encode
  and write) are journaled as one snapshot
  (`PatchTerminal.output`), so the rebuilt terminal ends as the live one did (with
  its `droppedBytes` count restarted). A flood cannot grow the file without bound.
* The reader rebuilds the last segment (of the session asked for) that holds any
  message, skipping lines that are not JSON or not a valid record (it counts them).
  An op that fails to apply is skipped and counted too.
* Nothing here raises on I/O errors: they are logged and the session carries on.
* Transcripts are the user's alone: files 0600 (an older, looser one is
  tightened when it is next opened), summaries 0600 (`replace_privately`), and the
  directories acp-tui creates 0700 (`acp_tui.storage.private_files`).

This module imports the standard library, `acp_tui.storage` (its paths,
private files, spool, chunk lines and held lines) and `acp_tui.store` only.
"""

from __future__ import annotations

import contextlib
import dataclasses
import hashlib
import json
import logging
import os
import secrets
import time
import weakref
from collections import Counter
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Final, Literal, Protocol, TypeAlias

from acp_tui.storage import paths
from acp_tui.storage.chunk_lines import ChunkLines, plain_chunk_line
from acp_tui.storage.private_files import (
    make_private_dir,
    open_private,
    replace_privately,
)
from acp_tui.storage.spool import Line, LineSpool, LongLine
from acp_tui.storage.write_behind import flush_held, hold
from acp_tui.store.journal import (
    RECORD_FORMAT,
    JournaledStore,
    encode_op,
    op_from_record,
)
from acp_tui.store.model import block_text
from acp_tui.store.ops import (
    AppendMessageChunk,
    AppendMessageTexts,
    AppendTerminalOutput,
    CutMessageText,
    InSubagent,
    InterleavedTexts,
    Op,
    PatchSessionInfo,
    PatchTerminal,
    SetMessageOrigin,
    UpsertMessage,
)
from acp_tui.store.store import SessionStore, cut_chunk, kept_ends
from acp_tui.store.subagents import texts_in_subagent
from acp_tui.store.values import UNSET

__all__ = [
    "AGENT_NAME_CHARS",
    "FORMAT_VERSION",
    "LoadedTranscript",
    "OpenHow",
    "StoreOpening",
    "TranscriptHeader",
    "TranscriptInfo",
    "TranscriptWriter",
    "agent_identity",
    "close_transcript",
    "journaled_store",
    "list_transcripts",
    "read_transcript",
    "slug",
    "transcript_file",
    "transcript_store_factory",
    "transcripts_dir",
]

log = logging.getLogger(__name__)

FORMAT_VERSION: Final = RECORD_FORMAT
"""The `version` written in every header: the format of the op lines after it.

1: config options in wire form (upgraded when read, `journal.op_from_record`).
"""

OpenHow: TypeAlias = Literal["new", "load", "resume"]
"""How a store was opened: see the module docstring."""

PENDING_LINES: Final = 500
"""Lines held back while no message has come (then the file is started anyway)."""

AGENT_NAME_CHARS: Final = 100
"""The most characters of an agent's reported name used to file its transcripts."""

TITLE_CHARS: Final = 200
"""The most characters of the first user message kept as a fallback title."""

JOURNAL_TERMINAL_BYTES: Final = 1024 * 1024
"""Terminal output journaled per terminal while it runs (and its tail at exit)."""

SUMMARY_INTERVAL: Final = 2.0
"""Seconds between two rewrites of a summary for its message count alone (a
replay adds hundreds of messages a second)."""

_SAFE: Final = frozenset(
    "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-."
)
_MAX_SLUG: Final = 150
_SUMMARY_SUFFIX: Final = ".summary.json"
_MESSAGE_OPS: Final = (UpsertMessage, AppendMessageChunk)

LONG_LINE_CHARS: Final = 256 * 1024
"""A message chunk's text this long is encoded and written off the event loop."""

CLOSE_WAIT: Final = 30.0
"""Seconds `TranscriptWriter.close` waits for the lines still being written."""

_MARKER: Final = f"acp-tui-long-text-{secrets.token_hex(16)}"
"""Stands for a long text in the op encoded around it: unknown to any agent, so
no other value of the op holds it, and its JSON is itself in quotes."""
_MARKER_JSON: Final = json.dumps(_MARKER)


# --- names --------------------------------------------------------------------


def slug(text: str) -> str:
    """A file name for an id: safe characters kept, others `%XX`-escaped.

    A leading `.` is escaped (no hidden files, no `..`); an empty id is `%`. Past
    150 characters the slug is cut and ends in `~` and 16 hex digits of a hash.

    Args:
        text: An agent name or a session id.
    """
    if not text:
        return "%"
    out: list[str] = []
    for index, char in enumerate(text):
        if char in _SAFE and not (index == 0 and char == "."):
            out.append(char)
        else:
            out.extend(f"%{byte:02X}" for byte in char.encode("utf-8", "surrogatepass"))
    name = "".join(out)
    if len(name) > _MAX_SLUG:
        digest = hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()
        name = f"{name[: _MAX_SLUG - 17]}~{digest[:16]}"
    return name


def agent_identity(reported: str | None, command: str) -> str:
    """The name to file an agent's transcripts under (see the module docstring).

    Args:
        reported: The name the agent reported in `initialize` (None: none).
        command: The command's name (the CLI's `--agent` name).
    """
    if reported:
        name = " ".join("".join(c for c in reported if c.isprintable()).split())
        if name[:AGENT_NAME_CHARS]:
            return name[:AGENT_NAME_CHARS]
    return command


def transcripts_dir(agent: str | None = None) -> Path:
    """The transcripts directory, or one agent's directory in it."""
    root = paths.data_dir() / "transcripts"
    return root if agent is None else root / slug(agent)


def transcript_file(agent: str, session_id: str) -> Path:
    """The transcript file of one agent's session."""
    return transcripts_dir(agent) / f"{slug(session_id)}.jsonl"


def _summary_file(transcript: Path) -> Path:
    return transcript.with_name(transcript.name[: -len(".jsonl")] + _SUMMARY_SUFFIX)


def _now() -> str:
    return datetime.now(UTC).isoformat(timespec="seconds")


# --- header -------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class TranscriptHeader:
    """What an `open` line records about the store that was opened."""

    session_id: str
    agent: str
    protocol_version: int
    cwd: str
    how: OpenHow
    time: str
    """When the store was opened (ISO 8601, UTC)."""
    command: str | None = None
    """The command's name (None in headers written before agents' identities)."""
    format_version: int = FORMAT_VERSION
    """The format of the segment's op lines (older ones are upgraded when read)."""

    def to_json(self) -> dict[str, Any]:
        """The header's JSON object."""
        out = {
            "version": self.format_version,
            "sessionId": self.session_id,
            "agent": self.agent,
            "protocolVersion": self.protocol_version,
            "cwd": self.cwd,
            "time": self.time,
            "how": self.how,
        }
        if self.command is not None:
            out["command"] = self.command
        return out

    @classmethod
    def from_json(cls, value: object) -> TranscriptHeader | None:
        """Parse a header object; None if it is not one."""
        if not isinstance(value, dict):
            return None
        session_id, agent = value.get("sessionId"), value.get("agent")
        version, cwd = value.get("protocolVersion"), value.get("cwd")
        time, how = value.get("time"), value.get("how")
        if not (
            isinstance(session_id, str)
            and isinstance(agent, str)
            and isinstance(version, int)
            and isinstance(cwd, str)
            and isinstance(time, str)
            and how in ("new", "load", "resume")
        ):
            return None
        command = value.get("command")
        written = value.get("version")
        return cls(
            session_id,
            agent,
            version,
            cwd,
            how,
            time,
            command if isinstance(command, str) else None,
            written if isinstance(written, int) and written > 0 else 1,
        )


# --- writing ------------------------------------------------------------------


class _Summary:
    """What the session list shows, followed op by op (for the current segment)."""

    def __init__(self) -> None:
        self.message_ids: dict[tuple[str, str], None] = {}
        """(id, role) of each message: a message is its id and its role."""
        self.title: str | None = None
        self.first_user_id: str | None = None
        self.first_user_text = ""
        self.agents_own: set[str] = set()
        """User messages the agent wrote: never the session's title."""
        self.dirty = False
        self.urgent = False
        """A change the list shows at once (title, first user text, first message);
        only the message count waits for `SUMMARY_INTERVAL`."""

    def note(self, op: Op) -> None:
        if isinstance(op, _MESSAGE_OPS):
            if (op.message_id, op.role) not in self.message_ids:
                self.message_ids[(op.message_id, op.role)] = None
                self.dirty = True
                self.urgent = self.urgent or len(self.message_ids) == 1
                if (
                    op.role == "user"
                    and self.first_user_id is None
                    and op.message_id not in self.agents_own
                ):
                    self.first_user_id = op.message_id
            if op.role == "user" and op.message_id == self.first_user_id:
                self._user_text(op)
        elif isinstance(op, SetMessageOrigin):
            if op.origin == "agent":
                self.agents_own.add(op.message_id)
            else:
                self.agents_own.discard(op.message_id)
            if op.origin == "agent" and op.message_id == self.first_user_id:
                # Not the user's: the next user message names the session.
                self.first_user_id = None
                self.first_user_text = ""
                self.dirty = self.urgent = True
        elif (
            isinstance(op, PatchSessionInfo)
            and op.title is not UNSET
            and op.title != self.title
        ):
            self.title = op.title
            self.dirty = True
            self.urgent = True

    def _user_text(self, op: UpsertMessage | AppendMessageChunk) -> None:
        if isinstance(op, AppendMessageChunk):
            if len(self.first_user_text) >= TITLE_CHARS:
                return
            text = self.first_user_text + (block_text(op.block) or "")
        elif op.content is UNSET:
            return
        else:
            text = "".join(t for b in op.content or () if (t := block_text(b)))
        text = text[:TITLE_CHARS]
        if text != self.first_user_text:
            self.first_user_text = text
            self.dirty = True
            self.urgent = True


class TranscriptWriter:
    """Appends a store's ops to its transcript file (a `JournaledStore` sink).

    Args:
        path: The transcript file (created with its directory when needed).
        header: Written as the segment's first line.
    """

    def __init__(self, path: Path, header: TranscriptHeader) -> None:
        self._path = path
        self._name = os.fspath(path)
        self._header = header
        self._tail_checked = False
        self._started = False
        self._pending: list[Line] = []
        self._summary = _Summary()
        self._journaled: dict[str, int] = {}
        """Output bytes journaled per terminal since its last reset."""
        self._skipped: set[str] = set()
        """Output bytes not journaled per terminal since its last reset."""
        self._errors = 0
        self._fd: int | None = None
        self._spool = LineSpool(self._spool_failed)
        self._chunk_lines = ChunkLines()
        self._summary_written = 0.0
        self._finalizer: weakref.finalize[[int], TranscriptWriter] | None = None

    def __call__(self, store: SessionStore, ops: Sequence[Op]) -> None:
        """Journal the ops of one apply call (before they apply to `store`)."""
        lines: list[Line] = []
        plain: list[str] = []
        """A run of plain text chunks' lines, encoded together."""
        max_message_chars = store.max_message_chars
        limit = min(LONG_LINE_CHARS, max_message_chars + 1)
        summary = self._summary
        note = summary.note
        noted = summary.message_ids
        chunk_lines = self._chunk_lines
        chunk_line = chunk_lines.line
        for op in _runs_expanded(ops, chunk_lines, limit, plain, noted, note):
            if type(op) is AppendMessageChunk:
                text_line = chunk_line(op, limit)
                if text_line is not None:  # the streaming case: no cap, no long line
                    plain.append(text_line)
                    if op.role == "user" or (op.message_id, op.role) not in noted:
                        note(op)
                    continue
            if plain:
                lines.append("\n".join(plain).encode("ascii"))
                plain.clear()  # (the same list: `_runs_expanded` adds to it)
            if _plain_chunk(op, max_message_chars):
                # No cap, no long line to set aside (not text, or odd text).
                line = plain_chunk_line(op) or self._line(op, plain=True)
                if line is not None:
                    lines.append(line)
            else:
                for journaled in self._capped(store, op):
                    line = self._line(journaled)
                    if line is not None:
                        lines.append(line)
            note(op)
        if plain:
            lines.append("\n".join(plain).encode("ascii"))
        if not self._started:
            self._pending.extend(lines)
            if not summary.message_ids and len(self._pending) < PENDING_LINES:
                return
            header = {"open": self._header.to_json()}
            lines = [_record(header), *self._pending]
            self._pending = []
            self._started = True
        if lines:
            hold(self._write, lines)
        if summary.dirty and (
            summary.urgent
            or time.monotonic() - self._summary_written >= SUMMARY_INTERVAL
        ):
            self._write_summary()

    # -- terminal cap ---------------------------------------------------------

    def _capped(self, store: SessionStore, op: Op) -> list[Op]:
        """The ops to journal for `op`: terminal output capped, a chunk cut.

        A chunk longer than the store keeps of a message is journaled as what it
        keeps (`cut_chunk`).
        """
        if isinstance(op, AppendMessageChunk):
            text = block_text(op.block)
            ends = (
                None if text is None else kept_ends(store.max_message_chars, len(text))
            )
            if text is None or ends is None:
                return [op]
            first, last = ends
            omitted = len(text) - first - last
            return list(cut_chunk(op, text[:first], omitted, text[len(text) - last :]))
        cap = min(store.max_terminal_bytes, JOURNAL_TERMINAL_BYTES)
        if isinstance(op, AppendTerminalOutput):
            used = self._journaled.get(op.terminal_id, 0)
            room = max(cap - used, 0)
            if len(op.data) <= room:
                self._journaled[op.terminal_id] = used + len(op.data)
                return [op]
            self._journaled[op.terminal_id] = cap
            self._skipped.add(op.terminal_id)
            return (
                [AppendTerminalOutput(op.terminal_id, op.data[:room])] if room else []
            )
        if isinstance(op, PatchTerminal):
            if op.output is not UNSET:
                data = op.output or b""
                if len(data) > cap:
                    op = dataclasses.replace(op, output=data[len(data) - cap :])
                self._journaled[op.terminal_id] = min(len(data), cap)
                self._skipped.discard(op.terminal_id)
                return [op]
            if op.exit_status is not UNSET and op.terminal_id in self._skipped:
                terminal = store.terminal(op.terminal_id)
                tail = terminal.output_tail(cap) if terminal is not None else b""
                self._journaled[op.terminal_id] = len(tail)
                self._skipped.discard(op.terminal_id)
                return [PatchTerminal(op.terminal_id, output=tail), op]
        return [op]

    # -- file -----------------------------------------------------------------

    def _line(self, op: Op, plain: bool = False) -> Line | None:
        """The op's line, without its newline (`_write` adds it).

        A message chunk's text of `LONG_LINE_CHARS` or more is left to the spool
        to encode (`LongLine`), off the event loop. `plain`: the op is known to
        hold no such text (`_plain_chunk`).
        """
        long_text = None if plain else _long_text(op)
        try:
            if long_text is None:
                return encode_op(op).encode("ascii")
            text, marked = long_text
            head, _, tail = encode_op(marked).rpartition(_MARKER_JSON)
        except (TypeError, ValueError) as error:  # not JSON: nothing to save
            log.warning("transcript %s: op not saved: %s", self._path, error)
            return None
        return LongLine(head.encode("ascii"), text, tail.encode("ascii"))

    def _write(self, lines: list[Line]) -> None:
        """Append whole lines (each given without its newline) through the spool.

        No user-space buffer, and no copy of a line: a huge chunk's journaled
        head is megabytes, and joining lines with their newlines copied them
        twice more. The file stays open between calls (opening and closing it
        per call cost more than the rest of journaling during a flood:
        bench/ui.py), and is closed when the writer is collected or `close()`d.
        Short lines are written at once (`acp_tui.storage.spool`): what
        `os.writev` returned is in the kernel, so an app crash loses none of it.
        """
        try:
            fd = self._fd
            if fd is None:
                fd = self._open()
            if not self._tail_checked:
                self._tail_checked = True
                if os.fstat(fd).st_size and not _ends_with_newline(self._path):
                    lines = [b"", *lines]  # a line cut by a crash stays apart
            self._spool.write(fd, lines)
        except OSError as error:
            self._close_file()
            self._failed("cannot write", error)

    def wait_written(self, timeout: float) -> bool:
        """Wait until every line given is written; False if `timeout` passed."""
        flush_held()
        return self._spool.wait(timeout)

    def _open(self) -> int:
        fd = open_private(self._path)  # 0600, directories 0700 when made
        self._fd = fd
        # Closed after the lines queued for it (the spool never writes to a
        # closed descriptor, nor to one the number was reused for).
        self._finalizer = weakref.finalize(self, self._spool.close, fd)
        return fd

    def close(self) -> None:
        """Write a pending summary and close the file (a later write reopens it).

        Returns once the lines given are written (a queued huge chunk: about a
        tenth of a second), or after `CLOSE_WAIT` seconds of a stuck disk (the
        spool's thread then goes on, and closes the file after them).
        """
        if self._summary.dirty and self._started:
            self._write_summary()
        flush_held()
        self._close_file()
        if not self._spool.wait(CLOSE_WAIT):
            log.warning("transcript %s: still being written", self._path)

    def _close_file(self) -> None:
        self._fd = None
        if self._finalizer is not None:
            self._finalizer()
            self._finalizer = None

    def _write_summary(self) -> None:
        # The lines first (rare: a title, or every `SUMMARY_INTERVAL`): the
        # summary never counts what the file does not hold yet, and the first
        # one finds the directory the file's opening made.
        flush_held()
        summary = self._summary
        summary.dirty = False
        summary.urgent = False
        self._summary_written = time.monotonic()
        record = {
            **self._header.to_json(),
            "title": summary.title,
            "firstUserText": summary.first_user_text or None,
            "messages": len(summary.message_ids),
        }
        try:
            replace_privately(
                _summary_file(self._path), _dump(record), prefix=".summary-"
            )
        except OSError as error:
            self._failed("cannot write the summary of", error)

    def _spool_failed(self, error: OSError) -> None:
        self._failed("cannot write", error)

    def _failed(self, what: str, error: OSError) -> None:
        self._errors += 1
        level = logging.WARNING if self._errors == 1 else logging.DEBUG
        log.log(level, "%s transcript %s: %s", what, self._path, error)


def close_transcript(store: SessionStore) -> None:
    """Finish the transcript of a journaled store (its pending summary, the file).

    A store that is not journaled to a transcript is left alone.
    """
    if isinstance(store, JournaledStore) and isinstance(store.sink, TranscriptWriter):
        store.sink.close()


def _runs_expanded(
    ops: Sequence[Op],
    chunk_lines: ChunkLines,
    limit: int,
    plain: list[str],
    noted: Mapping[tuple[str, str], None],
    note: Callable[[Op], None],
) -> Iterator[Op]:
    """`ops`, but for the runs of text chunks (`AppendMessageTexts`) journaled here.

    A run of an agent or thought message whose texts are plain (each shorter
    than `limit`) has its lines added to `plain` (one per chunk, the bytes
    `TranscriptWriter` writes for each of its chunks), and is noted by its
    first chunk (the summary notes no more of a message that is not the
    user's); any other run is given as its chunks, one by one. So is a
    subagent's run (`InSubagent` of `AppendMessageTexts`): its chunks' lines
    in `plain` (the summary notes no subagent's op), else its chunks, each in
    its subagent; and subagents' runs interleaved (`InterleavedTexts`), their
    lines in the order the chunks came (`_interleaved_lines`).
    """
    for op in ops:
        if type(op) is not AppendMessageTexts:
            if type(op) is InterleavedTexts:
                interleaved = _interleaved_lines(op, chunk_lines, limit)
                if interleaved is None:
                    yield from op.chunks()
                else:
                    plain += interleaved
                continue
            if type(op) is not InSubagent or texts_in_subagent(op) is None:
                yield op
                continue
            # A subagent's run: its chunks' lines (the summary notes none).
            in_subagent = chunk_lines.lines_in_subagent(op, limit)
            if in_subagent is None:
                yield from _chunks_in_subagent(op)
            else:
                plain += in_subagent
            continue
        lines = None if op.role == "user" else chunk_lines.lines(op, limit)
        if lines is None:
            yield from op.chunks()
            continue
        if lines:
            plain += lines
            if (op.message_id, op.role) not in noted:
                first = {"type": "text", "text": op.texts[0]}
                note(AppendMessageChunk(op.message_id, op.role, first))


def _interleaved_lines(
    op: InterleavedTexts, chunk_lines: ChunkLines, limit: int
) -> list[str] | None:
    """The lines of subagents' runs of plain chunks, in the order they came.

    None where a run is the session's own (noted in the summary), holds a text
    that is not plain, or `order` does not name each run's texts exactly.
    """
    runs: list[list[str]] = []
    for run in op.runs:
        lines = (
            chunk_lines.lines_in_subagent(run, limit)
            if type(run) is InSubagent
            else None
        )
        if lines is None:
            return None
        runs.append(lines)
    order = op.order
    counts = Counter(order)
    if len(order) != sum(map(len, runs)) or any(
        counts[index] != len(lines) for index, lines in enumerate(runs)
    ):
        return None
    each = [iter(lines) for lines in runs]
    return [next(each[index]) for index in order]


def _chunks_in_subagent(op: InSubagent) -> list[Op]:
    """The chunks of the run of text chunks `op` holds, each in its subagent."""
    path: list[str] = []
    inner: Op = op
    while type(inner) is InSubagent:
        path.append(inner.subagent_id)
        inner = inner.inner
    assert type(inner) is AppendMessageTexts
    chunks: list[Op] = []
    for chunk in inner.chunks():
        wrapped: Op = chunk
        for subagent_id in reversed(path):
            wrapped = InSubagent(subagent_id, wrapped)
        chunks.append(wrapped)
    return chunks


def _plain_chunk(op: Op, max_message_chars: int) -> bool:
    """Whether `op` is a message chunk journaled as it is: no cut, no long line.

    The streaming case, decided with one look at its text (this runs per chunk).
    """
    if type(op) is not AppendMessageChunk:
        return False
    block = op.block
    text = block.get("text") if block.get("type") == "text" else None
    if not isinstance(text, str):
        return True
    return len(text) < LONG_LINE_CHARS and len(text) <= max_message_chars


def _long_text(op: Op) -> tuple[str, Op] | None:
    """A long message-chunk op's text, and the op with `_MARKER` in its place.

    None for any other op, and for a text shorter than `LONG_LINE_CHARS`.
    """
    if isinstance(op, AppendMessageChunk):
        text = block_text(op.block)
        if text is None or len(text) < LONG_LINE_CHARS:
            return None
        return text, dataclasses.replace(op, block={**op.block, "text": _MARKER})
    if isinstance(op, CutMessageText) and len(op.text) >= LONG_LINE_CHARS:
        return op.text, dataclasses.replace(op, text=_MARKER)
    return None


def _record(value: object) -> bytes:
    """`value` as one compact line of JSON, without its newline."""
    # ASCII: a lone surrogate from the wire is escaped, never an encoding error.
    return json.dumps(value, separators=(",", ":")).encode("ascii")


def _dump(value: object) -> bytes:
    return _record(value) + b"\n"


def _ends_with_newline(path: Path) -> bool:
    try:
        with path.open("rb") as file:
            file.seek(-1, os.SEEK_END)
            return file.read(1) == b"\n"
    except OSError:
        return True


def journaled_store(
    agent: str,
    session_id: str,
    *,
    cwd: str | os.PathLike[str],
    how: OpenHow,
    protocol_version: int,
    command: str | None = None,
    **store_options: Any,
) -> JournaledStore:
    """A store whose ops are saved to the transcript of (agent, session).

    Args:
        agent: The agent's identity (`agent_identity`).
        session_id: The ACP session id.
        cwd: The session's working directory.
        how: How the store was opened (see `OpenHow`).
        protocol_version: The negotiated ACP version.
        command: The command's name (default: `agent`).
        **store_options: Passed on to `SessionStore`.
    """
    header = TranscriptHeader(
        session_id,
        agent,
        protocol_version,
        os.fspath(cwd),
        how,
        _now(),
        agent if command is None else command,
    )
    writer = TranscriptWriter(transcript_file(agent, session_id), header)
    return JournaledStore(session_id, writer, cwd=header.cwd, **store_options)


class StoreOpening(Protocol):
    """What a store factory is told (`acp_tui.client.session.SessionOpening`)."""

    @property
    def session_id(self) -> str:
        """The ACP session id."""
        ...

    @property
    def cwd(self) -> Path:
        """The session's working directory."""
        ...

    @property
    def how(self) -> OpenHow:
        """How the store is opened."""
        ...

    @property
    def protocol_version(self) -> int:
        """The negotiated ACP version."""
        ...

    @property
    def agent_name(self) -> str | None:
        """The name the agent reported in `initialize` (None: none)."""
        ...


def transcript_store_factory(agent: str) -> Callable[[StoreOpening], JournaledStore]:
    """A store factory for `AcpClient`: every store saves the session's transcript.

    Transcripts are filed under the agent's reported name (`agent_identity`); a
    transcript of the session filed under the command's name by an older version
    is adopted (moved) first.

    Args:
        agent: The command's name (the CLI's `--agent` name).
    """

    def make(opening: StoreOpening) -> JournaledStore:
        identity = agent_identity(opening.agent_name, agent)
        if identity != agent:
            _adopt_legacy(agent, identity, opening.session_id)
        return journaled_store(
            identity,
            opening.session_id,
            cwd=opening.cwd,
            how=opening.how,
            protocol_version=opening.protocol_version,
            command=agent,
        )

    return make


def _adopt_legacy(command: str, identity: str, session_id: str) -> None:
    """Move an older transcript of the session, filed by command, under `identity`.

    Only a file in the old format (no `command` in its header) whose agent is
    the command moves, and only if the agent has no transcript of the session
    yet. Its summary is dropped (the index reads the file until the writer
    writes a new one).
    """
    legacy = transcript_file(command, session_id)
    target = transcript_file(identity, session_id)
    if target.exists() or not _old_format_of(legacy, command):
        return
    try:
        make_private_dir(target.parent)
        os.replace(legacy, target)
    except OSError as error:
        log.warning("cannot move transcript %s to %s: %s", legacy, target, error)
        return
    with contextlib.suppress(OSError):
        _summary_file(legacy).unlink()


def _old_format_of(path: Path, command: str) -> bool:
    """Whether `path` starts with a header of the old format naming `command`."""
    try:
        with path.open("rb") as file:
            first = file.readline(64 * 1024)
        record = json.loads(first)
    except (OSError, ValueError, RecursionError):
        return False
    opened = record.get("open") if isinstance(record, dict) else None
    header = TranscriptHeader.from_json(opened)
    return header is not None and header.command is None and header.agent == command


# --- reading ------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class LoadedTranscript:
    """A store rebuilt from a transcript file."""

    store: SessionStore
    header: TranscriptHeader | None
    """The rebuilt segment's header (None if its header line was unreadable)."""
    segments: int
    """Segments of this session found in the file."""
    skipped: int
    """Lines that were not valid records, and ops that failed to apply."""


@dataclass(slots=True)
class _Segment:
    header: TranscriptHeader | None
    ops: list[Op] = dataclasses.field(default_factory=list)
    has_messages: bool = False


def read_transcript(
    path: Path, *, session_id: str | None = None, max_terminal_bytes: int | None = None
) -> LoadedTranscript | None:
    """Rebuild a session's store from its transcript file.

    Args:
        path: The transcript file.
        session_id: Only segments of this session count (None: any).
        max_terminal_bytes: The rebuilt store's terminal cap (None: the default).

    Returns:
        The store of the last segment holding a message (else the last segment),
        or None if the file cannot be read or holds nothing of the session.
    """
    try:
        file = path.open("rb")
    except OSError as error:
        if not isinstance(error, FileNotFoundError):
            log.warning("cannot read transcript %s: %s", path, error)
        return None
    skipped = 0
    segments = 0
    best: _Segment | None = None
    current: _Segment | None = None
    wanted = True
    try:
        with file:
            for raw in file:
                if not raw.strip():
                    continue
                try:
                    record = json.loads(raw)
                except (ValueError, RecursionError):  # a damaged or edited line
                    skipped += 1
                    continue
                if isinstance(record, dict) and "open" in record:
                    header = TranscriptHeader.from_json(record["open"])
                    if header is None:
                        skipped += 1
                    wanted = (
                        session_id is None
                        or header is None
                        or header.session_id == session_id
                    )
                    best = _better(best, current)
                    current = _Segment(header) if wanted else None
                    segments += wanted
                    continue
                if not wanted:
                    continue
                header = current.header if current is not None else None
                written = FORMAT_VERSION if header is None else header.format_version
                try:
                    op = op_from_record(record, record_format=written)
                except (ValueError, RecursionError):
                    skipped += 1
                    continue
                if current is None:  # ops before any header
                    current = _Segment(None)
                    segments += 1
                current.ops.append(op)
                current.has_messages = current.has_messages or isinstance(
                    op, _MESSAGE_OPS
                )
    except OSError as error:
        log.warning("cannot read transcript %s: %s", path, error)
        return None
    best = _better(best, current)
    if best is None:
        return None
    store_id = session_id or (best.header.session_id if best.header else path.stem)
    cwd = best.header.cwd if best.header else None
    if max_terminal_bytes is None:
        store = SessionStore(store_id, cwd=cwd)
    else:
        store = SessionStore(store_id, cwd=cwd, max_terminal_bytes=max_terminal_bytes)
    for op in best.ops:
        try:
            store.apply(op)
        except Exception:  # a record that decodes but does not apply
            skipped += 1
    return LoadedTranscript(store, best.header, segments, skipped)


def _better(best: _Segment | None, later: _Segment | None) -> _Segment | None:
    """The segment to rebuild: the last with messages, else the last one."""
    if later is None:
        return best
    if best is None or later.has_messages or not best.has_messages:
        return later
    return best


# --- index --------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class TranscriptInfo:
    """One saved transcript, as the session list shows it."""

    session_id: str
    agent: str
    cwd: str
    title: str | None
    """The latest session title, else the first user message's text."""
    updated_at: str
    """When the file was last written (ISO 8601, UTC)."""
    messages: int
    path: Path
    command: str | None = None
    """The command's name (None: a transcript from before agents' identities)."""


def list_transcripts(
    agent: str | None = None, *, legacy: str | None = None
) -> list[TranscriptInfo]:
    """The saved transcripts that hold messages, newest first, one per session.

    Reads one small summary file per transcript (a transcript without one, say
    after a crash, is read whole once).

    Args:
        agent: Only this agent's transcripts (None: every agent's).
        legacy: Also the transcripts that older versions filed under this command
            name (whose owner is unknown: see the module docstring).
    """
    if agent is None:
        directories = _subdirectories(transcripts_dir())
    else:
        directories = [transcripts_dir(agent)]
        if legacy is not None and slug(legacy) != slug(agent):
            directories.append(transcripts_dir(legacy))

    def wanted(info: TranscriptInfo) -> bool:
        if agent is None or info.agent == agent:
            return True
        return info.agent == legacy and info.command is None

    found: list[tuple[float, TranscriptInfo]] = []
    for directory in directories:
        try:
            files = [p for p in directory.iterdir() if p.name.endswith(".jsonl")]
        except OSError:
            continue
        for path in files:
            try:
                mtime = path.stat().st_mtime
            except OSError:
                continue
            info = _summary(path, mtime) or _scan(path, mtime)
            if info is not None and info.messages and wanted(info):
                found.append((mtime, info))
    found.sort(key=lambda item: item[0], reverse=True)
    if agent is None:
        return [info for _, info in found]
    seen: set[str] = set()
    newest: list[TranscriptInfo] = []
    for _, info in found:  # a session in both places: its newest file
        if info.session_id not in seen:
            seen.add(info.session_id)
            newest.append(info)
    return newest


def _subdirectories(root: Path) -> list[Path]:
    try:
        return sorted(p for p in root.iterdir() if p.is_dir())
    except OSError:
        return []


def _updated_at(mtime: float) -> str:
    return datetime.fromtimestamp(mtime, UTC).isoformat(timespec="seconds")


def _summary(path: Path, mtime: float) -> TranscriptInfo | None:
    try:
        record = json.loads(_summary_file(path).read_bytes())
    except (OSError, ValueError):
        return None
    header = TranscriptHeader.from_json(record)
    messages = record.get("messages") if isinstance(record, dict) else None
    if header is None or not isinstance(messages, int):
        return None
    title = record.get("title")
    first = record.get("firstUserText")
    shown = (
        title if isinstance(title, str) else first if isinstance(first, str) else None
    )
    return TranscriptInfo(
        header.session_id,
        header.agent,
        header.cwd,
        shown,
        _updated_at(mtime),
        messages,
        path,
        header.command,
    )


def _scan(path: Path, mtime: float) -> TranscriptInfo | None:
    loaded = read_transcript(path)
    if loaded is None or loaded.header is None:
        return None
    store, header = loaded.store, loaded.header
    messages = store.messages()
    title = store.session_info.title
    if title is None:
        first = next(
            (m for m in messages if m.role == "user" and not m.from_agent), None
        )
        title = first.text[:TITLE_CHARS] if first is not None and first.text else None
    return TranscriptInfo(
        header.session_id,
        header.agent,
        header.cwd,
        title,
        _updated_at(mtime),
        len(messages),
        path,
        header.command,
    )
