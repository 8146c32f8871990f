"""`acp-tui replay`: the replay agent's command line for a `--record` recording.

The app is run against `python -m acp_tui.demo.replay FILE`, which plays the
agent's side of the recording (`acp_tui.demo.replay`). Here the file is read
first, so a file that is not a recording, or a connection it does not hold, is
a usage error with a message before any screen starts. The app itself is
started by the CLI (`acp_tui.cli`), as for `acp-tui --agent`.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import TextIO

from acp_tui.protocol.recording import RecordedLine, RecordingError, read_recording
from acp_tui.protocol.transport import AgentCommand
from acp_tui.safe_text import printable

__all__ = ["recorded_prompts", "replay_agent", "replay_banner", "replay_command"]


def replay_command(
    file: Path,
    *,
    speed: float | None,
    connection: int = -1,
    client_effects: bool = False,
    announce_end: bool = False,
) -> AgentCommand:
    """The replay agent's command line for a recording (None speed: instant).

    `announce_end`: the agent says in a message when the recording is played.
    """
    pace = ["--instant"] if speed is None else ["--speed", repr(speed)]
    if client_effects:
        pace.append("--client-effects")
    if announce_end:
        pace.append("--announce-end")
    return AgentCommand(
        argv=(
            sys.executable,
            "-m",
            "acp_tui.demo.replay",
            str(file.resolve()),
            *pace,
            "--connection",
            str(connection),
        )
    )


def replay_agent(
    file: Path,
    *,
    speed: float | None,
    connection: int,
    client_effects: bool,
    err: TextIO,
) -> AgentCommand | None:
    """The replay agent for `connection` of the recording `file`, for the app.

    None speed: instant. The agent says in a message when the recording is
    played. None (said on `err`) if `file` is not a recording, or does not hold
    that connection.
    """
    try:
        recording = read_recording(file)
    except (OSError, RecordingError) as error:
        print(printable(f"acp-tui: {error}"), file=err)
        return None
    count = len(recording.connections)
    if not -count <= connection < count:
        print(printable(f"acp-tui: {file} holds {count} connection(s)"), file=err)
        return None
    return replay_command(
        file,
        speed=speed,
        connection=connection,
        client_effects=client_effects,
        announce_end=True,
    )


def recorded_prompts(lines: Sequence[RecordedLine]) -> list[str]:
    """The text of each prompt the client sent in a recorded connection."""
    prompts: list[str] = []
    for line in lines:
        if line.direction != "out" or line.data is None:
            continue
        try:
            message = json.loads(line.data)
        except ValueError:
            continue
        if not isinstance(message, dict) or message.get("method") != "session/prompt":
            continue
        params = message.get("params")
        blocks = params.get("prompt") if isinstance(params, dict) else None
        text = " ".join(
            str(block.get("text", ""))
            for block in (blocks if isinstance(blocks, list) else [])
            if isinstance(block, dict) and block.get("type") == "text"
        )
        prompts.append(text.strip())
    return prompts


def replay_banner(file: Path, connection: int = -1) -> str | None:
    """What the app says as a replay starts: what it plays, and what to type.

    None if the file cannot be read (`replay_agent` says why).
    """
    try:
        recording = read_recording(file)
        lines = recording.connections[connection]
    except (OSError, RecordingError, IndexError):
        return None
    prompts = recorded_prompts(lines)
    count = len(prompts)
    turns = f"{count} recorded turn{'s' if count != 1 else ''}"
    if not prompts:
        return printable(
            f"Replaying {file.name}: it holds no prompt turn, only the start of a "
            "session. ctrl+q quits."
        )
    shown = "; ".join(f"{i}. {p[:60]!r}" for i, p in enumerate(prompts[:3], 1))
    more = f" (and {count - 3} more)" if count > 3 else ""
    return printable(
        f"Replaying {file.name}: {turns}. Type any prompt and press Enter to play "
        f"the next turn (the recorded prompts: {shown}{more}). When all are "
        "played, the replay is over: ctrl+q quits."
    )
