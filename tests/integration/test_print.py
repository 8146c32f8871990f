"""`acp-tui print` and `acp-tui sessions` end to end, against the scripted fake agent.

The fake agent (`tests/fakes/agent.py`) is a real subprocess that speaks raw JSON and
imports nothing from acp_tui; these tests run the real command line in-process.
"""

from __future__ import annotations

import base64
import json
import sys
from pathlib import Path
from typing import Any

import pytest

from acp_tui.cli import main

pytestmark = pytest.mark.subprocess

FAKE_AGENT = Path(__file__).resolve().parents[1] / "fakes" / "agent.py"

TOP_LEVEL_KEYS = {
    "protocolVersion",
    "agent",
    "sessionId",
    "state",
    "stopReason",
    "timeline",
    "messages",
    "toolCalls",
    "plans",
    "terminals",
    "configOptions",
    "commands",
    "usage",
    "info",
    "permissions",
    "unknownUpdates",
}


def fake(scenario: str) -> str:
    return f"{sys.executable} {FAKE_AGENT} {scenario}"


@pytest.fixture(autouse=True)
def _home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ACP_TUI_HOME", str(tmp_path / "home"))


def run(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    code = main(list(args))
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def run_json(
    capsys: pytest.CaptureFixture[str], *args: str
) -> tuple[int, dict[str, Any], str]:
    code, out, err = run(capsys, "print", "--format", "json", *args)
    document: dict[str, Any] = json.loads(out)
    return code, document, err


def test_v2_turn_produces_the_documented_json(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    code, doc, err = run_json(
        capsys,
        "--agent",
        fake("v2"),
        "--cwd",
        str(tmp_path),
        "--permissions",
        "allow",
        "hi",
    )
    assert code == 0, err
    assert set(doc) >= TOP_LEVEL_KEYS
    assert doc["protocolVersion"] == 2
    assert doc["agent"] == {
        "name": "fake-agent",
        "title": "Fake Agent",
        "version": "1.0.0",
    }
    assert (doc["sessionId"], doc["state"], doc["stopReason"]) == (
        "s1",
        "idle",
        "end_turn",
    )
    assert doc["timeline"] == [
        {"kind": "message", "id": "u1"},
        {"kind": "message", "id": "t1"},
        {"kind": "plan", "id": "p1"},
        {"kind": "tool_call", "id": "c1"},
        {"kind": "permission", "id": doc["permissions"][0]["permissionId"]},
        {"kind": "message", "id": "a1"},
        {"kind": "unknown_update", "id": "0"},
    ]
    assert doc["messages"] == [
        {
            "messageId": "u1",
            "role": "user",
            "content": [{"type": "text", "text": "hi"}],
        },
        {
            "messageId": "t1",
            "role": "thought",
            "content": [{"type": "text", "text": "Thinking about it."}],
        },
        {
            "messageId": "a1",
            "role": "agent",
            "content": [  # two chunks, joined
                {"type": "text", "text": "Hello \x1b]0;pwned\x07world"},
            ],
        },
    ]
    [call] = doc["toolCalls"]
    assert call == {
        "toolCallId": "c1",
        "title": "Run ls",
        "kind": "execute",
        "status": "completed",
        "content": [
            {"type": "terminal", "terminalId": "t1"},
            {"type": "content", "content": {"type": "text", "text": "listed"}},
        ],
        "locations": [],
        "rawInput": {"command": "ls"},
        "rawOutput": {"ok": True},
    }
    [plan] = doc["plans"]
    assert plan["planId"] == "p1"
    assert plan["type"] == "items"
    assert [e["status"] for e in plan["entries"]] == ["completed", "completed"]
    [terminal] = doc["terminals"]
    assert terminal["terminalId"] == "t1"
    assert terminal["command"] == "ls"
    assert terminal["cwd"] == "/tmp"
    assert terminal["exitStatus"] == {"exitCode": 0}
    assert (
        base64.b64decode(terminal["output"]) == b"\x1b[32mfile.txt\x1b[0m\r\ndone\r\n"
    )
    assert terminal["text"] == "file.txt\ndone"
    assert [o["configId"] for o in doc["configOptions"]] == ["model"]
    assert doc["commands"] == [{"name": "help", "description": "Help"}]
    assert doc["usage"]["used"] == 1200
    assert doc["usage"]["cost"] == {"amount": 0.01, "currency": "USD"}
    assert doc["info"]["title"] == "Greeting"
    [permission] = doc["permissions"]
    assert permission["title"] == "Run ls?"
    assert permission["description"] == "Lists the directory"
    assert permission["subject"]["type"] == "tool_call"
    assert [o["optionId"] for o in permission["options"]] == ["yes", "no", "always"]
    assert permission["outcome"] == {"outcome": "selected", "optionId": "yes"}
    assert doc["unknownUpdates"] == [{"sessionUpdate": "_vendor_sparkle", "level": 3}]


def test_v2_permissions_reject(capsys: pytest.CaptureFixture[str]) -> None:
    code, doc, _ = run_json(capsys, "--agent", fake("v2"), "hi")
    assert code == 0
    assert doc["permissions"][0]["outcome"] == {"outcome": "selected", "optionId": "no"}
    assert doc["toolCalls"][0]["status"] == "failed"


def test_v1_turn_maps_into_the_same_document(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    code, doc, err = run_json(
        capsys,
        "--agent",
        fake("v1"),
        "--cwd",
        str(tmp_path),
        "--permissions",
        "allow",
        "please write",
    )
    assert code == 0, err
    assert set(doc) >= TOP_LEVEL_KEYS
    assert doc["protocolVersion"] == 1
    assert doc["agent"]["name"] == "fake-agent"
    assert (doc["state"], doc["stopReason"]) == ("idle", "end_turn")
    roles = [m["role"] for m in doc["messages"]]
    assert roles[:3] == ["user", "thought", "agent"]
    user = doc["messages"][0]
    assert user["content"] == [{"type": "text", "text": "please write"}]
    agent_text = "".join(
        block["text"]
        for m in doc["messages"]
        if m["role"] == "agent"
        for block in m["content"]
    )
    # The agent wrote and read back a file through fs/*, inside the session cwd,
    # and was refused outside it.
    assert "read back: written by agent" in agent_text
    assert "outside refused: True" in agent_text
    assert (tmp_path / "note.txt").read_text() == "written by agent\n"
    [call] = doc["toolCalls"]
    assert call["toolCallId"] == "w1"
    assert call["status"] == "completed"
    assert call["content"][0]["type"] == "diff"
    assert call["content"][0]["oldText"] is None
    [plan] = doc["plans"]
    assert plan["planId"] == "main"
    assert plan["entries"][0]["content"] == "Write a note"
    [permission] = doc["permissions"]
    assert permission["subject"]["type"] == "tool_call"
    assert permission["subject"]["toolCall"]["toolCallId"] == "w1"
    assert permission["outcome"] == {"outcome": "selected", "optionId": "ok"}
    [mode] = [o for o in doc["configOptions"] if o.get("category") == "mode"]
    assert mode["currentValue"] == "code"  # moved by current_mode_update


@pytest.mark.parametrize("scenario", ["v1", "v2"])
def test_timeout_cancels_and_waits_for_the_end(
    capsys: pytest.CaptureFixture[str], scenario: str
) -> None:
    code, doc, err = run_json(
        capsys, "--agent", fake(scenario), "--timeout", "0.5", "hang"
    )
    assert code == 4
    assert doc["stopReason"] == "cancelled"
    assert doc["state"] == "idle"
    assert "cancelling" in err
    assert "Traceback" not in err


def test_failed_turn_still_prints_the_state_reached(
    capsys: pytest.CaptureFixture[str],
) -> None:
    code, doc, err = run_json(capsys, "--agent", fake("v2"), "fail")
    assert code == 3
    assert doc["protocolVersion"] == 2
    assert doc["sessionId"] == "s1"
    assert "model overloaded" in err
    assert "Traceback" not in err


@pytest.mark.parametrize("output_format", ["text", "json"])
def test_a_v2_turn_error_reads_as_the_agents_message(
    capsys: pytest.CaptureFixture[str], output_format: str
) -> None:
    code, _, err = run(
        capsys,
        "print",
        "--format",
        output_format,
        "--agent",
        fake("v2"),
        "turn-error unicode",
    )
    assert code == 3
    assert (
        "acp-tui: the turn ended with an error: "
        "model overloaded · retry in 30 s — or switch models (-32603)"
    ) in err
    assert '"code"' not in err
    assert "\\u00b7" not in err


def test_agent_exiting_during_initialize_exits_3_with_a_document(
    capsys: pytest.CaptureFixture[str],
) -> None:
    code, doc, err = run_json(capsys, "--agent", fake("exit-on-init"), "hi")
    assert code == 3
    assert doc["protocolVersion"] is None
    assert doc["sessionId"] is None
    assert "stopped during initialize" in err
    assert "missing credentials" in err


def test_malformed_update_is_reported_and_the_turn_goes_on(
    capsys: pytest.CaptureFixture[str],
) -> None:
    code, doc, err = run_json(capsys, "--agent", fake("v2"), "malformed please")
    assert code == 0
    assert "malformed tool_call_update" in err
    assert doc["stopReason"] == "end_turn"


def test_text_transcript_streams_and_is_safe(
    capsys: pytest.CaptureFixture[str],
) -> None:
    code, out, err = run(
        capsys, "print", "--agent", fake("v2"), "--permissions", "allow", "hi"
    )
    assert code == 0, err
    assert "[you]\nhi\n" in out
    assert "[thought]\nThinking about it.\n" in out
    assert "[tool execute] Run ls (completed)" in out
    assert "[permission] Run ls?: Allow" in out
    assert "Hello \\x1b]0;pwned\\x07world" in out
    assert "[terminal ls exit" in out
    assert "file.txt\ndone" in out
    assert "\x1b" not in out
    assert "\x07" not in out


def test_text_names_paths_from_the_sessions_directory_and_json_keeps_them(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    args = ("--agent", fake("v2"), "--cwd", str(tmp_path), "--permissions", "allow")
    code, out, err = run(capsys, "print", *args, "paths")
    assert code == 0, err
    assert "[permission] Run make? — $ make (in .): Allow" in out
    assert str(tmp_path) not in out
    code, doc, err = run_json(capsys, *args, "paths")
    assert code == 0, err
    command = doc["permissions"][1]["subject"]
    assert command == {"type": "command", "command": "make", "cwd": str(tmp_path)}
    edit = next(c for c in doc["toolCalls"] if c["toolCallId"] == "e1")
    assert edit["locations"][0] == {"path": f"{tmp_path}/notes.txt", "line": 2}


@pytest.mark.parametrize("scenario", ["v1", "v2"])
def test_a_user_message_the_agent_forged_is_printed_as_the_agents(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, scenario: str
) -> None:
    args = ["--agent", fake(scenario), "--cwd", str(tmp_path)]
    code, out, err = run(capsys, "print", *args, "--permissions", "allow", "forge it")
    assert code == 0, err
    assert "[you]\nforge it\n" in out
    assert "[from the agent, not typed by you]\nForged: delete the tests.\n" in out
    assert "[you]\nForged" not in out

    code, doc, err = run_json(capsys, *args, "--permissions", "allow", "forge it")
    assert code == 0, err
    users = [
        (m.get("origin"), m["content"][0]["text"])
        for m in doc["messages"]
        if m["role"] == "user"
    ]
    assert users == [(None, "forge it"), ("agent", "Forged: delete the tests.")]


def test_sessions_lists_every_page(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    code, out, err = run(
        capsys,
        "sessions",
        "--agent",
        fake("v2"),
        "--format",
        "json",
        "--cwd",
        str(tmp_path),
    )
    assert code == 0, err
    assert json.loads(out) == [
        {"sessionId": "old1", "cwd": "/tmp", "title": "First"},
        {"sessionId": "old2", "cwd": "/tmp", "updatedAt": "2026-11-29T10:00:00Z"},
    ]
    code, out, _ = run(capsys, "sessions", "--agent", fake("v1"))
    assert code == 0
    assert "old1" in out
    assert "First" in out
    assert "old2" in out


@pytest.mark.parametrize("version", ["v1", "v2"])
def test_sessions_archived_and_rename(
    capsys: pytest.CaptureFixture[str], version: str
) -> None:
    agent = fake(f"{version}-sessions")
    where = ("--cwd", "/tmp")  # the fake lists its sessions in the directory asked
    code, out, err = run(
        capsys, "sessions", "--agent", agent, *where, "--archived", "only"
    )
    assert code == 0, err
    assert out.splitlines() == [
        "s-delta  2026-10-01T08:00:00Z  Old experiment  [/tmp]  (archived)"
    ]
    rename = ("--rename", "s-beta", " Login fixes ")
    code, out, err = run(capsys, "sessions", "--agent", agent, *where, *rename)
    assert code == 0, err
    assert "renamed s-beta: Login fixes" in err
    assert "s-beta  2026-11-27T09:15:00Z  Login fixes  [/tmp]" in out.splitlines()
    assert "s-delta" not in out
    # An agent that does not rename sessions: said, with the failure exit code.
    plain = fake(f"{version}-full")
    code, _, err = run(capsys, "sessions", "--agent", plain, "--rename", "s-beta", "x")
    assert code == 3
    assert "cannot rename sessions" in err


def test_print_usage_errors(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as caught:
        main(["print", "--agent", fake("v2"), "--timeout", "0", "hi"])
    assert caught.value.code == 2
    capsys.readouterr()


def test_print_with_an_agent_that_cannot_start(
    capsys: pytest.CaptureFixture[str],
) -> None:
    code, doc, err = run_json(capsys, "--agent", "/nonexistent/agent --acp", "hi")
    assert code == 3
    assert "/nonexistent/agent --acp" in err
    assert doc["protocolVersion"] is None


def test_agent_ignoring_cancel_is_given_up_on_cleanly(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    from acp_tui.frontends import print_turn as headless

    monkeypatch.setattr(headless, "CANCEL_GRACE", 0.5)
    code, doc, err = run_json(
        capsys, "--agent", fake("v2"), "--timeout", "0.5", "stubborn"
    )
    assert code == 3
    assert "did not end the turn within 0.5 s of session/cancel" in err
    assert "Traceback" not in err
    assert doc["protocolVersion"] == 2
