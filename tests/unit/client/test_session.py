"""`AcpClient` against a scripted in-process agent (ACP v1 and v2).

The agent is the test itself (`tests/unit/client/peer.py`): it reads the client's
JSON lines from a `memory_pair()` link and writes replies, updates and requests by
hand, so every interleaving below is exactly the one written. Checklist sections
4.4 (sessions), 4.5 (prompt lifecycle), 4.11 (permissions), 4.12 (cancellation)
and 6 (v1 client methods).
"""

from __future__ import annotations

import base64
from pathlib import Path

import anyio
import pytest

from acp_tui.client.connection import ClientFeatures
from acp_tui.client.ports import PermissionRequest
from acp_tui.client.session import AcpClient, SessionSummary, UnsupportedOperation
from acp_tui.config import McpServerSettings
from acp_tui.protocol.jsonrpc import RpcError
from acp_tui.protocol.transport import ConnectionClosed
from acp_tui.store.store import SessionStore
from tests.unit.client.peer import (
    CWD,
    JSON,
    Call,
    Harness,
    ScriptedPrompter,
    open_harness,
    v1_init,
    v2_init,
)

VERSIONS = [pytest.param(1, id="v1"), pytest.param(2, id="v2")]

OPTIONS: list[JSON] = [
    {"optionId": "allow", "name": "Allow", "kind": "allow_once"},
    {"optionId": "reject", "name": "Reject", "kind": "reject_once"},
]
CANCELLED: JSON = {"outcome": {"outcome": "cancelled"}}


def text(value: str) -> JSON:
    return {"type": "text", "text": value}


def b64(data: bytes) -> str:
    return base64.b64encode(data).decode()


def init_for(version: int) -> JSON:
    return v1_init() if version == 1 else v2_init({})


def state(value: str, stop_reason: str | None = None) -> JSON:
    update: JSON = {"sessionUpdate": "state_update", "state": value}
    if stop_reason is not None:
        update["stopReason"] = stop_reason
    return update


def tool_call(version: int, tool_call_id: str, status: str) -> JSON:
    """A tool call's first report: v1 `tool_call`, v2 `tool_call_update`."""
    kind = "tool_call" if version == 1 else "tool_call_update"
    return {
        "sessionUpdate": kind,
        "toolCallId": tool_call_id,
        "title": f"Tool {tool_call_id}",
        "status": status,
    }


def permission(version: int, tool_call_id: str, session_id: str = "s1") -> JSON:
    """Permission request params about tool call `tool_call_id`."""
    if version == 1:
        return {
            "sessionId": session_id,
            "toolCall": {"toolCallId": tool_call_id},
            "options": OPTIONS,
        }
    return {
        "sessionId": session_id,
        "title": f"Run {tool_call_id}?",
        "subject": {"type": "tool_call", "toolCall": {"toolCallId": tool_call_id}},
        "options": OPTIONS,
    }


def messages(store: SessionStore) -> list[tuple[str, str, str]]:
    return [(m.message_id, m.role, m.text) for m in store.messages()]


async def start_turn(
    h: Harness, version: int, blocks: list[JSON] | None = None
) -> tuple[Call[str | None], JSON]:
    """Start `prompt()`; v2: acknowledge it. Returns the call and the request."""
    call = h.start(h.client.prompt, "s1", blocks or [text("hi")])
    request = await h.peer.expect_request("session/prompt")
    if version == 2:
        await h.peer.reply(request, {})
        await h.peer.update("s1", state("running"))
    return call, request


async def end_turn(h: Harness, version: int, request: JSON, stop_reason: str) -> None:
    if version == 1:
        await h.peer.reply(request, {"stopReason": stop_reason})
    else:
        await h.peer.update("s1", state("idle", stop_reason))


# -- prompt lifecycle, v2 ------------------------------------------------------------


@pytest.mark.parametrize("ack", [{}, {"messageId": "u1"}], ids=["ack-empty", "ack-id"])
@pytest.mark.parametrize("user_first", [False, True], ids=["ack-first", "user-first"])
async def test_v2_prompt_runs_until_idle(ack: JSON, user_first: bool) -> None:
    async with open_harness(v2_init({})) as h:
        store = await h.new_session()
        call = h.start(h.client.prompt, "s1", [text("hi")])
        request = await h.peer.expect_request("session/prompt")
        assert request["params"] == {"sessionId": "s1", "prompt": [text("hi")]}
        user_message = {
            "sessionUpdate": "user_message",
            "messageId": "u1",
            "content": [text("hi")],
        }
        if user_first:
            await h.peer.update("s1", user_message)
        await h.peer.reply(request, ack)
        if not user_first:
            await h.peer.update("s1", user_message)
        await h.peer.update("s1", state("running"))
        await h.peer.update(
            "s1",
            {
                "sessionUpdate": "agent_message_chunk",
                "messageId": "m1",
                "content": text("hello"),
            },
        )
        await h.peer.sync()
        assert not call.done.is_set()  # the ack is not the end of the turn
        assert store.state.is_busy
        await h.peer.update("s1", state("idle", "end_turn"))
        assert await call.wait() == "end_turn"
        assert messages(store) == [("u1", "user", "hi"), ("m1", "agent", "hello")]
        assert store.state.state == "idle"
        assert store.state.stop_reason == "end_turn"
        assert h.peer.inbox == []


async def test_v2_idle_without_stop_reason_before_running_does_not_end_turn() -> None:
    async with open_harness(v2_init({})) as h:
        store = await h.new_session()
        call = h.start(h.client.prompt, "s1", [text("hi")])
        request = await h.peer.expect_request("session/prompt")
        await h.peer.reply(request, {})
        await h.peer.update("s1", state("idle"))  # stale: not this turn's end
        await h.peer.sync()
        assert not call.done.is_set()
        await h.peer.update("s1", state("running"))
        await h.peer.sync()
        assert not call.done.is_set()
        await h.peer.update("s1", state("idle"))  # after running: the end
        assert await call.wait() is None
        assert store.state.is_idle


async def test_v2_idle_with_stop_reason_ends_turn_even_without_running() -> None:
    async with open_harness(v2_init({})) as h:
        await h.new_session()
        call = h.start(h.client.prompt, "s1", [text("hi")])
        request = await h.peer.expect_request("session/prompt")
        await h.peer.reply(request, {"messageId": "u1"})
        await h.peer.update("s1", state("idle", "refusal"))
        assert await call.wait() == "refusal"


async def test_v2_background_updates_while_idle_are_applied() -> None:
    async with open_harness(v2_init({})) as h:
        store = await h.new_session()
        await h.peer.update(
            "s1",
            {
                "sessionUpdate": "agent_message",
                "messageId": "m0",
                "content": [text("bg")],
            },
        )
        await h.peer.update("s1", tool_call(2, "tc0", "in_progress"))
        await h.peer.sync()
        assert messages(store) == [("m0", "agent", "bg")]
        tool = store.tool_call("tc0")
        assert tool is not None
        assert tool.status == "in_progress"
        assert store.state.is_idle  # updates alone do not change the state
        # agent-started work: running -> idle with no prompt
        await h.peer.update("s1", state("running"))
        await h.peer.update("s1", state("idle", "end_turn"))
        await h.peer.sync()
        assert store.state.is_idle
        assert store.state.turns_ended == 1
        # and a prompt afterwards still waits for its own end
        call, request = await start_turn(h, 2)
        await h.peer.sync()
        assert not call.done.is_set()
        await end_turn(h, 2, request, "end_turn")
        assert await call.wait() == "end_turn"


async def test_v2_prompt_error_raises() -> None:
    async with open_harness(v2_init({})) as h:
        store = await h.new_session()
        call = h.start(h.client.prompt, "s1", [text("hi")])
        request = await h.peer.expect_request("session/prompt")
        await h.peer.reply_error(request, -32602, "Invalid params", "bad prompt")
        with pytest.raises(RpcError) as raised:
            await call.wait()
        assert raised.value.code == -32602
        assert store.state.is_idle
        # the failed prompt leaves nothing behind: the next turn works normally
        call, request = await start_turn(h, 2)
        await end_turn(h, 2, request, "end_turn")
        assert await call.wait() == "end_turn"


async def test_v2_prompt_fails_when_the_connection_ends_mid_turn() -> None:
    async with open_harness(v2_init({})) as h:
        await h.new_session()
        call, _ = await start_turn(h, 2)
        await h.peer.sync()
        await h.peer.endpoint.aclose()  # the agent dies before reporting idle
        with pytest.raises(ConnectionClosed), anyio.fail_after(0.5):
            await call.wait()


# -- prompt lifecycle, v1 ------------------------------------------------------------


async def test_v1_prompt_response_ends_turn() -> None:
    async with open_harness(v1_init()) as h:
        store = await h.new_session()
        blocks = [
            text("fix it"),
            {"type": "resource_link", "uri": "file:///a", "name": "a"},
        ]
        call = h.start(h.client.prompt, "s1", blocks)
        request = await h.peer.expect_request("session/prompt")
        assert request["params"] == {"sessionId": "s1", "prompt": blocks}
        assert store.state.state == "running"
        [user] = store.messages()
        assert user.role == "user"
        assert list(user.content) == blocks
        await h.peer.update(
            "s1", {"sessionUpdate": "agent_message_chunk", "content": text("on ")}
        )
        await h.peer.update(
            "s1", {"sessionUpdate": "agent_message_chunk", "content": text("it")}
        )
        await h.peer.sync()
        assert not call.done.is_set()
        await h.peer.reply(request, {"stopReason": "max_tokens"})
        assert await call.wait() == "max_tokens"
        assert store.state.state == "idle"
        assert store.state.stop_reason == "max_tokens"
        assert [(m.role, m.text) for m in store.messages()] == [
            ("user", "fix it"),
            ("agent", "on it"),
        ]
        # the next turn's user message is a new message
        call = h.start(h.client.prompt, "s1", [text("again")])
        request = await h.peer.expect_request("session/prompt")
        await h.peer.reply(request, {"stopReason": "end_turn"})
        assert await call.wait() == "end_turn"
        assert [m.text for m in store.messages()] == ["fix it", "on it", "again"]


