"""Client-owned terminals (ACP v1 `terminal/*`): `ClientTerminals`, and end to end.

Checklist §4.8 (v1) and §6. Real processes in real PTYs; each test is bounded by
`anyio.fail_after` and waits for what a command printed (through the store), never
for time. The last tests run the fake agent (`tests/fakes/agent.py v1-terminal`)
over a real connection, so the agent's `terminal/*` calls go through the
dispatcher, `AcpClient` and the store exactly as in the app.
"""

from __future__ import annotations

import json
import re
import sys
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any, Final

import anyio
import pytest

from acp_tui.client import terminals as terminals_module
from acp_tui.client.connection import ClientFeatures, connect
from acp_tui.client.fs import FileSystemAccess
from acp_tui.client.ports import PermissionPolicy
from acp_tui.client.session import AcpClient
from acp_tui.client.terminals import ClientTerminals, TerminalOutput, cut_to_limit
from acp_tui.protocol.jsonrpc import (
    INTERNAL_ERROR,
    INVALID_PARAMS,
    METHOD_NOT_FOUND,
    RESOURCE_NOT_FOUND,
    RpcError,
)
from acp_tui.protocol.transport import AgentCommand, StdioTransport
from acp_tui.store.changes import Change
from acp_tui.store.store import SessionStore
from acp_tui.terminal.pty import ExitStatus
from tests.processes import pid_exists, running
from tests.unit.client.peer import open_harness, v1_init, v2_init

pytestmark = pytest.mark.subprocess

BOUND: Final = 15
"""Seconds any one test may take."""

FAKE_AGENT: Final = Path(__file__).resolve().parents[2] / "fakes" / "agent.py"

GRANDCHILD: Final = "sleep 30 & echo pids $$ $!; sleep 30"
"""A shell that leaves a background grandchild behind; prints both pids."""


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


def stored_output(store: SessionStore, terminal_id: str) -> bytes:
    terminal = store.terminal(terminal_id)
    return terminal.output if terminal is not None else b""


async def until_printed(store: SessionStore, terminal_id: str, marker: bytes) -> bytes:
    await until(store, lambda: marker in stored_output(store, terminal_id))
    return stored_output(store, terminal_id)


def pids_in(output: bytes) -> list[int]:
    match = re.search(rb"pids (\d+) (\d+)", output)
    assert match is not None, output
    return [int(match.group(1)), int(match.group(2))]


@asynccontextmanager
async def session_terminals(
    root: Path, **options: Any
) -> AsyncIterator[ClientTerminals]:
    """A manager for a session rooted at `root`, closed (and checked) at the end."""
    with anyio.fail_after(BOUND):
        async with anyio.create_task_group() as host:
            terminals = ClientTerminals(
                SessionStore("s1"), FileSystemAccess(root), host, **options
            )
            try:
                yield terminals
            finally:
                await terminals.aclose()


def code_of(error: pytest.ExceptionInfo[RpcError]) -> int:
    return error.value.code


# -- cut_to_limit (no process) ---------------------------------------------------


@pytest.mark.parametrize(
    ("data", "limit", "kept"),
    [
        (b"abcdef", 10, b"abcdef"),
        (b"abcdef", 4, b"cdef"),
        ("ab€€€".encode(), 8, "€€".encode()),  # the cut lands inside a 3-byte €
        ("x😀😀".encode(), 6, "😀".encode()),  # ... inside a 4-byte emoji
        ("é€".encode(), 3, "€".encode()),  # exactly on a boundary
        (b"abc", 0, b""),
        (b"a" + b"\x80" * 6 + b"b", 6, b"\x80\x80b"),  # invalid: 3 skipped at most
    ],
)
def test_cut_to_limit_keeps_the_tail_from_a_character_boundary(
    data: bytes, limit: int, kept: bytes
) -> None:
    buffer = bytearray(data)
    dropped = cut_to_limit(buffer, limit)
    assert bytes(buffer) == kept
    assert dropped == (kept != data)
    assert len(buffer) <= max(limit, 0)


