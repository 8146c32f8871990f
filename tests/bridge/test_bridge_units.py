"""The bridge's pieces without a process: argument parsing (the README's
container example), peeking, the bounded mailbox, and lazy imports."""

from __future__ import annotations

import shlex
import subprocess
import sys
from pathlib import Path

import anyio
import pytest

from acp_tui.bridge.cli_args import bridge_options
from acp_tui.bridge.mailbox import Mailbox
from acp_tui.bridge.options import (
    DEFAULT_GRACE,
    DEFAULT_MAX_CONNECTIONS,
    DEFAULT_MAX_MESSAGE_BYTES,
    TOKEN_ENV,
    BridgeOptions,
    is_loopback,
    parse_listen,
)
from acp_tui.bridge.peek import one_line, peek
from acp_tui.bridge.serve import check_listen
from acp_tui.cli import build_parser

README = Path(__file__).parents[2] / "README.md"


def readme_container_example() -> list[str]:
    """The arguments after `acp-tui` in the README's `docker run` example."""
    [line] = [
        line
        for line in README.read_text().splitlines()
        if line.startswith("docker run") and " acp-tui bridge " in line
    ]
    words = shlex.split(line)
    return words[words.index("acp-tui") + 1 :]


def parsed(argv: list[str]) -> BridgeOptions:
    result = bridge_options(build_parser().parse_args(argv))
    assert not isinstance(result, str), result
    return result[0]


def test_the_readme_container_example_parses(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(TOKEN_ENV, "a-token-given-by-the-environment")
    argv = readme_container_example()
    args = build_parser().parse_args(argv)
    assert args.command == "bridge"
    assert args.allow_remote
    result = bridge_options(args)
    assert not isinstance(result, str), result
    options, generated = result
    assert (options.host, options.port) == ("0.0.0.0", 8765)
    assert options.command.argv == ("claude-agent-acp",)
    assert options.token == "a-token-given-by-the-environment"
    assert not generated
    assert check_listen(options, allow_remote=args.allow_remote) is None
    assert check_listen(options, allow_remote=False) is not None


def test_the_agent_command_keeps_its_own_options(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.delenv(TOKEN_ENV, raising=False)
    args = build_parser().parse_args(
        ["bridge", "--grace", "5", "--", "opencode", "acp", "--port", "3", "--grace"]
    )
    result = bridge_options(args)
    assert not isinstance(result, str)
    options, generated = result
    assert options.command.argv == ("opencode", "acp", "--port", "3", "--grace")
    assert options.grace == 5
    assert (options.host, options.port) == ("127.0.0.1", 8765)
    assert options.max_connections == DEFAULT_MAX_CONNECTIONS
    assert options.max_message_bytes == DEFAULT_MAX_MESSAGE_BYTES
    assert generated
    assert len(options.token) >= 32
    other = parsed(["bridge", "--", "agent"])
    assert other.token != options.token
    assert other.grace == DEFAULT_GRACE


def test_bad_arguments_are_explained(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(TOKEN_ENV, raising=False)
    for argv, problem in (
        (["bridge", "--token", "short", "--", "a"], "at least 16"),
        (["bridge", "--listen", "8765", "--", "a"], "HOST:PORT"),
        (["bridge", "--grace", "-1", "--", "a"], "--grace"),
        (["bridge", "--max-connections", "0", "--", "a"], "--max-connections"),
        (["bridge", "--"], "no agent command"),
    ):
        result = bridge_options(build_parser().parse_args(argv))
        assert isinstance(result, str)
        assert problem in result


def test_listen_addresses() -> None:
    assert parse_listen("[::1]:0") == ("::1", 0)
    assert parse_listen("localhost:80") == ("localhost", 80)
    with pytest.raises(ValueError, match="TCP port"):
        parse_listen("127.0.0.1:70000")
    assert is_loopback("127.0.0.2")
    assert is_loopback("::1")
    assert is_loopback("localhost")
    assert not is_loopback("0.0.0.0")
    assert not is_loopback("example.com")


def test_peek_reads_only_routing_facts() -> None:
    request = peek(
        b'{"jsonrpc":"2.0","id":3,"method":"session/prompt",'
        b'"params":{"sessionId":"s1","prompt":[]}}'
    )
    assert (request.kind, request.key, request.method, request.session_id) == (
        "request",
        "3",
        "session/prompt",
        "s1",
    )
    response = peek(b'{"jsonrpc":"2.0","id":"a","result":{"sessionId":"s2"}}')
    assert (response.kind, response.key, response.result_session_id) == (
        "response",
        '"a"',
        "s2",
    )
    assert peek(b'{"jsonrpc":"2.0","method":"x"}').kind == "notification"
    assert peek(b"[]").kind == "batch"
    assert peek(b"\xff not json").kind == "invalid"
    assert peek(b'{"id":true,"result":1}').key is None
    assert one_line(b'{\r\n "a": "b\\n"\n}') == b'{   "a": "b\\n" }'


async def test_a_full_mailbox_makes_put_wait() -> None:
    box = Mailbox(max_bytes=10, max_messages=100)
    assert await box.put(b"x" * 30)  # one message larger than the bound: taken
    put_done = anyio.Event()

    async def second() -> None:
        await box.put(b"y")
        put_done.set()

    async with anyio.create_task_group() as group:
        group.start_soon(second)
        await anyio.wait_all_tasks_blocked()
        assert not put_done.is_set()
        assert await box.get() == b"x" * 30
        with anyio.fail_after(5):
            await put_done.wait()
    assert len(box) == 1
    box.close()
    assert not await box.put(b"z")
    with pytest.raises(anyio.EndOfStream):
        await box.get()


@pytest.mark.subprocess
def test_the_cli_does_not_import_the_server_libraries() -> None:
    probe = (
        "import sys, acp_tui.cli, acp_tui.bridge.asgi, acp_tui.bridge.serve; "
        "print(' '.join(sorted({m.split('.')[0] for m in sys.modules})))"
    )
    loaded = subprocess.run(
        [sys.executable, "-c", probe],
        capture_output=True,
        text=True,
        check=True,
        timeout=60,
    ).stdout.split()
    assert not {"starlette", "uvicorn", "websockets", "httpx"} & set(loaded)