async def test_v1_prompt_error_raises_and_leaves_idle() -> None:
    async with open_harness(v1_init()) as h:
        store = await h.new_session()
        call = h.start(h.client.prompt, "s1", [text("hi")])
        request = await h.peer.expect_request("session/prompt")
        assert store.state.is_busy
        await h.peer.reply_error(request, -32603, "Internal error")
        with pytest.raises(RpcError) as raised:
            await call.wait()
        assert raised.value.code == -32603
        assert store.state.is_idle
        assert store.state.stop_reason is None


async def test_v1_prompt_connection_end_raises_and_leaves_idle() -> None:
    async with open_harness(v1_init()) as h:
        store = await h.new_session()
        call = h.start(h.client.prompt, "s1", [text("hi")])
        await h.peer.expect_request("session/prompt")
        await h.peer.endpoint.aclose()
        with pytest.raises(ConnectionClosed):
            await call.wait()
        assert store.state.is_idle


# -- cancellation ----------------------------------------------------------------------


@pytest.mark.parametrize("version", VERSIONS)
async def test_cancel_answers_every_pending_permission_and_waits_for_the_end(
    version: int,
) -> None:
    async with open_harness(init_for(version)) as h:
        store = await h.new_session()
        call, request = await start_turn(h, version)
        await h.peer.update("s1", tool_call(version, "tc1", "in_progress"))
        await h.peer.update("s1", tool_call(version, "tc2", "completed"))
        await h.peer.update("s1", tool_call(version, "tc3", "pending"))
        # two requests open at once (the cascading case)
        first = await h.peer.request(
            "session/request_permission", permission(version, "tc1")
        )
        second = await h.peer.request(
            "session/request_permission", permission(version, "tc3")
        )
        ask1 = await h.prompter.next()
        ask2 = await h.prompter.next()
        assert len(store.pending_permissions()) == 2

        await h.client.cancel("s1")
        cancel = await h.peer.expect_notification("session/cancel")
        assert cancel == {
            "jsonrpc": "2.0",
            "method": "session/cancel",
            "params": {"sessionId": "s1"},
        }
        assert (await h.peer.expect_response(first))["result"] == CANCELLED
        assert (await h.peer.expect_response(second))["result"] == CANCELLED
        assert ask1.cancelled
        assert ask2.cancelled
        statuses = {t.tool_call_id: t.status for t in store.tool_calls()}
        assert statuses == {"tc1": "cancelled", "tc2": "completed", "tc3": "cancelled"}
        assert store.pending_permissions() == ()
        assert [p.outcome for p in store.permissions()] == [CANCELLED["outcome"]] * 2

        # the agent withdraws the (already answered) requests: nothing more is sent
        await h.peer.notify("$/cancel_request", {"requestId": first})
        await h.peer.notify("$/cancel_request", {"requestId": second})
        # late updates are still applied
        await h.peer.update(
            "s1",
            {
                "sessionUpdate": "tool_call_update",
                "toolCallId": "tc1",
                "status": "failed",
                "rawOutput": {"partial": True},
            },
        )
        await h.peer.sync()
        assert not call.done.is_set()  # cancel does not end the turn by itself
        late = store.tool_call("tc1")
        assert late is not None
        assert (late.status, late.raw_output) == ("failed", {"partial": True})

        await end_turn(h, version, request, "cancelled")
        assert await call.wait() == "cancelled"
        assert store.state.is_idle
        assert store.state.stop_reason == "cancelled"
        assert h.peer.inbox == []


def statuses(store: SessionStore) -> dict[str, str]:
    return {t.tool_call_id: t.status for t in store.tool_calls()}


@pytest.mark.parametrize("version", VERSIONS)
async def test_cancel_marks_only_the_current_works_tool_calls(version: int) -> None:
    """Checklist 4.12.2: the unfinished tool calls *of the current work*; one an
    earlier turn left unfinished is not this cancel's to settle."""
    async with open_harness(init_for(version)) as h:
        store = await h.new_session()
        call, request = await start_turn(h, version)
        await h.peer.update("s1", tool_call(version, "earlier", "in_progress"))
        await end_turn(h, version, request, "end_turn")
        assert await call.wait() == "end_turn"
        call, request = await start_turn(h, version)
        await h.peer.update("s1", tool_call(version, "tc1", "in_progress"))
        await h.peer.update("s1", tool_call(version, "tc2", "completed"))
        await h.peer.sync()
        await h.client.cancel("s1")
        assert statuses(store) == {
            "earlier": "in_progress",
            "tc1": "cancelled",
            "tc2": "completed",
        }
        await end_turn(h, version, request, "cancelled")
        assert await call.wait() == "cancelled"
        assert statuses(store)["earlier"] == "in_progress"


@pytest.mark.parametrize("stop_reason", ["cancelled", "end_turn"])
@pytest.mark.parametrize("version", VERSIONS)
async def test_tool_calls_left_unfinished_when_cancelled_work_ends_are_cancelled(
    version: int, stop_reason: str
) -> None:
    """Late updates are applied until the cancelled work ends (4.12.4); what is
    still unfinished then never will be. (opencode ends a cancelled turn with
    `end_turn`.)"""
    async with open_harness(init_for(version)) as h:
        store = await h.new_session()
        call, request = await start_turn(h, version)
        await h.peer.update("s1", tool_call(version, "tc1", "in_progress"))
        await h.peer.sync()
        await h.client.cancel("s1")
        assert statuses(store) == {"tc1": "cancelled"}
        # Sent before the agent saw the cancel: a new call, and tc1 reported again.
        await h.peer.update("s1", tool_call(version, "late", "pending"))
        await h.peer.update(
            "s1",
            {
                "sessionUpdate": "tool_call_update",
                "toolCallId": "tc1",
                "status": "in_progress",
            },
        )
        await h.peer.update("s1", tool_call(version, "done", "completed"))
        await h.peer.sync()
        assert statuses(store) == {
            "tc1": "in_progress",
            "late": "pending",
            "done": "completed",
        }
        await end_turn(h, version, request, stop_reason)
        assert await call.wait() == stop_reason
        assert statuses(store) == {
            "tc1": "cancelled",
            "late": "cancelled",
            "done": "completed",
        }
        # The next turn's tool calls are its own.
        call, request = await start_turn(h, version)
        await h.peer.update("s1", tool_call(version, "next", "in_progress"))
        await end_turn(h, version, request, "end_turn")
        assert await call.wait() == "end_turn"
        assert statuses(store)["next"] == "in_progress"


async def test_v2_cancel_of_agent_started_work_marks_its_tool_calls() -> None:
    async with open_harness(v2_init({})) as h:
        store = await h.new_session()
        await h.peer.update("s1", tool_call(2, "before", "in_progress"))
        await h.peer.update("s1", state("idle", "end_turn"))
        await h.peer.update("s1", state("running"))  # the agent starts work itself
        await h.peer.update("s1", tool_call(2, "bg", "pending"))
        await h.peer.sync()
        await h.client.cancel("s1")
        assert statuses(store) == {"before": "in_progress", "bg": "cancelled"}
        await h.peer.update("s1", state("idle", "cancelled"))
        await h.peer.sync()
        assert statuses(store) == {"before": "in_progress", "bg": "cancelled"}


@pytest.mark.parametrize("version", VERSIONS)
async def test_permission_arriving_after_cancel_is_cancelled(version: int) -> None:
    async with open_harness(init_for(version)) as h:
        await h.new_session()
        call, request = await start_turn(h, version)
        await h.client.cancel("s1")
        await h.peer.expect_notification("session/cancel")
        # sent before the agent saw the cancel: still part of the cancelled work
        response = await h.peer.call(
            "session/request_permission", permission(version, "tc9")
        )
        assert response["result"] == CANCELLED
        await end_turn(h, version, request, "cancelled")
        assert await call.wait() == "cancelled"


async def test_v2_cancel_also_answers_a_permission_from_before_the_prompt() -> None:
    async with open_harness(v2_init({})) as h:
        store = await h.new_session()
        # background work asks first, while idle
        background = await h.peer.request(
            "session/request_permission", permission(2, "bg")
        )
        await h.prompter.next()
        call, request = await start_turn(h, 2)
        foreground = await h.peer.request(
            "session/request_permission", permission(2, "fg")
        )
        await h.prompter.next()
        await h.client.cancel("s1")
        assert (await h.peer.expect_response(background))["result"] == CANCELLED
        assert (await h.peer.expect_response(foreground))["result"] == CANCELLED
        assert store.pending_permissions() == ()
        await end_turn(h, 2, request, "cancelled")
        assert await call.wait() == "cancelled"