def test_terminal_output_json_has_exit_status_only_once_exited() -> None:
    running = TerminalOutput("hi", False, None)
    assert running.to_json() == {"output": "hi", "truncated": False}
    done = TerminalOutput("", True, ExitStatus(exit_code=0))
    assert done.to_json() == {
        "output": "",
        "truncated": True,
        "exitStatus": {"exitCode": 0, "signal": None},
    }


# -- ClientTerminals -----------------------------------------------------------------


async def test_create_returns_at_once_while_the_command_runs(tmp_path: Path) -> None:
    async with session_terminals(tmp_path) as terminals:
        terminal_id = await terminals.create("sleep", ["30"])
        assert terminals.terminal_ids == (terminal_id,)
        pid = terminals.pid(terminal_id)
        assert running(pid)
        assert terminals.output(terminal_id) == TerminalOutput("", False, None)
        stored = terminals.store.terminal(terminal_id)
        assert stored is not None
        assert stored.command == "sleep 30"
        assert stored.cwd == str(await anyio.Path(tmp_path).resolve())
        assert not stored.exited
        await terminals.release(terminal_id)
        assert not running(pid)


async def test_output_keeps_colours_and_carriage_returns(tmp_path: Path) -> None:
    script = r"printf '\033[31mred\033[0m\n10%%\r50%%\r100%%\n'"
    async with session_terminals(tmp_path) as terminals:
        terminal_id = await terminals.create("sh", ["-c", script])
        assert await terminals.wait_for_exit(terminal_id) == ExitStatus(exit_code=0)
        result = terminals.output(terminal_id)
        # The PTY's \r\n is read back as \n; colours and bare \r stay.
        assert result == TerminalOutput(
            "\x1b[31mred\x1b[0m\n10%\r50%\r100%\n", False, ExitStatus(exit_code=0)
        )
        # The store has the raw terminal bytes, for the emulator.
        assert stored_output(terminals.store, terminal_id) == (
            b"\x1b[31mred\x1b[0m\r\n10%\r50%\r100%\r\n"
        )


@pytest.mark.parametrize(
    ("printed", "limit", "expected"),
    [
        (r"ab\342\202\254\342\202\254\342\202\254", 8, "€€"),
        (r"x\360\237\230\200\360\237\230\200", 6, "😀"),
        (r"0123456789", 4, "6789"),
    ],
    ids=["euro", "emoji", "ascii"],
)
async def test_output_byte_limit_cuts_at_a_character_boundary(
    tmp_path: Path, printed: str, limit: int, expected: str
) -> None:
    async with session_terminals(tmp_path) as terminals:
        terminal_id = await terminals.create(
            "printf", [printed], output_byte_limit=limit
        )
        await terminals.wait_for_exit(terminal_id)
        result = terminals.output(terminal_id)
        assert result.output == expected
        assert result.truncated
        assert len(result.output.encode()) <= limit
        # The screen is not limited by what the agent asked to retain.
        stored = stored_output(terminals.store, terminal_id)
        assert stored.decode().endswith(expected)
        assert len(stored) > limit


async def test_a_negative_output_byte_limit_is_a_programming_error(
    tmp_path: Path,
) -> None:
    """The wire never gets here with one: the lenient parse makes it the default
    (tests/unit/client/test_v1_lenient_params.py)."""
    async with session_terminals(tmp_path) as terminals:
        with pytest.raises(ValueError, match="negative"):
            await terminals.create("true", output_byte_limit=-1)
        assert terminals.terminal_ids == ()


async def test_output_within_the_limit_is_not_truncated(tmp_path: Path) -> None:
    async with session_terminals(tmp_path) as terminals:
        terminal_id = await terminals.create("printf", ["héllo"], output_byte_limit=6)
        await terminals.wait_for_exit(terminal_id)
        assert terminals.output(terminal_id).output == "héllo"
        assert not terminals.output(terminal_id).truncated


