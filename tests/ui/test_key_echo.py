"""Keys typed in the prompt are handled without waiting for the panes around it.

While the agent streams, the session pane's message queue is busy applying
batches of changes (it awaits the mounts of new cards). A key the prompt does
not take itself (Backspace, Delete, the arrows) used to bubble up through that
queue before its binding ran, so it waited behind the batch. Here the prompt's
container holds its queue on purpose: the prompt's own keys still act at once.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager

from textual import events, on
from textual.app import App, ComposeResult
from textual.containers import Vertical
from textual.pilot import Pilot

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


class HeldPane(Vertical):
    """A container whose message queue can be held (as a busy session pane's is)."""

    def __init__(self) -> None:
        super().__init__()
        self.release = asyncio.Event()
        self.held = False
        self.keys_seen: list[str] = []

    def hold(self) -> None:
        """Hold the queue until `release` is set."""

        async def wait() -> None:
            self.held = True
            await self.release.wait()
            self.held = False

        self.call_later(wait)

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
async def held(app: HeldApp, pilot: Pilot[None]) -> AsyncIterator[HeldPane]:
    """The pane around the prompt, its queue held (released on the way out)."""
    pane = app.query_one(HeldPane)
    pane.hold()
    try:
        await wait_for(pilot, lambda: pane.held, 5.0)
        yield pane
    finally:
        pane.release.set()
    await wait_for(pilot, lambda: not pane.held, 5.0)
    await pilot.pause()  # the pane's queue, and what it let through, ran


async def test_editing_keys_act_while_the_pane_around_the_prompt_is_busy() -> None:
    app = HeldApp()
    async with app.run_test(size=SIZE) as pilot:
        prompt = app.query_one(PromptInput)
        prompt.insert("abc")
        async with held(app, pilot) as pane:
            press(app, "backspace")
            await wait_for(pilot, lambda: prompt.text == "ab", 3.0)
            press(app, "left")
            press(app, "delete")
            await wait_for(pilot, lambda: prompt.text == "a", 3.0)
            press(app, "x", "x")
            await wait_for(pilot, lambda: prompt.text == "ax", 3.0)
            assert pane.held  # all of it while the pane's queue was held
        # Each key acted once: none ran again when the pane let it through.
        assert prompt.text == "ax"
        assert pane.keys_seen == []


async def test_ctrl_c_copies_the_selection_while_the_pane_is_busy() -> None:
    app = HeldApp()
    async with app.run_test(size=SIZE) as pilot:
        prompt = app.query_one(PromptInput)
        prompt.insert("hello world")
        async with held(app, pilot):
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
