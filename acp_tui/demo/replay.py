r"""The replay agent: plays a recording (`acp_tui.protocol.recording`) to a client.

`python -m acp_tui.demo.replay FILE [--speed N | --instant] [--connection K]
[--client-effects] [--announce-end]`
speaks ACP on stdin/stdout like any agent, but everything it says comes from the
recording. `acp-tui replay FILE` runs the app against it, so the UI is the real one.

How it plays one recorded connection (the last one unless `--connection` says):

* A recorded **client request** (`out`, with `method` and `id`) waits for the live
  client's next unmatched request of the same method; the recorded id is mapped to
  the live id. The agent's recorded **responses** are sent with the live id.
* A recorded **client response** (to a request of the agent, e.g. a permission
  request) waits for the live client's response with the same id: the agent's
  requests are sent with their recorded ids. The live answer is not looked at: the
  agent goes on as it did in the recording.
* A recorded **client notification** (`session/cancel`) is consumed if the live
  client sent one, and never waited for.
* **Agent lines** (`in`) are sent as recorded (garbage and invalid UTF-8 too; an
  oversized line, whose bytes were never kept, is skipped), each after the
  recorded gap since the previous line divided by `--speed` (no wait with
  `--instant`). The time the client took is never replayed.
* **No side effects on this machine by default.** The v1 requests that make the
  client act (`fs/write_text_file` and the `terminal/*` methods, which run
  commands) are not sent, and their recorded answers are not waited for, so a
  recording from a bug report cannot write files or run commands here. The cost:
  a v1 client-owned terminal shows no output in the replay. `--client-effects`
  sends them as recorded (a faithful replay, for recordings you trust).
* Once the recording is played, a prompt that matched nothing gets a turn of
  its own that ends normally (`end_turn`), in the protocol version the recording
  speaks (the agent's `initialize` result): one agent message saying the replay
  is over and what to do next (`OVER`). Every other client request that
  matched nothing is answered with a JSON-RPC error (`-32603`, "not in the
  recording"). The agent then waits for the client to close its stdin.
* `--announce-end` (what `acp-tui replay` runs) also says so as soon as the
  recording is played, before any further prompt: one agent message (`ENDED`)
  to the recorded session, after the last recorded line. Without it, a replay
  sends exactly what was recorded.

Limits: a live client that sends a request the recording does not have at that
point waits for its answer until the recording is played.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, Final

import anyio

from acp_tui.protocol.framing import OversizedLine, decode_line, encode_message
from acp_tui.protocol.recording import (
    RecordedLine,
    RecordingError,
    read_recording,
)
from acp_tui.protocol.transport import ConnectionClosed, MessageStream

__all__ = ["ENDED", "NOT_RECORDED", "OVER", "main", "replay"]

NOT_RECORDED: Final = -32603
"""The error code for a live request the recording has no answer for."""

_NEXT: Final = (
    "ctrl+q quits; `acp-tui replay FILE` plays the recording again, and "
    "`acp-tui --agent NAME` runs a real agent (`acp-tui agents` lists them)."
)
ENDED: Final = (
    "The replay is over: that was the last recorded turn, so a prompt now gets "
    "no recorded answer. " + _NEXT
)
"""The agent message sent once the recording is played (`--announce-end`)."""
OVER: Final = (
    "The replay is over: every recorded turn was played, so this prompt has no "
    "recorded answer. " + _NEXT
)
"""The agent message that answers a prompt sent after the recording is played."""

CLIENT_EFFECTS: Final = frozenset(
    {
        "fs/write_text_file",
        "terminal/create",
        "terminal/output",
        "terminal/wait_for_exit",
        "terminal/kill",
        "terminal/release",
    }
)
"""Agent requests that make the client write files or run commands (v1)."""

Message = dict[str, Any]


def _key(message_id: Any) -> str:
    return json.dumps(message_id, sort_keys=True)


def _is_request(message: Message) -> bool:
    return isinstance(message.get("method"), str) and "id" in message


def _is_notification(message: Message) -> bool:
    return isinstance(message.get("method"), str) and "id" not in message


def _is_response(message: Message) -> bool:
    return "method" not in message and "id" in message


class _Player:
    def __init__(
        self, stream: MessageStream, speed: float | None, client_effects: bool
    ) -> None:
        self.stream = stream
        self.speed = speed
        self.client_effects = client_effects
        self.skipped: set[str] = set()
        """Ids of recorded agent requests that were not sent (client effects)."""
        self.pending: list[Message] = []
        """Live client messages not matched yet, in arrival order."""
        self.arrived = anyio.Event()
        self.client_gone = False
        self.played = False
        self.ids: dict[str, Any] = {}
        """Recorded request id (as a key) to the live client's id."""
        self.version = 1
        """The protocol version of the recording (its `initialize` result)."""
        self.session_id: str | None = None
        """The last session the recording names."""
        self.turns_past_the_end = 0

    async def read_client(self) -> None:
        while True:
            try:
                raw = await self.stream.receive()
            except (anyio.EndOfStream, anyio.ClosedResourceError):
                break
            if isinstance(raw, OversizedLine):
                continue
            message = decode_line(raw)
            if not isinstance(message, dict):
                continue
            if self.played:
                if _is_request(message):
                    await self.answer(message)
                continue
            self.pending.append(message)
            self._wake()
        self.client_gone = True
        self._wake()

    def _wake(self) -> None:
        self.arrived.set()
        self.arrived = anyio.Event()

    async def wait_for(self, match: Callable[[Message], bool]) -> Message | None:
        """The first pending live message that matches (None: the client left)."""
        while True:
            arrived = self.arrived
            taken = self.take(match)
            if taken is not None:
                return taken
            if self.client_gone:
                return None
            await arrived.wait()

    def take(self, match: Callable[[Message], bool]) -> Message | None:
        for index, message in enumerate(self.pending):
            if match(message):
                return self.pending.pop(index)
        return None

    async def answer(self, request: Message) -> None:
        """Answer a live request the recording has nothing for (it is played)."""
        method = request["method"]
        params = request.get("params")
        if method == "session/prompt" and isinstance(params, dict):
            session_id = params.get("sessionId")
            if isinstance(session_id, str):
                await self._past_the_end(
                    request["id"], session_id, params.get("prompt")
                )
                return
        await self._write(
            {
                "id": request["id"],
                "error": {
                    "code": NOT_RECORDED,
                    "message": "acp-tui replay: this request is not in the "
                    f"recording ({method})",
                },
            }
        )

    async def _past_the_end(
        self, request_id: Any, session_id: str, prompt: Any
    ) -> None:
        """A prompt after the last recorded turn: a turn saying it is over.

        v1: the message, then the response with `end_turn`. v2: the response
        (acceptance), the prompt acknowledged as a user message, `running`, the
        message, `idle` with `end_turn`, as the demo agent's v2 turns go.
        """
        self.turns_past_the_end += 1
        number = self.turns_past_the_end
        if self.version != 2:
            await self._say(session_id, f"acp-tui-replay-over-{number}", OVER)
            await self._write({"id": request_id, "result": {"stopReason": "end_turn"}})
            return
        await self._write({"id": request_id, "result": {}})
        blocks = prompt if isinstance(prompt, list) else []
        await self._update(
            session_id,
            {
                "sessionUpdate": "user_message",
                "messageId": f"acp-tui-replay-prompt-{number}",
                "content": blocks,
            },
        )
        await self._update(
            session_id, {"sessionUpdate": "state_update", "state": "running"}
        )
        await self._say(session_id, f"acp-tui-replay-over-{number}", OVER)
        await self._update(
            session_id,
            {
                "sessionUpdate": "state_update",
                "state": "idle",
                "stopReason": "end_turn",
            },
        )

    async def _say(self, session_id: str, message_id: str, text: str) -> None:
        """One whole agent message (v1: a chunk, v2: `agent_message`)."""
        block = {"type": "text", "text": text}
        update: Message
        if self.version >= 2:  # v2 and later: whole messages
            update = {
                "sessionUpdate": "agent_message",
                "messageId": message_id,
                "content": [block],
            }
        else:
            update = {
                "sessionUpdate": "agent_message_chunk",
                "messageId": message_id,
                "content": block,
            }
        await self._update(session_id, update)

    async def _update(self, session_id: str, update: Message) -> None:
        await self._write(
            {
                "method": "session/update",
                "params": {"sessionId": session_id, "update": update},
            }
        )

    async def _write(self, message: Message) -> None:
        await self.send(encode_message({"jsonrpc": "2.0", **message}))

    async def send(self, line: bytes) -> None:
        try:
            await self.stream.send(line)
        except ConnectionClosed:
            self.client_gone = True

    async def play(self, lines: Sequence[RecordedLine]) -> None:
        previous = lines[0].t if lines else 0.0
        for line in lines:
            if self.client_gone:
                return
            if line.data is None:  # oversized: its bytes were never kept
                continue
            message = decode_line(line.data)
            self._note(message)
            if line.direction == "out":
                previous = line.t
                if isinstance(message, dict) and not await self._client_says(message):
                    return
                continue
            if self._skip(message):
                continue
            if self.speed is not None and line.t > previous:
                await anyio.sleep((line.t - previous) / self.speed)
            previous = line.t
            await self.send(self._outgoing(line.data, message))

    def _note(self, message: Any) -> None:
        """Keep the recording's protocol version and its latest session id."""
        if not isinstance(message, dict):
            return
        for part in ("params", "result"):
            body = message.get(part)
            if not isinstance(body, dict):
                continue
            if isinstance(body.get("sessionId"), str):
                self.session_id = body["sessionId"]
            version = body.get("protocolVersion")
            if part == "result" and version in (1, 2):
                self.version = version

    def _skip(self, message: Any) -> bool:
        """Whether an agent line is a client-effect request not to be sent."""
        if (
            self.client_effects
            or not isinstance(message, dict)
            or not _is_request(message)
            or message["method"] not in CLIENT_EFFECTS
        ):
            return False
        self.skipped.add(_key(message["id"]))
        return True

    async def _client_says(self, recorded: Message) -> bool:
        """Wait for the live counterpart of a recorded client message.

        Returns False when the client left before sending it.
        """
        if _is_request(recorded):
            method = recorded["method"]
            live = await self.wait_for(
                lambda m: _is_request(m) and m["method"] == method
            )
            if live is None:
                return False
            self.ids[_key(recorded["id"])] = live["id"]
        elif _is_notification(recorded):
            method = recorded["method"]
            self.take(lambda m: _is_notification(m) and m["method"] == method)
        elif _is_response(recorded):
            wanted = _key(recorded["id"])
            if wanted in self.skipped:
                return True
            live = await self.wait_for(
                lambda m: _is_response(m) and _key(m["id"]) == wanted
            )
            if live is None:
                return False
        return True

    def _outgoing(self, data: bytes, message: Any) -> bytes:
        """The agent line to send: a response gets the live request's id."""
        if isinstance(message, dict) and _is_response(message):
            key = _key(message["id"])
            if key in self.ids:
                return encode_message({**message, "id": self.ids.pop(key)})
        return data + b"\n"

    async def finish(self, *, announce: bool) -> None:
        """The recording is played: say so if `announce`, answer what is left."""
        self.played = True
        if announce and self.session_id is not None and not self.client_gone:
            await self._say(self.session_id, "acp-tui-replay-ended", ENDED)
        pending, self.pending = self.pending, []
        for message in pending:
            if _is_request(message):
                await self.answer(message)


