"""Unit tests of the demo agent's building blocks (no agent process)."""

from __future__ import annotations

import ast
import base64
import contextlib
import os
import shutil
import subprocess
import sys
from datetime import UTC, datetime
from pathlib import Path
from typing import Final

import anyio
import pytest

from acp_tui.demo import persist
from acp_tui.demo.config import Config, options
from acp_tui.demo.emit_common import plain_text
from acp_tui.demo.events import (
    Event,
    Info,
    Message,
    MessageChunk,
    Plan,
    Terminal,
    TerminalOutput,
    ToolCall,
    ToolContentChunk,
    Unknown,
    Usage,
    event_from_json,
    event_to_json,
    fold,
)
from acp_tui.demo.pacing import (
    DELAY_ENV,
    FLOOR_ENV,
    NOW_ENV,
    Pace,
    clock_from_env,
    delay_from_env,
    floor_from_env,
    timestamp,
)
from acp_tui.demo.pty_runner import PtyRun
from acp_tui.demo.server import WatchedStream
from acp_tui.demo.stdio import StdioStream
from acp_tui.demo.turn import chunks, text_of
from acp_tui.demo.workspace import (
    LOGO_AFTER,
    LOGO_BEFORE,
    SEED_FILES,
    TextChange,
    Workspace,
    git_patch,
)
from acp_tui.protocol.framing import encode_message
from acp_tui.protocol.transport import ConnectionClosed, memory_pair
from tests.processes import pid_exists, spawned_while_cancelled

PACKAGE: Final = Path(__file__).resolve().parents[2] / "acp_tui" / "demo"

EVENTS: Final[list[Event]] = [
    Message("msg-1", "user", [{"type": "text", "text": "hi"}]),
    MessageChunk("msg-2", "thought", {"type": "text", "text": "hmm "}),
    MessageChunk("msg-2", "thought", {"type": "text", "text": "yes"}),
    ToolCall("call-1", {"title": "Read", "kind": "read", "status": "pending"}),
    ToolContentChunk("call-1", {"type": "text", "text": "a"}),
    ToolCall(
        "call-1", {"content": [{"type": "text", "text": "b"}], "status": "completed"}
    ),
    ToolContentChunk("call-1", {"type": "text", "text": "c"}),
    Plan("plan-1", 1, [{"content": "x", "priority": "high", "status": "pending"}]),
    Terminal("term-1", {"command": "ls", "cwd": "/w"}),
    TerminalOutput("term-1", b"\xe2\x9c"),
    TerminalOutput("term-1", b"\x94 ok\r\n"),
    Terminal("term-1", {"exitStatus": {"exitCode": 0}}),
    Plan("plan-1", 1, [{"content": "x", "priority": "high", "status": "completed"}]),
    Unknown({"sessionUpdate": "_x", "n": 1}),
    Info({"title": "T"}),
    Info({"updatedAt": "2026-01-01T00:00:00Z"}),
    Usage(10, 100, 0.5),
    MessageChunk("msg-3", "agent", {"type": "text", "text": "done"}),
]


# ------------------------------------------------------------------- events


def test_events_round_trip_through_json() -> None:
    for event in EVENTS:
        assert event_from_json(event_to_json(event)) == event


@pytest.mark.parametrize(
    "data",
    [
        {"kind": "nope"},
        {"kind": "message"},
        {"kind": "terminal_output", "terminalId": "t", "data": "!!"},
    ],
)
def test_bad_events_are_rejected(data: dict[str, object]) -> None:
    with pytest.raises(ValueError, match="event"):
        event_from_json(data)


def test_fold_keeps_first_appearance_order_and_final_states() -> None:
    folded = fold(EVENTS)
    assert folded.order == [
        ("message", "msg-1"),
        ("message", "msg-2"),
        ("tool_call", "call-1"),
        ("plan", "plan-1"),
        ("terminal", "term-1"),
        ("unknown", "0"),
        ("message", "msg-3"),
    ]
    assert folded.messages["msg-2"].content == [
        {"type": "text", "text": "hmm "},
        {"type": "text", "text": "yes"},
    ]
    call = folded.tool_calls["call-1"]
    assert call.fields == {"title": "Read", "kind": "read", "status": "completed"}
    assert [i["text"] for i in call.content] == ["b", "c"]  # replaced, then appended
    assert folded.plans["plan-1"].entries[0]["status"] == "completed"
    terminal = folded.terminals["term-1"]
    assert bytes(terminal.output) == "✔ ok\r\n".encode()
    assert terminal.fields == {
        "command": "ls",
        "cwd": "/w",
        "exitStatus": {"exitCode": 0},
    }
    assert folded.info == {"title": "T", "updatedAt": "2026-01-01T00:00:00Z"}
    assert folded.usage == Usage(10, 100, 0.5)
    assert folded.last_plan_group() == 1