async def test_v2_permission_after_the_cancelled_turn_reaches_the_prompter() -> None:
    async with open_harness(v2_init({})) as h:
        await h.new_session()
        call, request = await start_turn(h, 2)
        await h.client.cancel("s1")
        await end_turn(h, 2, request, "cancelled")
        assert await call.wait() == "cancelled"
        # later background work asks: the old cancellation no longer applies
        asked = await h.peer.request("session/request_permission", permission(2, "tc"))
        ask = await h.prompter.next()
        await h.peer.sync()
        assert not ask.finished.is_set()  # really asked, not cancelled at once
        ask.reply("allow")
        response = await h.peer.expect_response(asked)
        assert response["result"] == {
            "outcome": {"outcome": "selected", "optionId": "allow"}
        }
        assert not ask.cancelled


async def test_v1_permission_in_the_turn_after_a_cancelled_one_is_asked() -> None:
    async with open_harness(v1_init()) as h:
        await h.new_session()
        call, request = await start_turn(h, 1)
        await h.client.cancel("s1")
        await end_turn(h, 1, request, "cancelled")
        assert await call.wait() == "cancelled"
        call, request = await start_turn(h, 1)
        asked = await h.peer.request("session/request_permission", permission(1, "tc"))
        (await h.prompter.next()).reply("reject")
        response = await h.peer.expect_response(asked)
        assert response["result"]["outcome"]["optionId"] == "reject"
        await end_turn(h, 1, request, "end_turn")
        assert await call.wait() == "end_turn"


# -- permissions -----------------------------------------------------------------------


async def test_v2_tool_call_subject_creates_the_tool_call_before_the_answer() -> None:
    async with open_harness(v2_init({})) as h:
        store = await h.new_session()
        asked = await h.peer.request(
            "session/request_permission",
            {
                "sessionId": "s1",
                "title": "Allow running ls?",
                "description": "It lists files.",
                "subject": {
                    "type": "tool_call",
                    "toolCall": {"toolCallId": "tc1", "title": "ls", "kind": "execute"},
                },
                "options": OPTIONS,
            },
        )
        ask = await h.prompter.next()
        tool = store.tool_call("tc1")
        assert tool is not None
        assert (tool.title, tool.kind, tool.status) == ("ls", "execute", "pending")
        assert tool.content == ()
        request = ask.request
        assert request.session_id == "s1"
        assert request.title == "Allow running ls?"
        assert request.description == "It lists files."
        assert request.tool_call_id == "tc1"
        assert request.subject is not None
        assert request.subject["type"] == "tool_call"
        assert [(o.option_id, o.name, o.kind) for o in request.options] == [
            ("allow", "Allow", "allow_once"),
            ("reject", "Reject", "reject_once"),
        ]
        [pending] = store.pending_permissions()
        assert pending.permission_id == request.permission_id
        assert (pending.title, pending.description) == (
            "Allow running ls?",
            "It lists files.",
        )
        assert pending.tool_call_id == "tc1"
        assert list(pending.options) == OPTIONS
        ask.reply("allow")
        response = await h.peer.expect_response(asked)
        selected = {"outcome": "selected", "optionId": "allow"}
        assert response["result"] == {"outcome": selected}
        permission_entry = store.permission(request.permission_id)
        assert permission_entry is not None
        assert permission_entry.outcome == selected
        assert store.tool_call("tc1") == tool  # the answer changes no tool call


async def test_v2_tool_call_subject_patches_and_never_writes_the_title() -> None:
    async with open_harness(v2_init({})) as h:
        store = await h.new_session()
        await h.peer.update(
            "s1",
            {
                "sessionUpdate": "tool_call_update",
                "toolCallId": "tc1",
                "title": "Edit main.py",
                "kind": "edit",
                "content": [{"type": "content", "content": text("diff…")}],
            },
        )
        asked = await h.peer.request(
            "session/request_permission",
            {
                "sessionId": "s1",
                "title": "Apply the edit?",
                "description": "Writes main.py",
                "subject": {
                    "type": "tool_call",
                    "toolCall": {"toolCallId": "tc1", "status": "in_progress"},
                },
                "options": OPTIONS,
            },
        )
        ask = await h.prompter.next()
        tool = store.tool_call("tc1")
        assert tool is not None
        assert tool.title == "Edit main.py"
        assert tool.status == "in_progress"
        assert tool.kind == "edit"
        assert list(tool.content) == [{"type": "content", "content": text("diff…")}]
        assert "Apply the edit?" not in repr(tool)
        assert "Writes main.py" not in repr(tool)
        ask.reply("reject")
        response = await h.peer.expect_response(asked)
        assert response["result"]["outcome"] == {
            "outcome": "selected",
            "optionId": "reject",
        }


async def test_v2_permission_subject_is_ordered_with_the_updates_around_it() -> None:
    async with open_harness(v2_init({})) as h:
        store = await h.new_session()
        await h.peer.update("s1", tool_call(2, "tc1", "pending"))
        await h.peer.request(
            "session/request_permission",
            {
                "sessionId": "s1",
                "title": "?",
                "subject": {
                    "type": "tool_call",
                    "toolCall": {"toolCallId": "tc1", "title": "from subject"},
                },
                "options": OPTIONS,
            },
        )
        await h.peer.update(
            "s1",
            {
                "sessionUpdate": "tool_call_update",
                "toolCallId": "tc1",
                "title": "after",
            },
        )
        await h.peer.sync()
        tool = store.tool_call("tc1")
        assert tool is not None
        assert tool.title == "after"


async def test_v2_command_subject_links_by_tool_call_id() -> None:
    async with open_harness(v2_init({})) as h:
        store = await h.new_session()
        await h.peer.update("s1", tool_call(2, "tc1", "pending"))
        await h.peer.sync()
        before = store.tool_call("tc1")
        subject = {
            "type": "command",
            "command": "rm -rf build",
            "cwd": str(CWD),
            "toolCallId": "tc1",
            "terminalId": "term1",
        }
        asked = await h.peer.request(
            "session/request_permission",
            {
                "sessionId": "s1",
                "title": "Run rm?",
                "subject": subject,
                "options": OPTIONS,
            },
        )
        ask = await h.prompter.next()
        assert ask.request.tool_call_id == "tc1"
        assert ask.request.subject == subject
        assert store.tool_call("tc1") is before  # linked, not patched
        assert store.terminal("term1") is None  # the client runs nothing
        [pending] = store.pending_permissions()
        assert pending.tool_call_id == "tc1"
        assert pending.subject == subject
        ask.reply("allow")
        assert (await h.peer.expect_response(asked))["result"]["outcome"][
            "outcome"
        ] == ("selected")


async def test_v2_permission_without_subject() -> None:
    async with open_harness(v2_init({})) as h:
        store = await h.new_session()
        asked = await h.peer.request(
            "session/request_permission",
            {"sessionId": "s1", "title": "Proceed?", "options": OPTIONS},
        )
        ask = await h.prompter.next()
        assert ask.request.subject is None
        assert ask.request.tool_call_id is None
        assert ask.request.description is None
        assert store.tool_calls() == ()
        ask.reply(None)  # dismissed
        assert (await h.peer.expect_response(asked))["result"] == CANCELLED
        [entry] = store.permissions()
        assert entry.outcome == CANCELLED["outcome"]


async def test_v2_unknown_subject_is_kept() -> None:
    async with open_harness(v2_init({})) as h:
        store = await h.new_session()
        subject = {"type": "_vendor_network", "host": "example.com", "port": 443}
        asked = await h.peer.request(
            "session/request_permission",
            {
                "sessionId": "s1",
                "title": "Connect?",
                "subject": subject,
                "options": OPTIONS,
            },
        )
        ask = await h.prompter.next()
        assert ask.request.subject == subject
        assert ask.request.tool_call_id is None
        [pending] = store.pending_permissions()
        assert pending.subject == subject
        ask.reply("allow")
        response = await h.peer.expect_response(asked)
        assert response["result"]["outcome"]["optionId"] == "allow"


async def test_v2_unknown_option_kind_is_offered() -> None:
    async with open_harness(v2_init({})) as h:
        await h.new_session()
        options = [
            {"optionId": "sandbox", "name": "In a sandbox", "kind": "_sandboxed"}
        ]
        asked = await h.peer.request(
            "session/request_permission",
            {"sessionId": "s1", "title": "Run?", "options": options},
        )
        ask = await h.prompter.next()
        [choice] = ask.request.options
        assert (choice.option_id, choice.name, choice.kind) == (
            "sandbox",
            "In a sandbox",
            "_sandboxed",
        )
        ask.reply("sandbox")
        response = await h.peer.expect_response(asked)
        assert response["result"] == {
            "outcome": {"outcome": "selected", "optionId": "sandbox"}
        }


@pytest.mark.parametrize("version", VERSIONS)
async def test_an_option_that_was_not_offered_is_never_sent(version: int) -> None:
    async with open_harness(
        init_for(version), prompter=ScriptedPrompter(lambda request: "allow_always")
    ) as h:
        store = await h.new_session()
        response = await h.peer.call(
            "session/request_permission", permission(version, "tc1")
        )
        assert response["result"] == CANCELLED
        [entry] = store.permissions()
        assert entry.outcome == CANCELLED["outcome"]


@pytest.mark.parametrize("version", VERSIONS)
async def test_cancel_request_from_the_agent_withdraws_the_prompt(version: int) -> None:
    async with open_harness(init_for(version)) as h:
        store = await h.new_session()
        asked = await h.peer.request(
            "session/request_permission", permission(version, "tc1")
        )
        ask = await h.prompter.next()
        await h.peer.notify("$/cancel_request", {"requestId": asked})
        response = await h.peer.expect_response(asked)
        assert "error" not in response  # a valid answer, not -32800
        assert response["result"] == CANCELLED
        assert ask.cancelled
        assert store.pending_permissions() == ()
        assert h.peer.inbox == []


