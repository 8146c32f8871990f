"""How fast the demo agent starts, streams and replays.

Runs `python -m acp_tui.demo` as a subprocess (no streaming delay, a temporary
data dir) and reports, per protocol version:

* start-up: process start to the `initialize` response;
* streaming: `/markdown` and `/run` turns, in updates per second;
* replay: replaying the whole session (`session/resume` + `replayFrom: start`
  in v2, `session/load` in v1), in milliseconds.

Usage: `uv run python bench/demo.py [--turns N]`
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from typing import Any

import anyio

from acp_tui.protocol.dispatcher import Dispatcher
from acp_tui.protocol.transport import AgentCommand, StdioTransport


async def _bench(version: int, turns: int, home: str) -> None:
    updates = 0
    idle = anyio.Event()

    async def on_notification(method: str, params: Any) -> None:
        nonlocal updates, idle
        if method != "session/update":
            return
        updates += 1
        update = params["update"]
        if (
            update.get("sessionUpdate") == "state_update"
            and update.get("state") == "idle"
        ):
            idle.set()

    async def on_request(method: str, params: Any, context: Any) -> Any:
        return {"outcome": {"outcome": "selected", "optionId": "allow-once"}}

    env = {"ACP_TUI_HOME": home, "ACP_TUI_DEMO_DELAY": "0"}
    command = AgentCommand((sys.executable, "-m", "acp_tui.demo"), env=env)
    started = time.perf_counter()
    async with StdioTransport(command, name="demo") as transport:
        dispatcher = Dispatcher(
            transport, on_request=on_request, on_notification=on_notification
        )
        async with dispatcher.running():
            if version == 2:
                init = {"protocolVersion": 2, "info": {"name": "bench", "version": "1"}}
            else:
                init = {"protocolVersion": 1, "clientCapabilities": {}}
            await dispatcher.request("initialize", init)
            startup = time.perf_counter() - started
            session = (
                await dispatcher.request(
                    "session/new", {"cwd": tempfile.gettempdir(), "mcpServers": []}
                )
            )["sessionId"]
            await dispatcher.request(
                "session/set_config_option",
                {"sessionId": session, "configId": "mode", "value": "code"}
                | ({"type": "id"} if version == 2 else {}),
            )
            updates = 0
            began = time.perf_counter()
            for _ in range(turns):
                for prompt in ("/markdown", "/run"):
                    idle = anyio.Event()
                    params = {
                        "sessionId": session,
                        "prompt": [{"type": "text", "text": prompt}],
                    }
                    await dispatcher.request("session/prompt", params)
                    if version == 2:
                        await idle.wait()
            streamed = time.perf_counter() - began
            live_updates = updates
            began = time.perf_counter()
            if version == 2:
                await dispatcher.request(
                    "session/resume",
                    {
                        "sessionId": session,
                        "cwd": tempfile.gettempdir(),
                        "replayFrom": {"type": "start"},
                    },
                )
            else:
                await dispatcher.request(
                    "session/load",
                    {
                        "sessionId": session,
                        "cwd": tempfile.gettempdir(),
                        "mcpServers": [],
                    },
                )
            replay = time.perf_counter() - began
    print(
        f"v{version}: start-up {startup * 1000:6.0f} ms | "
        f"{live_updates} live updates in {streamed:.2f} s "
        f"({live_updates / streamed:,.0f}/s) | replay {replay * 1000:.0f} ms"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--turns", type=int, default=5)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as home:
        os.environ.pop("ACP_TUI_DEMO_NOW", None)
        for version in (2, 1):
            anyio.run(_bench, version, args.turns, home)


if __name__ == "__main__":
    main()
