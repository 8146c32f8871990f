r"""Recording the JSON-RPC traffic of a connection to a JSONL file, and reading it.

`acp-tui --record FILE` and `acp-tui print --record FILE` wrap the agent's stream
factory with `Recorder.wrap`; `acp-tui replay FILE` plays the file back through the
replay agent (`acp_tui.demo.replay`).

File format (one JSON object per line, UTF-8):

* First a header: `{"format": "acp-tui-recording", "version": 1, "agent": "<command
  line>", "started": "<RFC 3339 UTC>"}`.
* Per connection attempt (negotiation may reconnect, the app restarts):
  `{"t": <s>, "event": "connect"}`.
* Per line: `{"t": <s>, "dir": "in"|"out", "line": "<text>"}`. `in` is agent to
  client, `out` client to agent. A line that is not valid UTF-8 is stored as
  `"b64": "<base64>"` instead of `"line"`; a line over the reader's limit (its bytes
  were never kept) as `"oversized": <size>`.

`t` is seconds since the recording started (monotonic clock).

Invariants:

* **Recording never breaks the connection.** An I/O error while writing (disk
  full, a deleted directory) is logged once and recording stops; the wrapped
  stream behaves exactly as before.
* **Flushed per line**, so a crash or a killed process leaves every line seen so
  far in the file.
* **One file per Recorder.** The first connection truncates the file and writes
  the header; later connections append. The file is open only while a connection
  is, so nothing has to be closed by the caller.
"""

from __future__ import annotations

import base64
import binascii
import json
import logging
import time
from collections.abc import Callable
from contextlib import suppress
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import IO, Any, Final, Literal

from acp_tui.protocol.framing import Line, OversizedLine
from acp_tui.protocol.observed import StreamOpener, observe

__all__ = [
    "FORMAT",
    "FORMAT_VERSION",
    "RecordedLine",
    "Recorder",
    "Recording",
    "RecordingError",
    "read_recording",
]

log = logging.getLogger(__name__)

FORMAT: Final = "acp-tui-recording"
FORMAT_VERSION: Final = 1

Direction = Literal["in", "out"]


