"""Session management and authentication end to end, against the fake agent.

The fake agent (`tests/fakes/agent.py`, scenarios `v1-full`, `v2-full`, `v1-auth`,
`v2-auth`) runs as a real process and speaks raw JSON; the client side is the real
stack: `connect()` + `AcpClient` over a `StdioTransport`. Each test runs for both
protocol versions and is bounded by `anyio.fail_after`.

The last tests drive the agent with raw JSON lines and check every message it sends
against the reference schemas, so the fake cannot drift from the protocol.
"""

from __future__ import annotations

import json
import os
import sys
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Final

import anyio
import pytest
from anyio.abc import Process
from anyio.streams.buffered import BufferedByteReceiveStream

from acp_tui.client.auth import auth_choices, is_auth_required, terminal_login_command
from acp_tui.client.connection import ClientFeatures, Connection, connect
from acp_tui.client.ports import PermissionPolicy
from acp_tui.client.session import AcpClient
from acp_tui.protocol.jsonrpc import INVALID_PARAMS, RESOURCE_NOT_FOUND, RpcError
from acp_tui.protocol.transport import AgentCommand, ConnectionClosed, StdioTransport
from acp_tui.store.store import SessionStore
from tests.demo.schema_check import SchemaReport
from tests.spec_examples import SCHEMAS

pytestmark = pytest.mark.subprocess

FAKE_AGENT: Final = Path(__file__).resolve().parents[1] / "fakes" / "agent.py"
BOUND: Final = 20
"""Seconds any one test may take."""

VERSIONS = [pytest.param(1, id="v1"), pytest.param(2, id="v2")]

STORED: Final = [
    ("s-alpha", "Refactor the parser", "2026-11-28T16:30:00Z"),
    ("s-beta", "Fix the flaky login test", "2026-11-27T09:15:00Z"),
    ("s-gamma", "Write the release notes", "2026-11-20T12:00:00Z"),
]


@pytest.fixture(autouse=True)
def _home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ACP_TUI_HOME", str(tmp_path / "home"))


@dataclass
class Agent:
    """One fake agent process and the client connected to it."""

    client: AcpClient
    connection: Connection
    transport: StdioTransport
    record: Path

    def received(self, method: str) -> list[dict[str, Any]]:
        """The params of every `method` request the agent was sent, in order."""
        lines = self.record.read_text().splitlines()
        messages = [json.loads(line) for line in lines]
        return [m.get("params") or {} for m in messages if m.get("method") == method]


@dataclass
class Launcher:
    """Starts the fake agent; every process shares one auth file."""

    tmp_path: Path
    started: list[StdioTransport] = field(default_factory=list)

    @property
    def auth_file(self) -> Path:
        return self.tmp_path / "auth.json"

    def command(self, scenario: str) -> AgentCommand:
        record = self.tmp_path / f"received-{len(self.started)}.jsonl"
        return AgentCommand(
            argv=(sys.executable, str(FAKE_AGENT), scenario),
            env={
                "FAKE_AGENT_RECORD": str(record),
                "FAKE_AGENT_AUTH_FILE": str(self.auth_file),
            },
        )

    @asynccontextmanager
    async def open(self, scenario: str) -> AsyncIterator[Agent]:
        command = self.command(scenario)
        transport = StdioTransport(command, name=scenario)
        self.started.append(transport)
        client = AcpClient(
            prompter=PermissionPolicy("allow"),
            features=ClientFeatures(read_text_file=True, write_text_file=True),
        )
        async with connect(
            lambda: transport,
            init_timeout=10,
            on_request=client.handle_request,
            on_notification=client.handle_notification,
        ) as connection:
            client.attach(connection)
            yield Agent(
                client, connection, transport, Path(command.env["FAKE_AGENT_RECORD"])
            )


def full(version: int) -> str:
    return f"v{version}-full"


def auth(version: int) -> str:
    return f"v{version}-auth"


def _setter(event: anyio.Event) -> Callable[[object], None]:
    return lambda changes: event.set()


async def until(store: SessionStore, condition: Callable[[], bool]) -> None:
    """Wait (bounded by the test's `fail_after`) until the store meets `condition`."""
    while not condition():
        changed = anyio.Event()
        unsubscribe = store.subscribe(_setter(changed))
        try:
            await changed.wait()
        finally:
            unsubscribe()


