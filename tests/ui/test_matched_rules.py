"""Rules matched once per place (`acp_tui.ui.matched_rules`) are Textual's own.

tests/conftest.py installs `share_matched_rules` for the whole test process,
as `AcpTuiApp` does. Each test drives a small app through changes that move
what its selectors test (focus on a node and within its ancestors, classes and
ids on ancestors, disabled, order among siblings, the theme), and after each
one checks every node's rules, and its component classes' rules, against what
Textual's own `Stylesheet.apply` works out for it.
"""

from __future__ import annotations

from typing import Any, ClassVar

import pytest
from textual.app import App, ComposeResult
from textual.containers import Vertical
from textual.css.stylesheet import Stylesheet
from textual.dom import DOMNode
from textual.screen import Screen
from textual.widget import Widget
from textual.widgets import Button, Input, Label

from acp_tui.ui.matched_rules import share_matched_rules
from tests.ui.helpers import wait_for

SIZE = (60, 30)


class Host(App[None]):
    CSS = """
    .box { height: 5; }
    .box:focus-within { background: $panel; }
    .box:focus-within Label { color: red; }
    #special Label { text-style: bold; }
    .marked > Label { background: blue; }
    Label:first-child { text-style: italic; }
    Label:last-child { text-style: underline; }
    Input:focus { border: heavy green; }
    Button:disabled { color: yellow; }
    App:light Label { color: magenta; }
    """

    def compose(self) -> ComposeResult:
        for number in range(3):
            with Vertical(classes="box", id="special" if number == 1 else None):
                yield Label(f"a{number}", id=f"a{number}")
                yield Input(id=f"in{number}")
                yield Label(f"b{number}", id=f"b{number}")
        yield Button("go", id="go", disabled=True)


def textual_apply() -> Any:
    apply = Stylesheet.apply
    return getattr(apply, "__wrapped__", apply)


def rules_of(node: DOMNode) -> tuple[dict[str, object], dict[str, dict[str, object]]]:
    """The node's rules from the stylesheet, and each component class's."""
    own = dict(node.styles.base._rules)
    components = {
        name: dict(styles.base._rules)
        for name, styles in node._component_styles.items()
    }
    return own, components


def assert_textuals(app: App[Any]) -> None:
    """Every node has the rules Textual's own apply works out for it."""
    apply = textual_apply()
    nodes: list[DOMNode] = [app, *app.screen.walk_children(with_self=True)]
    for node in nodes:
        shared = rules_of(node)
        apply(app.stylesheet, node)
        assert rules_of(node) == shared, f"{node!r} styled otherwise"


async def test_each_node_gets_textuals_rules_as_what_selectors_test_changes() -> None:
    app = Host()
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        assert_textuals(app)
        a0, a1 = app.query_one("#a0", Label), app.query_one("#a1", Label)
        assert a1.styles.text_style.bold
        assert not a0.styles.text_style.bold
        assert a0.styles.text_style.italic
        assert not a0.styles.text_style.underline

        app.query_one("#in0", Input).focus()
        await pilot.pause()
        assert_textuals(app)
        assert a0.styles.color.rgb == (255, 0, 0)
        assert a1.styles.color.rgb != (255, 0, 0)

        app.query_one("#in1", Input).focus()  # the same labels, focus moved
        await pilot.pause()
        assert_textuals(app)
        assert a1.styles.color.rgb == (255, 0, 0)
        assert a0.styles.color.rgb != (255, 0, 0)

        box = app.query(".box").first()
        box.add_class("marked")
        await pilot.pause()
        assert_textuals(app)
        assert a0.styles.background.rgb == (0, 0, 255)
        box.remove_class("marked")
        await pilot.pause()
        assert a0.styles.background.rgb != (0, 0, 255)

        await box.mount(Label("first", id="first"), before=0)
        await pilot.pause()
        app.stylesheet.update(app.screen)  # order styles: Textual restyles on demand
        assert_textuals(app)
        assert not a0.styles.text_style.italic

        button = app.query_one("#go", Button)
        button.disabled = False
        await pilot.pause()
        assert_textuals(app)
        assert button.styles.color.rgb != (255, 255, 0)

        app.theme = "textual-light"
        await wait_for(pilot, lambda: a0.styles.color.rgb == (255, 0, 255))
        assert_textuals(app)


async def test_a_second_app_is_styled_without_matching_again(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The nodes of an app like one styled before are not matched again."""
    async with Host().run_test(size=SIZE) as pilot:
        await pilot.pause()
    checked: list[object] = []
    check_rule = Stylesheet._check_rule.__func__  # type: ignore[attr-defined]

    def counted(cls: type[Stylesheet], *args: Any) -> Any:
        checked.append(args[0])
        return check_rule(cls, *args)

    monkeypatch.setattr(Stylesheet, "_check_rule", classmethod(counted))
    app = Host()
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        assert app.query_one("#a1", Label).styles.text_style.bold
        assert checked == []
        app.query_one("#special").add_class("marked")  # a place not seen before
        await pilot.pause()
        assert checked
        assert app.query_one("#a1", Label).styles.background.rgb == (0, 0, 255)
        assert_textuals(app)


def test_installing_twice_wraps_once() -> None:
    apply = Stylesheet.apply
    share_matched_rules()
    assert Stylesheet.apply is apply
    assert textual_apply() is not apply


class Widened(Widget):
    """A node with component classes, restyled as a class changes."""

    COMPONENT_CLASSES: ClassVar[set[str]] = {"widened--part"}
    DEFAULT_CSS = """
    Widened { height: 1; }
    Widened > .widened--part { color: green; }
    Widened.-wide > .widened--part { color: blue; }
    """


class WidenedHost(App[None]):
    def compose(self) -> ComposeResult:
        yield Widened(id="one")
        yield Widened(id="two", classes="-wide")


async def test_component_classes_get_textuals_rules() -> None:
    app = WidenedHost()
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        one, two = app.query_one("#one", Widened), app.query_one("#two", Widened)
        assert one.get_component_styles("widened--part").color.rgb == (0, 128, 0)
        assert two.get_component_styles("widened--part").color.rgb == (0, 0, 255)
        one.add_class("-wide")
        two.remove_class("-wide")
        await pilot.pause()
        assert one.get_component_styles("widened--part").color.rgb == (0, 0, 255)
        assert two.get_component_styles("widened--part").color.rgb == (0, 128, 0)
        assert_textuals(app)


class Counting(Label):
    """A label that counts the times it is told its styles were updated."""

    notified = 0

    def notify_style_update(self) -> None:
        self.notified += 1
        super().notify_style_update()


class Pushed(Screen[None]):
    def compose(self) -> ComposeResult:
        with Vertical(id="outer"):
            yield Counting("inherits", id="inner")


async def test_a_node_restyled_with_the_same_rules_is_told_so_as_before() -> None:
    """A screen pushed is styled as it mounts and again as it resumes, with the
    same rules: each node is told its styles were updated both times, as
    Textual's `replace_rules` tells it (what it inherits may have changed)."""
    app: App[None] = App()
    async with app.run_test(size=SIZE) as pilot:
        for _ in range(2):  # the second screen's nodes: every rule shared
            screen = Pushed()
            await app.push_screen(screen)
            await pilot.pause()
            assert screen.query_one("#inner", Counting).notified == 2
            assert_textuals(app)
            await app.pop_screen()
