"""Remote agents in the catalogue and on the command line (no connection made
except to a closed loopback port)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from acp_tui.cli import main
from acp_tui.client.agents import AgentConfigError, load_user_agents, resolve_agent
from acp_tui.client.launch import AgentLauncher
from acp_tui.protocol.remote.open import open_remote
from acp_tui.protocol.remote.target import RemoteConnectError, RemoteTarget
from acp_tui.protocol.transport import AgentCommand


def test_a_url_is_a_remote_agent_named_by_its_host() -> None:
    resolved = resolve_agent("wss://build.example.com:8443/acp")
    assert resolved.command.remote == RemoteTarget("wss://build.example.com:8443/acp")
    assert resolved.name == "build.example.com:8443"
    assert resolved.command.display() == "wss://build.example.com:8443/acp"


def test_a_config_table_with_url() -> None:
    agents = load_user_agents(
        {
            "agents": {
                "box": {
                    "url": "https://box/acp",
                    "headers": {"X-Team": "tools"},
                    "token_env": "BOX_TOKEN",
                    "transport": "http",
                    "title": "Build box",
                }
            }
        }
    )
    entry = agents["box"]
    assert entry.remote == RemoteTarget(
        "https://box/acp",
        headers={"X-Team": "tools"},
        token_env="BOX_TOKEN",
        transport="http",
    )
    resolved = resolve_agent("box", catalogue=agents)
    assert resolved.ok
    assert resolved.command.remote == entry.remote
    assert resolved.name == "box"


@pytest.mark.parametrize(
    ("table", "problem"),
    [
        ({"url": "https://h/acp", "command": "x"}, "remove 'command'"),
        ({"url": "ftp://h"}, "ws://, wss://, http:// or https://"),
        ({"url": "https://h/acp", "transport": "grpc"}, "'transport'"),
        ({"url": "https://h/acp", "token_env": "A B"}, "'token_env'"),
        ({"url": "https://h/acp", "headers": {"X": 1}}, "header 'X'"),
        ({"url": "https://u:p@h/acp"}, "no user name or password"),
    ],
)
def test_bad_remote_tables(table: dict[str, object], problem: str) -> None:
    with pytest.raises(AgentConfigError, match=r"\[agents\.box\]") as caught:
        load_user_agents({"agents": {"box": table}})
    assert problem in str(caught.value)


def test_plain_http_to_another_host_is_refused(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("ACP_TUI_HOME", str(tmp_path))
    code = main(
        ["print", "--agent", "http://10.1.2.3/acp", "--cwd", str(tmp_path), "hi"]
    )
    err = capsys.readouterr().err
    assert code == 2
    assert "refusing plain http:// to 10.1.2.3" in err
    assert "--insecure" in err


def test_a_refused_connection_is_explained(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("ACP_TUI_HOME", str(tmp_path))
    code = main(
        ["print", "--agent", "ws://127.0.0.1:1/acp", "--cwd", str(tmp_path), "hi"]
    )
    err = capsys.readouterr().err
    assert code == 3
    assert "cannot connect to the remote agent at ws://127.0.0.1:1/acp" in err
    assert "connection refused" in err
    assert "Traceback" not in err


def test_an_unreadable_ca_file_is_explained(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("ACP_TUI_HOME", str(tmp_path))
    code = main(
        [
            "print",
            "--agent",
            "wss://127.0.0.1:1/acp",
            "--cacert",
            str(tmp_path / "no.pem"),
            "hi",
        ]
    )
    err = capsys.readouterr().err
    assert code == 3
    assert "cannot read the CA file" in err


async def test_a_missing_extra_says_what_to_install(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setitem(sys.modules, "websockets.asyncio.client", None)
    with pytest.raises(RemoteConnectError) as caught:
        async with open_remote(RemoteTarget("ws://127.0.0.1:1/acp")):
            pass
    assert caught.value.kind == "missing_extra"
    assert "install acp-tui[remote]" in str(caught.value)


def test_the_launcher_explains_a_remote_failure() -> None:
    command = AgentCommand(("wss://h/acp",), remote=RemoteTarget("wss://h/acp"))
    launcher = AgentLauncher(command, "h")
    error = RemoteConnectError("wss://h/acp", "auth", "", status=403)
    failure = launcher.explain(error)
    assert "refused the credentials (HTTP 403)" in failure.message
    assert failure.stderr_tail == ()


@pytest.mark.subprocess
def test_the_remote_libraries_load_only_when_connecting() -> None:
    probe = (
        "import sys, acp_tui.cli, acp_tui.client.runner, acp_tui.client.launch, "
        "acp_tui.client.agents, acp_tui.protocol.remote.open; "
        "acp_tui.client.agents.resolve_agent('wss://h/acp'); "
        "print(' '.join(sorted({m.split('.')[0] for m in sys.modules})))"
    )
    completed = subprocess.run(
        [sys.executable, "-c", probe],
        capture_output=True,
        text=True,
        check=True,
        timeout=60,
    )
    loaded = set(completed.stdout.split())
    assert not loaded & {"websockets", "httpx", "httpcore", "h2"}


@pytest.mark.parametrize(
    ("kind", "retry"),
    [("refused", True), ("timeout", True), ("auth", False), ("tls", False)],
)
def test_a_retry_is_offered_when_the_server_may_come_back(
    kind: str, retry: bool
) -> None:
    from acp_tui.client.runner import restart_may_help

    error = RemoteConnectError("wss://h/acp", kind, "x")  # type: ignore[arg-type]
    assert restart_may_help(error, handshake_done=False) is retry
