"""The demo agent on the wire: every message it sends, in every scenario and both
versions, validates against the reference schema; and the wire-level behaviours
(ordering around responses, negotiation, replay, errors) hold.

The recording client (`recorder.py`) talks raw JSON-RPC to a real
`python -m acp_tui.demo` process and keeps every line the agent writes.
"""

from __future__ import annotations

import base64
from pathlib import Path
from typing import Any, Final

import anyio
import pytest

from acp_tui.protocol.jsonrpc import RpcError
from tests.demo.recorder import JSON, Recorder, recording
from tests.demo.schema_check import SchemaReport, validate_messages
from tests.processes import pid_exists
from tests.spec_examples import SCHEMAS

pytestmark = pytest.mark.skipif(
    not SCHEMAS.is_dir(), reason=f"schemas missing: {SCHEMAS}"
)
SUBPROCESS: Final = pytest.mark.subprocess

SCENARIOS: Final = (
    ("hello there", "end_turn"),
    ("/help", "end_turn"),
    ("/markdown", "end_turn"),
    ("/plan", "end_turn"),
    ("/read", "end_turn"),
    ("/edit", "end_turn"),
    ("/files", "end_turn"),
    ("/run", "end_turn"),
    ("/stream", "end_turn"),
    ("/permission", "end_turn"),
    ("/misbehave", "refusal"),
    ("/title A renamed session", "end_turn"),
    ("/nonsense", "end_turn"),
)


def validate(recorder: Recorder) -> SchemaReport:
    """Check every message the agent sent; fail with every problem found."""
    report = validate_messages(recorder.version, recorder.messages, recorder.requested)
    assert not report.failures, "\n".join(report.failures[:30])
    return report


def kinds(updates: list[JSON]) -> list[str]:
    return [u["sessionUpdate"] for u in updates]


@SUBPROCESS
@pytest.mark.parametrize("version", [1, 2])
async def test_every_scenario_validates(version: int, project: Path) -> None:
    async with recording(version, terminal=version == 1) as rec:
        session = await rec.new_session(project)
        await rec.request(
            "session/set_config_option",
            {"sessionId": session, "configId": "mode", "value": "code"}
            | ({"type": "id"} if version == 2 else {}),
        )
        for prompt, expected in SCENARIOS:
            assert await rec.prompt(session, prompt) == expected, prompt
    initialize = rec.messages[0]["result"]
    assert initialize["protocolVersion"] == version
    if version == 2:
        assert initialize["info"]["name"] == "acp-tui-demo"
        assert initialize["capabilities"]["session"]["delete"] == {}
        assert initialize["capabilities"]["session"]["fork"] == {}
    else:
        caps = initialize["agentCapabilities"]
        assert caps["loadSession"] is True
        assert set(caps["sessionCapabilities"]) == {
            *("list", "resume", "close", "delete"),
            *("fork", "title", "archive", "status"),  # TS SDK 2.4 unstable
        }
    assert initialize["authMethods"] == []
    report = validate(rec)
    seen = set(report.checked)
    common = {
        "update agent_message_chunk",
        "update agent_thought_chunk",
        "update tool_call_update",
        "update available_commands_update",
        "update session_info_update",
        "update usage_update",
        "notification _demo/status",
        "result session/new",
        "result session/set_config_option",
        "result session/prompt",
    }
    if version == 2:
        expected_kinds = common | {
            "update user_message",
            "update state_update",
            "update plan_update",
            "update tool_call_content_chunk",
            "update terminal_update",
            "update terminal_output_chunk",
            "update _demo_sparkles",
            "request session/request_permission",
        }
    else:
        expected_kinds = common | {
            "update tool_call",
            "update plan",
            "request session/request_permission",
            "request terminal/create",
            "request terminal/wait_for_exit",
            "request terminal/output",
            "request terminal/release",
        }
    assert expected_kinds <= seen, expected_kinds - seen
    assert (
        await anyio.Path(project / "precious.txt").read_text()
        == "the user's own file\n"
    )
    assert sorted([p.name async for p in anyio.Path(project).iterdir()]) == [
        "precious.txt"
    ]


def index_of(recorder: Recorder, predicate: Any) -> int:
    return next(i for i, m in enumerate(recorder.messages) if predicate(m))


def is_response(request_id: Any) -> Any:
    return lambda m: "method" not in m and m.get("id") == request_id