async def test_a_partial_character_waits_for_the_rest_while_running(
    tmp_path: Path,
) -> None:
    async with session_terminals(tmp_path) as terminals:
        terminal_id = await terminals.create(
            "sh", ["-c", r"printf 'ok\342\202'; sleep 30"]
        )
        await until_printed(terminals.store, terminal_id, b"ok\xe2\x82")
        assert terminals.output(terminal_id).output == "ok"
        await terminals.kill(terminal_id)
        # Exited: the broken character shows as a replacement character.
        assert terminals.output(terminal_id).output == "ok\ufffd"


async def test_kill_keeps_the_terminal_valid_and_its_output_readable(
    tmp_path: Path,
) -> None:
    async with session_terminals(tmp_path) as terminals:
        store = terminals.store
        terminal_id = await terminals.create("sh", ["-c", GRANDCHILD])
        pids = pids_in(await until_printed(store, terminal_id, b"\n"))
        await terminals.kill(terminal_id)
        assert not any(running(pid) for pid in pids)
        killed = ExitStatus(signal="SIGTERM")
        result = terminals.output(terminal_id)
        assert result.exit_status == killed
        assert result.output.startswith("pids ")
        assert await terminals.wait_for_exit(terminal_id) == killed
        await terminals.kill(terminal_id)  # killing again is harmless
        assert terminals.terminal_ids == (terminal_id,)
        stored = store.terminal(terminal_id)
        assert stored is not None
        assert stored.exit_status == {"exitCode": None, "signal": "SIGTERM"}
        await terminals.release(terminal_id)


async def test_release_kills_frees_the_id_and_keeps_the_output_in_the_store(
    tmp_path: Path,
) -> None:
    async with session_terminals(tmp_path) as terminals:
        store = terminals.store
        terminal_id = await terminals.create("sh", ["-c", GRANDCHILD])
        pids = pids_in(await until_printed(store, terminal_id, b"\n"))
        await terminals.release(terminal_id)
        assert not any(running(pid) for pid in pids)
        assert terminals.terminal_ids == ()
        for call in (terminals.wait_for_exit, terminals.kill, terminals.release):
            with pytest.raises(RpcError) as error:
                await call(terminal_id)
            assert code_of(error) == RESOURCE_NOT_FOUND
            assert error.value.data == {"terminalId": terminal_id}
        with pytest.raises(RpcError) as error:
            terminals.output(terminal_id)
        assert code_of(error) == RESOURCE_NOT_FOUND
        stored = store.terminal(terminal_id)
        assert stored is not None
        assert stored.output.startswith(b"pids ")
        assert stored.exit_status == {"exitCode": None, "signal": "SIGTERM"}


async def test_release_wakes_a_pending_wait_for_exit(tmp_path: Path) -> None:
    async with session_terminals(tmp_path) as terminals:
        terminal_id = await terminals.create("sleep", ["30"])
        statuses: list[ExitStatus] = []
        async with anyio.create_task_group() as group:

            async def wait() -> None:
                statuses.append(await terminals.wait_for_exit(terminal_id))

            group.start_soon(wait)
            await anyio.wait_all_tasks_blocked()
            await terminals.release(terminal_id)
        assert statuses == [ExitStatus(signal="SIGTERM")]


async def test_wait_for_exit_reports_the_exit_code(tmp_path: Path) -> None:
    async with session_terminals(tmp_path) as terminals:
        terminal_id = await terminals.create("sh", ["-c", "echo bye; exit 7"])
        assert await terminals.wait_for_exit(terminal_id) == ExitStatus(exit_code=7)
        # Everything printed before the exit is there once it is reported.
        assert terminals.output(terminal_id).output == "bye\n"
        stored = terminals.store.terminal(terminal_id)
        assert stored is not None
        assert stored.exit_status == {"exitCode": 7, "signal": None}
        assert stored.output == b"bye\r\n"


async def test_wait_for_exit_reports_the_signal(tmp_path: Path) -> None:
    async with session_terminals(tmp_path) as terminals:
        terminal_id = await terminals.create("sh", ["-c", "kill -KILL $$"])
        status = await terminals.wait_for_exit(terminal_id)
        assert status == ExitStatus(signal="SIGKILL")
        assert status.to_json() == {"exitCode": None, "signal": "SIGKILL"}


