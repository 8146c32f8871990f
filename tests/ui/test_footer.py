"""The key bar is rebuilt when the keys it shows change, and only then."""

from __future__ import annotations

from functools import partial
from typing import ClassVar

import pytest
from textual.app import App, ComposeResult
from textual.binding import Binding, BindingType
from textual.dom import DOMNode
from textual.widget import Widget
from textual.widgets import Button
from textual.widgets import Footer as TextualFooter
from textual.widgets._footer import FooterKey

from acp_tui.ui.widgets.footer import Footer
from tests.ui.helpers import wait_for


class Plain(Button):
    """Focusable, and adds no key of its own."""

    BINDINGS: ClassVar[list[BindingType]] = []


class WithKey(Widget, can_focus=True):
    """Focusable, with a key of its own."""

    BINDINGS: ClassVar[list[BindingType]] = [Binding("x", "nothing", "Extra")]

    def action_nothing(self) -> None:
        """A key to show."""


class Keys(App[None]):
    BINDINGS: ClassVar[list[BindingType]] = [Binding("q", "quit", "Quit")]

    def compose(self) -> ComposeResult:
        yield Plain("one", id="one")
        yield Plain("two", id="two")
        yield WithKey(id="extra")
        yield Footer()


def descriptions(app: Keys) -> list[str]:
    return [key.description for key in app.query(FooterKey)]


async def test_focus_moves_that_change_no_key_keep_the_keys_as_they_are() -> None:
    app = Keys()
    async with app.run_test() as pilot:
        app.set_focus(app.query_one("#one"))
        await wait_for(pilot, lambda: "Quit" in descriptions(app))
        await pilot.pause()
        keys = list(app.query(FooterKey))
        app.set_focus(app.query_one("#two"))
        await pilot.pause()
        await pilot.pause()
        assert list(app.query(FooterKey)) == keys  # the same widgets: not rebuilt
        assert all(key.is_attached for key in keys)


async def test_a_focus_move_that_changes_the_keys_shows_them() -> None:
    app = Keys()
    async with app.run_test() as pilot:
        app.set_focus(app.query_one("#one"))
        await wait_for(pilot, lambda: "Quit" in descriptions(app))
        assert "Extra" not in descriptions(app)
        app.set_focus(app.query_one("#extra"))
        await wait_for(pilot, lambda: "Extra" in descriptions(app))
        app.set_focus(app.query_one("#two"))
        await wait_for(pilot, lambda: "Extra" not in descriptions(app))
        assert "Quit" in descriptions(app)


async def test_a_key_disabled_since_is_shown_disabled() -> None:
    class Checked(Keys):
        allowed = True

        def check_action(
            self, action: str, parameters: tuple[object, ...]
        ) -> bool | None:
            return True if action != "quit" or self.allowed else None

    app = Checked()
    async with app.run_test() as pilot:
        app.set_focus(app.query_one("#one"))
        await wait_for(pilot, lambda: "Quit" in descriptions(app))
        quit_key = next(k for k in app.query(FooterKey) if k.description == "Quit")
        assert not quit_key.has_class("-disabled")
        app.allowed = False
        app.refresh_bindings()
        await wait_for(
            pilot,
            lambda: any(
                k.description == "Quit" and k.has_class("-disabled")
                for k in app.query(FooterKey)
            ),
        )


class TextualKeys(Keys):
    """The same keys under Textual's own footer."""

    def compose(self) -> ComposeResult:
        yield Plain("one", id="one")
        yield Plain("two", id="two")
        yield WithKey(id="extra")
        yield TextualFooter()


def key_looks(app: App[None]) -> list[tuple[str, bool, tuple[str, ...], str]]:
    """Each key: its key, `compact`, classes, and the padding of its parts."""
    return [
        (
            key.key,
            key.compact,
            tuple(sorted(key.classes)),
            str(key.get_component_styles("footer-key--description").padding),
        )
        for key in app.query(FooterKey)
    ]


def keys_took(app: App[None], compact: bool) -> bool:
    """Every key shown (but the palette's) has the footer's `compact`, and its class."""
    return all(
        key.compact == compact and key.has_class("-compact") == compact
        for key in app.query(FooterKey)
        if not key.has_class("-command-palette")
    )


async def shown_after_a_rebuild(
    app: Keys, compact: bool
) -> tuple[list[tuple[str, bool, tuple[str, ...], str]], list[str]]:
    """How the keys look once a focus move rebuilt them, and the keys bound to
    the footer's `compact` (all but the command palette's) restyled meanwhile."""
    async with app.run_test() as pilot:
        app.query_one(TextualFooter).compact = compact
        # The keys shown at start take `compact` (restyled) before the rebuild.
        await wait_for(pilot, partial(keys_took, app, compact))
        restyled: list[str] = []
        update_styles = app.update_styles

        def noted(node: DOMNode, animate: bool = True) -> None:
            if isinstance(node, FooterKey) and not node.has_class("-command-palette"):
                restyled.append(node.key)
            update_styles(node, animate)

        app.update_styles = noted  # type: ignore[method-assign]
        app.set_focus(app.query_one("#extra"))
        await wait_for(pilot, lambda: "Extra" in descriptions(app))
        await pilot.pause()
        return key_looks(app), restyled


@pytest.mark.parametrize("compact", [False, True])
async def test_keys_are_mounted_unrestyled_and_look_as_textuals(compact: bool) -> None:
    ours, restyled = await shown_after_a_rebuild(Keys(), compact)
    textuals, textual_restyled = await shown_after_a_rebuild(TextualKeys(), compact)
    assert ours == textuals
    assert {compact} == {look[1] for look in ours if look[0] != "ctrl+p"}
    # the keys had the footer's `compact`, and its class, before they were mounted
    assert restyled == []
    assert textual_restyled  # (Textual's: restyled as each is mounted)