class Recorder:
    """Appends the lines of one or more connections to a JSONL recording.

    Args:
        path: The file to write (created or truncated on the first connection).
        agent: The agent's command line, for the header.
        clock: Monotonic seconds (tests pass a fake).
    """

    def __init__(
        self,
        path: Path,
        *,
        agent: str | None = None,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.path = path
        self.agent = agent
        self._clock = clock
        self._start: float | None = None
        self._file: IO[str] | None = None
        self._failed = False

    @property
    def failed(self) -> bool:
        """Recording stopped after an I/O error (logged)."""
        return self._failed

    def wrap(self, factory: StreamOpener) -> StreamOpener:
        """A stream factory that records every stream `factory` opens."""
        return observe(
            factory,
            self,
            on_open=self.begin_connection,
            on_close=self.end_connection,
        )

    def begin_connection(self) -> None:
        """Open the file (header first, the first time) and mark a new connection."""
        if self._failed:
            return
        first = self._start is None
        if first:
            self._start = self._clock()
        try:
            self._file = self.path.open("w" if first else "a", encoding="utf-8")
        except OSError as error:
            self._fail(error)
            return
        if first:
            self._write(
                {
                    "format": FORMAT,
                    "version": FORMAT_VERSION,
                    "agent": self.agent,
                    "started": datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%S.%fZ"),
                }
            )
        self._write({"t": self._elapsed(), "event": "connect"})

    def end_connection(self) -> None:
        """Close the file until the next connection."""
        handle, self._file = self._file, None
        if handle is not None:
            try:
                handle.close()
            except OSError as error:
                self._fail(error)

    def received(self, line: Line | OversizedLine) -> None:
        """Record a line the agent wrote (`in`; a `LineObserver`)."""
        self.record("in", line)

    def sent(self, line: Line) -> None:
        """Record a line the client sends (`out`; a `LineObserver`)."""
        self.record("out", line)

    def record(self, direction: Direction, line: Line | OversizedLine) -> None:
        """Append one line (never raises)."""
        if self._file is None:
            return
        entry: dict[str, Any] = {"t": self._elapsed(), "dir": direction}
        if isinstance(line, OversizedLine):
            entry["oversized"] = line.size
        else:
            if line.endswith(b"\n"):
                line = line[:-1]
            try:
                entry["line"] = line.decode("utf-8")
            except UnicodeDecodeError:
                entry["b64"] = base64.b64encode(line).decode("ascii")
        self._write(entry)

    def _elapsed(self) -> float:
        start = self._start if self._start is not None else self._clock()
        return round(self._clock() - start, 6)

    def _write(self, entry: dict[str, Any]) -> None:
        handle = self._file
        if handle is None:
            return
        try:
            handle.write(json.dumps(entry, ensure_ascii=False) + "\n")
            handle.flush()
        except (OSError, ValueError) as error:
            self._fail(error)

    def _fail(self, error: Exception) -> None:
        log.warning("recording to %s stopped: %s", self.path, error)
        self._failed = True
        handle, self._file = self._file, None
        if handle is not None:
            with suppress(OSError, ValueError):
                handle.close()


# --- Reading. ----------------------------------------------------------------------


class RecordingError(ValueError):
    """The file is not an acp-tui recording (or is damaged)."""


@dataclass(frozen=True, slots=True)
class RecordedLine:
    """One recorded line."""

    t: float
    """Seconds since the recording started."""
    direction: Direction
    """`in`: agent to client; `out`: client to agent."""
    data: bytes | None
    """The raw line without its newline; None for an oversized line."""
    size: int
    """The line's length in bytes."""


@dataclass(frozen=True, slots=True)
class Recording:
    """A recording read back: its header and the lines of each connection."""

    header: dict[str, Any]
    connections: list[list[RecordedLine]] = field(default_factory=list)


def read_recording(path: Path) -> Recording:
    """Read a recording written by `Recorder`.

    Raises:
        OSError: The file cannot be read.
        RecordingError: It is not a recording, or a record is malformed (the
            message gives the line number).
    """
    with path.open("rb") as handle:
        raw_lines = handle.read().split(b"\n")
    if raw_lines and not raw_lines[-1]:
        raw_lines.pop()
    if not raw_lines:
        raise RecordingError(f"{path}: empty file, not an acp-tui recording")
    header = _parse(path, 1, raw_lines[0])
    if header.get("format") != FORMAT:
        raise RecordingError(f"{path}: not an acp-tui recording (no header)")
    if header.get("version") != FORMAT_VERSION:
        raise RecordingError(
            f"{path}: recording version {header.get('version')!r} is not supported"
        )
    recording = Recording(header)
    for number, raw in enumerate(raw_lines[1:], start=2):
        entry = _parse(path, number, raw)
        if entry.get("event") == "connect":
            recording.connections.append([])
            continue
        line = _recorded_line(path, number, entry)
        if not recording.connections:
            recording.connections.append([])
        recording.connections[-1].append(line)
    return recording


def _parse(path: Path, number: int, raw: bytes) -> dict[str, Any]:
    try:
        value = json.loads(raw.decode("utf-8"))
    except (UnicodeDecodeError, ValueError) as error:
        raise RecordingError(f"{path}:{number}: not JSON: {error}") from None
    if not isinstance(value, dict):
        raise RecordingError(f"{path}:{number}: not a JSON object")
    return value


def _recorded_line(path: Path, number: int, entry: dict[str, Any]) -> RecordedLine:
    t = entry.get("t")
    direction = entry.get("dir")
    if not isinstance(t, int | float) or isinstance(t, bool):
        raise RecordingError(f"{path}:{number}: no time `t`")
    if direction not in ("in", "out"):
        raise RecordingError(f"{path}:{number}: `dir` must be 'in' or 'out'")
    if isinstance(entry.get("line"), str):
        try:
            data = entry["line"].encode("utf-8")
        except UnicodeEncodeError as error:
            raise RecordingError(f"{path}:{number}: bad text: {error}") from None
        return RecordedLine(float(t), direction, data, len(data))
    if isinstance(entry.get("b64"), str):
        try:
            data = base64.b64decode(entry["b64"], validate=True)
        except binascii.Error as error:
            raise RecordingError(f"{path}:{number}: bad base64: {error}") from None
        return RecordedLine(float(t), direction, data, len(data))
    size = entry.get("oversized")
    if isinstance(size, int) and not isinstance(size, bool):
        return RecordedLine(float(t), direction, None, size)
    raise RecordingError(f"{path}:{number}: no `line`, `b64` or `oversized`")
