"""The client runner (`client/runner.py`): one wiring for every front end.

A fake front end (`RecordingPort`) receives the runner's reports while the runner
drives the scripted fake agent, so the port's contract is checked without Textual.
The last tests pin the layout: the wiring is written out only in the runner, and
the inspector's log does not reach `check` (no `traffic -> check -> runner`
cycle).
"""

from __future__ import annotations

import re
import sys
from pathlib import Path
from typing import Any, Final

import anyio
import grimp
import pytest

import acp_tui
from acp_tui.client.auth import AuthChoice, is_auth_required
from acp_tui.client.connection import Connection
from acp_tui.client.ports import PermissionPolicy
from acp_tui.client.reconnect import Reconnecting
from acp_tui.client.runner import (
    AgentSettings,
    ClientRunner,
    RunFailure,
    SessionRequest,
)
from acp_tui.protocol.dispatcher import Diagnostic
from acp_tui.protocol.jsonrpc import RpcError
from acp_tui.protocol.schema import v1, v2
from acp_tui.protocol.transport import AgentCommand
from acp_tui.store.store import SessionStore

FAKE_AGENT: Final = Path(__file__).resolve().parents[2] / "fakes" / "agent.py"
BOUND: Final = 30.0


class RecordingPort:
    """A front end that keeps every report, in order."""

    def __init__(self) -> None:
        self.reports: list[tuple[str, Any]] = []
        self.ended = anyio.Event()
        self.failed = anyio.Event()

    def agent_connected(self, connection: Connection) -> None:
        self.reports.append(("connected", connection.protocol_version))

    def session_opened(self, store: SessionStore) -> None:
        self.reports.append(("opened", store))

    def notice(self, text: str) -> None:
        self.reports.append(("notice", text))

    def diagnostic(self, diagnostic: Diagnostic) -> None:
        self.reports.append(("diagnostic", str(diagnostic)))

    def prompt_started(self, prompt_id: int, text: str) -> None:
        self.reports.append(("started", (prompt_id, text)))

    def prompt_ended(self, prompt_id: int) -> None:
        self.reports.append(("ended", prompt_id))
        self.ended.set()

    def prompt_failed(self, prompt_id: int, message: str) -> None:
        self.reports.append(("prompt_failed", (prompt_id, message)))
        self.ended.set()

    def run_failed(self, failure: RunFailure) -> None:
        self.reports.append(("run_failed", (failure.message, failure.restartable)))
        self.failed.set()

    def reconnecting(self, attempt: Reconnecting) -> None:
        self.reports.append(("reconnecting", (attempt.attempt, attempt.delay)))

    def login_in_terminal(
        self, command: AgentCommand, choice: AuthChoice, then: SessionRequest
    ) -> None:
        self.reports.append(("login_in_terminal", choice.name))

    def kinds(self) -> list[str]:
        return [kind for kind, _ in self.reports if kind != "diagnostic"]


def settings(scenario: str, cwd: Path, **extra: Any) -> AgentSettings:
    command = AgentCommand((sys.executable, str(FAKE_AGENT), scenario))
    return AgentSettings(command, "fake", cwd, **extra)


@pytest.fixture(autouse=True)
def _home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ACP_TUI_HOME", str(tmp_path / "home"))


@pytest.mark.subprocess
@pytest.mark.parametrize("version", [1, 2])
async def test_serve_reports_a_turn_through_the_port(
    tmp_path: Path, version: int
) -> None:
    port = RecordingPort()
    runner = ClientRunner(
        settings(f"v{version}", tmp_path), port, prompter=PermissionPolicy("allow")
    )
    runner.prompts.put_nowait((7, "hello"))
    with anyio.fail_after(BOUND):
        async with anyio.create_task_group() as group:
            group.start_soon(runner.serve, SessionRequest())
            await port.ended.wait()
            assert runner.running
            await runner.stop()
    assert not runner.running
    assert not runner.connected
    assert port.kinds() == ["connected", "opened", "started", "ended"]
    assert port.reports[0] == ("connected", version)
    store: SessionStore = port.reports[1][1]
    assert runner.store is store
    assert store.cwd == str(tmp_path)
    assert port.reports[2] == ("started", (7, "hello"))
    assert port.reports[3] == ("ended", 7)
    assert any(m.role == "agent" for m in store.messages())


async def one_turn(runner: ClientRunner, port: RecordingPort) -> None:
    """Serve one prompt ("hello") to its end, then stop; the turn ended."""
    runner.prompts.put_nowait((1, "hello"))
    with anyio.fail_after(BOUND):
        async with anyio.create_task_group() as group:
            group.start_soon(runner.serve, SessionRequest())
            await port.ended.wait()
            await runner.stop()
    assert port.kinds() == ["connected", "opened", "started", "ended"]