def request_id(recorder: Recorder, method: str, nth: int = -1) -> Any:
    return [i for i, m in recorder.requested.items() if m == method][nth]


def is_update(kind: str) -> Any:
    return lambda m: (
        m.get("method") == "session/update"
        and m["params"]["update"]["sessionUpdate"] == kind
    )


# ------------------------------------------------------------------ negotiation


@SUBPROCESS
async def test_v2_number_with_v1_params_gets_v1_and_terminals_are_honoured(
    project: Path,
) -> None:
    async with recording(1, terminal=True, v2_number_with_v1_params=True) as rec:
        session = await rec.new_session(project)
        assert await rec.prompt(session, "/run") == "end_turn"
    assert rec.messages[0]["result"]["protocolVersion"] == 1
    methods = [r["method"] for r in rec.terminal_requests]
    assert methods == [
        "terminal/create",
        "terminal/wait_for_exit",
        "terminal/output",
        "terminal/release",
    ]
    create = rec.terminal_requests[0]["params"]
    script, steps, delay = create["args"][-3:]
    assert (steps, delay) == ("10", "0")
    assert Path(script).is_absolute()
    assert script.endswith("/tools/progress.py")
    # Run in the session's cwd (the client confines terminals to it); the
    # script itself lives in the demo's scratch workspace.
    assert create["cwd"] == str(project)
    call = [u for u in rec.updates(session) if u.get("toolCallId") == "call-1"]
    assert {"type": "terminal", "terminalId": "client-term-1"} in [
        item for u in call for item in u.get("content") or []
    ]
    validate(rec)


async def test_v1_without_client_terminals_embeds_the_output(project: Path) -> None:
    async with recording(1, terminal=False, in_process=True) as rec:
        session = await rec.new_session(project)
        assert await rec.prompt(session, "/run") == "end_turn"
    assert rec.terminal_requests == []
    final = [
        u
        for u in rec.updates(session)
        if u.get("toolCallId") == "call-1" and "content" in u
    ][-1]
    text = final["content"][0]["content"]["text"]
    assert "All 3 checks passed" in text
    assert "\x1b" not in text
    validate(rec)


# ------------------------------------------------------------------- ordering


async def test_v2_order_around_responses(project: Path) -> None:
    async with recording(2, in_process=True) as rec:
        session = await rec.new_session(project)
        new_id = request_id(rec, "session/new")
        assert await rec.prompt(session, "hello") == "end_turn"
        prompt_id = request_id(rec, "session/prompt")
    new = index_of(rec, is_response(new_id))
    assert index_of(rec, is_update("available_commands_update")) > new
    ack = index_of(rec, is_response(prompt_id))
    assert rec.messages[ack]["result"] == {}
    user = index_of(rec, is_update("user_message"))
    running = index_of(rec, is_update("state_update"))
    assert ack < user < running
    assert rec.messages[running]["params"]["update"]["state"] == "running"
    assert kinds(rec.updates(session))[-1] == "state_update"
    validate(rec)


@pytest.mark.parametrize("version", [1, 2])
async def test_replay_comes_before_the_response(version: int, project: Path) -> None:
    async with recording(version, in_process=True) as rec:
        session = await rec.new_session(project)
        await rec.prompt(session, "/stream")
        start = len(rec.messages)
        method, params = rec.replay_request(session, project)
        result = await rec.request(method, params)
        replay_id = request_id(rec, method)
    response = index_of(rec, is_response(replay_id))
    replayed = [m["params"]["update"] for m in rec.messages[start:response]]
    assert replayed, "nothing replayed"
    assert all(
        m.get("method") == "session/update" for m in rec.messages[start:response]
    )
    assert "configOptions" in result
    if version == 2:
        assert kinds(replayed)[:3] == [
            "user_message",
            "tool_call_update",
            "agent_message",
        ]
        tool = replayed[1]
        assert tool["status"] == "completed"
        assert len(tool["content"]) == 1
    else:
        assert kinds(replayed)[:2] == ["user_message_chunk", "tool_call"]
        assert result["modes"]["currentModeId"] == "ask"
    assert kinds(replayed)[-2:] == ["available_commands_update", "config_option_update"]
    validate(rec)


