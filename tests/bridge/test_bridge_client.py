"""acp-tui's own client against `acp-tui bridge` wrapping the demo agent.

`acp-tui print` over each profile (pinned with `transport` in config.toml) and
each protocol version, and with a bare URL whose token comes from
`ACP_TUI_REMOTE_TOKEN`; the app doing a turn. Fault tests on loopback: the
bridge killed mid-turn and restarted on the same port (the same ACP_TUI_HOME,
where the demo keeps its sessions): the app shows "reconnecting…", connects
again, resumes the session without showing anything twice, and marks the
interrupted turn; a permission dialog open at the drop closes with a note.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
import socket
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Final, Literal

import pytest
from textual.pilot import Pilot

from acp_tui.protocol.remote.target import RemoteTarget
from acp_tui.protocol.transport import AgentCommand
from acp_tui.ui.app import AcpTuiApp, make_app
from acp_tui.ui.pane_agent import Standing
from acp_tui.ui.screens.permission import PermissionScreen
from acp_tui.ui.widgets.conversation import Conversation
from acp_tui.ui.widgets.conversation_entries import Banner
from acp_tui.ui.widgets.message_view import MessageView
from acp_tui.ui.widgets.status_bar import StatusBar
from tests.bridge.harness import TOKEN, Bridge, running_bridge
from tests.bridge.harness import _readline as read_line
from tests.interop.test_app_peers import wait_long
from tests.interop.test_remote_pysdk import agent_text, run_print

pytestmark = pytest.mark.subprocess

PROFILES: Final = ("websocket", "http")
SIZE: Final = (120, 36)
TOKEN_ENV: Final = "BRIDGE_TEST_TOKEN"


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def configure(home: Path, base: str) -> None:
    """config.toml: the bridge per profile (`bridge-websocket`, `bridge-http`)."""
    lines = []
    for profile in PROFILES:
        lines += [
            f"[agents.bridge-{profile}]",
            f'url = "{base}"',
            f'transport = "{profile}"',
            f'token_env = "{TOKEN_ENV}"',
        ]
    config = home / "config"
    config.mkdir(parents=True, exist_ok=True)
    (config / "config.toml").write_text("\n".join(lines) + "\n")


@pytest.mark.parametrize("profile", PROFILES)
@pytest.mark.parametrize("version", ["1", "2"])
def test_print_over_the_bridge_each_profile_and_version(
    profile: str,
    version: str,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    monkeypatch.setenv("ACP_TUI_HOME", str(tmp_path / "client"))
    monkeypatch.setenv(TOKEN_ENV, TOKEN)
    with running_bridge(tmp_path) as bridge:
        configure(tmp_path / "client", bridge.base)
        code, document, err = run_print(
            capsys, f"bridge-{profile}", tmp_path, "--protocol", version, "/markdown"
        )
    assert code == 0, err
    assert document is not None
    assert document["protocolVersion"] == int(version)
    assert document["stopReason"] == "end_turn"
    assert agent_text(document).strip()


def test_print_with_a_bare_url_takes_the_token_from_the_environment(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    """`ACP_TUI_REMOTE_TOKEN`, as the bridge's banner says to paste."""
    monkeypatch.setenv("ACP_TUI_HOME", str(tmp_path / "client"))
    monkeypatch.delenv("ACP_TUI_REMOTE_TOKEN", raising=False)
    with running_bridge(tmp_path) as bridge:
        refused, _, refused_err = run_print(capsys, bridge.base, tmp_path, "hi")
        monkeypatch.setenv("ACP_TUI_REMOTE_TOKEN", TOKEN)
        code, document, err = run_print(capsys, bridge.base, tmp_path, "hi")
    assert refused == 3
    assert "401" in refused_err
    assert code == 0, err
    assert document is not None
    assert document["stopReason"] == "end_turn"


def test_the_bridge_prints_a_command_to_paste(tmp_path: Path) -> None:
    with running_bridge(tmp_path, extra=()) as bridge:
        line = read_line(bridge.process, 10)
    token = bridge.banner[1].split("token: ", 1)[1].strip()
    assert line.strip() == (
        f"acp-tui bridge: connect with: ACP_TUI_REMOTE_TOKEN={token} "
        f"acp-tui --agent {bridge.base}"
    )