async def replay(
    stream: MessageStream,
    lines: Sequence[RecordedLine],
    *,
    speed: float | None,
    client_effects: bool = False,
    announce_end: bool = False,
) -> None:
    """Play one recorded connection to the client on `stream`.

    Returns once the recording is played and the client has closed its end (or
    left before the end).

    Args:
        stream: The agent's side of the connection.
        lines: The recorded lines of one connection.
        speed: Divides the recorded gaps between agent lines; None: no waiting.
        client_effects: Send the agent's file-writing and terminal requests too.
        announce_end: Once the recording is played, say so in an agent message.
    """
    player = _Player(stream, speed, client_effects)
    async with anyio.create_task_group() as group:
        group.start_soon(player.read_client)
        await player.play(lines)
        await player.finish(announce=announce_end)


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="python -m acp_tui.demo.replay",
        description="An ACP agent that plays an acp-tui recording.",
    )
    parser.add_argument("file", type=Path)
    pace = parser.add_mutually_exclusive_group()
    pace.add_argument("--speed", type=float, default=1.0)
    pace.add_argument("--instant", action="store_true")
    parser.add_argument(
        "--connection",
        type=int,
        default=-1,
        metavar="K",
        help="which recorded connection to play, from 0 (default: the last)",
    )
    parser.add_argument(
        "--client-effects",
        action="store_true",
        help="also send the recorded requests that make the client write files "
        "or run commands (v1 fs/write_text_file, terminal/*)",
    )
    parser.add_argument(
        "--announce-end",
        action="store_true",
        help="once the recording is played, say so in an agent message",
    )
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run the replay agent on stdin/stdout; returns the exit status."""
    from acp_tui.demo.stdio import StdioStream

    args = _parser().parse_args(argv)
    if not args.instant and not args.speed > 0:
        print("replay: --speed must be positive", file=sys.stderr)
        return 2
    try:
        recording = read_recording(args.file)
    except (OSError, RecordingError) as error:
        print(f"replay: {error}", file=sys.stderr)
        return 2
    if not recording.connections:
        print(f"replay: {args.file}: no connection recorded", file=sys.stderr)
        return 2
    try:
        lines = recording.connections[args.connection]
    except IndexError:
        count = len(recording.connections)
        print(f"replay: --connection: only {count} recorded", file=sys.stderr)
        return 2
    speed = None if args.instant else args.speed
    effects = bool(args.client_effects)
    announce = bool(args.announce_end)
    anyio.run(
        lambda: replay(
            StdioStream(),
            lines,
            speed=speed,
            client_effects=effects,
            announce_end=announce,
        )
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
