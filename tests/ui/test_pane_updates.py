"""The session pane applies the store's batches without holding its message queue.

A batch's mounts take a while (a few milliseconds per card, far more while the
agent streams); the pane used to await them in its `SessionUpdated` handler, so
every message behind the batch waited. Here the conversation's `apply_changes`
is held on purpose (as slow mounts would hold it): the pane still takes its
messages, batches that come meanwhile are coalesced into one application, and
every change is applied once, in order. The batches themselves stay with the
pane: they never bubble up through the screen's and the app's queues, where
the keys come in.
"""

from __future__ import annotations

import asyncio
import sys
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from functools import partial
from pathlib import Path

import pytest
from textual.message import Message
from textual.pilot import Pilot

from acp_tui.protocol.transport import AgentCommand
from acp_tui.store import ops
from acp_tui.store.changes import Change
from acp_tui.store.store import SessionStore
from acp_tui.ui.app import AcpTuiApp, make_app
from acp_tui.ui.messages import SessionUpdated
from acp_tui.ui.session_pane import SessionPane
from acp_tui.ui.widgets.conversation import Conversation
from acp_tui.ui.widgets.prompt_input import PromptInput
from tests.ui.helpers import wait_for

FAKE_AGENT = Path(__file__).parents[1] / "fakes" / "agent.py"
SIZE = (100, 30)


def fake_app(cwd: Path) -> AcpTuiApp:
    command = AgentCommand(argv=(sys.executable, str(FAKE_AGENT), "v2"))
    return make_app(command, "fake", cwd=cwd, init_timeout=10.0)


class HeldApplications:
    """Holds `Conversation.apply_changes` while `held`; notes what it was given."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        self.applied: list[tuple[Change, ...]] = []
        self.waiting = 0
        """Applications waiting to be let through."""
        self.release = asyncio.Event()
        self.release.set()
        apply = Conversation.apply_changes

        async def held(
            conversation: Conversation,
            store: SessionStore,
            changes: Sequence[Change],
        ) -> None:
            if changes:
                self.applied.append(tuple(changes))
            if not self.release.is_set():
                self.waiting += 1
                await self.release.wait()
                self.waiting -= 1
            await apply(conversation, store, changes)

        monkeypatch.setattr(Conversation, "apply_changes", held)

    def hold(self) -> None:
        self.release.clear()


class ReceivedBatches:
    """Notes every `SessionUpdated` the pane takes from its queue (as it was)."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        self.received: list[tuple[Change, ...]] = []
        # Patched where it is defined: Textual calls the handler of every class
        # on the way up that defines one.
        owner = next(c for c in SessionPane.__mro__ if "on_session_updated" in vars(c))
        updated = owner.on_session_updated  # type: ignore[attr-defined]

        async def counted(pane: SessionPane, message: SessionUpdated) -> None:
            self.received.append(message.changes)
            result = updated(pane, message)
            if result is not None:  # the handler that awaited the batch
                await result

        monkeypatch.setattr(owner, "on_session_updated", counted)


@contextmanager
def letting_go(applications: HeldApplications) -> Iterator[None]:
    """Let the held applications through on the way out (a failed test too)."""
    try:
        yield
    finally:
        applications.release.set()


def received_count(batches: ReceivedBatches, count: int) -> bool:
    return len(batches.received) == count


def agent_text(message_id: str, text: str) -> ops.Op:
    return ops.AppendMessageChunk(message_id, "agent", {"type": "text", "text": text})


async def opened(app: AcpTuiApp, pilot: Pilot[None]) -> SessionStore:
    await wait_for(pilot, lambda: app.store is not None)
    store = app.store
    assert store is not None
    return store


async def test_the_pane_takes_its_messages_while_a_batch_waits_for_its_mounts(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    applications = HeldApplications(monkeypatch)
    app = fake_app(tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        with letting_go(applications):
            store = await opened(app, pilot)
            pane = app.active_pane
            conversation = pane.query_one(Conversation)
            applications.hold()
            store.apply(agent_text("a1", "first answer"))
            await wait_for(pilot, lambda: applications.waiting == 1)
            # The batch's mounts are pending: a message posted to the pane after it
            # is handled all the same, and a key typed in the prompt is echoed.
            handled: list[str] = []
            pane.call_later(handled.append, "after the batch")
            await wait_for(pilot, lambda: handled == ["after the batch"], 5.0)
            prompt = pane.query_one(PromptInput)
            await pilot.press("x", "y", "backspace")
            await wait_for(pilot, lambda: prompt.text == "x", 5.0)
            assert applications.waiting == 1
            assert ("message", "a1") not in conversation.entries
            applications.release.set()
            await wait_for(pilot, lambda: ("message", "a1") in conversation.entries)


async def test_batches_that_come_meanwhile_are_applied_once_in_order(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    applications = HeldApplications(monkeypatch)
    batches = ReceivedBatches(monkeypatch)
    app = fake_app(tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        with letting_go(applications):
            store = await opened(app, pilot)
            conversation = app.active_pane.query_one(Conversation)
            await pilot.pause()
            before = len(batches.received)
            applications.applied.clear()
            applications.hold()
            store.apply(agent_text("b1", "one"))
            await wait_for(pilot, lambda: applications.waiting == 1)
            # Four more batches while the first one's mounts are pending: a new
            # message, chunks appended to a shown one and to a new one.
            for number, op in enumerate(
                (
                    agent_text("b2", "two"),
                    agent_text("b1", " and more"),
                    agent_text("b3", "three"),
                    agent_text("b2", " again"),
                ),
                start=2,
            ):
                store.apply(op)
                await wait_for(pilot, partial(received_count, batches, before + number))
            assert applications.waiting == 1  # no second application began
            applications.release.set()
            keys = [("message", "b1"), ("message", "b2"), ("message", "b3")]
            await wait_for(
                pilot,
                lambda: (
                    all(key in conversation.entries for key in keys)
                    and pane_settled(app)
                ),
            )
            received = [c for batch in batches.received[before:] for c in batch]
            applied = [c for batch in applications.applied for c in batch]
            # Every change applied once, in the order the store made them: the
            # first batch alone, the four that came while it waited as one.
            assert applied == received
            assert len(applications.applied) == 2
            assert applications.applied[0] == batches.received[before]
            shown = [key for key in conversation.entries if key in keys]
            assert shown == keys
            texts = {
                key[1]: getattr(conversation.entries[key], "text", None) for key in keys
            }
            assert texts == {"b1": "one and more", "b2": "two again", "b3": "three"}


def pane_settled(app: AcpTuiApp) -> bool:
    """No batch is being applied in the pane."""
    return app.active_pane._applying is None


async def test_a_batch_stays_with_its_pane(tmp_path: Path) -> None:
    """`SessionUpdated` does not bubble up through the screen's and app's queues."""
    seen: list[tuple[str, str]] = []
    app = fake_app(tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        store = await opened(app, pilot)
        pane = app.active_pane

        def note(where: str) -> Callable[[Message], None]:
            def noted(message: Message) -> None:
                seen.append((where, type(message).__name__))

            return noted

        for where, node in (("pane", pane), ("screen", app.screen), ("app", app)):
            node.message_signal.subscribe(pane, note(where), immediate=True)
        store.apply(agent_text("c1", "hello"))
        conversation = pane.query_one(Conversation)
        await wait_for(pilot, lambda: ("message", "c1") in conversation.entries)
        await pilot.pause()
        assert ("pane", "SessionUpdated") in seen
        assert [where for where, name in seen if name == "SessionUpdated"] == ["pane"]
