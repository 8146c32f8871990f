"""Every file the agent writes is shown in the conversation (issue 20, item 7).

v1 `fs/write_text_file` carries no tool call. The write is shown in the one
unfinished tool call that names the file (its diff added to the call's content,
and kept there), or else as a card of its own: never invisible.
"""

from __future__ import annotations

import threading
from pathlib import Path
from typing import Any

import anyio
import anyio.to_thread
import pytest

from acp_tui.client import file_writes
from acp_tui.client.connection import ClientFeatures
from acp_tui.store.model import ToolCall
from acp_tui.store.store import SessionStore
from tests.unit.client.peer import JSON, Harness, open_harness, v1_init

FS = ClientFeatures(read_text_file=True, write_text_file=True)


@pytest.fixture
def project(tmp_path: Path) -> Path:
    directory = tmp_path / "project"
    (directory / "src").mkdir(parents=True)
    (directory / "src" / "app.py").write_text("print('old')\n")
    return directory


async def write(h: Harness, path: Path, content: str) -> JSON:
    response = await h.peer.call(
        "fs/write_text_file", {"sessionId": "s1", "path": str(path), "content": content}
    )
    assert "error" not in response, response
    return response


def diffs(call: ToolCall) -> list[dict[str, Any]]:
    return [dict(item) for item in call.content if item.get("type") == "diff"]


async def report(h: Harness, tool_call_id: str, **fields: Any) -> None:
    """The agent reports a v1 tool call."""
    update = {"sessionUpdate": "tool_call", "toolCallId": tool_call_id, **fields}
    await h.peer.update("s1", update)


async def test_a_write_without_a_tool_call_gets_a_card_of_its_own(
    project: Path,
) -> None:
    target = project / "src" / "app.py"
    async with open_harness(v1_init(), features=FS) as h:
        store: SessionStore = await h.new_session(cwd=project)
        await write(h, target, "print('new')\nprint('more')\n")
        await write(h, project / "fresh.txt", "hello")
        cards = store.tool_calls()
        assert len(cards) == 2
        first, second = cards
        assert first.title == "The agent wrote src/app.py (2 lines) without a tool call"
        assert (first.kind, first.status) == ("edit", "completed")
        assert list(first.locations) == [{"path": str(target)}]
        assert diffs(first) == [
            {
                "type": "diff",
                "path": str(target),
                "oldText": "print('old')\n",
                "newText": "print('new')\nprint('more')\n",
            }
        ]
        assert second.title == "The agent wrote fresh.txt (1 line) without a tool call"
        assert diffs(second)[0]["oldText"] is None  # a new file
        assert store.timeline() == (
            ("tool_call", first.tool_call_id),
            ("tool_call", second.tool_call_id),
        )
        # Ids the agent never sees, so it cannot update the cards.
        assert first.tool_call_id.startswith("acp-tui/write/")
        assert first.tool_call_id != second.tool_call_id


async def test_a_write_shows_in_the_tool_call_that_names_the_file(
    project: Path,
) -> None:
    target = project / "src" / "app.py"
    async with open_harness(v1_init(), features=FS) as h:
        store = await h.new_session(cwd=project)
        await report(
            h,
            "w1",
            title="Edit app.py",
            kind="edit",
            status="in_progress",
            locations=[{"path": str(target)}],
        )
        await report(h, "r1", title="Read", kind="read", status="completed")
        await write(h, target, "print('new')\n")
        written = {
            "type": "diff",
            "path": str(target),
            "oldText": "print('old')\n",
            "newText": "print('new')\n",
        }
        call = store.tool_call("w1")
        assert call is not None
        assert diffs(call) == [written]
        assert [c.tool_call_id for c in store.tool_calls()] == ["w1", "r1"]

        # The agent replaces the call's content without the write: it stays.
        await h.peer.update(
            "s1",
            {
                "sessionUpdate": "tool_call_update",
                "toolCallId": "w1",
                "status": "completed",
                "content": [
                    {"type": "content", "content": {"type": "text", "text": "done"}}
                ],
            },
        )
        await h.peer.sync()
        call = store.tool_call("w1")
        assert call is not None
        assert diffs(call) == [written]
        assert call.content[0]["type"] == "content"

        # Content that shows the same write replaces ours: no second diff.
        agents = {**written, "oldText": None}
        await h.peer.update(
            "s1",
            {
                "sessionUpdate": "tool_call_update",
                "toolCallId": "w1",
                "content": [agents],
            },
        )
        await h.peer.sync()
        call = store.tool_call("w1")
        assert call is not None
        assert diffs(call) == [agents]