async def test_v2_replay_sends_terminal_snapshots(project: Path) -> None:
    async with recording(2, in_process=True) as rec:
        session = await rec.new_session(project)
        await rec.request(
            "session/set_config_option",
            {"sessionId": session, "configId": "mode", "type": "id", "value": "code"},
        )
        await rec.prompt(session, "/run")
        live = [
            u
            for u in rec.updates(session)
            if u["sessionUpdate"] == "terminal_output_chunk"
        ]
        start = len(rec.messages)
        await rec.request(
            "session/resume",
            {
                "sessionId": session,
                "cwd": str(project),
                "replayFrom": {"type": "start"},
            },
        )
    replayed = rec.updates(session, start)
    assert "terminal_output_chunk" not in kinds(replayed)
    (snapshot,) = [u for u in replayed if u["sessionUpdate"] == "terminal_update"]
    joined = b"".join(base64.b64decode(u["data"]) for u in live)
    assert base64.b64decode(snapshot["output"]["data"]) == joined
    assert snapshot["exitStatus"] == {"exitCode": 0}
    assert snapshot["command"] == "python tools/progress.py"
    validate(rec)


# --------------------------------------------------------------------- errors


@pytest.mark.parametrize("version", [1, 2])
async def test_errors(version: int, project: Path) -> None:
    async with recording(version, in_process=True) as rec:
        session = await rec.new_session(project)
        cases: list[tuple[str, JSON, int]] = [
            ("_demo/unknown", {}, -32601),
            (
                "auth/login" if version == 2 else "authenticate",
                {"methodId": "x"},
                -32601,
            ),
            ("session/new", {"cwd": "relative/path", "mcpServers": []}, -32602),
            (
                "session/prompt",
                {"sessionId": "demo-9999", "prompt": [{"type": "text", "text": "x"}]},
                -32002,
            ),
            ("session/prompt", {"sessionId": session, "prompt": []}, -32602),
            ("session/list", {"cursor": "not-a-cursor"}, -32602),
            (
                "session/set_config_option",
                {"sessionId": session, "configId": "nope", "value": "x"}
                | ({"type": "id"} if version == 2 else {}),
                -32602,
            ),
            (
                "session/set_config_option",
                {"sessionId": session, "configId": "mode", "value": "wild"}
                | ({"type": "id"} if version == 2 else {}),
                -32602,
            ),
            ("session/delete", {"sessionId": "../../etc"}, -32002),
            ("initialize", {"protocolVersion": version}, -32600),
        ]
        if version == 2:
            cases.append(
                (
                    "session/resume",
                    {
                        "sessionId": session,
                        "cwd": str(project),
                        "replayFrom": {"type": "_later"},
                    },
                    -32602,
                )
            )
            cases.append(("session/load", {"sessionId": session}, -32601))
        else:
            cases.append(
                ("session/set_mode", {"sessionId": session, "modeId": "wild"}, -32602)
            )
        for method, params, code in cases:
            with pytest.raises(RpcError) as caught:
                await rec.request(method, params)
            assert caught.value.code == code, (method, caught.value)
        # still alive and well
        assert await rec.prompt(session, "/help") == "end_turn"
    validate(rec)


async def test_requests_before_initialize_are_refused() -> None:
    from acp_tui.demo.pacing import Pace, clock_from_env
    from acp_tui.demo.server import DemoServer
    from acp_tui.demo.session import DemoAgent
    from acp_tui.protocol.dispatcher import RequestContext
    from acp_tui.protocol.transport import memory_pair

    a, b = memory_pair()
    async with a, b:
        server = DemoServer(DemoAgent(clock=clock_from_env(), pace=Pace(0)), a)
        with pytest.raises(RpcError) as caught:
            await server.handle_request(
                "session/new", {"cwd": "/"}, RequestContext(1, "session/new")
            )
        assert caught.value.code == -32600


@SUBPROCESS
async def test_stopping_the_agent_kills_its_commands(project: Path) -> None:
    """The client closes the agent's stdin mid-command: the command dies too."""
    async with recording(2) as rec:
        session = await rec.new_session(project)
        await rec.request(
            "session/set_config_option",
            {"sessionId": session, "configId": "mode", "type": "id", "value": "code"},
        )
        await rec.start_prompt(session, "/run long")
        chunk = await rec.until(is_update("terminal_output_chunk"))
        del chunk
        cwd = next(
            u["cwd"]
            for u in rec.updates(session)
            if u["sessionUpdate"] == "terminal_update"
        )
        pid = int(await anyio.Path(cwd, "run.pid").read_text())
    assert not pid_exists(pid)
