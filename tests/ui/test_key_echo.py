"""Keys typed in the prompt are handled, and shown, without waiting for the
message queues of the panes around it or of the screen.

While the agent streams, the session pane's message queue is busy applying
batches of changes (it awaits the mounts of new cards). A key the prompt does
not take itself (Backspace, Delete, the arrows) used to bubble up through that
queue before its binding ran, so it waited behind the batch; and the frame
showing any key waited for the screen's queue and its next update. Here a
queue is held on purpose: the prompt's own keys still act, and are painted, at
once.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager

from rich.console import RenderableType
from textual import events, on
from textual.app import App, ComposeResult
from textual.containers import Vertical
from textual.message_pump import MessagePump
from textual.pilot import Pilot
from textual.screen import Screen

from acp_tui.ui.widgets.prompt_input import PromptInput

SIZE = (60, 12)
STEP = 0.01


async def wait_for(
    _pilot: Pilot[None], condition: Callable[[], bool], bound: float
) -> None:
    """Poll `condition` for about `bound` seconds at most.

    Not `pilot.pause`: that waits for every widget's queue to empty, and here
    one is held on purpose.
    """
    for _ in range(round(bound / STEP)):
        if condition():
            return
        await asyncio.sleep(STEP)
    raise AssertionError("condition not met in time")


class Hold:
    """Holds a node's message queue (as a busy pane's is) until released."""

    def __init__(self, node: MessagePump) -> None:
        self.release = asyncio.Event()
        self.held = False

        async def wait() -> None:
            self.held = True
            await self.release.wait()
            self.held = False

        node.call_later(wait)


class HeldPane(Vertical):
    """The prompt's container; notes the keys that bubble up to it."""

    def __init__(self) -> None:
        super().__init__()
        self.keys_seen: list[str] = []

    def on_key(self, event: events.Key) -> None:
        self.keys_seen.append(event.key)


class HeldApp(App[None]):
    def __init__(self) -> None:
        super().__init__()
        self.interrupts = 0

    def compose(self) -> ComposeResult:
        with HeldPane():
            yield PromptInput(id="prompt")

    def on_mount(self) -> None:
        self.query_one(PromptInput).focus()

    @on(PromptInput.Interrupted)
    def interrupted(self) -> None:
        self.interrupts += 1


def press(app: App[None], key: str, character: str | None = None) -> None:
    """A key as the terminal sends it (not waiting for the app to go idle)."""
    app.post_message(events.Key(key, character))


@asynccontextmanager
async def held(node: MessagePump, pilot: Pilot[None]) -> AsyncIterator[Hold]:
    """`node`'s queue held (released on the way out)."""
    hold = Hold(node)
    try:
        await wait_for(pilot, lambda: hold.held, 5.0)
        yield hold
    finally:
        hold.release.set()
    await wait_for(pilot, lambda: not hold.held, 5.0)
    await pilot.pause()  # the queue, and what it let through, ran


async def test_editing_keys_act_while_the_pane_around_the_prompt_is_busy() -> None:
    app = HeldApp()
    async with app.run_test(size=SIZE) as pilot:
        prompt = app.query_one(PromptInput)
        prompt.insert("abc")
        pane = app.query_one(HeldPane)
        async with held(pane, pilot) as hold:
            press(app, "backspace")
            await wait_for(pilot, lambda: prompt.text == "ab", 3.0)
            press(app, "left")
            press(app, "delete")
            await wait_for(pilot, lambda: prompt.text == "a", 3.0)
            press(app, "x", "x")
            await wait_for(pilot, lambda: prompt.text == "ax", 3.0)
            assert hold.held  # all of it while the pane's queue was held
        # Each key acted once: none ran again when the pane let it through.
        assert prompt.text == "ax"
        assert pane.keys_seen == []


async def test_ctrl_c_copies_the_selection_while_the_pane_is_busy() -> None:
    app = HeldApp()
    async with app.run_test(size=SIZE) as pilot:
        prompt = app.query_one(PromptInput)
        prompt.insert("hello world")
        async with held(app.query_one(HeldPane), pilot):
            press(app, "shift+home")
            await wait_for(pilot, lambda: prompt.selected_text == "hello world", 3.0)
            press(app, "ctrl+c")
            await wait_for(pilot, lambda: app.clipboard == "hello world", 3.0)
        assert app.interrupts == 0


async def test_keys_the_prompt_does_not_bind_still_bubble_up() -> None:
    """A key without a binding of the prompt reaches the panes around it."""
    app = HeldApp()
    async with app.run_test(size=SIZE) as pilot:
        press(app, "f9")
        pane = app.query_one(HeldPane)
        await wait_for(pilot, lambda: pane.keys_seen == ["f9"], 3.0)


async def test_a_typed_key_is_painted_while_the_screen_queue_is_held() -> None:
    """The frame showing a key does not wait for the screen's queue."""
    app = HeldApp()
    async with app.run_test(size=SIZE) as pilot:
        prompt = app.query_one(PromptInput)
        await pilot.pause()
        painted: list[str] = []
        """The prompt's text at each frame painted."""
        display = app._display

        def counted(screen: Screen[object], renderable: RenderableType | None) -> None:
            display(screen, renderable)
            if renderable is not None:
                painted.append(prompt.text)

        app._display = counted  # type: ignore[method-assign]
        async with held(app.screen, pilot):
            press(app, "x", "x")
            await wait_for(pilot, lambda: "x" in painted, 3.0)
            press(app, "backspace")
            await wait_for(pilot, lambda: painted[-1] == "", 3.0)
