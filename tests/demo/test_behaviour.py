"""What the demo agent does: modes, options, permissions, cancellation, sessions.

These run the real server in-process over the project's in-memory link (fast);
every message is still recorded and validated against the schema.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import anyio
import pytest

from acp_tui.demo.workspace import SEED_FILES
from acp_tui.protocol.jsonrpc import RpcError
from acp_tui.storage import paths
from tests.demo.recorder import BOUND, JSON, Recorder, allow_always, recording, reject
from tests.demo.schema_check import validate_messages
from tests.processes import pid_exists
from tests.spec_examples import SCHEMAS

pytestmark = pytest.mark.skipif(
    not SCHEMAS.is_dir(), reason=f"schemas missing: {SCHEMAS}"
)

VERSIONS = pytest.mark.parametrize("version", [1, 2])


def validate(recorder: Recorder) -> None:
    report = validate_messages(recorder.version, recorder.messages, recorder.requested)
    assert not report.failures, "\n".join(report.failures[:30])


def kinds(updates: list[JSON]) -> list[str]:
    return [u["sessionUpdate"] for u in updates]


def workspace(home: Path, session: str) -> Path:
    return home / "data" / "demo" / "workspaces" / session


async def set_option(rec: Recorder, session: str, option: str, value: str) -> JSON:
    params: JSON = {"sessionId": session, "configId": option, "value": value}
    if rec.version == 2:
        params["type"] = "id"
    result: JSON = await rec.request("session/set_config_option", params)
    return result


def text_of(updates: list[JSON], kind: str) -> str:
    return "".join(
        u["content"].get("text", "") for u in updates if u["sessionUpdate"] == kind
    )


def tool_updates(updates: list[JSON], tool_call_id: str) -> list[JSON]:
    return [u for u in updates if u.get("toolCallId") == tool_call_id]


# ----------------------------------------------------------------- options


@VERSIONS
async def test_plan_mode_never_edits_and_switches_to_code_once(
    version: int, project: Path, demo_env: Path
) -> None:
    async with recording(version, in_process=True) as rec:
        session = await rec.new_session(project)
        result = await set_option(rec, session, "mode", "plan")
        assert result["configOptions"][0]["currentValue"] == "plan"
        greeting = workspace(demo_env, session) / "src" / "greeting.py"
        start = len(rec.messages)
        assert await rec.prompt(session, "/edit") == "end_turn"
        turn = rec.updates(session, start)
        assert greeting.read_text() == SEED_FILES["src/greeting.py"]
        assert "plan_update" in kinds(turn) or "plan" in kinds(turn)
        switches = [u for u in turn if u["sessionUpdate"] == "config_option_update"]
        (switch,) = switches
        assert switch["configOptions"][0]["currentValue"] == "code"
        if version == 1:
            assert {
                "sessionUpdate": "current_mode_update",
                "currentModeId": "code",
            } in turn
        assert any(u.get("kind") == "switch_mode" for u in turn)
        assert "never edit files" in text_of(turn, "agent_message_chunk")
        # Back to plan mode: still never edits, but no second switch.
        await set_option(rec, session, "mode", "plan")
        for prompt in ("/edit", "/files", "/run", "/permission"):
            start = len(rec.messages)
            assert await rec.prompt(session, prompt) == "end_turn"
            turn = rec.updates(session, start)
            assert "config_option_update" not in kinds(turn)
            assert "terminal_update" not in kinds(turn)
            assert rec.permissions == []
        root = workspace(demo_env, session)
        assert greeting.read_text() == SEED_FILES["src/greeting.py"]
        assert (root / "build.log").is_file()
        assert not (root / "docs" / "guide.md").exists()
    validate(rec)


@VERSIONS
async def test_ask_mode_asks_and_code_mode_does_not(
    version: int, project: Path
) -> None:
    async with recording(version, in_process=True) as rec:
        session = await rec.new_session(project)
        assert await rec.prompt(session, "/edit") == "end_turn"
        assert len(rec.permissions) == 1  # ask mode (the default)
        await set_option(rec, session, "mode", "code")
        assert await rec.prompt(session, "/edit") == "end_turn"
        assert await rec.prompt(session, "/run") == "end_turn"
        assert len(rec.permissions) == 1  # code mode just acts
    validate(rec)


@VERSIONS
async def test_thought_level_changes_the_thoughts(version: int, project: Path) -> None:
    async with recording(version, in_process=True) as rec:
        session = await rec.new_session(project)
        lengths = {}
        for level in ("low", "medium", "high"):
            await set_option(rec, session, "thought_level", level)
            start = len(rec.messages)
            await rec.prompt(session, "hello")
            lengths[level] = len(
                text_of(rec.updates(session, start), "agent_thought_chunk")
            )
        assert 0 < lengths["low"] < lengths["medium"] < lengths["high"]
    validate(rec)


@VERSIONS
async def test_model_changes_the_label_and_the_context(
    version: int, project: Path
) -> None:
    async with recording(version, in_process=True) as rec:
        session = await rec.new_session(project)
        result = await set_option(rec, session, "model", "demo-deep")
        model = result["configOptions"][1]
        assert model["currentValue"] == "demo-deep"
        assert model["category"] == "model"
        group = "groupId" if version == 2 else "group"
        assert [g[group] for g in model["options"]] == ["fast", "thorough"]
        start = len(rec.messages)
        await rec.prompt(session, "hello")
        turn = rec.updates(session, start)
        assert "Demo Deep" in text_of(turn, "agent_message_chunk")
        (usage,) = [u for u in turn if u["sessionUpdate"] == "usage_update"]
        assert usage["size"] == 200_000
        assert usage["cost"]["currency"] == "USD"
    validate(rec)


async def test_v1_set_mode_is_followed_by_the_option_list(project: Path) -> None:
    async with recording(1, in_process=True) as rec:
        session = await rec.new_session(project)
        start = len(rec.messages)
        assert (
            await rec.request(
                "session/set_mode", {"sessionId": session, "modeId": "code"}
            )
            == {}
        )
        update = await rec.until(
            lambda m: (
                m.get("method") == "session/update"
                and m["params"]["update"]["sessionUpdate"] == "config_option_update"
            ),
            start,
        )
        assert update["params"]["update"]["configOptions"][0]["currentValue"] == "code"
        assert await rec.prompt(session, "/edit") == "end_turn"
        assert rec.permissions == []  # code mode
    validate(rec)


# ------------------------------------------------------------- permissions


@VERSIONS
async def test_rejected_edit_does_nothing_and_says_so(
    version: int, project: Path, demo_env: Path
) -> None:
    async with recording(version, in_process=True, permission=reject) as rec:
        session = await rec.new_session(project)
        start = len(rec.messages)
        assert await rec.prompt(session, "/edit") == "end_turn"
        turn = rec.updates(session, start)
        (request,) = rec.permissions
        if version == 2:
            assert request["subject"]["type"] == "tool_call"
            assert request["title"] == "Allow the demo agent to edit two files?"
            assert "requires_action" in [u.get("state") for u in turn]
        statuses = [u["status"] for u in tool_updates(turn, "call-1") if "status" in u]
        assert statuses == ["pending", "failed"]
        assert "did **not**" in text_of(turn, "agent_message_chunk")
        root = workspace(demo_env, session)
        assert (root / "src" / "greeting.py").read_text() == SEED_FILES[
            "src/greeting.py"
        ]
        assert not (root / "src" / "farewell.py").exists()
    validate(rec)


@VERSIONS
async def test_allow_always_is_remembered_for_the_session(
    version: int, project: Path
) -> None:
    async with recording(version, in_process=True, permission=allow_always) as rec:
        session = await rec.new_session(project)
        await rec.prompt(session, "/permission")
        assert len(rec.permissions) == 2
        start = len(rec.messages)
        await rec.prompt(session, "/permission")
        await rec.prompt(session, "/edit")
        assert len(rec.permissions) == 2  # not asked again
        said = text_of(rec.updates(session, start), "agent_message_chunk")
        assert "won't ask again" in said
        assert "always allow edit, execute" in said
        other = await rec.new_session(project)
        await rec.prompt(other, "/edit")
        assert len(rec.permissions) == 3  # only for that session
    # ... and after a restart, for the resumed session too.
    async with recording(version, in_process=True, permission=reject) as rec:
        if version == 2:
            await rec.request(
                "session/resume", {"sessionId": session, "cwd": str(project)}
            )
        else:
            await rec.request(
                "session/resume",
                {"sessionId": session, "cwd": str(project), "mcpServers": []},
            )
        await rec.prompt(session, "/permission")
        assert rec.permissions == []
    validate(rec)


@VERSIONS
async def test_a_session_opened_in_its_workspaces_works_there(
    version: int, project: Path, demo_env: Path
) -> None:
    """acp-tui opens demo sessions in `paths.demo_project_dir()`: the demo works in
    that directory (seeded), so the session's paths lie in its `cwd`; deleting
    a session leaves the shared directory. Any other `cwd` is only reported."""
    scratch = paths.demo_project_dir()
    scratch.mkdir(parents=True)
    async with recording(version, in_process=True) as rec:
        session = await rec.new_session(scratch)
        start = len(rec.messages)
        assert await rec.prompt(session, "/edit") == "end_turn"
        named = json.dumps(rec.updates(session, start))
        assert f"{scratch}/src/greeting.py" in named
        assert str(workspace(demo_env, session)) not in named
        assert (scratch / "src" / "farewell.py").exists()
        assert not workspace(demo_env, session).exists()
        if version == 2:  # what it asks names the files as a project's
            (asked,) = rec.permissions
            assert asked["description"] == (
                "It will change src/greeting.py and create src/farewell.py in its "
                "scratch workspace."
            )
        other = await rec.new_session(project)
        assert workspace(demo_env, other).is_dir()
        assert not (project / "README.md").exists()  # never in the user's files
        third = await rec.new_session(scratch)
        assert await rec.request("session/delete", {"sessionId": third}) == {}
        assert (scratch / "README.md").exists()
    async with recording(version, in_process=True) as rec:  # reopened from disk
        params: JSON = {"sessionId": session, "cwd": str(scratch)}
        if version == 1:
            params["mcpServers"] = []
        await rec.request("session/resume", params)
        start = len(rec.messages)
        await rec.prompt(session, "/read")
        assert f"{scratch}/src/greeting.py" in json.dumps(rec.updates(session, start))
        assert not workspace(demo_env, session).exists()
    validate(rec)


# ------------------------------------------------------------ cancellation


@VERSIONS
async def test_cancel_stops_streaming(version: int, project: Path) -> None:
    async with recording(version, in_process=True) as rec:
        session = await rec.new_session(project)
        start = len(rec.messages)
        wait = await rec.start_prompt(session, "/long")
        await rec.until(
            lambda m: (
                m.get("method") == "session/update"
                and m["params"]["update"]["sessionUpdate"] == "agent_message_chunk"
            ),
            start,
        )
        await rec.cancel(session)
        assert await wait() == "cancelled"
        turn = rec.updates(session, start)
        said = text_of(turn, "agent_message_chunk")
        assert "Paragraph 1" in said
        assert "Paragraph 40" not in said
        assert said.endswith("⏹ Cancelled: I stopped streaming.")
        if version == 2:
            assert turn[-1] == {
                "sessionUpdate": "state_update",
                "state": "idle",
                "stopReason": "cancelled",
            }
        # The session goes on.
        assert await rec.prompt(session, "/help") == "end_turn"
    validate(rec)


@pytest.mark.parametrize(("version", "terminal"), [(1, False), (1, True), (2, False)])
async def test_cancel_kills_the_running_command(
    version: int, terminal: bool, project: Path, demo_env: Path
) -> None:
    async with recording(version, terminal=terminal, in_process=True) as rec:
        session = await rec.new_session(project)
        await set_option(rec, session, "mode", "code")
        start = len(rec.messages)
        wait = await rec.start_prompt(session, "/run long")
        pid_file = workspace(demo_env, session) / "run.pid"
        if terminal:
            with anyio.fail_after(BOUND):
                await rec.client_output.wait()
        else:
            await rec.until(
                lambda m: (
                    "Building" in json.dumps(m.get("params", {}))
                    or "terminal_output_chunk" in json.dumps(m.get("params", {}))
                ),
                start,
            )
        # The script writes its pid before it prints anything.
        pid = int(await anyio.Path(pid_file).read_text())
        await rec.cancel(session)
        assert await wait() == "cancelled"
        turn = rec.updates(session, start)
        if terminal:
            assert "terminal/kill" in [r["method"] for r in rec.terminal_requests]
            assert rec.terminal_requests[-1]["method"] == "terminal/release"
        assert not pid_exists(pid)
        status = [u["status"] for u in tool_updates(turn, "call-1") if "status" in u][
            -1
        ]
        assert status == ("cancelled" if version == 2 else "failed")
        if version == 2:
            (exited,) = [
                u
                for u in turn
                if u["sessionUpdate"] == "terminal_update" and "exitStatus" in u
            ]
            assert exited["exitStatus"]["signal"] in ("SIGTERM", "SIGKILL")
        said = text_of(turn, "agent_message_chunk")
        assert "I stopped `python tools/progress.py (long)`" in said
    validate(rec)


@VERSIONS
async def test_cancel_while_a_permission_is_pending(
    version: int, project: Path, demo_env: Path
) -> None:
    async with recording(version, in_process=True) as rec:
        rec.hold_permissions = True
        session = await rec.new_session(project)
        start = len(rec.messages)
        wait = await rec.start_prompt(session, "/edit")
        await rec.until(
            lambda m: m.get("method") == "session/request_permission", start
        )
        await rec.cancel(session)
        rec.release.set()  # the client answers the pending request `cancelled`
        assert await wait() == "cancelled"
        turn = rec.updates(session, start)
        status = [u["status"] for u in tool_updates(turn, "call-1") if "status" in u][
            -1
        ]
        assert status == ("cancelled" if version == 2 else "failed")
        greeting = workspace(demo_env, session) / "src" / "greeting.py"
        assert greeting.read_text() == SEED_FILES["src/greeting.py"]
    validate(rec)


@VERSIONS
@pytest.mark.parametrize("prompt", ["/long", "/edit"])
async def test_close_cancels_the_running_turn(
    version: int, prompt: str, project: Path
) -> None:
    async with recording(version, in_process=True) as rec:
        rec.hold_permissions = True  # /edit: the client never answers
        session = await rec.new_session(project)
        start = len(rec.messages)
        wait = await rec.start_prompt(session, prompt)
        await rec.until(
            lambda m: (
                m.get("method") == "session/request_permission"
                or (
                    m.get("method") == "session/update"
                    and m["params"]["update"]["sessionUpdate"] == "agent_message_chunk"
                )
            ),
            start,
        )
        with anyio.fail_after(2):  # not the permission grace: it is withdrawn
            assert await rec.request("session/close", {"sessionId": session}) == {}
            assert await wait() == "cancelled"
        if prompt == "/edit":
            assert any(m.get("method") == "$/cancel_request" for m in rec.messages)
        rec.release.set()
        with pytest.raises(RpcError) as caught:
            await rec.request(
                "session/prompt",
                {"sessionId": session, "prompt": [{"type": "text", "text": "hi"}]},
            )
        assert caught.value.code == -32002  # closed: resume first
    validate(rec)


# ----------------------------------------------------------------- sessions


async def list_all(rec: Recorder, params: JSON) -> list[JSON]:
    sessions: list[JSON] = []
    while True:
        page = await rec.request("session/list", params)
        sessions += page["sessions"]
        if "nextCursor" not in page:
            return sessions
        params = {**params, "cursor": page["nextCursor"]}


@VERSIONS
async def test_list_pages_filters_deletes(
    version: int, project: Path, tmp_path: Path, demo_env: Path
) -> None:
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    async with recording(version, in_process=True) as rec:
        ours = [await rec.new_session(project) for _ in range(4)]
        theirs = [await rec.new_session(elsewhere) for _ in range(2)]
        empty = await rec.new_session(project)  # never prompted: not listed
        await rec.prompt(ours[0], "/title First of ours")
        for session in [*ours[1:], *theirs]:
            await rec.prompt(session, "/title Another")
        listed: list[JSON] = []
        cursors = []
        params: JSON = {}
        while True:
            page = await rec.request("session/list", params)
            assert len(page["sessions"]) <= 3
            listed += page["sessions"]
            if "nextCursor" not in page:
                break
            cursors.append(page["nextCursor"])
            params = {"cursor": page["nextCursor"]}
        assert len(cursors) == 1
        assert sorted(s["sessionId"] for s in listed) == sorted(ours + theirs)
        assert {s["sessionId"]: s.get("title") for s in listed}[
            ours[0]
        ] == "First of ours"
        assert all(s["updatedAt"].endswith("Z") for s in listed)
        mine = await list_all(rec, {"cwd": str(project)})
        assert sorted(s["sessionId"] for s in mine) == sorted(ours)
        assert all(s["cwd"] == str(project) for s in mine)
        assert await rec.request("session/delete", {"sessionId": ours[1]}) == {}
        assert not workspace(demo_env, ours[1]).exists()
        remaining = await list_all(rec, {"cwd": str(elsewhere)})
        assert sorted(s["sessionId"] for s in remaining) == sorted(theirs)
        everything = [s["sessionId"] for s in await list_all(rec, {})]
        assert ours[1] not in everything
        assert empty not in everything
        assert len(everything) == 5
    validate(rec)


async def test_runs_are_deterministic(
    project: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The same prompts in two fresh data dirs give the same messages."""

    async def run(home: Path) -> list[Any]:
        monkeypatch.setenv("ACP_TUI_HOME", str(home))
        async with recording(2, in_process=True) as rec:
            session = await rec.new_session(project)
            await set_option(rec, session, "mode", "code")
            for prompt in ("hello", "/edit", "/files", "/run", "/misbehave"):
                await rec.prompt(session, prompt)
        output = b"".join(
            __import__("base64").b64decode(u["data"])
            for u in rec.updates()
            if u["sessionUpdate"] == "terminal_output_chunk"
        )
        messages = [
            m
            for m in rec.messages
            if not (
                m.get("method") == "session/update"
                and m["params"]["update"]["sessionUpdate"] == "terminal_output_chunk"
            )
        ]
        text = json.dumps(messages).replace(str(home), "<home>")
        return [json.loads(text), output]

    first = await run(tmp_path / "one")
    second = await run(tmp_path / "two")
    assert first == second