async def test_no_orphans_after_aclose_and_no_terminals_after_it(
    tmp_path: Path,
) -> None:
    async with session_terminals(tmp_path) as terminals:
        store = terminals.store
        first = await terminals.create("sh", ["-c", GRANDCHILD])
        second = await terminals.create("sh", ["-c", GRANDCHILD])
        pids = pids_in(await until_printed(store, first, b"\n"))
        pids += pids_in(await until_printed(store, second, b"\n"))
        await terminals.aclose()
        assert not any(running(pid) for pid in pids)
        assert terminals.terminal_ids == ()
        with pytest.raises(RpcError) as error:
            await terminals.create("true")
        assert code_of(error) == INTERNAL_ERROR
        assert store.terminal(first) is not None


async def printed_then_host_cancelled(
    root: Path, command: str, args: list[str]
) -> tuple[SessionStore, str, bytes]:
    """Run a command until its first line, then cancel the host task group (the
    connection closes: the app quits); the store, terminal id and that line."""
    store = SessionStore("s1")
    with anyio.fail_after(BOUND):
        async with anyio.create_task_group() as host:
            terminals = ClientTerminals(store, FileSystemAccess(root), host)
            terminal_id = await terminals.create(command, args)
            printed = await until_printed(store, terminal_id, b"\n")
            host.cancel_scope.cancel()
    return store, terminal_id, printed


async def test_no_orphans_when_the_host_task_group_is_cancelled(
    tmp_path: Path,
) -> None:
    store, terminal_id, printed = await printed_then_host_cancelled(
        tmp_path, "sh", ["-c", GRANDCHILD]
    )
    pids = pids_in(printed)
    assert not any(running(pid) for pid in pids)
    stored = store.terminal(terminal_id)
    assert stored is not None
    assert stored.exit_status == {"exitCode": None, "signal": "SIGTERM"}


ESCAPE: Final = Path(__file__).resolve().parents[2] / "fakes" / "procs" / "escape.py"


def escaped_in(output: bytes) -> int:
    """The pid `escape.py` printed."""
    match = re.search(rb"escaped (\d+)", output)
    assert match is not None, output
    return int(match.group(1))


async def escaped(store: SessionStore, terminal_id: str) -> int:
    """The pid `escape.py` printed in a terminal (bounded by `fail_after`)."""
    return escaped_in(await until_printed(store, terminal_id, b"\n"))


@pytest.mark.parametrize("how", ["setsid", "setpgid", "daemon", "daemon-no-env"])
async def test_release_kills_and_reaps_what_left_the_group(
    tmp_path: Path, how: str
) -> None:
    async with session_terminals(tmp_path) as terminals:
        terminal_id = await terminals.create(sys.executable, [str(ESCAPE), how])
        pid = await escaped(terminals.store, terminal_id)
        assert running(pid)
        await terminals.release(terminal_id)
        assert not pid_exists(pid)


async def test_closing_the_session_kills_what_left_every_group(
    tmp_path: Path,
) -> None:
    """Two terminals, each leaving a daemon behind and exiting at once."""
    async with session_terminals(tmp_path) as terminals:
        ids = [
            await terminals.create(sys.executable, [str(ESCAPE), how, "--leader-exits"])
            for how in ("setsid", "daemon")
        ]
        pids = [await escaped(terminals.store, terminal_id) for terminal_id in ids]
        for terminal_id in ids:
            status = await terminals.wait_for_exit(terminal_id)
            assert status == ExitStatus(exit_code=0)
        assert all(running(pid) for pid in pids)  # they outlive their command...
        await terminals.aclose()
        assert not any(pid_exists(pid) for pid in pids)  # ...not the session


async def test_what_left_the_group_dies_when_the_connection_closes(
    tmp_path: Path,
) -> None:
    _, _, printed = await printed_then_host_cancelled(
        tmp_path, sys.executable, [str(ESCAPE), "setsid"]
    )
    assert not pid_exists(escaped_in(printed))


