"""Remote agents: acp-tui against the Python SDK's HTTP/WebSocket server.

`tests/interop/pysdk_agent.py` (an agent written with `agent-client-protocol`
1.0.0rc3) is served by the SDK's own Starlette app (`acp.http.asgi`:
Streamable HTTP and WebSocket on /acp) under uvicorn, on loopback. `acp-tui
print` and the app reach it over each profile (pinned with `transport` in
config.toml) and each protocol version (the SDK's `AgentProtocolRouter`
serves v1 and v2). A wrong token is a clear error; a 64 MiB message arrives
whole over both profiles.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any, Literal

import pytest

from acp_tui.cli import main
from acp_tui.protocol.remote.target import RemoteTarget
from acp_tui.protocol.transport import AgentCommand
from acp_tui.store.store import DEFAULT_MAX_MESSAGE_CHARS
from acp_tui.ui.app import make_app
from acp_tui.ui.widgets.message_view import MessageView
from acp_tui.ui.widgets.status_bar import StatusBar
from tests.interop.pysdk_peer import pysdk_server
from tests.interop.test_app_peers import SIZE, wait_long

pytestmark = [pytest.mark.interop, pytest.mark.subprocess]

PROFILES = ("websocket", "http")


@pytest.fixture(scope="module")
def both_versions() -> Iterator[int]:
    """One server of both versions (`--versions 1,2`) for this module's tests over
    each profile and version, on its port. Each test opens its own connection
    and session, and the agent keeps nothing between connections that these
    tests read, so they share it (issue 28: each start is ~1.4 s of CPU and
    ~2.5 s of waiting, 8 times over). Tests whose server differs (a token,
    `--big`) or that list sessions start their own."""
    with pysdk_server("--versions", "1,2") as port:
        yield port


def configure(home: Path, port: int, **extra: str) -> None:
    """config.toml: a remote agent per profile (`remote-websocket`, `remote-http`)."""
    lines = []
    for profile in PROFILES:
        lines.append(f"[agents.remote-{profile}]")
        lines.append(f'url = "http://127.0.0.1:{port}/acp"')
        lines.append(f'transport = "{profile}"')
        lines.extend(f'{key} = "{value}"' for key, value in extra.items())
    config = home / "config"
    config.mkdir(parents=True, exist_ok=True)
    (config / "config.toml").write_text("\n".join(lines) + "\n")


def run_print(
    capsys: pytest.CaptureFixture[str], agent: str, cwd: Path, *args: str
) -> tuple[int, dict[str, Any] | None, str]:
    code = main(
        [
            "print",
            "--agent",
            agent,
            "--cwd",
            str(cwd),
            "--format",
            "json",
            "--timeout",
            "60",
            *args,
        ]
    )
    captured = capsys.readouterr()
    document = json.loads(captured.out) if captured.out.strip() else None
    return code, document, captured.err


def agent_text(document: dict[str, Any]) -> str:
    return "".join(
        block.get("text", "")
        for message in document["messages"]
        if message["role"] == "agent"
        for block in message["content"]
    )


@pytest.mark.parametrize("profile", PROFILES)
@pytest.mark.parametrize("version", ["1", "2"])
def test_print_over_each_profile_and_version(
    profile: str,
    version: str,
    both_versions: int,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    monkeypatch.setenv("ACP_TUI_HOME", str(tmp_path / "home"))
    configure(tmp_path / "home", both_versions)
    code, document, err = run_print(
        capsys, f"remote-{profile}", tmp_path, "--protocol", version, "hello remote"
    )
    assert code == 0, err
    assert document is not None
    assert document["protocolVersion"] == int(version)
    assert document["agent"]["name"] == "pysdk-agent"
    assert agent_text(document) == "pysdk heard: hello remote"
    assert document["stopReason"] == "end_turn"


def test_print_with_a_url_tries_websocket_then_works(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("ACP_TUI_HOME", str(tmp_path / "home"))
    with pysdk_server() as port:
        code, document, err = run_print(
            capsys, f"http://127.0.0.1:{port}/acp", tmp_path, "hi"
        )
    assert code == 0, err
    assert document is not None
    assert agent_text(document) == "pysdk heard: hi"


@pytest.mark.parametrize("profile", PROFILES)
def test_a_wrong_token_is_a_clear_error(
    profile: str,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    monkeypatch.setenv("ACP_TUI_HOME", str(tmp_path / "home"))
    monkeypatch.setenv("REMOTE_TOKEN", "wrong")
    with pysdk_server("--token", "right") as port:
        configure(tmp_path / "home", port, token_env="REMOTE_TOKEN")
        code, _, err = run_print(capsys, f"remote-{profile}", tmp_path, "hi")
        monkeypatch.setenv("REMOTE_TOKEN", "right")
        good, document, good_err = run_print(
            capsys, f"remote-{profile}", tmp_path, "hi"
        )
    assert code == 3
    assert "refused the credentials (HTTP 401)" in err
    assert "token" in err
    assert "Traceback" not in err
    assert good == 0, good_err
    assert document is not None
    assert agent_text(document) == "pysdk heard: hi"


@pytest.mark.parametrize("profile", PROFILES)
def test_a_64_mib_message_arrives_whole(
    profile: str,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    monkeypatch.setenv("ACP_TUI_HOME", str(tmp_path / "home"))
    size = 64 * 1024 * 1024
    with pysdk_server("--big", str(size)) as port:
        configure(tmp_path / "home", port)
        code, document, err = run_print(capsys, f"remote-{profile}", tmp_path, "big")
    assert code == 0, err
    assert document is not None
    text = agent_text(document)
    assert text.startswith("pysdk heard: big ")
    # The whole message was read and decoded; the store keeps its first
    # DEFAULT_MAX_MESSAGE_CHARS, as it does for stdio.
    assert DEFAULT_MAX_MESSAGE_CHARS - 4096 < len(text) <= DEFAULT_MAX_MESSAGE_CHARS
    assert set(text[len("pysdk heard: big ") :]) == {"x"}


@pytest.mark.parametrize("profile", PROFILES)
@pytest.mark.parametrize("version", ["1", "2"])
async def test_app_over_each_profile_and_version(
    profile: str,
    version: Literal["1", "2"],
    both_versions: int,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("ACP_TUI_HOME", str(tmp_path / "home"))
    port = both_versions
    url = f"http://127.0.0.1:{port}/acp"
    target = RemoteTarget(url, transport=profile)  # type: ignore[arg-type]
    command = AgentCommand((url,), remote=target)
    app = make_app(
        command, target.name(), cwd=tmp_path, choice=version, init_timeout=30.0
    )
    async with app.run_test(size=SIZE) as pilot:
        await wait_long(pilot, lambda: app.store is not None, 30)
        assert app.store is not None
        await pilot.press(*"hello app", "enter")
        await wait_long(
            pilot,
            lambda: any(
                "pysdk heard: hello app" in v.text for v in app.query(MessageView)
            ),
            30,
        )
        status = app.query_one(StatusBar)
        assert f"ACP v{version}" in status.status_text()
        assert app.is_running


@pytest.mark.parametrize("profile", PROFILES)
def test_sessions_and_a_loaded_session(
    profile: str,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    """`sessions` lists over the remote link, and `print --session` loads one:
    its replay comes first, then the new turn on the session's own stream."""
    monkeypatch.setenv("ACP_TUI_HOME", str(tmp_path / "home"))
    agent = f"remote-{profile}"
    with pysdk_server() as port:
        configure(tmp_path / "home", port)
        code, first, err = run_print(capsys, agent, tmp_path, "first")
        assert code == 0, err
        assert first is not None
        session = first["sessionId"]
        listed = main(["sessions", "--agent", agent, "--cwd", str(tmp_path)])
        listing = capsys.readouterr()
        code, loaded, err = run_print(
            capsys, agent, tmp_path, "--session", session, "second"
        )
    assert listed == 0, listing.err
    assert session in listing.out
    assert code == 0, err
    assert loaded is not None
    assert loaded["sessionId"] == session
    assert agent_text(loaded) == "earlier answerpysdk heard: second"
