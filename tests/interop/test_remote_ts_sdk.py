"""Remote agents: acp-tui against the TypeScript SDK 2.4.0's server transport.

`tests/interop/ts_sdk_agent.mjs` is a small agent written with
`@agentclientprotocol/sdk` 2.4.0 (installed with claude-agent-acp), served by
the SDK's experimental `AcpServer` through its Node HTTP adapter, with its
WebSocket upgrade handler on the same endpoint (through the `ws` package, which
the SDK does not depend on: `.ci/install-peers` installs it). Each profile is
pinned in turn (`transport = ...`), and an unpinned URL (WebSocket first) too.
"""

from __future__ import annotations

import json
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

from acp_tui.cli import main
from tests.interop.conftest import INTEROP_SKIPPED, NODE22_BIN, PEERS
from tests.interop.pysdk_peer import first_line
from tests.interop.test_remote_pysdk import agent_text

pytestmark = [pytest.mark.interop, pytest.mark.subprocess]

AGENT = Path(__file__).with_name("ts_sdk_agent.mjs")
SDK = PEERS / "node_modules" / "@agentclientprotocol" / "sdk"


@pytest.fixture
def ts_port() -> Iterator[int]:
    node = NODE22_BIN / "node"
    ws = PEERS / "node_modules" / "ws" / "wrapper.mjs"
    if not (node.exists() and (SDK / "dist" / "transports" / "server.js").exists()):
        pytest.skip(
            f"{INTEROP_SKIPPED}: the TypeScript SDK 2.4.0 or Node 22 is not in {PEERS}"
        )
    if not ws.exists():
        pytest.skip(f"{INTEROP_SKIPPED}: the `ws` package is not in {PEERS}")
    process = subprocess.Popen(
        [str(node), str(AGENT), str(PEERS)],
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
    )
    try:
        line = first_line(process)
        assert line.startswith("PORT "), f"the TS SDK agent said {line!r}"
        yield int(line.split()[1])
    finally:
        process.terminate()
        process.wait(timeout=10)
        if process.stdout is not None:
            process.stdout.close()


@pytest.mark.parametrize("pinned", ["http", "websocket", None])
def test_print_over_each_profile(
    pinned: str | None,
    ts_port: int,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    monkeypatch.setenv("ACP_TUI_HOME", str(tmp_path / "home"))
    url = f"http://127.0.0.1:{ts_port}/acp"
    agent = url
    if pinned is not None:
        config = tmp_path / "home" / "config"
        config.mkdir(parents=True)
        (config / "config.toml").write_text(
            f'[agents.ts]\nurl = "{url}"\ntransport = "{pinned}"\n'
        )
        agent = "ts"
    code = main(
        [
            "print",
            "--agent",
            agent,
            "--cwd",
            str(tmp_path),
            "--format",
            "json",
            "hello ts",
        ]
    )
    captured = capsys.readouterr()
    assert code == 0, captured.err
    document = json.loads(captured.out)
    assert document["agent"]["name"] == "ts-sdk-agent"
    assert agent_text(document) == "ts-sdk heard: hello ts"
