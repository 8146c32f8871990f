"""`acp-tui check` end to end: the demo agent, and fakes with planted violations.

The fake (`tests/fakes/check_agent.py`) is a real subprocess speaking raw JSON; each
mode plants one violation on its v2 connections. The command line runs in-process.
"""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path
from typing import Any

import pytest

from acp_tui.cli import main
from acp_tui.client.connection import AgentIdentity
from acp_tui.frontends.check import (
    CheckOptions,
    CheckReport,
    CheckRow,
    check_schema,
    format_table,
    run_check,
)
from acp_tui.protocol.transport import AgentCommand

FAKES = Path(__file__).resolve().parents[1] / "fakes"
CHECK_AGENT = FAKES / "check_agent.py"

V2_CHECKS = [
    "initialize",
    "session/new",
    "prompt turn",
    "prompt lifecycle",
    "cancel",
    "session/list",
    "session/resume replay",
    "session/close",
    "session/delete",
    "elicitation",
    "schema",
]
V1_CHECKS = [
    "initialize",
    "session/new",
    "prompt turn",
    "cancel",
    "session/list",
    "session/load replay",
    "session/close",
    "session/delete",
    "elicitation",
    "schema",
]
ELICITATION_RUNS = [
    "elicitation (form only)",
    "elicitation (url only)",
    "elicitation (none advertised)",
]


SESSION_ADMIN_ROWS = [
    "session/status",
    "session/set_title",
    "session/fork",
    "session/archive",
    "session/unarchive",
]
"""The rows of the unstable session methods, for an agent that advertises them all."""


def demo_rows(checks: list[str]) -> list[str]:
    """The rows of the demo agent: the elicitation probe runs three times; it
    advertises steering (probed after the cancel), the unstable session methods
    (probed after the list), and in v2 its `/cancel-tool` is probed
    (`tool_call/cancel`) after the steering row."""
    at = checks.index("elicitation")
    rows = [*checks[:at], *ELICITATION_RUNS, *checks[at + 1 :]]
    rows.insert(rows.index("cancel") + 1, "steering")
    if "prompt lifecycle" in checks:  # v2
        rows.insert(rows.index("steering") + 1, "tool_call/cancel")
    listed = rows.index("session/list") + 1
    return [*rows[:listed], *SESSION_ADMIN_ROWS, *rows[listed:]]


ROW = re.compile(
    r"^(?P<name>\S+(?: \S+)*?)\s{2,}(?P<v>[12-])\s{2}(?P<result>pass|fail|skip)\s"
)


def fake(mode: str) -> str:
    return f"{sys.executable} {CHECK_AGENT} {mode}"


@pytest.fixture(autouse=True)
def _home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ACP_TUI_HOME", str(tmp_path / "home"))