def option(store: SessionStore, config_id: str) -> dict[str, Any]:
    """The stored config option with this id (v1 `id` or v2 `configId`), as JSON."""
    for entry in store.config_options:
        if config_id in (entry.get("id"), entry.get("configId")):
            found: dict[str, Any] = json.loads(json.dumps(entry))
            return found
    raise AssertionError(f"no option {config_id!r} in {store.config_options}")


def texts(store: SessionStore) -> list[tuple[str, str]]:
    return [(message.role, message.text) for message in store.messages()]


# -- the prompt turn still plays -------------------------------------------------------


@pytest.mark.parametrize("version", VERSIONS)
async def test_new_session_then_scripted_turn(version: int, tmp_path: Path) -> None:
    with anyio.fail_after(BOUND):
        async with Launcher(tmp_path).open(full(version)) as agent:
            assert agent.connection.protocol_version == version
            store = await agent.client.new_session(tmp_path)
            assert store.session_id == "s1"
            await until(store, lambda: len(store.commands) == 2)
            review, search = store.commands
            assert review["name"] == "review"
            assert "input" not in review
            assert search["name"] == "search"
            hint = {"hint": "what to search for"}
            assert search["input"] == (
                hint if version == 1 else {"type": "text", **hint}
            )
            stop = await agent.client.prompt("s1", [{"type": "text", "text": "hi"}])
            assert stop == "end_turn"
            second = await agent.client.new_session(tmp_path)
            assert second.session_id == "s2"


# -- session/list ----------------------------------------------------------------------


@pytest.mark.parametrize("version", VERSIONS)
async def test_list_follows_the_cursor_across_pages(
    version: int, tmp_path: Path
) -> None:
    with anyio.fail_after(BOUND):
        async with Launcher(tmp_path).open(full(version)) as agent:
            listed = await agent.client.list_sessions(tmp_path)
            default = await agent.client.list_sessions()
            requests = agent.received("session/list")

    assert [(s.session_id, s.title, s.updated_at) for s in listed] == STORED
    assert {s.cwd for s in listed} == {str(tmp_path)}
    assert {s.cwd for s in default} == {"/tmp/project"}
    assert len(default) == 3
    # Two pages per listing; the second request carries the opaque cursor.
    assert len(requests) == 4
    assert "cursor" not in requests[0]
    assert isinstance(requests[1]["cursor"], str)
    assert requests[1]["cursor"] not in ("2", "c2")
    assert requests[1]["cwd"] == str(tmp_path)


# -- resume / load ---------------------------------------------------------------------


@pytest.mark.parametrize("version", VERSIONS)
async def test_resume_with_replay_fills_the_store(version: int, tmp_path: Path) -> None:
    with anyio.fail_after(BOUND):
        async with Launcher(tmp_path).open(full(version)) as agent:
            store = await agent.client.resume_session("s-beta", tmp_path, replay=True)
            await until(store, lambda: len(store.commands) == 2)
            method = "session/load" if version == 1 else "session/resume"
            (request,) = agent.received(method)

    if version == 2:
        assert request["replayFrom"] == {"type": "start"}
    assert texts(store) == [
        ("user", "Earlier question in Fix the flaky login test"),
        ("agent", "Earlier answer in Fix the flaky login test"),
    ]
    (tool_call,) = store.tool_calls()
    assert tool_call.tool_call_id == "h-c1"
    assert tool_call.status == "completed"
    assert tool_call.title == "Read README.md"
    assert tool_call.locations == ({"path": f"{tmp_path}/README.md"},)
    (plan,) = store.plans()
    assert [entry["content"] for entry in plan.entries] == ["Read the code"]
    assert option(store, "mode")["currentValue"] == "ask"
    assert option(store, "model")["currentValue"] == "large"


@pytest.mark.parametrize("version", VERSIONS)
async def test_resume_without_replay_replays_nothing(
    version: int, tmp_path: Path
) -> None:
    with anyio.fail_after(BOUND):
        async with Launcher(tmp_path).open(full(version)) as agent:
            store = await agent.client.resume_session("s-alpha", tmp_path, replay=False)
            (request,) = agent.received("session/resume")
            assert agent.received("session/load") == []
            # A turn in the resumed session works.
            stop = await agent.client.prompt(
                "s-alpha", [{"type": "text", "text": "go"}]
            )

    assert "replayFrom" not in request
    assert stop == "end_turn"
    assert not any("Earlier" in text for _, text in texts(store))
    assert option(store, "model")["currentValue"] == "large"


