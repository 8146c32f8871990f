"""The dispatcher's `before_others` hook, `before_suspending`, and plain notifications.

A notification handler may leave work pending (`Dispatcher.before_others`): the
dispatcher calls the hook before its read loop suspends, before it handles any
other kind of line, and at the end; never between buffered notifications. The
common notification shape skips `parse_message`, with the same result.
"""

from __future__ import annotations

import json
import sys
import types
from typing import Any

import anyio
import pytest

from acp_tui.protocol import before_suspending as before_suspending_module
from acp_tui.protocol import dispatcher as dispatcher_module
from acp_tui.protocol.before_suspending import before_suspending
from acp_tui.protocol.dispatcher import Diagnostic, Dispatcher
from acp_tui.protocol.jsonrpc import Notification, parse_message
from acp_tui.protocol.transport import memory_pair

BOUND = 10


# --- before_suspending -----------------------------------------------------------


async def test_no_hook_when_the_coroutine_does_not_suspend() -> None:
    calls: list[str] = []

    async def ready() -> int:
        return 7

    assert await before_suspending(ready(), lambda: calls.append("hook")) == 7
    assert calls == []


async def test_the_hook_runs_once_before_the_first_suspension() -> None:
    calls: list[str] = []

    async def waits() -> str:
        calls.append("started")
        await anyio.lowlevel.checkpoint()
        calls.append("resumed")
        await anyio.lowlevel.checkpoint()
        return "done"

    with anyio.fail_after(BOUND):
        result = await before_suspending(waits(), lambda: calls.append("hook"))
    assert result == "done"
    assert calls == ["started", "hook", "resumed"]


async def test_a_cancellation_reaches_the_coroutine() -> None:
    cleaned: list[str] = []

    async def forever() -> None:
        try:
            await anyio.sleep_forever()
        finally:
            cleaned.append("finally")

    with anyio.move_on_after(0.05) as scope:
        await before_suspending(forever(), lambda: None)
    assert scope.cancelled_caught
    assert cleaned == ["finally"]


async def test_errors_raised_in_the_coroutine_propagate() -> None:
    async def fails() -> None:
        await anyio.lowlevel.checkpoint()
        raise LookupError("inner")

    with pytest.raises(LookupError, match="inner"):
        await before_suspending(fails(), lambda: None)


async def test_a_failing_hook_closes_the_coroutine() -> None:
    cleaned: list[str] = []

    async def waits() -> None:
        try:
            await anyio.lowlevel.checkpoint()
        finally:
            cleaned.append("closed")

    def hook() -> None:
        raise KeyError("hook")

    with pytest.raises(KeyError):
        await before_suspending(waits(), hook)
    assert cleaned == ["closed"]


# --- the dispatcher --------------------------------------------------------------


def note(n: int, method: str = "x/n") -> bytes:
    params = {"n": n}
    return json.dumps({"jsonrpc": "2.0", "method": method, "params": params}).encode()