def test_print_when_the_bridge_dies_mid_turn(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    """`print` does not reconnect: a clear message, a non-zero exit."""
    import threading

    monkeypatch.setenv("ACP_TUI_HOME", str(tmp_path / "client"))
    monkeypatch.setenv("ACP_TUI_REMOTE_TOKEN", TOKEN)
    env = {"ACP_TUI_DEMO_DELAY": "0.05"}
    with running_bridge(tmp_path, env=env) as bridge:
        timer = threading.Timer(2.0, lambda: kill_bridge(bridge))
        timer.start()
        try:
            code, _, err = run_print(capsys, bridge.base, tmp_path, "/long")
        finally:
            timer.cancel()
    assert code == 3, err
    assert "Traceback" not in err
    assert "the connection to the agent ended" in err, err


# -- the app ------------------------------------------------------------------


def remote_app(base: str, tmp_path: Path, profile: str, version: str) -> AcpTuiApp:
    target = RemoteTarget(base, transport=profile, token_env=TOKEN_ENV)  # type: ignore[arg-type]
    command = AgentCommand((base,), remote=target)
    return make_app(command, "bridge", cwd=tmp_path, choice=version, init_timeout=30.0)  # type: ignore[arg-type]


async def wait(
    pilot: Pilot[None], condition: Callable[[], bool], seconds: float = 30.0
) -> None:
    await wait_long(pilot, condition, seconds)


def messages(app: AcpTuiApp) -> list[str]:
    return [view.text for view in app.query(MessageView)]


def banners(app: AcpTuiApp) -> list[str]:
    return [banner.text for banner in app.query(Banner)]


def kill_bridge(bridge: Bridge) -> None:
    """SIGKILL the bridge (no goodbye to anyone); its agent sees its stdin close."""
    bridge.process.send_signal(signal.SIGKILL)
    bridge.process.wait(10)


@contextlib.contextmanager
def reaped_agents(bridge: Bridge) -> Iterator[None]:
    """Kill what the bridge started, if a killed bridge left it running."""
    try:
        yield
    finally:
        for pid in bridge.agents():
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.killpg(pid, signal.SIGKILL)


@pytest.mark.parametrize("profile", PROFILES)
async def test_the_app_does_a_turn_over_the_bridge(
    profile: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("ACP_TUI_HOME", str(tmp_path / "client"))
    monkeypatch.setenv(TOKEN_ENV, TOKEN)
    with running_bridge(tmp_path) as bridge:
        app = remote_app(bridge.base, tmp_path, profile, "2")
        async with app.run_test(size=SIZE) as pilot:
            await wait(pilot, lambda: app.store is not None)
            await pilot.press(*"/markdown", "enter")
            await wait(pilot, lambda: len(messages(app)) >= 2)
            await wait(pilot, lambda: app.store is not None and app.store.state.is_idle)
            assert "ACP v2" in app.query_one(StatusBar).status_text()


@pytest.mark.parametrize(
    ("profile", "version"), [("websocket", "2"), ("http", "1"), ("http", "2")]
)
async def test_the_bridge_killed_mid_turn_and_restarted_the_app_resumes(
    profile: Literal["websocket", "http"],
    version: str,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("ACP_TUI_HOME", str(tmp_path / "client"))
    monkeypatch.setenv(TOKEN_ENV, TOKEN)
    listen = f"127.0.0.1:{free_port()}"
    env = {"ACP_TUI_DEMO_DELAY": "0.05"}
    with running_bridge(tmp_path, env=env, listen=listen) as bridge:
        app = remote_app(bridge.base, tmp_path, profile, version)
        async with app.run_test(size=SIZE) as pilot:
            pane = app.active_pane
            await wait(pilot, lambda: app.store is not None)
            await pilot.press(*"/markdown", "enter")
            await wait(
                pilot,
                lambda: app.store is not None and app.store.state.turns_ended == 1,
            )
            await wait(pilot, lambda: len(messages(app)) >= 2)
            await pilot.press(*"/long", "enter")
            await wait(pilot, lambda: len(messages(app)) >= 4)  # /long, its start
            old = app.store
            with reaped_agents(bridge):
                kill_bridge(bridge)
            await wait(pilot, lambda: pane.standing is Standing.RECONNECTING)
            assert "reconnecting" in app.query_one(StatusBar).status_text()
            with (
                running_bridge(tmp_path, env=env, listen=listen) as again,
                reaped_agents(again),
            ):
                await wait(
                    pilot,
                    lambda: (
                        app.store is not old and pane.standing is Standing.CONNECTED
                    ),
                )
                await pilot.pause(0.5)
                shown = messages(app)
                store = app.store
                assert store is not None
                assert old is not None
                assert store.session_id == old.session_id
                said = [(m.role, m.text[:40]) for m in store.messages()]
                users = [text for role, text in said if role == "user"]
                assert users == ["/markdown", "/long"], said
                assert len(set(said)) == len(said), said
                conversation = app.query_one(Conversation)
                earlier = conversation.earlier_count
                assert len(shown) + earlier == len(store.timeline()), said
                assert any("interrupted" in text for text in banners(app))
                # The session goes on over the new connection.
                ended = store.state.turns_ended
                await pilot.press(*"/markdown", "enter")
                await wait(pilot, lambda: store.state.turns_ended > ended)
                said = [(m.role, m.text[:40]) for m in store.messages()]
                users = [text for role, text in said if role == "user"]
                assert users == ["/markdown", "/long", "/markdown"], said
                assert messages(app)[-1].startswith("# Markdown tour")


async def test_a_permission_dialog_open_at_the_drop_closes_with_a_note(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("ACP_TUI_HOME", str(tmp_path / "client"))
    monkeypatch.setenv(TOKEN_ENV, TOKEN)
    listen = f"127.0.0.1:{free_port()}"
    with running_bridge(tmp_path, listen=listen) as bridge:
        app = remote_app(bridge.base, tmp_path, "websocket", "2")
        async with app.run_test(size=SIZE) as pilot:
            pane = app.active_pane
            await wait(pilot, lambda: app.store is not None)
            await pilot.press(*"/permission", "enter")
            await wait(pilot, lambda: isinstance(app.screen, PermissionScreen))
            with reaped_agents(bridge):
                kill_bridge(bridge)
            await wait(pilot, lambda: not isinstance(app.screen, PermissionScreen))
            await wait(pilot, lambda: pane.standing is Standing.RECONNECTING)
            assert any(
                "permission request" in text and "can no longer be answered" in text
                for text in banners(app)
            ), banners(app)


class CuttingProxy:
    """A loopback TCP proxy to the bridge whose connections can be cut (reset),
    as a network failure would: the bridge keeps the agent for its grace period."""

    def __init__(self, target: int) -> None:
        self.target = target
        self.port = 0
        self.writers: list[asyncio.StreamWriter] = []
        self.server: asyncio.Server | None = None

    async def start(self) -> None:
        self.server = await asyncio.start_server(self._serve, "127.0.0.1", 0)
        self.port = int(self.server.sockets[0].getsockname()[1])

    async def _serve(
        self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter
    ) -> None:
        up_reader, up_writer = await asyncio.open_connection("127.0.0.1", self.target)
        self.writers += [writer, up_writer]

        async def pipe(src: asyncio.StreamReader, dst: asyncio.StreamWriter) -> None:
            with contextlib.suppress(OSError, ConnectionError):
                while data := await src.read(65536):
                    dst.write(data)
                    await dst.drain()
            dst.close()

        await asyncio.gather(pipe(reader, up_writer), pipe(up_reader, writer))

    def cut(self) -> None:
        for writer in self.writers:
            writer.transport.abort()
        self.writers.clear()

    def close(self) -> None:
        self.cut()
        if self.server is not None:
            self.server.close()


async def test_a_cut_within_the_grace_period_reconnects_to_the_same_agent(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("ACP_TUI_HOME", str(tmp_path / "client"))
    monkeypatch.setenv(TOKEN_ENV, TOKEN)
    with running_bridge(tmp_path) as bridge:
        proxy = CuttingProxy(int(bridge.base.rsplit(":", 1)[1].split("/")[0]))
        await proxy.start()
        base = f"http://127.0.0.1:{proxy.port}/acp"
        try:
            app = remote_app(base, tmp_path, "websocket", "2")
            async with app.run_test(size=SIZE) as pilot:
                pane = app.active_pane
                await wait(pilot, lambda: app.store is not None)
                await pilot.press(*"/markdown", "enter")
                await wait(
                    pilot,
                    lambda: app.store is not None and app.store.state.turns_ended == 1,
                )
                [agent] = bridge.agents()
                old = app.store
                proxy.cut()
                await wait(
                    pilot,
                    lambda: (
                        app.store is not old and pane.standing is Standing.CONNECTED
                    ),
                )
                store = app.store
                assert store is not None
                assert old is not None
                assert store.session_id == old.session_id
                said = [(m.role, m.text[:40]) for m in store.messages()]
                assert [text for role, text in said if role == "user"] == [
                    "/markdown"
                ], said
                assert len(set(said)) == len(said), said
                # The new connection took the old agent over: one process, the same.
                await wait(pilot, lambda: bridge.agents() == [agent])
        finally:
            proxy.close()
