"""`acp-tui print` starts the agent first, then imports the client stack.

An agent takes from a tenth of a second (a Python script) to seconds (node) to
boot and answer `initialize`, and `print` imports its client stack (the wire
models, the dialects, the store: about 0.2 s) after reading its config. Both
were done one after the other; now the agent is started before that import
(`AgentLauncher.start_early`, as the app does), so it boots while the import
runs and `initialize` is answered sooner.

`agent_started_early` imports only the launcher (the transport, the errors):
the command line calls it before it imports `print_turn`. The launcher is
handed to `run_print`, whose first connection takes the agent already started;
an agent no connection took (a usage error found later, a failure) is stopped
when the block ends. An agent that cannot be started is not reported here: the
connection starts it again and reports the failure as it always did.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager, suppress
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from acp_tui.client.launch import AgentLauncher
    from acp_tui.protocol.transport import AgentCommand

__all__ = ["agent_started_early"]


@asynccontextmanager
async def agent_started_early(
    command: AgentCommand, name: str, *, start: bool = True
) -> AsyncIterator[AgentLauncher]:
    """A launcher for `command`, the agent started now (if `start`).

    Args:
        command: The agent to run.
        name: Its name (for the launcher's messages).
        start: False: the launcher only (the agent is started when connecting).
    """
    from acp_tui.client.launch import AgentLauncher
    from acp_tui.protocol.transport import AgentStartError

    launcher = AgentLauncher(command, name)
    if start:
        # One that cannot start is started again by the connection, which
        # reports why it fails.
        with suppress(AgentStartError):
            await launcher.start_early()
    try:
        yield launcher
    finally:
        await launcher.discard_early()