async def test_cwd_must_lie_inside_the_session_roots(tmp_path: Path) -> None:
    root = tmp_path / "project"
    (root / "sub").mkdir(parents=True)
    (tmp_path / "outside").mkdir()
    (root / "escape").symlink_to(tmp_path / "outside")
    async with session_terminals(root) as terminals:
        for cwd in ("/", str(tmp_path / "outside"), str(root / "escape"), "sub"):
            with pytest.raises(RpcError) as error:
                await terminals.create("pwd", cwd=cwd)
            assert code_of(error) == INVALID_PARAMS, cwd
        with pytest.raises(RpcError) as error:
            await terminals.create("pwd", cwd=str(root / "missing"))
        assert code_of(error) == RESOURCE_NOT_FOUND
        assert terminals.terminal_ids == ()
        inside = await terminals.create("pwd", cwd=str(root / "sub"))
        default = await terminals.create("pwd")
        await terminals.wait_for_exit(inside)
        await terminals.wait_for_exit(default)
        real_root = await anyio.Path(root).resolve()
        assert terminals.output(inside).output == f"{real_root / 'sub'}\n"
        assert terminals.output(default).output == f"{real_root}\n"


async def test_env_and_args_reach_the_command(tmp_path: Path) -> None:
    async with session_terminals(tmp_path) as terminals:
        terminal_id = await terminals.create(
            "sh", ["-c", 'echo "$GREETING" "$1"', "sh", "world"], {"GREETING": "hi"}
        )
        await terminals.wait_for_exit(terminal_id)
        assert terminals.output(terminal_id).output == "hi world\n"
        for env in ({"": "x"}, {"A=B": "x"}, {"A": "x\0y"}):
            with pytest.raises(RpcError) as error:
                await terminals.create("true", env=env)
            assert code_of(error) == INVALID_PARAMS


async def test_a_command_line_without_args_runs_through_the_shell(
    tmp_path: Path,
) -> None:
    async with session_terminals(tmp_path) as terminals:
        terminal_id = await terminals.create("echo one  two | tr a-z A-Z")
        await terminals.wait_for_exit(terminal_id)
        assert terminals.output(terminal_id).output == "ONE TWO\n"
        stored = terminals.store.terminal(terminal_id)
        assert stored is not None
        assert stored.command == "'echo one  two | tr a-z A-Z'"


async def test_a_command_that_cannot_start_is_an_error(tmp_path: Path) -> None:
    async with session_terminals(tmp_path) as terminals:
        with pytest.raises(RpcError) as error:
            await terminals.create("no-such-program-acp-tui")
        assert code_of(error) == INTERNAL_ERROR
        assert "Cannot start" in error.value.message
        for bad in ("", "  "):
            with pytest.raises(RpcError) as error:
                await terminals.create(bad)
            assert code_of(error) == INVALID_PARAMS
        assert terminals.terminal_ids == ()