@pytest.mark.parametrize("version", VERSIONS)
async def test_resume_of_an_unknown_session_is_resource_not_found(
    version: int, tmp_path: Path
) -> None:
    with anyio.fail_after(BOUND):
        async with Launcher(tmp_path).open(full(version)) as agent:
            with pytest.raises(RpcError) as caught:
                await agent.client.resume_session("s-nope", tmp_path, replay=True)
            with pytest.raises(KeyError):
                agent.client.store("s-nope")  # no half-open session is kept

    assert caught.value.code == RESOURCE_NOT_FOUND
    assert caught.value.data == {"sessionId": "s-nope"}


# -- config options --------------------------------------------------------------------


async def test_v2_config_options_round_trip(tmp_path: Path) -> None:
    with anyio.fail_after(BOUND):
        async with Launcher(tmp_path).open("v2-full") as agent:
            store = await agent.client.new_session(tmp_path)
            ids = [entry["configId"] for entry in store.config_options]
            assert ids == ["mode", "model", "thought_level", "auto_approve"]
            categories = [entry.get("category") for entry in store.config_options]
            assert categories == ["mode", "model", "thought_level", None]
            groups = option(store, "model")["options"]
            assert [group["groupId"] for group in groups] == ["fast", "smart"]
            before = store.config_options

            await agent.client.set_config_option("s1", "model", "mini")
            assert store.config_options is not before  # the list was replaced
            assert option(store, "model")["currentValue"] == "mini"

            await agent.client.set_config_option("s1", "auto_approve", True)
            assert option(store, "auto_approve")["currentValue"] is True
            await agent.client.set_config_option("s1", "mode", "plan")
            await agent.client.set_config_option("s1", "thought_level", "high")
            assert [entry["currentValue"] for entry in store.config_options] == [
                "plan",
                "mini",
                "high",
                True,
            ]

            for config_id, value in [("model", "gpt-0"), ("nope", "x"), ("mode", 3)]:
                with pytest.raises(RpcError) as caught:
                    await agent.client.set_config_option("s1", config_id, value)
                assert caught.value.code == INVALID_PARAMS
            assert option(store, "model")["currentValue"] == "mini"
            sent = agent.received("session/set_config_option")

    assert sent[0] == {
        "sessionId": "s1",
        "configId": "model",
        "type": "id",
        "value": "mini",
    }
    assert sent[1]["type"] == "boolean"


async def test_v1_config_option_and_mode(tmp_path: Path) -> None:
    with anyio.fail_after(BOUND):
        async with Launcher(tmp_path).open("v1-full") as agent:
            store = await agent.client.new_session(tmp_path)
            mode = option(store, "mode")
            assert mode["category"] == "mode"
            assert [o["value"] for o in mode["options"]] == ["ask", "code"]
            assert mode["currentValue"] == "ask"

            # The mode option was synthesised from `modes`: set with set_mode.
            await agent.client.set_config_option("s1", "mode", "code")
            assert option(store, "mode")["currentValue"] == "code"
            assert agent.received("session/set_mode") == [
                {"sessionId": "s1", "modeId": "code"}
            ]

            await agent.client.set_config_option("s1", "model", "max")
            assert option(store, "model")["currentValue"] == "max"
            assert option(store, "mode")["currentValue"] == "code"  # kept
            with pytest.raises(RpcError) as caught:
                await agent.client.set_config_option("s1", "model", "nope")
            assert caught.value.code == INVALID_PARAMS
            with pytest.raises(RpcError) as caught:
                await agent.client.set_mode("s1", "plan")  # not a v1 mode here
            assert caught.value.code == INVALID_PARAMS
            sent = agent.received("session/set_config_option")

            # The agent kept the values: a resume reports them.
            resumed = await agent.client.resume_session("s1", tmp_path, replay=False)
            assert option(resumed, "model")["currentValue"] == "max"
            assert option(resumed, "mode")["currentValue"] == "code"

    assert [s["configId"] for s in sent] == ["model", "model"]
    assert "type" not in sent[0]  # a v1 value id carries no `type`


# -- delete ----------------------------------------------------------------------------


@pytest.mark.parametrize("version", VERSIONS)
async def test_delete_removes_the_session_from_the_list(
    version: int, tmp_path: Path
) -> None:
    with anyio.fail_after(BOUND):
        async with Launcher(tmp_path).open(full(version)) as agent:
            await agent.client.delete_session("s-beta")
            listed = await agent.client.list_sessions()
            with pytest.raises(RpcError) as again:
                await agent.client.delete_session("s-beta")
            with pytest.raises(RpcError) as resumed:
                await agent.client.resume_session("s-beta", tmp_path, replay=False)

    assert [s.session_id for s in listed] == ["s-alpha", "s-gamma"]
    assert again.value.code == RESOURCE_NOT_FOUND
    assert resumed.value.code == RESOURCE_NOT_FOUND


