"""`acp-tui replay`: the replay agent's command line for a `--record` recording.

The app is run against `python -m acp_tui.demo.replay FILE`, which plays the
agent's side of the recording (`acp_tui.demo.replay`). Here the file is read
first, so a file that is not a recording, or a connection it does not hold, is
a usage error with a message before any screen starts. The app itself is
started by the CLI (`acp_tui.cli`), as for `acp-tui --agent`.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import TextIO

from acp_tui.protocol.recording import RecordingError, read_recording
from acp_tui.protocol.transport import AgentCommand
from acp_tui.safe_text import printable

__all__ = ["replay_agent", "replay_command"]


def replay_command(
    file: Path,
    *,
    speed: float | None,
    connection: int = -1,
    client_effects: bool = False,
) -> AgentCommand:
    """The replay agent's command line for a recording (None speed: instant)."""
    pace = ["--instant"] if speed is None else ["--speed", repr(speed)]
    if client_effects:
        pace.append("--client-effects")
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
    """The replay agent for `connection` of the recording `file`.

    None speed: instant. None (said on `err`) if `file` is not a recording, or
    does not hold that connection.
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
        file, speed=speed, connection=connection, client_effects=client_effects
    )