# -------------------------------------------------------------- text helpers


@pytest.mark.parametrize(
    "text", ["", "one", "a few words here and there", "  lead\n\nspaces  and\ttabs \n"]
)
def test_chunks_join_back_exactly(text: str) -> None:
    pieces = chunks(text)
    assert "".join(pieces) == text
    assert all(len(p.split()) <= 3 for p in pieces)


def test_prompt_text() -> None:
    blocks = [
        {"type": "text", "text": "look at"},
        {"type": "resource_link", "name": "a.py", "uri": "file:///a.py"},
        {"type": "image", "data": "", "mimeType": "image/png"},
    ]
    assert text_of(blocks) == "look at [a.py] [image]"


def test_plain_text_resolves_escapes_and_carriage_returns() -> None:
    raw = (
        b"\x1b[1;36m==> Build\x1b[0m\r\n"
        b"\x1b]0;title\x07\r[..]  0%\r[#.] 50%\r[##]100%\r\n"
        b"bell\x07 tab\tend"
    )
    assert plain_text(raw) == "==> Build\n[##]100%\nbell tab\tend"


# ----------------------------------------------------------------- patches


def test_git_patch_modify_add_delete() -> None:
    patch = git_patch(
        [
            TextChange("/w/a.py", "one\ntwo\n", "one\n2\n"),
            TextChange("/w/new.py", None, "x\n"),
            TextChange("/w/old.txt", "gone", None),
            TextChange("/w/same.txt", "same\n", "same\n"),
        ]
    )
    assert patch == (
        "diff --git /w/a.py /w/a.py\n"
        "--- /w/a.py\n"
        "+++ /w/a.py\n"
        "@@ -1,2 +1,2 @@\n"
        " one\n"
        "-two\n"
        "+2\n"
        "diff --git /w/new.py /w/new.py\n"
        "new file mode 100644\n"
        "--- /dev/null\n"
        "+++ /w/new.py\n"
        "@@ -0,0 +1 @@\n"
        "+x\n"
        "diff --git /w/old.txt /w/old.txt\n"
        "deleted file mode 100644\n"
        "--- /w/old.txt\n"
        "+++ /dev/null\n"
        "@@ -1 +0,0 @@\n"
        "-gone\n"
        "\\ No newline at end of file\n"
    )


@pytest.mark.skipif(shutil.which("git") is None, reason="git is not installed")
def test_git_applies_the_patch(tmp_path: Path) -> None:
    from acp_tui.demo.scenarios import FAREWELL, GREETING_AFTER

    root = tmp_path / "repo"
    workspace = Workspace(root)
    workspace.ensure()
    greeting, farewell = (
        workspace.path("src/greeting.py"),
        workspace.path("src/farewell.py"),
    )
    patch = git_patch(
        [
            TextChange(str(greeting), SEED_FILES["src/greeting.py"], GREETING_AFTER),
            TextChange(str(farewell), None, FAREWELL),
        ]
    )
    (tmp_path / "p.diff").write_text(patch)
    subprocess.run(["git", "init", "-q", str(root)], check=True)
    result = subprocess.run(
        # -p1 strips the empty first component of an absolute path; --directory=/
        # puts the root back: the absolute paths are applied as they are.
        [
            "git",
            "-C",
            str(root),
            "apply",
            "--unsafe-paths",
            "--directory=/",
            str(tmp_path / "p.diff"),
        ],
        capture_output=True,
        text=True,
        check=False,
    )
    assert result.returncode == 0, result.stderr
    assert greeting.read_text() == GREETING_AFTER
    assert farewell.read_text() == FAREWELL