async def test_v1_tool_call_permission_request() -> None:
    async with open_harness(v1_init()) as h:
        store = await h.new_session()
        tool = {
            "toolCallId": "tc1",
            "title": "Write config.toml?",
            "kind": "edit",
            "status": "pending",
        }
        asked = await h.peer.request(
            "session/request_permission",
            {"sessionId": "s1", "toolCall": tool, "options": OPTIONS},
        )
        ask = await h.prompter.next()
        created = store.tool_call("tc1")
        assert created is not None
        assert (created.title, created.kind) == ("Write config.toml?", "edit")
        request = ask.request
        assert request.title == "Write config.toml?"
        assert request.description is None
        assert request.tool_call_id == "tc1"
        assert request.subject == {"type": "tool_call", "toolCall": tool}
        [pending] = store.pending_permissions()
        assert pending.tool_call_id == "tc1"
        assert pending.title == "Write config.toml?"
        ask.reply("allow")
        response = await h.peer.expect_response(asked)
        selected = {"outcome": "selected", "optionId": "allow"}
        assert response["result"] == {"outcome": selected}
        entry = store.permission(request.permission_id)
        assert entry is not None
        assert entry.outcome == selected


@pytest.mark.parametrize("version", VERSIONS)
async def test_permission_for_an_unknown_session_is_invalid_params(
    version: int,
) -> None:
    async with open_harness(init_for(version)) as h:
        await h.new_session()
        response = await h.peer.call(
            "session/request_permission", permission(version, "tc1", "nope")
        )
        assert response["error"]["code"] == -32602
        assert h.prompter.asks == []


# -- session setup ---------------------------------------------------------------------


async def test_v1_new_session_sends_empty_mcp_servers() -> None:
    async with open_harness(v1_init()) as h:
        call = h.start(h.client.new_session, CWD)
        request = await h.peer.expect_request("session/new")
        assert request["params"] == {"cwd": str(CWD), "mcpServers": []}
        await h.peer.reply(request, {"sessionId": "s1"})
        store = await call.wait()
        assert store.session_id == "s1"
        assert h.client.store("s1") is store
        assert store.state.is_idle
        assert store.cwd == str(CWD)  # paths are shown relative to it


async def test_v2_new_session_params() -> None:
    async with open_harness(v2_init({})) as h:
        call = h.start(h.client.new_session, CWD)
        request = await h.peer.expect_request("session/new")
        params = request["params"]
        assert params["cwd"] == str(CWD)
        assert params.get("mcpServers", []) == []
        assert "additionalDirectories" not in params
        await h.peer.reply(request, {"sessionId": "s1"})
        assert (await call.wait()).session_id == "s1"


V2_OPTION_A: JSON = {
    "configId": "model",
    "name": "Model",
    "category": "model",
    "type": "select",
    "currentValue": "fast",
    "options": [{"value": "fast", "name": "Fast"}, {"value": "smart", "name": "Smart"}],
}
V2_OPTION_B: JSON = {**V2_OPTION_A, "currentValue": "smart"}
V1_OPTION_A: JSON = {
    "id": "model",
    "name": "Model",
    "category": "model",
    "type": "select",
    "currentValue": "fast",
    "options": [{"value": "fast", "name": "Fast"}, {"value": "smart", "name": "Smart"}],
}
V1_OPTION_B: JSON = {**V1_OPTION_A, "currentValue": "smart"}
COMMAND_A: JSON = {"name": "review", "description": "Review the diff"}
COMMAND_B: JSON = {"name": "plan", "description": "Make a plan"}


@pytest.mark.parametrize("version", VERSIONS)
async def test_updates_before_the_new_session_response_are_applied(
    version: int,
) -> None:
    option_a, option_b = (
        (V1_OPTION_A, V1_OPTION_B) if version == 1 else (V2_OPTION_A, V2_OPTION_B)
    )
    async with open_harness(init_for(version)) as h:
        call = h.start(h.client.new_session, CWD)
        request = await h.peer.expect_request("session/new")
        await h.peer.update(
            "s1", {"sessionUpdate": "config_option_update", "configOptions": [option_a]}
        )
        await h.peer.update(
            "s1",
            {
                "sessionUpdate": "available_commands_update",
                "availableCommands": [COMMAND_A],
            },
        )
        chunk: JSON = {"sessionUpdate": "agent_message_chunk", "content": text("hi")}
        if version == 2:
            chunk["messageId"] = "m1"
        await h.peer.update("s1", chunk)
        result: JSON = {"sessionId": "s1", "configOptions": [option_b]}
        if version == 2:
            result["availableCommands"] = [COMMAND_B]
        else:
            result["modes"] = {
                "currentModeId": "ask",
                "availableModes": [{"id": "ask", "name": "Ask"}],
            }
        await h.peer.reply(request, result)
        store = await call.wait()
        assert list(store.config_options) == [option_a]  # not overwritten
        assert list(store.commands) == [COMMAND_A]
        assert [m.text for m in store.messages()] == ["hi"]


async def test_v2_new_session_response_lists_are_stored() -> None:
    async with open_harness(v2_init({})) as h:
        store = await h.new_session(
            configOptions=[V2_OPTION_A], availableCommands=[COMMAND_A]
        )
        assert list(store.config_options) == [V2_OPTION_A]
        assert list(store.commands) == [COMMAND_A]


async def test_concurrent_new_sessions_keep_their_early_updates() -> None:
    async with open_harness(v2_init({})) as h:
        first = h.start(h.client.new_session, CWD)
        first_request = await h.peer.expect_request("session/new")
        second = h.start(h.client.new_session, CWD / "other")
        second_request = await h.peer.expect_request("session/new")
        for session_id in ("s1", "s2"):
            await h.peer.update(
                session_id,
                {
                    "sessionUpdate": "agent_message",
                    "messageId": f"hello-{session_id}",
                    "content": [text(session_id)],
                },
            )
        await h.peer.reply(first_request, {"sessionId": "s1"})
        store1 = await first.wait()
        await h.peer.reply(second_request, {"sessionId": "s2"})
        store2 = await second.wait()
        assert [m.text for m in store1.messages()] == ["s1"]
        assert [m.text for m in store2.messages()] == ["s2"]


async def test_update_for_an_unknown_session_is_ignored() -> None:
    async with open_harness(v2_init({})) as h:
        store = await h.new_session()
        await h.peer.update(
            "nope",
            {
                "sessionUpdate": "agent_message",
                "messageId": "x",
                "content": [text("x")],
            },
        )
        await h.peer.update(
            "s1",
            {
                "sessionUpdate": "agent_message",
                "messageId": "m",
                "content": [text("ok")],
            },
        )
        await h.peer.sync()
        assert messages(store) == [("m", "agent", "ok")]
        assert h.diagnostics == []


# -- leaving a session (session/close) -------------------------------------------------

V1_CLOSE = v1_init(sessionCapabilities={"close": {}})


def agent_message(message_id: str, value: str) -> JSON:
    return {
        "sessionUpdate": "agent_message",
        "messageId": message_id,
        "content": [text(value)],
    }


@pytest.mark.parametrize(
    "init", [pytest.param(V1_CLOSE, id="v1"), pytest.param(v2_init({}), id="v2")]
)
async def test_leaving_a_session_closes_it_and_stops_applying_its_updates(
    init: JSON,
) -> None:
    """v2 `session: {}` includes close; v1 needs `sessionCapabilities.close`."""
    async with open_harness(init) as h:
        store = await h.new_session()
        assert h.client.session_features().close
        call = h.start(h.client.leave_session, store)
        request = await h.peer.expect_request("session/close")
        assert request["params"] == {"sessionId": "s1"}
        # The agent cancels the session's work first: updates it sends while
        # closing, or after, are not applied to the store nothing shows any more.
        chunk: JSON = {"sessionUpdate": "agent_message_chunk", "content": text("x")}
        if init["protocolVersion"] == 2:
            chunk["messageId"] = "late"
        await h.peer.update("s1", chunk)
        await h.peer.reply(request, {})
        assert await call.wait() is True
        await h.peer.update("s1", chunk)
        await h.peer.sync()
        assert store.messages() == ()
        assert h.diagnostics == []
        with pytest.raises(KeyError):
            h.client.store("s1")


async def test_leaving_without_close_support_only_stops_following() -> None:
    async with open_harness(v1_init()) as h:
        store = await h.new_session()
        assert not h.client.session_features().close
        assert await h.client.leave_session(store) is False
        await h.peer.update(
            "s1", {"sessionUpdate": "agent_message_chunk", "content": text("x")}
        )
        await h.peer.sync()
        assert store.messages() == ()
        assert h.peer.inbox == []  # no session/close was sent


async def test_a_refused_close_still_stops_following_the_session() -> None:
    async with open_harness(v2_init({})) as h:
        store = await h.new_session()
        call = h.start(h.client.leave_session, store)
        request = await h.peer.expect_request("session/close")
        await h.peer.reply_error(request, -32002, "Resource not found")
        with pytest.raises(RpcError):
            await call.wait()
        await h.peer.update("s1", agent_message("m", "late"))
        await h.peer.sync()
        assert store.messages() == ()


