"""A real agent's turn reviewed: claude-agent-acp writes a file with its own
Write tool and changes another with a Bash `sed`, offline against the scripted
Anthropic model server (issue 26).

The turn runs through `AcpClient` with the runner's `TurnChanges` around it
(snapshot before the prompt, diff after, as `ClientRunner` does): the change
set must list both files, the shell's change included (no tool-call diff shows
it), and reverting the `sed` hunk must restore that line while the other file
stays. The project is a git work tree with a commit: its index, stash and refs
must be as they were (`refs`).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import anyio
import pytest

from acp_tui.client.connection import connect
from acp_tui.client.ports import PermissionRequest
from acp_tui.client.session import AcpClient
from acp_tui.client.turn_changes import TurnChanges
from acp_tui.protocol.transport import AgentCommand, StdioTransport
from tests.interop.real_agents import AGENTS, Workspace
from tests.modelserver._script import Text
from tests.unit.changes.test_git_changes import git

pytestmark = pytest.mark.interop

BOUND = 150  # claude-agent-acp's session/new takes about 20 s here
PROMPT = "change the files"
DATA = "alpha\nbeta\ngamma\n"
WRITTEN = "print('written by the model')\n"


def refs(project: Path) -> tuple[str, ...]:
    """The stash, HEAD, refs and the index's entries.

    (Not the index file's bytes: Claude Code runs `git status` itself, which
    may refresh the index's stat cache.)
    """
    return (
        git(project, "stash", "list"),
        git(project, "rev-parse", "HEAD"),
        git(project, "for-each-ref"),
        git(project, "ls-files", "--stage"),
    )


class Allow:
    """Every permission is allowed once."""

    async def ask(self, request: PermissionRequest) -> str | None:
        for option in request.options:
            if option.kind == "allow_once":
                return option.option_id
        return request.options[0].option_id if request.options else None


async def test_claude_turn_changes_are_listed_and_a_hunk_reverts(
    tmp_path: Path,
) -> None:
    agent = AGENTS["claude-v2"]
    workspace = Workspace(tmp_path).create()
    project = workspace.project
    git(project, "init", "-q", "-b", "main")
    (project / "data.txt").write_text(DATA)
    git(project, "add", "-A")
    git(project, "commit", "-q", "-m", "start")
    before = refs(project)
    tools = agent.toolkit
    script = agent.script(
        {
            PROMPT: [
                tools.write(project / "made.py", WRITTEN),
                tools.shell("sed -i 's/beta/BETA/' data.txt"),
                (Text("Changed both."),),
            ]
        }
    )
    changes = TurnChanges(enabled=True)
    with agent.server(script) as server, anyio.fail_after(BOUND):
        command = AgentCommand(
            argv=agent.argv(), env=agent.environment(workspace, server), cwd=project
        )
        client = AcpClient(prompter=Allow())
        async with connect(
            lambda: StdioTransport(command, name="claude"),
            choice="2",
            init_timeout=BOUND / 2,
            on_request=client.handle_request,
            on_notification=client.handle_notification,
        ) as connection:
            client.attach(connection)
            store = await client.new_session(project)
            await changes.begin([project])
            prompt: list[dict[str, Any]] = [{"type": "text", "text": PROMPT}]
            await client.prompt(store.session_id, prompt)
            review = await changes.end()
    assert review is not None
    statuses = {f.path: f.status for f in review.changes.files}
    assert statuses == {"made.py": "added", "data.txt": "modified"}, statuses
    data = review.changes.by_path("data.txt")
    assert data is not None
    await changes.revert_hunk(data, 0)
    assert (project / "data.txt").read_text() == DATA
    assert (project / "made.py").read_text() == WRITTEN
    assert refs(project) == before