# --------------------------------------------------------------- workspace


def test_workspace_never_leaves_its_root(tmp_path: Path) -> None:
    workspace = Workspace(tmp_path / "ws")
    workspace.ensure()
    assert sorted(
        str(p.relative_to(workspace.root))
        for p in workspace.root.rglob("*")
        if p.is_file()
    ) == sorted([*SEED_FILES, "assets/logo.png"])
    (tmp_path / "outside").mkdir()
    os.symlink(tmp_path / "outside", workspace.root / "link")
    for bad in ("../x", "/etc/passwd", "link/x", "src/../../x"):
        with pytest.raises(ValueError, match="workspace"):
            workspace.path(bad)
    workspace.write("src/greeting.py", "changed")
    workspace.reset("src/greeting.py")
    assert workspace.read("src/greeting.py") == SEED_FILES["src/greeting.py"]


def test_logos_are_distinct_pngs() -> None:
    assert LOGO_BEFORE.startswith(b"\x89PNG\r\n\x1a\n")
    assert LOGO_AFTER.startswith(b"\x89PNG")
    assert LOGO_BEFORE != LOGO_AFTER


# ------------------------------------------------------------------ persist


def test_ids_are_claimed_in_order_and_never_reused() -> None:
    first, second = persist.claim_id(), persist.claim_id()
    assert (first, second) == ("demo-0001", "demo-0002")
    persist.save({"sessionId": first, "updatedAt": "2026-01-01T00:00:00Z"})
    persist.save({"sessionId": "demo-0003", "updatedAt": "2026-02-01T00:00:00Z"})
    assert persist.claim_id() == "demo-0004"
    assert persist.load(first) == {
        "sessionId": first,
        "updatedAt": "2026-01-01T00:00:00Z",
    }
    assert persist.load(second) is None  # claimed, never saved: not listed
    assert [r["sessionId"] for r in persist.list_records()] == ["demo-0003", first]
    assert persist.delete(first)
    assert not persist.delete(first)
    for bad in ("../demo-0001", "demo-1", "x"):
        assert persist.load(bad) is None
        assert not persist.delete(bad)
    with pytest.raises(ValueError, match="bad session id"):
        persist.save({"sessionId": "../../evil"})


def test_cursors_are_opaque_and_checked() -> None:
    cursor = persist.encode_cursor(6)
    assert "6" not in cursor
    assert persist.decode_cursor(cursor) == 6
    for bad in ("", "abc", base64.urlsafe_b64encode(b"other:3").decode(), "\u00e9"):
        with pytest.raises(persist.InvalidCursor):
            persist.decode_cursor(bad)


# ------------------------------------------------------------------- config


def test_config_values() -> None:
    config = Config()
    assert (config.mode, config.model, config.thought_level) == (
        "ask",
        "demo-swift",
        "medium",
    )
    config.set("model", "demo-deep")
    assert config.model_name() == "Demo Deep"
    assert config.get("model") == "demo-deep"
    with pytest.raises(ValueError, match="not a value"):
        config.set("mode", "yolo")
    with pytest.raises(KeyError):
        config.set("colour", "red")
    assert Config.from_json({"mode": "plan", "model": "gpt-9", "x": 1}).to_json() == {
        "mode": "plan",
        "model": "demo-swift",
        "thought_level": "medium",
    }
    specs = options(config)
    assert [s.category for s in specs] == ["mode", "model", "thought_level"]
    assert specs[1].current == "demo-deep"
    assert specs[1].groups


# ------------------------------------------------------------------- pacing


def test_delay_and_clock_from_env(monkeypatch: pytest.MonkeyPatch) -> None:
    for value, expected in (("0.5", 0.5), ("0", 0.0), ("-1", 0.02), ("fast", 0.02)):
        monkeypatch.setenv(DELAY_ENV, value)
        assert delay_from_env() == expected
    monkeypatch.setenv(NOW_ENV, "2026-03-04T05:06:07Z")
    assert timestamp(clock_from_env()) == "2026-03-04T05:06:07Z"
    monkeypatch.setenv(NOW_ENV, "2026-03-04T05:06:07+02:00")
    assert timestamp(clock_from_env()) == "2026-03-04T03:06:07Z"
    monkeypatch.setenv(NOW_ENV, "not a time")
    assert clock_from_env()().tzinfo is not None
    assert (
        timestamp(lambda: datetime(2026, 1, 2, 3, 4, 5, 999, UTC))
        == "2026-01-02T03:04:05Z"
    )