async def test_leaving_answers_the_sessions_pending_permissions_cancelled() -> None:
    async with open_harness(v2_init({})) as h:
        store = await h.new_session()
        asked = await h.peer.request("session/request_permission", permission(2, "bg"))
        ask = await h.prompter.next()
        call = h.start(h.client.leave_session, store)
        response = await h.peer.expect_response(asked)
        assert response["result"] == CANCELLED
        assert ask.cancelled
        await h.peer.reply(await h.peer.expect_request("session/close"), {})
        assert await call.wait() is True


async def test_a_session_reopened_under_the_same_id_is_not_left() -> None:
    async with open_harness(v2_init({})) as h:
        old = await h.new_session()
        call = h.start(h.client.resume_session, "s1", CWD, replay=False)
        await h.peer.reply(await h.peer.expect_request("session/resume"), {})
        reopened = await call.wait()
        assert await h.client.leave_session(old) is False
        await h.peer.update("s1", agent_message("m", "still here"))
        await h.peer.sync()
        assert messages(reopened) == [("m", "agent", "still here")]
        assert old.messages() == ()  # the replaced store is not followed either
        assert h.peer.inbox == []


async def test_leaving_mid_turn_ends_the_v2_turn() -> None:
    async with open_harness(v2_init({})) as h:
        store = await h.new_session()
        turn, _ = await start_turn(h, 2)
        leave = h.start(h.client.leave_session, store)
        await h.peer.reply(await h.peer.expect_request("session/close"), {})
        assert await leave.wait() is True
        assert await turn.wait() == "cancelled"


MCP_SERVERS = {
    "fs": McpServerSettings(
        type="stdio", command="/usr/bin/mcp-fs", args=["--root", "/srv"], env={"K": "V"}
    ),
    "web": McpServerSettings(
        type="http", url="https://mcp.example/web", headers={"Authorization": "t"}
    ),
    "events": McpServerSettings(
        type="sse", url="https://mcp.example/sse", headers={"X-Key": "k"}
    ),
}
V1_MCP: dict[str, JSON] = {
    "fs": {
        "name": "fs",
        "command": "/usr/bin/mcp-fs",
        "args": ["--root", "/srv"],
        "env": [{"name": "K", "value": "V"}],
    },
    "web": {
        "type": "http",
        "name": "web",
        "url": "https://mcp.example/web",
        "headers": [{"name": "Authorization", "value": "t"}],
    },
    "events": {
        "type": "sse",
        "name": "events",
        "url": "https://mcp.example/sse",
        "headers": [{"name": "X-Key", "value": "k"}],
    },
}
V2_MCP: dict[str, JSON] = {
    "fs": {"type": "stdio", **V1_MCP["fs"]},
    "web": V1_MCP["web"],
}


@pytest.mark.parametrize(
    ("init", "expected"),
    [
        pytest.param(v1_init(), [V1_MCP["fs"]], id="v1-stdio-only"),
        pytest.param(
            v1_init(mcpCapabilities={"http": True}),
            [V1_MCP["fs"], V1_MCP["web"]],
            id="v1-http",
        ),
        pytest.param(
            v1_init(mcpCapabilities={"sse": True}),
            [V1_MCP["fs"], V1_MCP["events"]],
            id="v1-sse",
        ),
        pytest.param(
            v1_init(mcpCapabilities={"http": True, "sse": True}),
            [V1_MCP["fs"], V1_MCP["web"], V1_MCP["events"]],
            id="v1-all",
        ),
        pytest.param(v2_init(None), [], id="v2-no-session-caps"),
        pytest.param(v2_init({}), [], id="v2-no-mcp"),
        pytest.param(v2_init({"mcp": {}}), [], id="v2-mcp-empty"),
        pytest.param(v2_init({"mcp": {"stdio": {}}}), [V2_MCP["fs"]], id="v2-stdio"),
        pytest.param(
            v2_init({"mcp": {"stdio": None, "http": {}}}), [V2_MCP["web"]], id="v2-http"
        ),
        pytest.param(
            v2_init({"mcp": {"stdio": {}, "http": {}}}),
            [V2_MCP["fs"], V2_MCP["web"]],
            id="v2-both",
        ),
    ],
)
async def test_mcp_servers_are_filtered_and_shaped_per_version(
    init: JSON, expected: list[JSON]
) -> None:
    async with open_harness(init, mcp_servers=MCP_SERVERS) as h:
        call = h.start(h.client.new_session, CWD)
        request = await h.peer.expect_request("session/new")
        assert request["params"]["mcpServers"] == expected
        await h.peer.reply(request, {"sessionId": "s1"})
        await call.wait()


@pytest.mark.parametrize(
    ("init", "supported"),
    [
        pytest.param(v1_init(), False, id="v1-absent"),
        pytest.param(
            v1_init(sessionCapabilities={"additionalDirectories": {}}), True, id="v1"
        ),
        pytest.param(v2_init({}), False, id="v2-absent"),
        pytest.param(v2_init({"additionalDirectories": None}), False, id="v2-null"),
        pytest.param(v2_init({"additionalDirectories": {}}), True, id="v2"),
    ],
)
async def test_additional_directories_need_the_capability(
    init: JSON, supported: bool
) -> None:
    extra = [Path("/srv/shared"), Path("/srv/docs")]
    async with open_harness(init) as h:
        assert h.client.session_features().additional_directories is supported
        if not supported:
            with pytest.raises(UnsupportedOperation):
                await h.client.new_session(CWD, extra)
            await h.peer.sync()
            assert h.peer.inbox == []  # nothing was sent
            return
        call = h.start(h.client.new_session, CWD, extra)
        request = await h.peer.expect_request("session/new")
        assert request["params"]["additionalDirectories"] == [
            "/srv/shared",
            "/srv/docs",
        ]
        await h.peer.reply(request, {"sessionId": "s1"})
        await call.wait()


async def test_new_session_without_additional_directories_never_sends_them() -> None:
    async with open_harness(v2_init({"additionalDirectories": {}})) as h:
        call = h.start(h.client.new_session, CWD)
        request = await h.peer.expect_request("session/new")
        assert "additionalDirectories" not in request["params"]
        await h.peer.reply(request, {"sessionId": "s1"})
        await call.wait()


# -- session/list ----------------------------------------------------------------------


def listed(session_id: str) -> JSON:
    return {
        "sessionId": session_id,
        "cwd": f"/work/{session_id}",
        "title": f"Session {session_id}",
        "updatedAt": "2025-06-01T12:00:00Z",
    }


def list_init(version: int) -> JSON:
    return v1_init(sessionCapabilities={"list": {}}) if version == 1 else v2_init({})


@pytest.mark.parametrize("version", VERSIONS)
async def test_list_sessions_follows_opaque_cursors_to_the_end(version: int) -> None:
    cursor = "eyJvZmZzZXQiOjJ9==/?&next=1 "  # opaque: sent back byte for byte
    async with open_harness(list_init(version)) as h:
        call = h.start(h.client.list_sessions, CWD)
        page1 = await h.peer.expect_request("session/list")
        assert page1["params"] == {"cwd": str(CWD)}
        await h.peer.reply(page1, {"sessions": [listed("a")], "nextCursor": cursor})
        page2 = await h.peer.expect_request("session/list")
        assert page2["params"] == {"cwd": str(CWD), "cursor": cursor}
        await h.peer.reply(page2, {"sessions": [listed("b")], "nextCursor": "2"})
        page3 = await h.peer.expect_request("session/list")
        assert page3["params"]["cursor"] == "2"
        await h.peer.reply(page3, {"sessions": [listed("c")]})  # no nextCursor: the end
        summaries = await call.wait()
        assert [s.session_id for s in summaries] == ["a", "b", "c"]
        assert summaries[0] == SessionSummary(
            "a", "/work/a", "Session a", "2025-06-01T12:00:00Z", listed("a")
        )
        await h.peer.sync()
        assert h.peer.inbox == []


@pytest.mark.parametrize("version", VERSIONS)
async def test_list_sessions_stops_at_a_null_or_repeated_cursor(version: int) -> None:
    async with open_harness(list_init(version)) as h:
        call = h.start(h.client.list_sessions)
        page1 = await h.peer.expect_request("session/list")
        assert page1["params"] == {}
        await h.peer.reply(page1, {"sessions": [], "nextCursor": None})
        assert await call.wait() == []

        call = h.start(h.client.list_sessions)
        page1 = await h.peer.expect_request("session/list")
        await h.peer.reply(page1, {"sessions": [listed("a")], "nextCursor": "x"})
        page2 = await h.peer.expect_request("session/list")
        await h.peer.reply(page2, {"sessions": [listed("b")], "nextCursor": "x"})
        assert [s.session_id for s in await call.wait()] == ["a", "b"]
        await h.peer.sync()
        assert h.peer.inbox == []  # no third request


async def test_v1_list_sessions_needs_the_capability() -> None:
    async with open_harness(v1_init()) as h:
        with pytest.raises(UnsupportedOperation):
            await h.client.list_sessions()
        await h.peer.sync()
        assert h.peer.inbox == []


# -- resume / load ---------------------------------------------------------------------