# -- crash -----------------------------------------------------------------------------


@pytest.mark.parametrize("version", VERSIONS)
async def test_crash_closes_the_connection_with_exit_code_9(
    version: int, tmp_path: Path
) -> None:
    with anyio.fail_after(BOUND):
        async with Launcher(tmp_path).open(full(version)) as agent:
            await agent.client.new_session(tmp_path)
            with pytest.raises(ConnectionClosed):
                await agent.client.prompt("s1", [{"type": "text", "text": "crash"}])
            await agent.connection.dispatcher.wait_closed()
            assert agent.connection.dispatcher.closed
            assert await agent.transport.wait_exit(5) == 9
            assert agent.transport.exit_description() == "exited with code 9"
    # Leaving the block reaped the stderr reader: all of stderr was read.
    assert "fatal: simulated crash" in agent.transport.stderr_tail()


# -- authentication --------------------------------------------------------------------


@pytest.mark.parametrize("version", VERSIONS)
async def test_auth_required_until_the_agent_login(
    version: int, tmp_path: Path
) -> None:
    launcher = Launcher(tmp_path)
    with anyio.fail_after(BOUND):
        async with launcher.open(auth(version)) as agent:
            choices = auth_choices(agent.connection)
            assert [(c.method_id, c.kind) for c in choices] == [
                ("agent-login", "agent"),
                ("terminal-login", "terminal"),
            ]
            client = agent.client
            attempts: list[Callable[[], Awaitable[object]]] = [
                lambda: client.new_session(tmp_path),
                client.list_sessions,
                lambda: client.resume_session("s-alpha", tmp_path, replay=True),
            ]
            for attempt in attempts:
                with pytest.raises(RpcError) as caught:
                    await attempt()
                assert is_auth_required(caught.value)

            for wrong in ("terminal-login", "nope"):
                with pytest.raises(RpcError) as refused:
                    await agent.client.authenticate(wrong)
                assert refused.value.code == INVALID_PARAMS
            assert not launcher.auth_file.exists()

            await agent.client.authenticate("agent-login")
            store = await agent.client.new_session(tmp_path)
            assert store.session_id == "s1"
            assert len(await agent.client.list_sessions()) == 3
            login = "authenticate" if version == 1 else "auth/login"
            assert agent.received(login)[-1] == {"methodId": "agent-login"}

        # The login is kept: a second process is logged in from the start.
        assert json.loads(launcher.auth_file.read_text())["methodId"] == "agent-login"
        async with launcher.open(auth(version)) as second:
            store = await second.client.new_session(tmp_path)
            assert store.session_id == "s1"
            await second.client.logout()
        assert not launcher.auth_file.exists()


@pytest.mark.parametrize("version", VERSIONS)
async def test_terminal_login_then_reconnect(version: int, tmp_path: Path) -> None:
    launcher = Launcher(tmp_path)
    base = launcher.command(auth(version))
    with anyio.fail_after(BOUND):
        async with launcher.open(auth(version)) as agent:
            (terminal,) = [c for c in auth_choices(agent.connection) if c.is_terminal]
            with pytest.raises(RpcError) as caught:
                await agent.client.new_session(tmp_path)
            assert is_auth_required(caught.value)

        login = terminal_login_command(base, terminal)
        assert login.argv == (*base.argv, "--login")
        assert login.env["FAKE_AGENT_LOGIN_UI"] == "plain"
        result = await anyio.run_process(
            list(login.argv), env={**os.environ, **login.env}, check=False
        )
        assert result.returncode == 0
        assert result.stdout == b"Logged in to Fake Agent.\n"
        saved = json.loads(launcher.auth_file.read_text())
        assert saved == {"methodId": "terminal-login", "ui": "plain"}

        async with launcher.open(auth(version)) as reconnected:
            store = await reconnected.client.new_session(tmp_path)
            assert store.session_id == "s1"
            assert reconnected.received("authenticate") == []
            assert reconnected.received("auth/login") == []


# -- the fake agent speaks valid ACP ---------------------------------------------------