async def test_the_hook_runs_before_others_see_the_work_never_between_lines(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(dispatcher_module, "READ_SLICE", 60.0)
    events: list[str] = []
    diagnostics: list[Diagnostic] = []
    client_end, agent_end = memory_pair()
    dispatcher: Dispatcher

    def hook() -> None:
        events.append("hook")

    async def on_notification(method: str, params: Any) -> None:
        events.append(f"{method} {params['n']}")
        if dispatcher.before_others is None:
            dispatcher.before_others = hook  # work left pending

    dispatcher = Dispatcher(
        client_end,
        on_notification=on_notification,
        on_diagnostic=diagnostics.append,
    )
    response = b'{"jsonrpc":"2.0","id":99,"result":{}}'
    with anyio.fail_after(BOUND):
        async with client_end, agent_end, dispatcher.running():
            await agent_end.send_raw(b"\n".join([note(1), note(2), note(3), b""]))
            while "hook" not in events:
                await anyio.lowlevel.checkpoint()
            await agent_end.send_raw(b"\n".join([note(4), note(5), response, b""]))
            while not diagnostics:
                await anyio.lowlevel.checkpoint()
            await agent_end.send_raw(b"\n".join([note(6, "y/m"), note(7), b""]))
            while events.count("hook") < 4:
                await anyio.lowlevel.checkpoint()
        assert dispatcher.before_others is None
    # Before waiting for more lines, before the response (its `unknown_response`
    # report), before another method's notification and back, before waiting
    # again; once each (the hook is unset when called).
    assert events == [
        "x/n 1",
        "x/n 2",
        "x/n 3",
        "hook",
        "x/n 4",
        "x/n 5",
        "hook",
        "y/m 6",
        "hook",
        "x/n 7",
        "hook",
    ]
    assert [d.kind for d in diagnostics] == ["unknown_response"]


async def test_a_failing_hook_is_reported(monkeypatch: pytest.MonkeyPatch) -> None:
    diagnostics: list[Diagnostic] = []
    client_end, agent_end = memory_pair()
    dispatcher: Dispatcher
    seen: list[int] = []

    def hook() -> None:
        raise ValueError("pending work failed")

    async def on_notification(method: str, params: Any) -> None:
        seen.append(params["n"])
        dispatcher.before_others = hook

    dispatcher = Dispatcher(
        client_end, on_notification=on_notification, on_diagnostic=diagnostics.append
    )
    with anyio.fail_after(BOUND):
        async with client_end, agent_end, dispatcher.running():
            await agent_end.send_raw(note(1) + b"\n")
            while not diagnostics:
                await anyio.lowlevel.checkpoint()
            await agent_end.send_raw(note(2) + b"\n")
            while len(seen) < 2:
                await anyio.lowlevel.checkpoint()
    assert seen == [1, 2]
    assert diagnostics[0].kind == "notification_error"
    assert "pending work failed" in diagnostics[0].message


@pytest.mark.parametrize(
    "data",
    [
        {"jsonrpc": "2.0", "method": "session/update", "params": {"a": 1}},
        {"params": {}, "method": "m", "jsonrpc": "2.0"},  # any key order
        {"jsonrpc": "2.0", "method": "m", "params": {}, "id": 1},  # a request
        {"jsonrpc": "2.0", "method": "m", "params": {}, "id": None},
        {"jsonrpc": "2.0", "method": "m", "params": []},  # by position
        {"jsonrpc": "2.0", "method": "m", "params": None},
        {"jsonrpc": "2.0", "method": "m", "params": "x"},
        {"jsonrpc": "2.0", "method": "m"},
        {"jsonrpc": "2.0", "method": 5, "params": {}},
        {"jsonrpc": "1.0", "method": "m", "params": {}},
        {"jsonrpc": 2.0, "method": "m", "params": {}},
        {"jsonrpc": "2.0", "method": "m", "params": {}, "extra": 1},
        {"jsonrpc": "2.0", "method": "m", "params": {}, "result": {}},
        ["not", "an", "object"],
        "text",
    ],
)
def test_a_plain_notification_is_what_parse_message_says(data: Any) -> None:
    plain = dispatcher_module._plain_notification(data)
    if plain:
        assert parse_message(data) == Notification(data["method"], data["params"])
    else:  # anything else is left to parse_message
        assert data != {"jsonrpc": "2.0", "method": "m", "params": {}}
    shape = isinstance(data, dict) and set(data) == {"jsonrpc", "method", "params"}
    expected = (
        shape
        and data["jsonrpc"] == "2.0"
        and isinstance(data["method"], str)
        and isinstance(data["params"], dict)
    )
    assert plain == expected


async def test_notification_now_takes_plain_notifications_at_once() -> None:
    diagnostics: list[Diagnostic] = []
    client_end, agent_end = memory_pair()
    taken: list[tuple[str, Any]] = []
    awaited: list[Any] = []

    async def on_notification(method: str, params: Any) -> None:
        taken.append(("on_notification", params))

    async def later(params: Any) -> None:
        await anyio.lowlevel.checkpoint()
        awaited.append(params["n"])

    def now(method: str, params: Any) -> Any:
        taken.append(("now", params))
        if params.get("n") == 2:
            return later(params)
        if params.get("n") == 3:
            raise LookupError("handler failed")
        return None

    dispatcher = Dispatcher(
        client_end, on_notification=on_notification, on_diagnostic=diagnostics.append
    )
    dispatcher.notification_now = now
    by_position = b'{"jsonrpc":"2.0","method":"x/n","params":[4]}'
    with anyio.fail_after(BOUND):
        async with client_end, agent_end, dispatcher.running():
            lines = [note(1), note(2), note(3), by_position, note(5), b""]
            await agent_end.send_raw(b"\n".join(lines))
            while len(taken) < 5:
                await anyio.lowlevel.checkpoint()
    assert taken == [
        ("now", {"n": 1}),
        ("now", {"n": 2}),
        ("now", {"n": 3}),
        ("on_notification", [4]),  # not the plain shape: the usual way
        ("now", {"n": 5}),
    ]
    assert awaited == [2]
    assert [d.kind for d in diagnostics] == ["notification_error"]
    assert "handler failed" in diagnostics[0].message


async def test_a_buffered_plain_notification_costs_one_call_of_the_dispatcher(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Reading a buffered line and handing it to `notification_now` (a replayed
    session's 100,000 updates) takes no awaitable of the dispatcher's own and
    no helper: one call of its code per line, even with work left pending."""
    monkeypatch.setattr(dispatcher_module, "READ_SLICE", 60.0)
    client_end, agent_end = memory_pair()
    dispatcher = Dispatcher(client_end)
    ours = {dispatcher_module.__file__, before_suspending_module.__file__}
    calls: list[str] = []
    seen: list[int] = []

    def profile(frame: types.FrameType, event: str, arg: object) -> None:
        if event == "call" and frame.f_code.co_filename in ours:
            calls.append(frame.f_code.co_name)

    def now(method: str, params: Any) -> None:
        seen.append(params["n"])
        dispatcher.before_others = lambda: None  # work left pending
        if len(seen) == 1:
            sys.setprofile(profile)
        elif len(seen) == 101:
            sys.setprofile(None)

    dispatcher.notification_now = now
    with anyio.fail_after(BOUND):
        async with client_end, agent_end, dispatcher.running():
            await agent_end.send_raw(b"\n".join([*map(note, range(101)), b""]))
            while len(seen) < 101:
                await anyio.lowlevel.checkpoint()
    sys.setprofile(None)
    assert seen == list(range(101))
    assert len(calls) == 100, calls[:10]


async def test_a_line_repeating_a_learnt_one_goes_to_notification_text() -> None:
    """A handler that asks for a line's shape gets the lines that repeat it but
    for their last string as that string and its token; refused (False), the
    line is read whole; a failure is reported as the handler's; a line of
    another shape, or another method, is read whole and keeps the order, and
    before_others runs when the method changes, as for a whole line."""
    diagnostics: list[Diagnostic] = []
    client_end, agent_end = memory_pair()
    seen: list[Any] = []

    def now(method: str, params: Any) -> None:
        seen.append(("now", method, params["content"]["text"]))
        if params["content"]["text"] != "no":
            dispatcher.learn_text_shape = ("text", method)
        dispatcher.before_others = lambda: seen.append("before")

    def again(token: Any, text: str) -> bool:
        if text == "boom":
            raise LookupError("handler failed")
        if text == "refused":
            return False
        seen.append(("again", token, text))
        return True

    def chunk(method: str, text: str) -> bytes:
        params = {"content": {"type": "text", "text": text}}
        message = {"jsonrpc": "2.0", "method": method, "params": params}
        return json.dumps(message, separators=(",", ":")).encode()

    dispatcher = Dispatcher(client_end, on_diagnostic=diagnostics.append)
    dispatcher.notification_now = now
    dispatcher.notification_text = again
    lines = [
        chunk("a", "1"),
        chunk("a", "2"),
        chunk("a", "refused"),
        chunk("a", "boom"),
        chunk("b", "3"),  # another method: read whole, learnt
        chunk("a", "no"),  # shape b: read whole (and learns nothing)
        chunk("b", "4"),
        b"",
    ]
    with anyio.fail_after(BOUND):
        async with client_end, agent_end, dispatcher.running():
            await agent_end.send_raw(b"\n".join(lines))
            while len([s for s in seen if s != "before"]) < 6:
                await anyio.lowlevel.checkpoint()
    assert [s for s in seen if s != "before"] == [
        ("now", "a", "1"),
        ("again", "a", "2"),
        ("now", "a", "refused"),
        ("now", "b", "3"),
        ("now", "a", "no"),
        ("again", "b", "4"),
    ]
    assert seen.count("before") >= 3  # (method a -> b -> a -> b)
    assert [d.kind for d in diagnostics] == ["notification_error"]
    assert "handler failed" in diagnostics[0].message