async def test_v2_resume_with_replay_applies_replayed_updates() -> None:
    async with open_harness(
        v2_init({"mcp": {"stdio": {}}}), mcp_servers={"fs": MCP_SERVERS["fs"]}
    ) as h:
        call = h.start(h.client.resume_session, "old", CWD, replay=True)
        request = await h.peer.expect_request("session/resume")
        assert request["params"] == {
            "sessionId": "old",
            "cwd": str(CWD),
            "mcpServers": [V2_MCP["fs"]],
            "replayFrom": {"type": "start"},
        }
        replay: list[JSON] = [
            {
                "sessionUpdate": "user_message",
                "messageId": "u1",
                "content": [text("hi")],
            },
            {
                "sessionUpdate": "agent_message",
                "messageId": "m1",
                "content": [text("A")],
            },
            {
                "sessionUpdate": "agent_message_chunk",
                "messageId": "m1",
                "content": text("B"),
            },
            {
                "sessionUpdate": "tool_call_update",
                "toolCallId": "tc1",
                "title": "ls",
                "status": "completed",
                "content": [{"type": "terminal", "terminalId": "t1"}],
            },
            {
                "sessionUpdate": "terminal_update",
                "terminalId": "t1",
                "command": "ls",
                "output": {"data": b64(b"hello")},
                "exitStatus": {"exitCode": 0},
            },
            {
                "sessionUpdate": "terminal_output_chunk",
                "terminalId": "t1",
                "data": b64(b" world"),
            },
            {
                "sessionUpdate": "plan_update",
                "plan": {
                    "type": "items",
                    "planId": "p1",
                    "entries": [
                        {"content": "x", "priority": "high", "status": "completed"}
                    ],
                },
            },
            state("idle", "end_turn"),
        ]
        for update in replay:
            await h.peer.update("old", update)
        await h.peer.reply(request, {"configOptions": [V2_OPTION_A]})
        store = await call.wait()
        assert h.client.store("old") is store
        assert messages(store) == [("u1", "user", "hi"), ("m1", "agent", "AB")]
        terminal = store.terminal("t1")
        assert terminal is not None
        assert terminal.output == b"hello world"
        assert terminal.exited
        tool = store.tool_call("tc1")
        assert tool is not None
        assert (tool.status, tool.terminal_ids) == ("completed", ("t1",))
        plan = store.plan("p1")
        assert plan is not None
        assert len(plan.entries) == 1
        assert list(store.config_options) == [V2_OPTION_A]
        assert store.state.is_idle
        assert store.state.turns_ended == 0  # a repeated idle is not a turn end


async def test_v2_resume_without_replay_sends_no_replay_from() -> None:
    async with open_harness(v2_init({})) as h:
        call = h.start(h.client.resume_session, "old", CWD, replay=False)
        request = await h.peer.expect_request("session/resume")
        assert request["params"] == {
            "sessionId": "old",
            "cwd": str(CWD),
            "mcpServers": [],
        }
        await h.peer.reply(request, {})
        store = await call.wait()
        assert store.messages() == ()


async def test_v1_replay_loads_the_session() -> None:
    async with open_harness(v1_init(loadSession=True)) as h:
        call = h.start(h.client.resume_session, "old", CWD, replay=True)
        request = await h.peer.expect_request("session/load")
        assert request["params"] == {
            "sessionId": "old",
            "cwd": str(CWD),
            "mcpServers": [],
        }
        for update in [
            {"sessionUpdate": "user_message_chunk", "content": text("hi")},
            {"sessionUpdate": "agent_message_chunk", "content": text("hel")},
            {"sessionUpdate": "agent_message_chunk", "content": text("lo")},
            tool_call(1, "tc1", "completed"),
        ]:
            await h.peer.update("old", update)
        await h.peer.reply(request, None)
        store = await call.wait()
        assert [(m.role, m.text) for m in store.messages()] == [
            ("user", "hi"),
            ("agent", "hello"),
        ]
        assert [t.tool_call_id for t in store.tool_calls()] == ["tc1"]
        # after the replay, the next chunk starts a new message
        await h.peer.update(
            "old", {"sessionUpdate": "agent_message_chunk", "content": text("new")}
        )
        await h.peer.sync()
        assert [m.text for m in store.messages()] == ["hi", "hello", "new"]


async def test_v1_load_response_config_options_and_modes_are_stored() -> None:
    async with open_harness(v1_init(loadSession=True)) as h:
        call = h.start(h.client.resume_session, "old", CWD, replay=True)
        request = await h.peer.expect_request("session/load")
        await h.peer.reply(
            request,
            {
                "configOptions": [V1_OPTION_A],
                "modes": {
                    "currentModeId": "ask",
                    "availableModes": [{"id": "ask", "name": "Ask"}],
                },
            },
        )
        store = await call.wait()
        assert [o.get("id") for o in store.config_options] == ["model", "mode"]


async def test_v1_replayed_config_options_survive_a_load_response_without_them() -> (
    None
):
    async with open_harness(v1_init(loadSession=True)) as h:
        call = h.start(h.client.resume_session, "old", CWD, replay=True)
        request = await h.peer.expect_request("session/load")
        await h.peer.update(
            "old",
            {"sessionUpdate": "config_option_update", "configOptions": [V1_OPTION_A]},
        )
        await h.peer.reply(
            request,
            {
                "modes": {
                    "currentModeId": "ask",
                    "availableModes": [{"id": "ask", "name": "Ask"}],
                },
            },
        )
        store = await call.wait()
        # The replayed option stays, and the modes (known only now) join it.
        assert [o.get("id") for o in store.config_options] == ["model", "mode"]


async def replay_lists(h: Harness, option: JSON, command: JSON) -> None:
    """The replay of session "old" reports a config option and a command."""
    await h.peer.update(
        "old", {"sessionUpdate": "config_option_update", "configOptions": [option]}
    )
    await h.peer.update(
        "old",
        {"sessionUpdate": "available_commands_update", "availableCommands": [command]},
    )


@pytest.mark.parametrize(
    ("init", "replay"),
    [
        pytest.param(v2_init({}), True, id="v2-resume-replay"),
        pytest.param(v2_init({}), False, id="v2-resume"),
        pytest.param(v1_init(loadSession=True), True, id="v1-load"),
        pytest.param(
            v1_init(sessionCapabilities={"resume": {}}), False, id="v1-resume"
        ),
    ],
)
async def test_the_reattach_response_lists_win_over_the_replayed_ones(
    init: JSON, replay: bool
) -> None:
    """The resume/load response is the agent's latest state (checklist 4.4.2/3):
    its config options (and v2 commands) replace what the replay reported."""
    version = init["protocolVersion"]
    old_option, new_option = (
        (V1_OPTION_A, V1_OPTION_B) if version == 1 else (V2_OPTION_A, V2_OPTION_B)
    )
    async with open_harness(init) as h:
        call = h.start(h.client.resume_session, "old", CWD, replay=replay)
        method = "session/load" if version == 1 and replay else "session/resume"
        request = await h.peer.expect_request(method)
        await replay_lists(h, old_option, COMMAND_A)
        result: JSON = {"configOptions": [new_option]}
        if version == 2:
            result["availableCommands"] = [COMMAND_B]
        await h.peer.reply(request, result)
        store = await call.wait()
        assert list(store.config_options) == [new_option]
        # v1 responses carry no commands: the replayed ones stay.
        assert list(store.commands) == [COMMAND_B if version == 2 else COMMAND_A]
        # Updates after the response are newer still.
        await h.peer.update(
            "old",
            {"sessionUpdate": "config_option_update", "configOptions": [old_option]},
        )
        await h.peer.sync()
        assert list(store.config_options) == [old_option]


async def test_v1_load_response_modes_win_over_a_replayed_mode_switch() -> None:
    async with open_harness(v1_init(loadSession=True)) as h:
        call = h.start(h.client.resume_session, "old", CWD, replay=True)
        request = await h.peer.expect_request("session/load")
        modes = [{"id": "ask", "name": "Ask"}, {"id": "code", "name": "Code"}]
        await h.peer.update(
            "old",
            {"sessionUpdate": "config_option_update", "configOptions": [V1_OPTION_A]},
        )
        await h.peer.reply(
            request,
            {
                "configOptions": [V1_OPTION_B],
                "modes": {"currentModeId": "code", "availableModes": modes},
            },
        )
        store = await call.wait()
        current = {o.get("id"): o.get("currentValue") for o in store.config_options}
        assert current == {"model": "smart", "mode": "code"}


async def test_v2_resume_response_without_lists_keeps_the_replayed_ones() -> None:
    async with open_harness(v2_init({})) as h:
        call = h.start(h.client.resume_session, "old", CWD, replay=True)
        request = await h.peer.expect_request("session/resume")
        await replay_lists(h, V2_OPTION_A, COMMAND_A)
        await h.peer.reply(request, {})
        store = await call.wait()
        assert list(store.config_options) == [V2_OPTION_A]
        assert list(store.commands) == [COMMAND_A]


async def test_v1_resume_without_replay() -> None:
    async with open_harness(v1_init(sessionCapabilities={"resume": {}})) as h:
        call = h.start(h.client.resume_session, "old", CWD, replay=False)
        request = await h.peer.expect_request("session/resume")
        assert request["params"] == {
            "sessionId": "old",
            "cwd": str(CWD),
            "mcpServers": [],
        }
        await h.peer.reply(request, {})
        store = await call.wait()
        assert store.session_id == "old"