async def test_the_floor_scales_a_scenarios_minimum_wait(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    for value, expected in (("0", 0.0), ("0.5", 0.5), ("-1", 1.0), ("x", 1.0)):
        monkeypatch.setenv(FLOOR_ENV, value)
        assert floor_from_env() == expected
    monkeypatch.delenv(FLOOR_ENV)
    assert floor_from_env() == 1.0
    with anyio.fail_after(5):  # a 60 s minimum, scaled to nothing
        await Pace(0.0, floor=0.0).tick(minimum=60)
    with anyio.move_on_after(0.05) as waiting:  # unscaled, it is still waited
        await Pace(0.0).tick(minimum=60)
    assert waiting.cancelled_caught


async def test_a_zero_pace_still_yields() -> None:
    with anyio.CancelScope() as scope:
        scope.cancel()
        await Pace(0).tick()
    assert scope.cancelled_caught


# -------------------------------------------------------------- streams


async def test_watched_stream_signals_written_responses() -> None:
    ours, theirs = memory_pair()
    async with ours, theirs:
        watched = WatchedStream(theirs)
        sent = watched.reply_sent(7)
        await watched.send(encode_message({"jsonrpc": "2.0", "id": 70, "result": {}}))
        await watched.send(encode_message({"jsonrpc": "2.0", "method": "x", "id": 7}))
        assert not sent.is_set()
        await watched.send(encode_message({"jsonrpc": "2.0", "id": 7, "result": {}}))
        assert sent.is_set()


async def test_stdio_stream_over_pipes() -> None:
    to_agent_r, to_agent_w = os.pipe()
    from_agent_r, from_agent_w = os.pipe()
    try:
        stream = StdioStream(to_agent_r, from_agent_w)
        os.write(to_agent_w, b'{"a":1}\n{"b":')
        with anyio.fail_after(5):
            assert await stream.receive() == b'{"a":1}'
            os.write(to_agent_w, b"2}\n")
            assert await stream.receive() == b'{"b":2}'
            await stream.send(b"out\n")
            assert os.read(from_agent_r, 100) == b"out\n"
            with pytest.raises(ValueError, match="must end with one"):
                await stream.send(b"two\nlines\n")
            os.close(to_agent_w)
            to_agent_w = -1
            with pytest.raises(anyio.EndOfStream):
                await stream.receive()
            os.close(from_agent_r)
            from_agent_r = -1
            with pytest.raises(ConnectionClosed):
                await stream.send(b"x" * 100_000 + b"\n")
    finally:
        for fd in (to_agent_r, to_agent_w, from_agent_r, from_agent_w):
            if fd >= 0:
                os.close(fd)


async def test_stdio_stream_stops_waiting_on_a_full_pipe_when_abandoned() -> None:
    """A write stuck on a client that stopped reading ends when it is abandoned."""
    to_agent_r, to_agent_w = os.pipe()
    from_agent_r, from_agent_w = os.pipe()
    try:
        stream = StdioStream(to_agent_r, from_agent_w)
        for size in (4096, 1):  # fill the pipe to the last byte
            with contextlib.suppress(BlockingIOError):
                while True:
                    os.write(from_agent_w, b"x" * size)
        outcome: list[BaseException | None] = []

        async def write() -> None:
            try:
                await stream.send(b'{"a":1}\n')
            except ConnectionClosed as error:
                outcome.append(error)
            else:
                outcome.append(None)

        with anyio.fail_after(5):
            async with anyio.create_task_group() as tasks:
                tasks.start_soon(write)
                await anyio.wait_all_tasks_blocked()
                assert outcome == []  # waiting for the pipe to drain
                stream.abandon()
        assert isinstance(outcome[0], ConnectionClosed)
        os.read(from_agent_r, 1 << 20)  # room again, but the stream is closed
        with pytest.raises(ConnectionClosed):
            await stream.send(b'{"b":2}\n')
    finally:
        for fd in (to_agent_r, to_agent_w, from_agent_r, from_agent_w):
            os.close(fd)


async def test_watched_stream_reports_the_end_of_input() -> None:
    ours, theirs = memory_pair()
    ended: list[bool] = []
    async with ours, theirs:
        watched = WatchedStream(theirs, on_end=lambda: ended.append(True))
        await ours.send(b"{}\n")
        with anyio.fail_after(5):
            assert await watched.receive() == b"{}"
            assert ended == []
            await ours.aclose()
            with pytest.raises(anyio.EndOfStream):
                await watched.receive()
    assert ended == [True]
    waiter = watched.reply_sent(3)
    watched.abandon()
    assert waiter.is_set()  # nobody waits for a reply that will not be read
    assert watched.reply_sent(4).is_set()


# --------------------------------------------------------------------- pty


async def test_pty_run_streams_tty_output(tmp_path: Path) -> None:
    output = bytearray()

    async def collect(data: bytes) -> None:
        output.extend(data)

    run = PtyRun(
        [sys.executable, "-c", "import sys; print('hi'); sys.exit(3)"], tmp_path
    )
    with anyio.fail_after(10):
        status = await run.run(collect)
    assert status.exit_code == 3
    assert status.signal is None
    assert bytes(output) == b"hi\r\n"  # the TTY's newline translation


async def test_pty_run_is_killed_when_cancelled(tmp_path: Path) -> None:
    ready = anyio.Event()

    async def collect(data: bytes) -> None:
        ready.set()

    script = "import time\nprint('up', flush=True)\nwhile True: time.sleep(1)"
    run = PtyRun([sys.executable, "-c", script], tmp_path)
    with anyio.fail_after(10):
        async with anyio.create_task_group() as tasks:
            tasks.start_soon(run.run, collect)
            await ready.wait()
            tasks.cancel_scope.cancel()
    assert run.status is not None
    assert run.status.signal == "SIGTERM"
    assert run.pid is not None
    with pytest.raises(ProcessLookupError):
        os.kill(run.pid, 0)


async def test_pty_run_cancelled_while_spawning_stops_the_command(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A turn cancelled just as its command is created: the start completes under
    a shield, and the command is stopped and reaped, not left running or a zombie."""

    async def collect(data: bytes) -> None:
        pass

    with anyio.fail_after(10):
        process = await spawned_while_cancelled(
            monkeypatch, lambda: PtyRun(["sleep", "30"], tmp_path).run(collect)
        )
    assert process.returncode is not None
    assert not pid_exists(process.pid)


# ------------------------------------------------------------------ imports


ALLOWED_PREFIXES: Final = (
    "acp_tui.demo",
    "acp_tui.protocol",
    "acp_tui.storage.paths",
    "acp_tui.process_group",
)


def test_the_demo_imports_only_protocol_paths_and_process_groups() -> None:
    """No Textual, no Rich, nothing from the client, store or UI layers."""
    for path in sorted(PACKAGE.glob("*.py")):
        tree = ast.parse(path.read_text(), str(path))
        for node in ast.walk(tree):
            names: list[str] = []
            if isinstance(node, ast.Import):
                names = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom) and node.module:
                names = [node.module]
                if node.module in ("acp_tui", "acp_tui.storage"):
                    names = [f"{node.module}.{alias.name}" for alias in node.names]
            for name in names:
                top = name.split(".")[0]
                assert top not in ("textual", "rich"), (path.name, name)
                if top == "acp_tui" and name != "acp_tui.__version__":
                    assert name.startswith(ALLOWED_PREFIXES) or name == "acp_tui", (
                        path.name,
                        name,
                    )


@pytest.mark.subprocess
def test_the_running_agent_loads_no_ui_client_or_store_modules() -> None:
    """At run time too (what import-linter cannot see)."""
    probe = (
        "import sys, acp_tui.demo.server, acp_tui.demo.emit_v1, acp_tui.demo.emit_v2;"
        "print(' '.join(sorted(sys.modules)))"
    )
    completed = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, check=True
    )
    loaded = completed.stdout.split()
    forbidden = ("textual", "rich", "acp_tui.client", "acp_tui.store", "acp_tui.ui")
    assert not [
        m for m in loaded if m.split(".")[0] in forbidden or m.startswith(forbidden)
    ]
