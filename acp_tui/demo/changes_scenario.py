"""`/changes`: files changed by an edit and by a shell command, for the review.

The agent edits `src/greeting.py` (a tool call with its diff, as `/edit` does),
then runs a shell command in a terminal that changes `notes.txt` with `sed`
and writes `CHANGELOG.md` with `printf`: a change no tool-call diff shows. The
client's review of the turn (f6) lists all three. Like every scenario it runs
in the scratch workspace, restores the files it touches first (the same diff
every time), asks in ask mode and only plans in plan mode.

Not listed in the demo's advertised commands yet (adding it there changes every
pinned print document): type `/changes`.
"""

from __future__ import annotations

import shlex
from typing import Final

from acp_tui.demo.turn import Turn

__all__ = ["CHANGELOG", "changes_scenario"]

CHANGELOG: Final = "# Changelog\n\n- greet() has type hints and a docstring\n"
"""What the shell command writes to CHANGELOG.md."""


def _command(root: str) -> str:
    """The shell command (absolute paths: a client terminal runs in the cwd)."""
    notes = shlex.quote(f"{root}/notes.txt")
    log = shlex.quote(f"{root}/CHANGELOG.md")
    text = CHANGELOG.replace("\n", "\\n")
    return (
        f"sed 's/water the plants/water the plants (done)/' {notes} > {notes}.new"
        f" && mv {notes}.new {notes} && printf '{text}' > {log}"
    )


async def changes_scenario(turn: Turn, argument: str) -> str:
    """`/changes`: an edit and a shell command change three files."""
    # Imported here: `scenarios` imports this module for its table.
    from acp_tui.demo.scenarios import (
        GREETING_AFTER,
        _location,
        _permitted,
        _plan_mode_refusal,
        _run_command,
        _signature,
        _text_edit,
    )

    workspace = turn.session.workspace
    if turn.session.config.mode == "plan":
        return await _plan_mode_refusal(
            turn,
            "change files",
            [
                "Add type hints to greet() in src/greeting.py",
                "Tick off the plants in notes.txt with sed",
                "Write CHANGELOG.md",
            ],
        )
    workspace.reset("src/greeting.py", "notes.txt")
    workspace.remove("CHANGELOG.md")
    await turn.think(
        (
            "One edit through my edit tool, and two changes by a shell command.",
            "The shell's changes show in no tool-call diff: the review finds them.",
        )
    )
    greeting = workspace.path("src/greeting.py")
    before = workspace.read("src/greeting.py")
    diff = _text_edit(greeting, before, GREETING_AFTER, "text/x-python")
    edit = await turn.tool_call(
        "Edit src/greeting.py",
        "edit",
        locations=[_location(turn, "src/greeting.py", 4)],
        raw_input={"file": str(greeting)},
        content=[diff],
    )
    if not await _permitted(
        turn,
        edit,
        "edit",
        "Allow the demo agent to edit src/greeting.py?",
        "It adds type hints in its scratch workspace.",
        "edit src/greeting.py",
    ):
        return "end_turn"
    await turn.update_tool(edit, status="in_progress")
    workspace.write("src/greeting.py", GREETING_AFTER)
    await turn.update_tool(edit, status="completed", content=[diff])
    command = _command(str(workspace.root))
    display = "sed … notes.txt && printf … > CHANGELOG.md"
    status = await _run_command(
        turn,
        ["sh", "-c", command],
        display,
        (
            "Allow the demo agent to run a shell command?",
            "It changes notes.txt and writes CHANGELOG.md in its scratch workspace.",
        ),
        title="Run a shell command",
        raw_command=command,
    )
    if status is None:
        return "end_turn"
    await turn.say(
        "Changed `src/greeting.py` with an edit, and `notes.txt` and "
        "`CHANGELOG.md` with a shell command (no diff of mine shows those). "
        "Press **f6** to review what this turn changed: revert a hunk, keep it, "
        "or comment and send the review back." + _signature(turn)
    )
    return "end_turn"
