"""The fault suite through `acp-tui print`: a misbehaving agent, every case.

Each test runs the real command line in-process against `tests/fakes/fault_agent.py`
and checks what the issue asks of every fault: the run ends (with the exit code
the fault calls for), the user reads a clear message on stderr, the text streamed
before the fault is in the output, no traceback is printed and no process (the
agent, or the child it spawned) is left behind.
"""

from __future__ import annotations

import pytest

from acp_tui.frontends import print_turn as headless
from tests.fakes.fault_agent import (
    AFTER,
    BEFORE,
    EXIT_INIT_CODE,
    EXIT_INIT_STDERR,
    EXIT_MID_TURN_CODE,
    EXIT_MID_TURN_STDERR,
    FLOOD_COUNT,
    flood_chunk,
)
from tests.faults.conftest import Pids, PrintRun, PrintRunner, agent_option

pytestmark = pytest.mark.subprocess


def print_json(
    run_print: PrintRunner, fault: str, version: str, *args: str
) -> PrintRun:
    return run_print(
        "--format", "json", "--agent", agent_option(fault, version), *args, "go"
    )


def assert_clean(run: PrintRun) -> None:
    """No traceback, and nothing from the agent acts on the terminal."""
    for stream in (run.out, run.err):
        assert "Traceback" not in stream
        assert "\x1b" not in stream
        assert "\x07" not in stream


# --- the agent writes something wrong; the turn goes on -------------------------

SURVIVABLE = [
    (
        "garbage",
        "v2",
        ["unreadable line (invalid JSON", "an empty batch", "invalid message"],
    ),
    ("huge-line", "v2", ["unreadable line (invalid JSON"]),
    ("invalid-utf8", "v2", ["unreadable line (invalid UTF-8"]),
    (
        "malformed",
        "v2",
        [
            "ignored a malformed tool_call_update",
            "ignored a malformed agent_message_chunk",
        ],
    ),
    (
        "malformed",
        "v1",
        [
            "ignored a malformed tool_call update",
            "ignored a malformed agent_message_chunk",
        ],
    ),
    (
        "unknown-id",
        "v2",
        ["a response for no pending request", "the agent reported an error"],
    ),
]


@pytest.mark.parametrize(("fault", "version", "warnings"), SURVIVABLE)
def test_bad_input_is_reported_and_the_turn_completes(
    run_print: PrintRunner, pids: Pids, fault: str, version: str, warnings: list[str]
) -> None:
    run = print_json(run_print, fault, version)
    assert run.code == headless.EXIT_OK, run.err
    assert run.document["stopReason"] == "end_turn"
    assert run.agent_text() == BEFORE + AFTER
    for warning in warnings:
        assert f"acp-tui: warning: {warning}" in run.err
    assert_clean(run)
    pids.assert_gone()


@pytest.mark.parametrize("version", ["v2", "v1"])
def test_unknown_methods_and_updates_are_ignored_quietly(
    run_print: PrintRunner, pids: Pids, version: str
) -> None:
    """Unknown notifications are ignored, an unknown request is answered -32601,
    and unknown update kinds are kept as such: extensions, not errors."""
    run = print_json(run_print, "unknown", version)
    assert run.code == headless.EXIT_OK, run.err
    assert run.agent_text() == BEFORE + AFTER + " (ask: -32601)"
    assert [u["sessionUpdate"] for u in run.document["unknownUpdates"]] == [
        "_fault_sparkle",
        "future_update",
    ]
    assert "warning" not in run.err
    assert_clean(run)
    pids.assert_gone()


def test_stderr_flood_stays_out_of_the_output(
    run_print: PrintRunner, pids: Pids
) -> None:
    run = print_json(run_print, "stderr-flood", "v2")
    assert run.code == headless.EXIT_OK, run.err
    assert run.agent_text() == BEFORE + "".join(f"{i} " for i in range(20)) + AFTER
    assert run.err == ""  # the agent's stderr goes to its log file only
    assert_clean(run)
    pids.assert_gone()


def test_ten_second_flood_arrives_whole_and_in_order(
    run_print: PrintRunner, pids: Pids
) -> None:
    """100,000 message chunks at 10,000 a second, streamed as text."""
    run = run_print("--agent", agent_option("flood", "v2"), "go")
    assert run.code == headless.EXIT_OK, run.err
    flood = "".join(flood_chunk(index) for index in range(FLOOD_COUNT))
    assert f"[agent]\n{BEFORE}{flood}{AFTER}\n" in run.out
    assert run.err == ""
    assert_clean(run)
    pids.assert_gone()


# --- the agent goes away -----------------------------------------------------------


@pytest.mark.parametrize("version", ["v2", "v1"])
def test_agent_exiting_mid_turn(
    run_print: PrintRunner, pids: Pids, version: str
) -> None:
    run = print_json(run_print, "exit-mid-turn", version)
    assert run.code == headless.EXIT_AGENT
    assert run.agent_text() == BEFORE
    assert f"the agent exited with code {EXIT_MID_TURN_CODE}" in run.err
    assert f"  | {EXIT_MID_TURN_STDERR}\n" in run.err
    assert_clean(run)
    pids.assert_gone()


def test_agent_exiting_during_initialize(run_print: PrintRunner, pids: Pids) -> None:
    run = print_json(run_print, "exit-init", "v2")
    assert run.code == headless.EXIT_AGENT
    assert run.document["protocolVersion"] is None
    assert "the agent stopped during initialize" in run.err
    assert f"the agent exited with code {EXIT_INIT_CODE}" in run.err
    assert f"  | {EXIT_INIT_STDERR}\n" in run.err
    assert_clean(run)
    pids.assert_gone()


@pytest.mark.usefixtures("quick_shutdown")
@pytest.mark.parametrize("version", ["v2", "v1"])
def test_agent_closing_stdout_but_staying_alive(
    run_print: PrintRunner, pids: Pids, version: str
) -> None:
    run = print_json(run_print, "close-stdout", version)
    assert run.code == headless.EXIT_AGENT
    assert run.agent_text() == BEFORE
    assert "the connection to the agent ended: the agent closed its output" in run.err
    assert "killed by signal SIGTERM" in run.err  # it had to be stopped
    assert_clean(run)
    pids.assert_gone()


# --- the agent hangs -----------------------------------------------------------------


@pytest.mark.usefixtures("quick_shutdown")
def test_agent_hanging_on_initialize(run_print: PrintRunner, pids: Pids) -> None:
    run = print_json(run_print, "hang-init", "v2", "--init-timeout", "0.5")
    assert run.code == headless.EXIT_AGENT
    assert "the agent did not answer initialize within 0.5 s" in run.err
    assert run.document["sessionId"] is None
    assert_clean(run)
    pids.assert_gone()


@pytest.mark.usefixtures("quick_shutdown")
@pytest.mark.parametrize("version", ["v2", "v1"])
def test_agent_hanging_on_a_prompt(
    run_print: PrintRunner, pids: Pids, version: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """No reply and no update at all: `--timeout` cancels, then gives up."""
    monkeypatch.setattr(headless, "CANCEL_GRACE", 0.5)
    run = print_json(run_print, "hang-prompt", version, "--timeout", "0.5")
    assert run.code == headless.EXIT_AGENT
    assert "no end of turn after 0.5 s: cancelling" in run.err
    assert "the agent did not end the turn within 0.5 s of session/cancel" in run.err
    assert run.document["sessionId"] == "f1"
    if version == "v1":  # v1 clients record the prompt themselves
        [user] = run.document["messages"]
        assert user["content"] == [{"type": "text", "text": "go"}]
    assert_clean(run)
    pids.assert_gone()