async def test_a_tool_call_already_showing_the_write_gets_nothing_more(
    project: Path,
) -> None:
    target = project / "src" / "app.py"
    shown = {"type": "diff", "path": str(target), "oldText": None, "newText": "x\n"}
    async with open_harness(v1_init(), features=FS) as h:
        store = await h.new_session(cwd=project)
        await report(h, "w1", title="Edit", kind="edit", content=[shown])
        await write(h, target, "x\n")
        assert [c.tool_call_id for c in store.tool_calls()] == ["w1"]
        call = store.tool_call("w1")
        assert call is not None
        assert diffs(call) == [shown]


@pytest.mark.parametrize("why", ["two-candidates", "finished", "other-file"])
async def test_a_write_no_single_unfinished_tool_call_names_is_shown_apart(
    project: Path, why: str
) -> None:
    target = project / "src" / "app.py"
    calls = {
        "two-candidates": [
            ("a", "in_progress", {"path": str(target)}),
            ("b", "pending", {"path": str(target)}),
        ],
        "finished": [("a", "completed", {"path": str(target)})],
        "other-file": [("a", "in_progress", {"path": str(project / "other.py")})],
    }[why]
    async with open_harness(v1_init(), features=FS) as h:
        store = await h.new_session(cwd=project)
        for call_id, status, location in calls:
            await report(h, call_id, title="Edit", status=status, locations=[location])
        await write(h, target, "y\n")
        names = [c.tool_call_id for c in store.tool_calls()]
        assert names[: len(calls)] == [c[0] for c in calls]
        assert len(names) == len(calls) + 1  # a card of its own
        for call_id, _, _ in calls:
            call = store.tool_call(call_id)
            assert call is not None
            assert diffs(call) == []


async def test_a_write_the_raw_input_names_is_shown_in_that_call(project: Path) -> None:
    target = project / "src" / "app.py"
    async with open_harness(v1_init(), features=FS) as h:
        store = await h.new_session(cwd=project)
        await report(
            h,
            "w1",
            title="Write",
            status="in_progress",
            rawInput={"file_path": str(target), "content": "z\n"},
        )
        await write(h, target, "z\n")
        call = store.tool_call("w1")
        assert call is not None
        assert len(diffs(call)) == 1
        assert len(store.tool_calls()) == 1


async def test_a_huge_write_is_shown_without_its_text(project: Path) -> None:
    target = project / "big.txt"
    content = "x" * (3 * 1024 * 1024)
    async with open_harness(v1_init(), features=FS) as h:
        store = await h.new_session(cwd=project)
        await write(h, target, content)
        (card,) = store.tool_calls()
        assert card.title is not None
        assert card.title.startswith("The agent wrote big.txt")
        assert diffs(card) == []
        (item,) = card.content
        assert "3,145,728 bytes" in str(item)
        assert target.read_text() == content


async def test_a_refused_write_changes_nothing(project: Path) -> None:
    async with open_harness(v1_init(), features=FS) as h:
        store = await h.new_session(cwd=project)
        response = await h.peer.call(
            "fs/write_text_file",
            {"sessionId": "s1", "path": "/etc/passwd", "content": "pwned"},
        )
        assert response["error"]["code"] == -32602
        assert store.tool_calls() == ()


async def test_writes_land_in_the_order_they_were_asked(
    project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A second write of a file sent before the first was answered waits for it:
    the first, held in its worker thread, does not land after the second."""
    target = project / "src" / "app.py"
    entered, release = threading.Event(), threading.Event()
    read_old = file_writes._read_old

    def slow_first(real: str) -> Any:
        if not entered.is_set():
            entered.set()
            release.wait(10)  # the first write is held in its thread
        return read_old(real)

    monkeypatch.setattr(file_writes, "_read_old", slow_first)
    async with open_harness(v1_init(), features=FS) as h:
        await h.new_session(cwd=project)
        with anyio.fail_after(20):
            async with anyio.create_task_group() as group:
                group.start_soon(write, h, target, "first\n")
                await anyio.to_thread.run_sync(entered.wait, 10)
                group.start_soon(write, h, target, "second\n")
                # The second has all the time it needs to land, if it may.
                await anyio.sleep(0.3)
                release.set()
        assert target.read_text() == "second\n"
