"""Cards the conversation unmounts do not hold the app's message queue.

Textual has the app await every removal of widgets after its next message, so
the app's queue, where every key comes in, waited until the removed cards'
tasks had ended (50-60 ms for a few cards while the agent streamed). The
conversation awaits its removals itself. Here a removed card's teardown is held
on purpose: a key typed meanwhile is still echoed in the prompt.
"""

from __future__ import annotations

import asyncio

import pytest
from textual import events
from textual.app import ComposeResult

from acp_tui.store import ops
from acp_tui.store.store import SessionStore
from acp_tui.ui.widgets.conversation import Conversation
from acp_tui.ui.widgets.message_view import MessageView
from acp_tui.ui.widgets.prompt_input import PromptInput
from tests.ui.helpers import wait_for
from tests.ui.test_conversation import ConversationApp

SIZE = (80, 24)


class ConversationAndPrompt(ConversationApp):
    """`test_conversation`'s conversation alone, with a prompt under it."""

    def compose(self) -> ComposeResult:
        yield from super().compose()
        yield PromptInput(id="prompt")

    def on_mount(self) -> None:
        self.query_one(PromptInput).focus()


class HeldTeardown:
    """Holds the teardown (unmount) of every `MessageView` until released."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        self.release = asyncio.Event()
        self.waiting = 0

        async def on_unmount(view: MessageView) -> None:
            self.waiting += 1
            await self.release.wait()
            self.waiting -= 1

        monkeypatch.setattr(MessageView, "on_unmount", on_unmount, raising=False)


async def test_a_key_is_echoed_while_unmounted_cards_are_torn_down(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    app = ConversationAndPrompt()
    store = SessionStore("s")
    teardown = HeldTeardown(monkeypatch)
    async with app.run_test(size=SIZE) as pilot:
        try:
            conversation = app.query_one(Conversation)
            prompt = app.query_one(PromptInput)
            changes = store.apply_many(
                ops.AppendMessageChunk(f"m{n}", "agent", {"type": "text", "text": "hi"})
                for n in range(3)
            )
            await conversation.apply_changes(store, changes)
            await wait_for(pilot, lambda: len(conversation.query(MessageView)) == 3)
            removing = asyncio.create_task(conversation.reset())
            await wait_for(pilot, lambda: teardown.waiting == 3)
            app.post_message(events.Key("x", "x"))  # as the terminal sends it
            await wait_for(pilot, lambda: prompt.text == "x", 3.0)
            assert not removing.done()  # the cards were still being torn down
        finally:
            teardown.release.set()
        await asyncio.wait_for(removing, 5.0)
        assert conversation.entries == {}
        assert not conversation.query(MessageView)