@pytest.mark.parametrize(
    ("init", "replay"),
    [
        pytest.param(v1_init(), True, id="load-without-loadSession"),
        pytest.param(
            v1_init(sessionCapabilities={"resume": {}}),
            True,
            id="load-with-resume-only",
        ),
        pytest.param(v1_init(), False, id="resume-without-capability"),
        pytest.param(v1_init(loadSession=True), False, id="resume-with-load-only"),
    ],
)
async def test_v1_resume_needs_the_capability(init: JSON, replay: bool) -> None:
    async with open_harness(init) as h:
        with pytest.raises(UnsupportedOperation):
            await h.client.resume_session("old", CWD, replay=replay)
        await h.peer.sync()
        assert h.peer.inbox == []
        with pytest.raises(KeyError):
            h.client.store("old")  # no half-open session is left behind


# -- config options and modes ----------------------------------------------------------

V2_THINK: JSON = {
    "configId": "think",
    "name": "Think",
    "type": "boolean",
    "currentValue": False,
}
V1_THINK: JSON = {
    "id": "think",
    "name": "Think",
    "type": "boolean",
    "currentValue": False,
}


async def test_v2_set_config_option_sends_typed_values() -> None:
    async with open_harness(v2_init({})) as h:
        store = await h.new_session(configOptions=[V2_OPTION_A, V2_THINK])
        call = h.start(h.client.set_config_option, "s1", "model", "smart")
        request = await h.peer.expect_request("session/set_config_option")
        assert request["params"] == {
            "sessionId": "s1",
            "configId": "model",
            "type": "id",
            "value": "smart",
        }
        await h.peer.reply(request, {"configOptions": [V2_OPTION_B]})
        await call.wait()
        assert list(store.config_options) == [V2_OPTION_B]  # replaced whole

        call = h.start(h.client.set_config_option, "s1", "think", True)
        request = await h.peer.expect_request("session/set_config_option")
        assert request["params"] == {
            "sessionId": "s1",
            "configId": "think",
            "type": "boolean",
            "value": True,
        }
        think_on = {**V2_THINK, "currentValue": True}
        await h.peer.reply(request, {"configOptions": [V2_OPTION_B, think_on]})
        await call.wait()
        assert list(store.config_options) == [V2_OPTION_B, think_on]


async def test_v1_set_config_option_sends_no_type_for_a_select() -> None:
    async with open_harness(v1_init()) as h:
        store = await h.new_session(configOptions=[V1_OPTION_A, V1_THINK])
        call = h.start(h.client.set_config_option, "s1", "model", "smart")
        request = await h.peer.expect_request("session/set_config_option")
        assert request["params"] == {
            "sessionId": "s1",
            "configId": "model",
            "value": "smart",
        }
        await h.peer.reply(request, {"configOptions": [V1_OPTION_B, V1_THINK]})
        await call.wait()
        assert list(store.config_options) == [V1_OPTION_B, V1_THINK]

        call = h.start(h.client.set_config_option, "s1", "think", True)
        request = await h.peer.expect_request("session/set_config_option")
        assert request["params"] == {
            "sessionId": "s1",
            "configId": "think",
            "type": "boolean",
            "value": True,
        }
        await h.peer.reply(request, {"configOptions": [V1_OPTION_B]})
        await call.wait()
        assert list(store.config_options) == [V1_OPTION_B]


async def test_set_config_option_error_keeps_the_stored_list() -> None:
    async with open_harness(v2_init({})) as h:
        store = await h.new_session(configOptions=[V2_OPTION_A])
        call = h.start(h.client.set_config_option, "s1", "model", "nope")
        request = await h.peer.expect_request("session/set_config_option")
        await h.peer.reply_error(request, -32602, "Invalid params")
        with pytest.raises(RpcError):
            await call.wait()
        assert list(store.config_options) == [V2_OPTION_A]


MODES: JSON = {
    "currentModeId": "ask",
    "availableModes": [
        {"id": "ask", "name": "Ask"},
        {"id": "code", "name": "Code", "description": "Writes code"},
    ],
}


async def test_v1_modes_become_a_mode_config_option() -> None:
    async with open_harness(v1_init()) as h:
        store = await h.new_session(modes=MODES)
        [option] = store.config_options
        assert option == {
            "id": "mode",
            "name": "Mode",
            "category": "mode",
            "type": "select",
            "currentValue": "ask",
            "options": [
                {"value": "ask", "name": "Ask"},
                {"value": "code", "name": "Code", "description": "Writes code"},
            ],
        }
        await h.peer.update(
            "s1", {"sessionUpdate": "current_mode_update", "currentModeId": "code"}
        )
        await h.peer.sync()
        [moved] = store.config_options
        assert moved["currentValue"] == "code"
        assert moved["options"] == option["options"]


async def test_v1_set_mode() -> None:
    async with open_harness(v1_init()) as h:
        await h.new_session(modes=MODES)
        call = h.start(h.client.set_mode, "s1", "code")
        request = await h.peer.expect_request("session/set_mode")
        assert request["params"] == {"sessionId": "s1", "modeId": "code"}
        await h.peer.reply(request, {})
        await call.wait()


async def test_v2_set_mode_is_unsupported() -> None:
    async with open_harness(v2_init({})) as h:
        await h.new_session()
        with pytest.raises(UnsupportedOperation):
            await h.client.set_mode("s1", "code")


# -- v1 fs methods ---------------------------------------------------------------------

BOTH_FS = ClientFeatures(read_text_file=True, write_text_file=True)


@pytest.fixture
def project(tmp_path: Path) -> Path:
    directory = tmp_path / "project"
    directory.mkdir()
    (directory / "notes.txt").write_text("one\ntwo\nthree\n")
    (tmp_path / "secret.txt").write_text("top secret\n")
    return directory


async def test_v1_fs_read_and_write_inside_the_session(project: Path) -> None:
    async with open_harness(v1_init(), features=BOTH_FS) as h:
        await h.new_session(cwd=project)
        response = await h.peer.call(
            "fs/read_text_file", {"sessionId": "s1", "path": str(project / "notes.txt")}
        )
        assert response["result"] == {"content": "one\ntwo\nthree\n"}
        response = await h.peer.call(
            "fs/read_text_file",
            {
                "sessionId": "s1",
                "path": str(project / "notes.txt"),
                "line": 2,
                "limit": 1,
            },
        )
        assert response["result"] == {"content": "two\n"}
        target = project / "sub" / "new.txt"
        target.parent.mkdir()
        response = await h.peer.call(
            "fs/write_text_file",
            {"sessionId": "s1", "path": str(target), "content": "fresh\n"},
        )
        assert "error" not in response
        assert response["result"] in ({}, None)
        assert target.read_text() == "fresh\n"


async def test_v1_fs_refuses_paths_outside_the_session(project: Path) -> None:
    outside = project.parent / "secret.txt"
    async with open_harness(v1_init(), features=BOTH_FS) as h:
        await h.new_session(cwd=project)
        response = await h.peer.call(
            "fs/read_text_file", {"sessionId": "s1", "path": str(outside)}
        )
        assert response["error"]["code"] == -32602
        assert "top secret" not in str(response)
        response = await h.peer.call(
            "fs/write_text_file",
            {"sessionId": "s1", "path": str(outside), "content": "pwned"},
        )
        assert response["error"]["code"] == -32602
        assert outside.read_text() == "top secret\n"
        response = await h.peer.call(
            "fs/read_text_file",
            {"sessionId": "s1", "path": str(project / ".." / "secret.txt")},
        )
        assert response["error"]["code"] == -32602


async def test_v1_fs_for_an_unknown_session_is_refused(project: Path) -> None:
    async with open_harness(v1_init(), features=BOTH_FS) as h:
        await h.new_session(cwd=project)
        response = await h.peer.call(
            "fs/read_text_file",
            {"sessionId": "nope", "path": str(project / "notes.txt")},
        )
        assert response["error"]["code"] == -32602


@pytest.mark.parametrize(
    ("init", "features"),
    [
        pytest.param(v1_init(), ClientFeatures(), id="v1-disabled"),
        pytest.param(
            v1_init(), ClientFeatures(write_text_file=True), id="v1-read-disabled"
        ),
        pytest.param(v2_init({}), BOTH_FS, id="v2-never"),
    ],
)
async def test_fs_read_not_served(
    project: Path, init: JSON, features: ClientFeatures
) -> None:
    async with open_harness(init, features=features) as h:
        await h.new_session(cwd=project)
        response = await h.peer.call(
            "fs/read_text_file", {"sessionId": "s1", "path": str(project / "notes.txt")}
        )
        assert response["error"]["code"] == -32601


@pytest.mark.parametrize(
    ("init", "features"),
    [
        pytest.param(v1_init(), ClientFeatures(), id="v1-disabled"),
        pytest.param(
            v1_init(), ClientFeatures(read_text_file=True), id="v1-write-disabled"
        ),
        pytest.param(v2_init({}), BOTH_FS, id="v2-never"),
    ],
)
async def test_fs_write_not_served(
    project: Path, init: JSON, features: ClientFeatures
) -> None:
    target = project / "new.txt"
    async with open_harness(init, features=features) as h:
        await h.new_session(cwd=project)
        response = await h.peer.call(
            "fs/write_text_file",
            {"sessionId": "s1", "path": str(target), "content": "x"},
        )
        assert response["error"]["code"] == -32601
        assert not target.exists()


# -- a session's roots: what the user chose, never what the agent lists -------------

EVERYTHING = ClientFeatures(read_text_file=True, write_text_file=True, terminal=True)
REOPENABLE = v1_init(loadSession=True, sessionCapabilities={"resume": {}})