async def test_too_many_terminals_is_an_error(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(terminals_module, "MAX_TERMINALS", 1)
    async with session_terminals(tmp_path) as terminals:
        first = await terminals.create("sleep", ["30"])
        with pytest.raises(RpcError) as error:
            await terminals.create("sleep", ["30"])
        assert code_of(error) == INTERNAL_ERROR
        await terminals.release(first)
        await terminals.release(await terminals.create("true"))


async def test_store_output_is_coalesced_not_one_append_per_read(
    tmp_path: Path,
) -> None:
    lines = 3000
    script = f"i=0; while [ $i -lt {lines} ]; do echo line $i; i=$((i+1)); done"
    async with session_terminals(tmp_path) as terminals:
        store = terminals.store
        appends: list[Change] = []
        store.subscribe(
            lambda changes: appends.extend(
                c for c in changes if c.kind == "terminal" and c.action == "appended"
            )
        )
        terminal_id = await terminals.create("sh", ["-c", script])
        await terminals.wait_for_exit(terminal_id)
        expected = "".join(f"line {i}\r\n" for i in range(lines)).encode()
        assert stored_output(store, terminal_id) == expected
        assert 0 < len(appends) < lines // 10


async def test_pipes_fallback_serves_the_same_methods(tmp_path: Path) -> None:
    async with session_terminals(tmp_path, use_pty=False) as terminals:
        terminal_id = await terminals.create("sh", ["-c", "echo out; echo err >&2"])
        assert await terminals.wait_for_exit(terminal_id) == ExitStatus(exit_code=0)
        assert terminals.output(terminal_id).output == "out\nerr\n"


# -- AcpClient: dispatch and session lifecycle (scripted peer) ------------------------


async def test_closing_a_session_kills_its_terminals(tmp_path: Path) -> None:
    init = v1_init(sessionCapabilities={"close": {}})
    async with open_harness(init, features=ClientFeatures(terminal=True)) as h:
        store = await h.new_session(cwd=tmp_path)
        created = await h.peer.call(
            "terminal/create",
            {"sessionId": "s1", "command": "sh", "args": ["-c", GRANDCHILD]},
        )
        terminal_id = created["result"]["terminalId"]
        pids = pids_in(await until_printed(store, terminal_id, b"\n"))
        call = h.start(h.client.close_session, "s1")
        await h.peer.reply(await h.peer.expect_request("session/close"), {})
        await call.wait()
        assert not any(running(pid) for pid in pids)
        after = await h.peer.call(
            "terminal/output", {"sessionId": "s1", "terminalId": terminal_id}
        )
        assert after["error"]["code"] == INVALID_PARAMS  # the session is gone
    assert store.terminal(terminal_id) is not None


async def test_client_aclose_kills_every_sessions_terminals(tmp_path: Path) -> None:
    async with open_harness(v1_init(), features=ClientFeatures(terminal=True)) as h:
        store = await h.new_session(cwd=tmp_path)
        created = await h.peer.call(
            "terminal/create",
            {"sessionId": "s1", "command": "sh", "args": ["-c", GRANDCHILD]},
        )
        terminal_id = created["result"]["terminalId"]
        pids = pids_in(await until_printed(store, terminal_id, b"\n"))
        await h.client.aclose()
        assert not any(running(pid) for pid in pids)
        stored = store.terminal(terminal_id)
        assert stored is not None
        assert stored.exit_status == {"exitCode": None, "signal": "SIGTERM"}


async def test_terminal_requests_are_validated_and_need_the_feature(
    tmp_path: Path,
) -> None:
    async with open_harness(v1_init(), features=ClientFeatures(terminal=True)) as h:
        await h.new_session(cwd=tmp_path)
        missing = await h.peer.call("terminal/output", {"sessionId": "s1"})
        assert missing["error"]["code"] == INVALID_PARAMS
        unknown = await h.peer.call(
            "terminal/wait_for_exit", {"sessionId": "s1", "terminalId": "nope"}
        )
        assert unknown["error"]["code"] == RESOURCE_NOT_FOUND
        session = await h.peer.call(
            "terminal/create", {"sessionId": "other", "command": "true"}
        )
        assert session["error"]["code"] == INVALID_PARAMS
    async with open_harness(v1_init()) as h:  # not advertised
        await h.new_session(cwd=tmp_path)
        refused = await h.peer.call(
            "terminal/create", {"sessionId": "s1", "command": "true"}
        )
        assert refused["error"]["code"] == METHOD_NOT_FOUND
    async with open_harness(v2_init({}), features=ClientFeatures(terminal=True)) as h:
        await h.new_session(cwd=tmp_path)
        v2 = await h.peer.call(
            "terminal/create", {"sessionId": "s1", "command": "true"}
        )
        assert v2["error"]["code"] == METHOD_NOT_FOUND  # v2 has no client terminals


# -- end to end: the fake agent over a real connection -------------------------------


@asynccontextmanager
async def fake_agent(
    tmp_path: Path, *, terminal: bool = True
) -> AsyncIterator[tuple[AcpClient, Path]]:
    record = tmp_path / "received.jsonl"
    command = AgentCommand(
        argv=(sys.executable, str(FAKE_AGENT), "v1-terminal"),
        env={"FAKE_AGENT_RECORD": str(record)},
    )
    client = AcpClient(
        prompter=PermissionPolicy("allow"),
        features=ClientFeatures(terminal=terminal),
    )
    async with connect(
        lambda: StdioTransport(command, name="v1-terminal", log_dir=tmp_path),
        choice="1",
        init_timeout=10,
        features=client.features,
        on_request=client.handle_request,
        on_notification=client.handle_notification,
    ) as connection:
        client.attach(connection)
        yield client, record


def agent_text(store: SessionStore) -> str:
    return "".join(m.text for m in store.messages() if m.role == "agent")


async def test_end_to_end_agent_runs_a_command_in_a_client_terminal(
    tmp_path: Path,
) -> None:
    project = tmp_path / "project"
    project.mkdir()
    with anyio.fail_after(BOUND):
        async with fake_agent(tmp_path) as (client, record):
            store = await client.new_session(project)
            stop = await client.prompt(
                store.session_id, [{"type": "text", "text": "go"}]
            )
            sent = [json.loads(line) for line in record.read_text().splitlines()]
    assert stop == "end_turn"
    init = sent[0]["params"]
    assert init["protocolVersion"] == 1
    assert init["clientCapabilities"]["terminal"] is True
    report = json.loads(agent_text(store))
    terminal_id = report["created"]["result"]["terminalId"]
    assert report["exited"]["result"] == {"exitCode": 3, "signal": None}
    assert report["output"]["result"] == {
        "output": "\x1b[32mbuilt\x1b[0m ok\n",
        "truncated": False,
        "exitStatus": {"exitCode": 3, "signal": None},
    }
    assert report["released"]["result"] == {}
    assert report["after_release"]["error"]["code"] == RESOURCE_NOT_FOUND
    assert report["outside"]["error"]["code"] == INVALID_PARAMS
    assert report["killed_exit"]["result"] == {"exitCode": None, "signal": "SIGTERM"}
    assert report["killed_output"]["result"]["exitStatus"]["signal"] == "SIGTERM"
    assert report["killed_release"]["result"] == {}
    # The store shows the released terminal inside its tool call, output kept.
    assert store.terminal_ids_for_tool_call("run1") == (terminal_id,)
    terminal = store.terminal(terminal_id)
    assert terminal is not None
    assert terminal.output == b"\x1b[32mbuilt\x1b[0m ok\r\n"
    assert terminal.exit_status == {"exitCode": 3, "signal": None}
    assert terminal.cwd == str(await anyio.Path(project).resolve())
    assert terminal.command is not None
    assert terminal.command.startswith("sh -c ")


async def test_end_to_end_no_orphans_when_the_connection_closes(
    tmp_path: Path,
) -> None:
    project = tmp_path / "project"
    project.mkdir()
    with anyio.fail_after(BOUND):
        async with fake_agent(tmp_path) as (client, _):
            store = await client.new_session(project)
            prompt = [{"type": "text", "text": "orphans"}]
            await client.prompt(store.session_id, prompt)
            terminal_id = agent_text(store)
            assert store.terminal_ids_for_tool_call("bg1") == (terminal_id,)
            pids = pids_in(await until_printed(store, terminal_id, b"\n"))
            assert all(running(pid) for pid in pids)
        # Leaving `connect()` (what the app does when it quits) reaped them.
        assert not any(running(pid) for pid in pids)
    terminal = store.terminal(terminal_id)
    assert terminal is not None
    assert terminal.exit_status == {"exitCode": None, "signal": "SIGTERM"}


async def test_end_to_end_terminal_methods_are_refused_when_not_offered(
    tmp_path: Path,
) -> None:
    project = tmp_path / "project"
    project.mkdir()
    with anyio.fail_after(BOUND):
        async with fake_agent(tmp_path, terminal=False) as (client, record):
            store = await client.new_session(project)
            await client.prompt(store.session_id, [{"type": "text", "text": "go"}])
            sent = [json.loads(line) for line in record.read_text().splitlines()]
    assert sent[0]["params"]["clientCapabilities"]["terminal"] is False
    report = json.loads(agent_text(store))
    assert report["created"]["error"]["code"] == METHOD_NOT_FOUND