class RawAgent:
    """The fake agent driven with raw JSON lines; keeps everything it sends."""

    def __init__(self, process: Process) -> None:
        assert process.stdin is not None
        assert process.stdout is not None
        self.process = process
        self.stdin = process.stdin
        self.stdout = BufferedByteReceiveStream(process.stdout)
        self.sent: list[dict[str, Any]] = []
        self.methods: dict[Any, str] = {}
        self.next_id = 0

    async def call(self, method: str, params: dict[str, Any]) -> dict[str, Any]:
        """Send a request; return its response (messages before it are kept)."""
        self.next_id += 1
        rid = self.next_id
        self.methods[rid] = method
        request = {"jsonrpc": "2.0", "id": rid, "method": method, "params": params}
        await self.stdin.send(json.dumps(request).encode() + b"\n")
        while True:
            line = await self.stdout.receive_until(b"\n", 1 << 20)
            message: dict[str, Any] = json.loads(line)
            self.sent.append(message)
            if message.get("id") == rid and "method" not in message:
                return message


def result(response: dict[str, Any]) -> dict[str, Any]:
    assert "result" in response, response
    value: dict[str, Any] = response["result"]
    return value


def error_code(response: dict[str, Any]) -> int:
    assert "error" in response, response
    code: int = response["error"]["code"]
    return code


async def exercise(agent: RawAgent, version: int, scenario: str) -> None:
    """Every request the scenario answers, with good and bad params."""
    offer = {"protocolVersion": version, "clientCapabilities": {}}
    if version == 2:
        offer = {"protocolVersion": 2, "info": {"name": "t", "version": "1"}}
    init = result(await agent.call("initialize", offer))
    assert init["protocolVersion"] == version
    cwd = {"cwd": "/tmp/w", "mcpServers": []}
    if scenario.endswith("auth"):
        assert error_code(await agent.call("session/new", cwd)) == -32000
        login = "authenticate" if version == 1 else "auth/login"
        assert error_code(await agent.call(login, {"methodId": "x"})) == INVALID_PARAMS
        result(await agent.call(login, {"methodId": "agent-login"}))
    sid = result(await agent.call("session/new", cwd))["sessionId"]
    page = result(await agent.call("session/list", {}))
    result(await agent.call("session/list", {"cursor": page["nextCursor"]}))
    bad_cursor = {"cursor": "not-a-cursor"}
    assert error_code(await agent.call("session/list", bad_cursor)) == INVALID_PARAMS
    old = {**cwd, "sessionId": "s-alpha"}
    if version == 2:
        result(
            await agent.call("session/resume", {**old, "replayFrom": {"type": "start"}})
        )
        value = {"sessionId": sid, "configId": "model", "type": "id", "value": "mini"}
        result(await agent.call("session/set_config_option", value))
        value = {"sessionId": sid, "configId": "auto_approve", "type": "boolean"}
        result(await agent.call("session/set_config_option", {**value, "value": True}))
    else:
        result(await agent.call("session/load", old))
        result(await agent.call("session/resume", {**old, "sessionId": "s-beta"}))
        result(
            await agent.call("session/set_mode", {"sessionId": sid, "modeId": "code"})
        )
        value = {"sessionId": sid, "configId": "model", "value": "mini"}
        result(await agent.call("session/set_config_option", value))
    missing = {**old, "sessionId": "s-nope"}
    assert error_code(await agent.call("session/resume", missing)) == RESOURCE_NOT_FOUND
    result(await agent.call("session/delete", {"sessionId": "s-gamma"}))
    result(await agent.call("session/close", {"sessionId": sid}))
    assert error_code(await agent.call("session/fork", {"sessionId": sid})) == -32601


@pytest.mark.skipif(
    not SCHEMAS.is_dir(), reason=f"reference schemas missing: {SCHEMAS}"
)
@pytest.mark.parametrize("version", VERSIONS)
@pytest.mark.parametrize("family", ["full", "auth"])
async def test_every_message_matches_the_schema(
    version: int, family: str, tmp_path: Path
) -> None:
    scenario = f"v{version}-{family}"
    env = {**os.environ, "FAKE_AGENT_AUTH_FILE": str(tmp_path / "auth.json")}
    with anyio.fail_after(BOUND):
        async with await anyio.open_process(
            [sys.executable, str(FAKE_AGENT), scenario], env=env
        ) as process:
            agent = RawAgent(process)
            await exercise(agent, version, scenario)
            await agent.stdin.aclose()
            assert await process.wait() == 0

    report = SchemaReport(version)
    for message in agent.sent:
        method = None if "method" in message else agent.methods.get(message["id"])
        report.check(message, method)
    assert report.failures == []
    kinds = set(report.checked)
    assert "update available_commands_update" in kinds
    assert ("update agent_message" if version == 2 else "update plan") in kinds
    assert "error session/resume" in kinds
