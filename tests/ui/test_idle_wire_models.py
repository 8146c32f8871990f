"""The app left idle with the demo agent builds no `session/update` model.

The demo agent (v2) opens its session with an `available_commands_update` and
nothing else; `client.v2_plain` translates its plain shape without the wire
models, so the `session/update` schema (every update kind's model, about 1 MB
of an idle app's memory and 30 ms of its start) is never built (issue 28: idle
RSS with the demo agent). Run in a fresh interpreter: a model built by another
test in the same process would hide it.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

PROBE = """
import asyncio, json, sys
from pathlib import Path
from acp_tui.protocol.transport import AgentCommand
from acp_tui.ui.app import make_app

async def main() -> None:
    command = AgentCommand(argv=(sys.executable, "-m", "acp_tui.demo"))
    app = make_app(command, "demo", cwd=Path(sys.argv[1]), init_timeout=30.0)
    async with app.run_test(headless=True, size=(100, 30)) as pilot:
        for _ in range(600):  # (bounded: 30 s)
            if app.store is not None and app.store.commands:
                break
            await pilot.pause(0.05)
        commands = len(app.store.commands) if app.store is not None else 0
    from acp_tui.protocol.schema import v2
    complete = v2.UpdateSessionNotification.__pydantic_complete__
    print(json.dumps({"commands": commands, "built": complete}))

asyncio.run(main())
"""


@pytest.mark.subprocess
def test_an_idle_app_builds_no_session_update_model(tmp_path: Path) -> None:
    completed = subprocess.run(
        [sys.executable, "-c", PROBE, str(tmp_path)],
        capture_output=True,
        text=True,
        check=True,
        timeout=90,
        env={
            "ACP_TUI_HOME": str(tmp_path / "home"),
            "ACP_TUI_DEMO_DELAY": "0",
            "PATH": "/usr/bin:/bin",
        },
    )
    result = json.loads(completed.stdout.splitlines()[-1])
    assert result["commands"] > 0  # the demo's commands arrived
    assert result["built"] is False
