"""Out-of-range `line`, `limit`, `outputByteLimit` on the wire: the default, logged.

The v1 schema marks these fields `x-deserialize-default-on-error` (checklist §4.14.4):
a negative, fractional, too large or mistyped value reads as if the field had been
omitted. The request is served with the default, never refused, and each fallback
is logged (with the method, the field and the value), so an agent author can see why
a read returned the whole file.
"""

from __future__ import annotations

import logging
from pathlib import Path
from typing import Any, Final

import pytest

from acp_tui.client.connection import ClientFeatures
from tests.unit.client.peer import open_harness, v1_init

LINES: Final = "one\ntwo\nthree\n"

FALLBACKS: Final = [
    pytest.param(-1, id="negative"),
    pytest.param(1.5, id="fractional"),
    pytest.param(2**32, id="beyond-uint32"),
    pytest.param("2", id="string"),
]


def fallback_records(caplog: pytest.LogCaptureFixture, method: str) -> list[str]:
    return [
        record.getMessage()
        for record in caplog.records
        if record.levelno == logging.WARNING and method in record.getMessage()
    ]


async def run_terminal(cwd: Path, create: dict[str, Any]) -> dict[str, Any]:
    """`terminal/create` with these params, then its whole output once exited."""
    async with open_harness(v1_init(), features=ClientFeatures(terminal=True)) as h:
        await h.new_session(cwd=cwd)
        created = await h.peer.call("terminal/create", {"sessionId": "s1", **create})
        terminal = {"sessionId": "s1", "terminalId": created["result"]["terminalId"]}
        await h.peer.call("terminal/wait_for_exit", terminal)
        output = await h.peer.call("terminal/output", terminal)
        await h.peer.call("terminal/release", terminal)
    result: dict[str, Any] = output["result"]
    return result


@pytest.mark.parametrize("value", FALLBACKS)
@pytest.mark.parametrize("field", ["line", "limit"])
async def test_a_bad_line_or_limit_reads_as_omitted_and_is_logged(
    tmp_path: Path, caplog: pytest.LogCaptureFixture, field: str, value: Any
) -> None:
    (tmp_path / "a.txt").write_text(LINES)
    features = ClientFeatures(read_text_file=True)
    caplog.set_level(logging.WARNING)
    async with open_harness(v1_init(), features=features) as h:
        await h.new_session(cwd=tmp_path)
        response = await h.peer.call(
            "fs/read_text_file",
            {"sessionId": "s1", "path": str(tmp_path / "a.txt"), field: value},
        )
    assert response["result"] == {"content": LINES}
    [message] = fallback_records(caplog, "fs/read_text_file")
    assert f"{field}={value!r}" in message
    assert "default" in message


async def test_valid_line_and_limit_log_nothing(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    (tmp_path / "a.txt").write_text(LINES)
    caplog.set_level(logging.WARNING)
    async with open_harness(
        v1_init(), features=ClientFeatures(read_text_file=True)
    ) as h:
        await h.new_session(cwd=tmp_path)
        response = await h.peer.call(
            "fs/read_text_file",
            {
                "sessionId": "s1",
                "path": str(tmp_path / "a.txt"),
                "line": 2,
                "limit": None,
            },
        )
    assert response["result"] == {"content": "two\nthree\n"}
    assert fallback_records(caplog, "fs/read_text_file") == []


@pytest.mark.subprocess
@pytest.mark.parametrize("value", [-1, 0.5, 2**64, "100"])
async def test_a_bad_output_byte_limit_reads_as_omitted_and_is_logged(
    tmp_path: Path, caplog: pytest.LogCaptureFixture, value: Any
) -> None:
    caplog.set_level(logging.WARNING)
    create = {"command": "printf", "args": ["0123456789"], "outputByteLimit": value}
    output = await run_terminal(tmp_path, create)
    # The default limit (16 MiB): nothing was cut.
    assert output == {
        "output": "0123456789",
        "truncated": False,
        "exitStatus": {"exitCode": 0, "signal": None},
    }
    [message] = fallback_records(caplog, "terminal/create")
    assert f"outputByteLimit={value!r}" in message


@pytest.mark.subprocess
async def test_a_dropped_argument_is_logged(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """`args` skips invalid items (schema): the command runs without them, logged."""
    caplog.set_level(logging.WARNING)
    output = await run_terminal(tmp_path, {"command": "echo", "args": ["a", 5, "b"]})
    assert output["output"] == "a b\n"
    [message] = fallback_records(caplog, "terminal/create")
    assert "args" in message
    assert "1 invalid item" in message