@pytest.mark.subprocess
@pytest.mark.parametrize("version", [1, 2])
@pytest.mark.parametrize("prepare", [True, False])
async def test_the_update_model_is_built_before_the_prompt_only_if_asked(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, version: int, prepare: bool
) -> None:
    """`prepare_models` (the app's runner): the session's update model is built as
    the prompt is sent, before the agent answers; `acp-tui print`'s runner never
    builds it for a stream that does not need it."""
    model = v1.SessionNotification if version == 1 else v2.UpdateSessionNotification
    port = RecordingPort()

    class Runner(ClientRunner):
        prepare_models = prepare

    runner = Runner(
        settings(f"v{version}", tmp_path), port, prompter=PermissionPolicy("allow")
    )
    built: list[list[str]] = []  # what the store held at each preparing call
    rebuild = model.model_rebuild

    def spy(**kwargs: Any) -> bool | None:
        if not kwargs:  # pydantic's own lazy builds pass arguments
            assert runner.store is not None
            built.append([m.role for m in runner.store.messages()])
        return rebuild(**kwargs)

    monkeypatch.setattr(model, "model_rebuild", spy)
    await one_turn(runner, port)
    assert runner.store is not None
    assert any(m.role == "agent" for m in runner.store.messages())
    # Built before the agent's answer (v1 shows the prompt itself, v2 echoes it).
    assert built == ([[]] if prepare else [])


@pytest.mark.subprocess
async def test_a_model_that_fails_to_build_ahead_does_not_fail_the_turn(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Building ahead only saves time: if it fails, the turn runs as without it."""
    port = RecordingPort()

    class Runner(ClientRunner):
        prepare_models = True

    rebuild = v2.UpdateSessionNotification.model_rebuild

    def broken(**kwargs: Any) -> bool | None:
        if not kwargs:
            raise RuntimeError("no schema today")
        return rebuild(**kwargs)

    monkeypatch.setattr(v2.UpdateSessionNotification, "model_rebuild", broken)
    runner = Runner(settings("v2", tmp_path), port, prompter=PermissionPolicy("allow"))
    await one_turn(runner, port)
    assert not runner.in_turn


@pytest.mark.subprocess
async def test_serve_reports_an_agent_that_cannot_start(tmp_path: Path) -> None:
    port = RecordingPort()
    command = AgentCommand((str(tmp_path / "no-such-agent"),))
    runner = ClientRunner(
        AgentSettings(command, "missing", tmp_path),
        port,
        prompter=PermissionPolicy("reject"),
    )
    with anyio.fail_after(BOUND):
        await runner.serve(SessionRequest())
    assert port.kinds() == ["run_failed"]
    message, restartable = port.reports[0][1]
    assert "no-such-agent" in message
    assert restartable
    assert not runner.running


@pytest.mark.subprocess
async def test_one_connection_for_a_front_end_without_questions(
    tmp_path: Path,
) -> None:
    """`connect` + `open_session`: the added directories the agent does not take
    are reported once, as a notice; a login the agent wants is not asked for."""
    extra = tmp_path / "extra"
    extra.mkdir()
    port = RecordingPort()
    runner = ClientRunner(
        settings("v1", tmp_path, additional_directories=(extra,)),
        port,
        prompter=PermissionPolicy("reject"),
    )
    with anyio.fail_after(BOUND):
        async with runner.connect() as client:
            assert runner.connected
            assert client.connection.protocol_version == 1
            store = await runner.open_session(SessionRequest())
            await runner.open_session(SessionRequest())
    assert not runner.connected
    notices = [text for kind, text in port.reports if kind == "notice"]
    assert len(notices) == 1
    assert str(extra) in notices[0]
    assert "does not take additional directories" in notices[0]
    assert store.session_id


@pytest.mark.subprocess
async def test_an_auth_error_propagates_without_questions(tmp_path: Path) -> None:
    port = RecordingPort()
    runner = ClientRunner(
        settings("v2-auth", tmp_path), port, prompter=PermissionPolicy("reject")
    )
    with anyio.fail_after(BOUND):
        async with runner.connect():
            with pytest.raises(RpcError) as raised:
                await runner.open_session(SessionRequest())
    assert is_auth_required(raised.value)
    assert "login_in_terminal" not in port.kinds()


# ---------------------------------------------------------------------- layout

WIRING: Final = re.compile(r"\bAcpClient\(|client\.attach\(|on_request=client")


def test_the_client_wiring_is_written_only_in_the_runner() -> None:
    root = Path(acp_tui.__file__).parent
    writers = sorted(
        str(path.relative_to(root))
        for path in root.rglob("*.py")
        if "demo" not in path.parts and WIRING.search(path.read_text("utf-8"))
    )
    assert writers == ["client/runner.py"]


def test_the_inspector_log_and_the_runner_never_reach_check() -> None:
    graph = grimp.build_graph("acp_tui")
    for importer in (
        "acp_tui.client.traffic",
        "acp_tui.client.runner",
        "acp_tui.client.schema_check",
    ):
        assert not graph.chain_exists(importer, "acp_tui.frontends.check"), importer