async def open_at(
    h: Harness, how: str, cwd: Path, roots: list[Path] | None = None
) -> SessionStore:
    """Open session "s1" at `cwd` by `how` (new, resume or load), answered `{}`."""
    if how == "new":
        call = h.start(h.client.new_session, cwd, roots=roots)
    else:
        call = h.start(
            h.client.resume_session, "s1", cwd, replay=how == "load", roots=roots
        )
    request = await h.peer.expect_request(f"session/{how}")
    assert request["params"]["cwd"] == str(cwd)  # the agent is told its directory
    await h.peer.reply(request, {"sessionId": "s1"} if how == "new" else {})
    return await call.wait()


async def agent_reads(h: Harness, path: Path) -> JSON:
    return await h.peer.call(
        "fs/read_text_file", {"sessionId": "s1", "path": str(path)}
    )


HOW = pytest.mark.parametrize("how", ["resume", "load", "new"])


@HOW
async def test_a_session_at_slash_cannot_reach_outside_the_users_roots(
    project: Path, how: str
) -> None:
    """A `session/list` entry said `cwd: "/"`: the client's roots still hold."""
    async with open_harness(REOPENABLE, features=EVERYTHING, roots=[project]) as h:
        await open_at(h, how, Path("/"))
        refused = await agent_reads(h, Path("/etc/hostname"))
        assert refused["error"]["code"] == -32602
        assert refused["error"]["data"]["allowedRoots"] == [str(project)]
        outside = project.parent / "secret.txt"
        written = await h.peer.call(
            "fs/write_text_file",
            {"sessionId": "s1", "path": str(outside), "content": "pwned"},
        )
        assert written["error"]["code"] == -32602
        assert outside.read_text() == "top secret\n"
        terminal = await h.peer.call(
            "terminal/create", {"sessionId": "s1", "command": "true", "cwd": "/"}
        )
        assert terminal["error"]["code"] == -32602
        inside = await agent_reads(h, project / "notes.txt")
        assert inside["result"] == {"content": "one\ntwo\nthree\n"}


@HOW
async def test_a_session_at_a_parent_of_the_project_cannot_read_beside_it(
    project: Path, how: str
) -> None:
    async with open_harness(REOPENABLE, features=BOTH_FS, roots=[project]) as h:
        await open_at(h, how, project.parent)
        refused = await agent_reads(h, project.parent / "secret.txt")
        assert refused["error"]["code"] == -32602
        assert "top secret" not in str(refused)


@HOW
async def test_roots_named_for_one_session_replace_the_clients(
    project: Path, tmp_path: Path, how: str
) -> None:
    """The user agreed to the session's own directory: it is the root instead."""
    other = tmp_path / "other"
    other.mkdir()
    (other / "plan.md").write_text("elsewhere\n")
    async with open_harness(REOPENABLE, features=BOTH_FS, roots=[project]) as h:
        await open_at(h, how, other, roots=[other])
        allowed = await agent_reads(h, other / "plan.md")
        assert allowed["result"] == {"content": "elsewhere\n"}
        refused = await agent_reads(h, project / "notes.txt")
        assert refused["error"]["code"] == -32602


@pytest.mark.subprocess
async def test_terminals_start_in_a_session_cwd_that_lies_inside_the_roots(
    project: Path,
) -> None:
    sub = project / "sub"
    sub.mkdir()
    async with open_harness(REOPENABLE, features=EVERYTHING, roots=[project]) as h:
        await open_at(h, "resume", sub)
        created = await h.peer.call(
            "terminal/create", {"sessionId": "s1", "command": "pwd"}
        )
        terminal = {"sessionId": "s1", "terminalId": created["result"]["terminalId"]}
        exited = await h.peer.call("terminal/wait_for_exit", terminal)
        assert exited["result"]["exitCode"] == 0
        output = await h.peer.call("terminal/output", terminal)
        assert output["result"]["output"].strip() == str(sub.resolve())
        # ... and the project around it stays reachable.
        inside = await agent_reads(h, project / "notes.txt")
        assert "result" in inside


def test_client_roots_must_be_absolute() -> None:
    with pytest.raises(ValueError, match="absolute"):
        AcpClient(prompter=ScriptedPrompter(), roots=[Path("relative/dir")])


# -- malformed input and unknown methods ---------------------------------------------


@pytest.mark.parametrize("version", VERSIONS)
async def test_malformed_update_is_reported_and_ignored(version: int) -> None:
    async with open_harness(init_for(version)) as h:
        store = await h.new_session()
        await h.peer.update(
            "s1", {"sessionUpdate": "tool_call_update", "toolCallId": 42, "status": "x"}
        )
        await h.peer.update("s1", tool_call(version, "tc1", "in_progress"))
        await h.peer.sync()
        [diagnostic] = h.diagnostics
        assert diagnostic.kind == "notification_error"
        assert "tool_call_update" in diagnostic.message
        assert [t.tool_call_id for t in store.tool_calls()] == ["tc1"]
        # the session goes on: a turn still works
        call, request = await start_turn(h, version)
        await end_turn(h, version, request, "end_turn")
        assert await call.wait() == "end_turn"


@pytest.mark.parametrize("version", VERSIONS)
@pytest.mark.parametrize(
    "method", ["_vendor/do_thing", "no/such_method", "terminal/create"]
)
async def test_unknown_agent_request_is_method_not_found(
    version: int, method: str
) -> None:
    async with open_harness(init_for(version)) as h:
        await h.new_session()
        response = await h.peer.call(method, {"sessionId": "s1"})
        assert response["error"]["code"] == -32601
        assert h.prompter.asks == []


@pytest.mark.parametrize("version", VERSIONS)
async def test_unknown_notifications_are_ignored(version: int) -> None:
    async with open_harness(init_for(version)) as h:
        store = await h.new_session()
        await h.peer.notify("_vendor/ping", {"x": 1})
        await h.peer.notify("session/unknown", {"sessionId": "s1"})
        await h.peer.sync()
        assert h.peer.inbox == []  # notifications are never answered
        assert h.diagnostics == []
        assert store.timeline() == ()


class _BrokenPrompter(ScriptedPrompter):
    async def ask(self, request: PermissionRequest) -> str | None:
        raise RuntimeError("the dialog crashed")


async def test_a_failing_prompter_answers_cancelled_never_approval() -> None:
    async with open_harness(v2_init({}), prompter=_BrokenPrompter()) as h:
        store = await h.new_session()
        response = await h.peer.call(
            "session/request_permission",
            {"sessionId": "s1", "title": "Run it?", "options": OPTIONS},
        )
        assert response["result"] == CANCELLED
        [permission] = store.permissions()
        assert permission.outcome == {"outcome": "cancelled"}
        assert any("the dialog crashed" in str(d) for d in h.diagnostics)


async def test_v1_synthesised_mode_is_set_with_set_mode_and_survives_list_updates() -> (
    None
):
    async with open_harness(v1_init()) as h:
        call = h.start(h.client.new_session, CWD)
        request = await h.peer.expect_request("session/new")
        modes = {
            "currentModeId": "ask",
            "availableModes": [
                {"id": "ask", "name": "Ask"},
                {"id": "code", "name": "Code"},
            ],
        }
        await h.peer.reply(request, {"sessionId": "s1", "modes": modes})
        store = await call.wait()
        setting = h.start(h.client.set_config_option, "s1", "mode", "code")
        set_mode = await h.peer.expect_request("session/set_mode")
        assert set_mode["params"] == {"sessionId": "s1", "modeId": "code"}
        await h.peer.reply(set_mode, {})
        await setting.wait()
        [mode] = store.config_options
        assert mode["currentValue"] == "code"
        # A replaced list from the agent keeps the synthesised mode option.
        other = {
            "id": "model",
            "name": "Model",
            "type": "select",
            "currentValue": "m",
            "options": [{"value": "m", "name": "M"}],
        }
        await h.peer.update(
            "s1", {"sessionUpdate": "config_option_update", "configOptions": [other]}
        )
        await h.peer.sync()
        assert [o["id"] for o in store.config_options] == ["model", "mode"]
        assert store.config_options[1]["currentValue"] == "code"


@pytest.mark.parametrize(
    ("init", "login", "logout"),
    [
        (v1_init(auth={"logout": {}}), "authenticate", "logout"),
        (
            {
                **v2_init({}),
                "authMethods": [
                    {"methodId": "agent-login", "name": "Log in", "type": "agent"}
                ],
            },
            "auth/login",
            "auth/logout",
        ),
    ],
    ids=["v1", "v2"],
)
async def test_login_and_logout_use_the_versions_methods(
    init: JSON, login: str, logout: str
) -> None:
    async with open_harness(init) as h:
        call = h.start(h.client.authenticate, "agent-login")
        request = await h.peer.expect_request(login)
        assert request["params"] == {"methodId": "agent-login"}
        await h.peer.reply(request, {})
        await call.wait()
        assert h.client.can_logout()
        out = h.start(h.client.logout)
        request = await h.peer.expect_request(logout)
        assert request["params"] == {}
        await h.peer.reply(request, {})
        await out.wait()


async def test_v1_logout_needs_the_capability() -> None:
    async with open_harness(v1_init()) as h:
        assert not h.client.can_logout()
        with pytest.raises(UnsupportedOperation):
            await h.client.logout()


async def test_v2_without_auth_methods_never_calls_auth() -> None:
    async with open_harness(v2_init({})) as h:
        assert not h.client.can_logout()
        with pytest.raises(UnsupportedOperation):
            await h.client.authenticate("x")
        with pytest.raises(UnsupportedOperation):
            await h.client.logout()