def run(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    code = main(["check", *args])
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def rows(out: str) -> list[tuple[str, str, str, str]]:
    """(name, version, result, the whole line) for each table row."""
    found = []
    for line in out.splitlines()[1:]:
        match = ROW.match(line)
        if match:
            found.append((match["name"], match["v"], match["result"], line))
    return found


@pytest.mark.subprocess
def test_the_demo_agent_passes_every_check(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    # A quick pace, still slow enough that the cancelled turn is running when
    # session/cancel arrives (it is sent once the prompt has been accepted).
    monkeypatch.setenv("ACP_TUI_DEMO_DELAY", "0.005")
    code, out, err = run(capsys)
    assert code == 0, out + err
    assert "running the built-in demo agent" in err
    table = rows(out)
    assert [(name, v) for name, v, _, _ in table] == [
        *((name, "2") for name in demo_rows(V2_CHECKS)),
        *((name, "1") for name in demo_rows(V1_CHECKS)),
    ]
    assert {result for _, _, result, _ in table} == {"pass"}, out
    assert out.splitlines()[0].split() == ["CHECK", "V", "RESULT", "DETAIL"]
    assert "agent: acp-tui demo agent" in out
    assert out.rstrip().endswith("38 checks: 38 passed, 0 failed, 0 skipped")
    details = {(name, v): line for name, v, _, line in table}
    for v in ("1", "2"):  # /ask asks a form, /login a URL: each only if advertised
        assert "advertised modes: form" in details["elicitation (form only)", v]
        assert "advertised modes: url" in details["elicitation (url only)", v]
        assert "did not ask" in details["elicitation (none advertised)", v]
        assert "hands the prompt back" in details["steering", v]
    assert (
        "accepted, then cancelled; the turn went on (ended end_turn)"
        in (details["tool_call/cancel", "2"])
    )


@pytest.mark.subprocess
def test_a_conformant_agent_passes_in_both_versions(
    capsys: pytest.CaptureFixture[str],
) -> None:
    code, out, err = run(capsys, "--agent", fake("ok"), "--timeout", "5")
    assert code == 0, out + err
    table = rows(out)
    assert len(table) == len(V2_CHECKS) + len(V1_CHECKS)
    results = {name: result for name, _, result, _ in table}
    assert results.pop("elicitation") == "skip"
    assert set(results.values()) == {"pass"}, out
    details = {(name, v): line for name, v, _, line in table}
    assert (
        "not probed: no known prompt makes Check Agent ask"
        in (details["elicitation", "2"])
    )
    assert "stopReason cancelled (an idle state_update)" in details["cancel", "2"]
    assert (
        "stopReason cancelled (the session/prompt response)" in details["cancel", "1"]
    )
    assert "including the earlier turn's" in details["session/load replay", "1"]


@pytest.mark.subprocess
@pytest.mark.parametrize(
    ("mode", "check", "expected"),
    [
        (
            "no-message-id",
            "schema",
            "session/update agent_message_chunk: messageId missing",
        ),
        ("no-plan-id", "schema", "session/update plan_update: plan.planId missing"),
        (
            "steering-odd",
            "steering",
            "expected promptRequired: the agent answered queued",
        ),
        (
            "no-idle-after-cancel",
            "cancel",
            "no idle state_update within 2 s after session/cancel",
        ),
    ],
)
def test_each_planted_violation_is_named(
    capsys: pytest.CaptureFixture[str], mode: str, check: str, expected: str
) -> None:
    code, out, err = run(
        capsys, "--agent", fake(mode), "--protocol", "2", "--timeout", "2"
    )
    assert code == 1, out + err
    failing = [(name, line) for name, _, result, line in rows(out) if result == "fail"]
    assert len(failing) == 1, out
    name, line = failing[0]
    assert name == check
    assert expected in line
    assert "1 failed" in out.splitlines()[-1]


@pytest.mark.subprocess
def test_json_format_parses_and_names_the_failure(
    capsys: pytest.CaptureFixture[str],
) -> None:
    code, out, _ = run(
        capsys,
        *("--agent", fake("no-plan-id"), "--protocol", "2"),
        *("--timeout", "5", "--format", "json"),
    )
    assert code == 1
    document: dict[str, Any] = json.loads(out)
    assert document["ok"] is False
    assert document["agent"] == {
        "name": "check-agent",
        "title": "Check Agent",
        "version": "0.1.0",
    }
    checks = document["checks"]
    assert [c["check"] for c in checks] == V2_CHECKS
    assert {c["protocolVersion"] for c in checks} == {2}
    failed = [c for c in checks if c["result"] == "fail"]
    assert [(c["check"], c["detail"]) for c in failed] == [
        ("schema", "session/update plan_update: plan.planId missing (x2)")
    ]
    assert document["summary"] == {"passed": 9, "failed": 1, "skipped": 1}


@pytest.mark.subprocess
def test_an_agent_that_exits_at_once_exits_3_with_its_reason(
    capsys: pytest.CaptureFixture[str],
) -> None:
    code, out, err = run(capsys, "--agent", fake("exit-at-once"), "--timeout", "5")
    assert code == 3
    assert out == ""
    assert "the agent could not be started" in err
    assert "exited with code 1" in err
    assert "| check-agent: cannot start: no model configured" in err


@pytest.mark.subprocess
def test_an_agent_that_dies_mid_run_fails_that_step_and_skips_the_rest(
    capsys: pytest.CaptureFixture[str],
) -> None:
    code, out, _ = run(
        capsys, "--agent", fake("crash-on-prompt"), "--protocol", "2", "--timeout", "5"
    )
    assert code == 1
    table = {name: (result, line) for name, _, result, line in rows(out)}
    assert table["session/new"][0] == "pass"
    result, line = table["prompt turn"]
    assert result == "fail"
    assert "the connection ended" in line
    assert "exited with code 5" in line
    assert "check-agent: crashed on a prompt" in line
    for name in ("cancel", "session/list", "session/resume replay", "session/close"):
        assert table[name][0] == "skip"
        assert "the connection ended" in table[name][1]


@pytest.mark.subprocess
def test_a_missing_program_exits_3(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run(capsys, "--agent", "/nonexistent/acp-agent --acp")
    assert code == 3
    assert out == ""
    assert "could not be started" in err
    assert "/nonexistent/acp-agent" in err


@pytest.mark.subprocess
def test_a_v1_only_agent_skips_v2_and_agent_text_is_escaped(
    capsys: pytest.CaptureFixture[str],
) -> None:
    # The scripted `evil` agent puts escape sequences in its name; `v1` answers 1
    # to a v2 offer.
    code, out, _ = run(
        capsys,
        *("--agent", f"{sys.executable} {FAKES / 'agent.py'} evil"),
        *("--protocol", "2", "--timeout", "5"),
    )
    assert "\x1b" not in out
    assert "\x07" not in out
    assert "Evil\\x1b]0;pwned\\x07\\x1b[31m Agent" in out
    assert code == 1  # this fake plays no prompt turns
    code, out, _ = run(
        capsys,
        *("--agent", f"{sys.executable} {FAKES / 'agent.py'} v1"),
        *("--protocol", "2", "--timeout", "5"),
    )
    table = rows(out)
    assert table[0][2] == "pass"
    assert "a v1-only agent" in table[0][3]
    assert {result for name, _, result, _ in table[1:] if name != "schema"} == {"skip"}
    assert code == 0


@pytest.mark.parametrize(
    "args", [["--timeout", "0"], ["--timeout", "soon"], ["--protocol", "3"]]
)
def test_usage_errors_exit_2(args: list[str]) -> None:
    with pytest.raises(SystemExit) as raised:
        main(["check", *args])
    assert raised.value.code == 2


def test_the_table_is_aligned_and_escapes_agent_text() -> None:
    report = CheckReport(
        agent=AgentIdentity("x", "Bad\x1b[2J Agent", "1"),
        rows=[
            CheckRow("initialize", 2, "pass", "ok"),
            CheckRow("session/resume replay", 2, "fail", "said \x1b]0;t\x07"),
            CheckRow("schema", None, "skip", "nothing"),
        ],
    )
    lines = format_table(report)
    assert lines[0].split() == ["CHECK", "V", "RESULT", "DETAIL"]
    detail_column = {
        line.index(word)
        for line, word in zip(
            lines[:4], ["DETAIL", "ok", "said", "nothing"], strict=True
        )
    }
    assert len(detail_column) == 1
    assert not any("\x1b" in line or "\x07" in line for line in lines)
    assert "said \\x1b]0;t\\x07" in lines[2]
    assert lines[-2] == "agent: Bad\\x1b[2J Agent 1"
    assert lines[-1] == "3 checks: 1 passed, 1 failed, 1 skipped"
    assert report.failed


def line(message: Any) -> bytes:
    return json.dumps(message).encode()


def update(session_update: dict[str, Any]) -> bytes:
    params = {"sessionId": "s1", "update": session_update}
    return line({"jsonrpc": "2.0", "method": "session/update", "params": params})


def test_schema_rows_name_the_method_and_the_field_path() -> None:
    sent = [
        line({"jsonrpc": "2.0", "id": 1, "method": "session/new", "params": {}}),
        line({"jsonrpc": "2.0", "id": 2, "method": "session/prompt", "params": {}}),
    ]
    chunk = {"sessionUpdate": "agent_message_chunk", "content": {"type": "text"}}
    received = [
        line({"jsonrpc": "2.0", "id": 1, "result": {"sessionId": 5}}),
        line({"jsonrpc": "2.0", "id": 2, "result": None}),
        update(chunk),
        update(chunk),
        update(
            {
                "sessionUpdate": "plan_update",
                "plan": {"type": "items", "planId": "p", "entries": [{"content": "x"}]},
            }
        ),
        update({"sessionUpdate": "state_update", "state": "idle", "stopReason": 5}),
        line({"jsonrpc": "2.0", "id": 7, "method": "fs/read_text_file", "params": {}}),
        line({"jsonrpc": "2.0", "method": "_vendor/ping"}),
        line({"jsonrpc": "2.0", "id": 99, "result": {}}),
        b"not json",
    ]
    details = [row.detail for row in check_schema(2, sent, received)]
    assert details == [
        "session/new result: sessionId: input should be a valid string",
        "session/prompt result: input should be a valid dictionary",
        "session/update agent_message_chunk: messageId missing; content.text missing"
        " (x2)",
        "session/update plan_update: plan.entries[0].priority missing; "
        "plan.entries[0].status missing (acp-tui tolerates it)",
        "session/update state_update: stopReason: input should be a valid string "
        "(acp-tui tolerates it)",
        "fs/read_text_file: not a v2 client method (custom methods start with `_`)",
        "response: answers no request acp-tui sent (unknown id)",
        "stdout: an unreadable line (invalid JSON: Expecting value: line 1 column 1 "
        "(char 0)): not a JSON-RPC message",
    ]
    rows = check_schema(2, sent, [line({"jsonrpc": "2.0", "id": 1, "result": {}})])
    assert [(r.result, r.detail) for r in rows] == [
        ("fail", "session/new result: sessionId missing")
    ]


def test_schema_passes_valid_traffic_and_v1_rules_apply_to_v1() -> None:
    sent = [line({"jsonrpc": "2.0", "id": 1, "method": "session/prompt"})]
    chunk = {
        "sessionUpdate": "agent_message_chunk",
        "content": {"type": "text", "text": "hi"},
    }
    received = [
        update(chunk),
        line({"jsonrpc": "2.0", "id": 1, "result": {"stopReason": "end_turn"}}),
    ]
    rows = check_schema(1, sent, received)
    assert [(r.name, r.version, r.result) for r in rows] == [("schema", 1, "pass")]
    assert rows[0].detail == "2 messages from the agent, all valid v1"
    rows = check_schema(1, sent, [b"[" + update(chunk) + b"]"])
    assert [r.detail for r in rows] == [
        "stdout: a JSON array (batches are not part of v1)"
    ]


@pytest.mark.subprocess
@pytest.mark.parametrize("version", [1, 2])
async def test_a_question_in_a_mode_not_advertised_fails_its_run(version: int) -> None:
    """`asks-url-anyway` asks a URL whatever was advertised: two runs fail."""
    options = CheckOptions(
        command=AgentCommand(
            argv=(sys.executable, str(CHECK_AGENT), "asks-url-anyway")
        ),
        name="check-agent",
        choice="1" if version == 1 else "2",
        timeout=5,
        elicitation_prompts=("ask me",),
    )
    report = await run_check(options)
    runs = {row.name: row for row in report.rows if row.name.startswith("elicit")}
    assert list(runs) == ELICITATION_RUNS
    form_only, url_only, neither = runs.values()
    assert form_only.result == "fail"
    assert form_only.detail == (
        "elicitation/create in mode url, which was not advertised (advertised: form)"
    )
    assert url_only.result == "pass"
    assert url_only.detail == "asked only in advertised modes: url"
    assert neither.result == "fail"
    assert "mode url, which was not advertised (advertised: none)" in neither.detail
    assert {row.version for row in runs.values()} == {version}


@pytest.mark.subprocess
async def test_a_version_whose_agent_exits_mid_run_is_not_also_probed(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """v1 (not the first version) ends in `AgentExited`: its elicitation row is
    one skip, with no probe rows beside it."""
    from acp_tui.client.errors import AgentExited
    from acp_tui.frontends import check

    real = check._session_checks

    async def exits_on_v1(run: Any, names: Any) -> None:
        if run.version == 1:
            raise AgentExited("the agent's output ended")
        await real(run, names)

    monkeypatch.setattr(check, "_session_checks", exits_on_v1)
    options = CheckOptions(
        command=AgentCommand(argv=(sys.executable, str(CHECK_AGENT), "ok")),
        name="check-agent",
        choice="auto",
        timeout=5,
    )
    report = await run_check(options)
    v1 = [row for row in report.rows if row.version == 1]
    elicitation = [row for row in v1 if row.name.startswith("elicitation")]
    assert [(row.name, row.result) for row in elicitation] == [("elicitation", "skip")]
