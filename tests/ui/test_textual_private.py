"""Each private detail of Textual the app relies on is still there, as it was.

`acp_tui.ui.textual_private.RELIANCES` names them; this checks every one, and a
failure names the reliance (and the code that needs it), so a Textual upgrade
that changes one fails here, loudly, not somewhere downstream.
"""

from __future__ import annotations

import asyncio
import inspect
import re
from collections.abc import Callable
from functools import partial
from typing import Final
from weakref import WeakSet

import pytest
from textual import _callback as callback_module
from textual._compositor import Compositor
from textual._styles_cache import StylesCache
from textual.app import App
from textual.cache import LRUCache
from textual.containers import VerticalScroll
from textual.css import match as match_module
from textual.css import model as model_module
from textual.css.stylesheet import Stylesheet
from textual.dom import DOMNode
from textual.driver import Driver
from textual.message import Message
from textual.message_pump import MessagePump
from textual.reactive import Reactive
from textual.screen import Screen
from textual.scroll_view import ScrollView
from textual.strip import Strip
from textual.timer import Timer
from textual.widget import Widget
from textual.widgets import Collapsible, Static, TextArea
from textual.widgets._collapsible import CollapsibleTitle
from textual.widgets._footer import FooterKey
from textual_autocomplete import AutoComplete
from textual_serve.server import Server

from acp_tui.ui import strip_cycles, styles_cache_release
from acp_tui.ui.session_pane import SessionPane
from acp_tui.ui.textual_private import RELIANCES, TEXTUAL_UPDATE_TIMER, Reliance
from acp_tui.ui.widgets.conversation import Conversation
from acp_tui.ui.widgets.markdown_view import MarkdownView
from acp_tui.ui.widgets.terminal_view import TerminalLines
from acp_tui.ui.widgets.tool_call_view import QuietTitle, ToolCallBody


def method(
    owner: type, name: str, params: list[str], *, coroutine: bool = False
) -> Callable[[], None]:
    """A check that `owner.name` is a method with these parameters (after self)."""

    def check() -> None:
        function = getattr(owner, name, None)
        assert callable(function), f"{owner.__name__}.{name} is gone"
        found = list(inspect.signature(function).parameters)[1:]
        assert found == params, f"{owner.__name__}.{name}{tuple(found)} changed"
        assert inspect.iscoroutinefunction(function) == coroutine, (
            f"{owner.__name__}.{name} is {'no longer' if coroutine else 'now'} async"
        )

    return check


def widget_attribute(name: str, value: object) -> Callable[[], None]:
    """A check that a new `Widget` has the attribute `name`, set to `value`."""

    def check() -> None:
        widget = Widget()
        assert hasattr(widget, name), f"Widget.{name} is gone"
        assert getattr(widget, name) == value, f"Widget.{name} starts otherwise"

    return check


def css_bases() -> None:
    """The mixins are not DOM classes: the chain runs through the real base."""
    for widget, base in (
        (TerminalLines, ScrollView),
        (Conversation, VerticalScroll),
        (MarkdownView, Widget),
        (SessionPane, Widget),  # its parts are mixins too
    ):
        chain = list(DOMNode._css_bases(widget))
        assert chain[:2] == [widget, base], f"{widget.__name__}: {chain}"
        assert base.__name__ in widget._css_type_names


def collapsible_title() -> None:
    """`Collapsible._title` is the title widget it composes; ours replaces it."""
    assert isinstance(Collapsible(title="x")._title, CollapsibleTitle)
    assert isinstance(ToolCallBody(collapsed=True)._title, QuietTitle)
    assert "self._title" in inspect.getsource(Collapsible.compose)


def collapsible_contents_list() -> None:
    """`Collapsible._contents_list` holds the children it was given, which its
    `compose` yields inside its Contents; ours yields them itself."""
    part = Static("x")
    assert Collapsible(part)._contents_list == [part]
    assert "self._contents_list" in inspect.getsource(Collapsible.compose)


def app_driver() -> None:
    """`App._driver` is None until the app runs; a driver has `write(data)`."""
    assert App()._driver is None, "App._driver is gone or starts otherwise"
    method(Driver, "write", ["data"])()


def display_property() -> None:
    """`DOMNode.display` is a property with a getter and a setter."""
    display = inspect.getattr_static(DOMNode, "display")
    assert isinstance(display, property), "DOMNode.display is not a property"
    assert display.fget is not None, "DOMNode.display has no getter"
    assert display.fset is not None, "DOMNode.display has no setter"


def message_flags() -> None:
    """A new message has `_stop_propagation` and `_no_default_action`, both False,
    and `stop()` / `prevent_default()` set them."""
    message = Message()
    assert message._stop_propagation is False, "Message._stop_propagation changed"
    assert message._no_default_action is False, "Message._no_default_action changed"
    message.stop()
    message.prevent_default()
    assert message._stop_propagation
    assert message._no_default_action


def node_bindings() -> None:
    """`DOMNode._bindings` maps a key to the node's bindings (`key_to_bindings`)."""
    bindings = TextArea()._bindings.key_to_bindings.get("backspace", [])
    assert [b.action for b in bindings] == ["delete_left"], bindings


def refresh_flags() -> None:
    """A new widget has no pending repaint, layout or scroll; `refresh` sets one."""
    widget = Widget()
    for name in ("_repaint_required", "_layout_required", "_scroll_required"):
        assert getattr(widget, name, None) is False, f"Widget.{name} changed"


def screen_dirty_widgets() -> None:
    """`Screen._dirty_widgets` is a set; `Screen._on_update` adds to it what is in
    `Screen._compositor` (which answers `in`)."""
    screen = Screen[None]()
    assert isinstance(screen._dirty_widgets, set), "Screen._dirty_widgets changed"
    assert screen not in screen._compositor
    source = inspect.getsource(Screen._on_update)
    assert "self._dirty_widgets.add(widget)" in source, "Screen._on_update changed"


def next_callbacks() -> None:
    """`App._prune` has the app await a removal after its next message: an
    `events.Callback` of a partial of the `AwaitRemove`, in `_next_callbacks`."""
    app = App[None]()
    removal = app._prune(Widget())
    callbacks = app._next_callbacks
    assert isinstance(callbacks, list), "MessagePump._next_callbacks changed"
    assert [
        callback.callback.func
        for callback in callbacks
        if isinstance(callback.callback, partial)
    ] == [removal], "App._prune no longer awaits the removal after the next message"


def arrange_then_scroll_offset() -> None:
    source = inspect.getsource(Compositor._arrange_root)
    arranged = source.index(".arrange(")
    assert "scroll_offset" in source[arranged:], "scroll offset not read after arrange"


def strip_slots() -> None:
    """`Strip`'s slots are those `_strip_init` sets or leaves to `__getattr__`, and
    Textual's `__init__` makes each cache at the size `LAZY_CACHE_SIZES` gives."""
    assert set(Strip.__slots__) == strip_cycles._SLOTS, "Strip.__slots__ changed"
    made = Strip.__new__(Strip)
    strip_cycles.TEXTUAL_STRIP_INIT(made, [])
    for name, size in strip_cycles.LAZY_CACHE_SIZES.items():
        assert object.__getattribute__(made, name)._maxsize == size, name


def styles_cache_inner_outer() -> None:
    """Textual's method: an `lru_cache` over a function of (cls, two colours);
    if it became a classmethod (fixed), `release_styles_caches` is not needed."""
    original = styles_cache_release._textual_inner_outer or vars(StylesCache).get(
        "get_inner_outer"
    )
    wrapped = getattr(original, "__wrapped__", original)
    assert callable(wrapped), "StylesCache.get_inner_outer changed"
    assert list(inspect.signature(wrapped).parameters) == [
        "cls",
        "base_background",
        "background",
    ], "StylesCache.get_inner_outer changed"


def arrange_root_closure() -> None:
    """`_arrange_root` fills, with a nested function that calls itself, the map
    and the set it returns (`compositor_cycles` copies and empties them)."""
    source = inspect.getsource(Compositor._arrange_root)
    assert "def add_widget(" in source, "Compositor._arrange_root changed"
    assert source.count("add_widget(") > 2, "add_widget no longer recursive"
    assert "return map, widgets" in source, "Compositor._arrange_root changed"


def full_map_flag() -> None:
    """`reflow` arranges every widget and stores that map as `_full_map`;
    `full_map` arranges again while `_full_map_invalidated` is set."""
    assert Compositor()._full_map_invalidated is True, "_full_map_invalidated changed"
    reflow = inspect.getsource(
        getattr(Compositor.reflow, "__wrapped__", Compositor.reflow)
    )
    assert "self._arrange_root(parent, size, visible_only=False)" in reflow
    assert "self._full_map = map" in reflow, "Compositor.reflow changed"
    full_map = inspect.getsource(inspect.getattr_static(Compositor, "full_map").fget)
    assert "if self._full_map_invalidated:" in full_map, "Compositor.full_map changed"


def reactive_connect() -> None:
    """`data_bind` notes its bindings in `_reactive_connect` (None before any),
    a reactive already set is left alone as its node mounts, and a footer key's
    `compact` watcher only sets its class."""
    assert DOMNode()._reactive_connect is None, "DOMNode._reactive_connect changed"
    bind = inspect.getsource(DOMNode.data_bind)
    assert "self._reactive_connect[name] = (parent, reactive)" in bind
    initialize = inspect.getsource(Reactive._initialize_reactive)
    assert "if hasattr(obj, internal_name):" in initialize, "reactive init changed"
    watch = inspect.getsource(FooterKey._watch_compact)
    assert watch.strip().endswith('self.set_class(compact, "-compact")'), watch


def node_styles_hold_the_node() -> None:
    """A node's own styles hold it (`Styles.node`), and may be cleared."""
    node = DOMNode()
    assert node._css_styles.node is node, "DOMNode._css_styles changed"
    assert node._inline_styles.node is node, "DOMNode._inline_styles changed"
    assert isinstance(node._component_styles, dict), "_component_styles changed"


def component_virtual_nodes() -> None:
    """Each component class is styled on a virtual `DOMNode`, whose
    `RenderStyles` goes to `_component_styles` (holding that node weakly)."""
    method(Stylesheet, "_process_component_classes", ["node"])()
    source = inspect.getsource(Stylesheet._process_component_classes)
    assert "DOMNode(classes=component)" in source, "virtual nodes changed"
    assert "node._component_styles[component] = virtual_node.styles" in source


NODE_PRIVATES_APPLY_READS: Final = {
    "_selector_names",
    "_has_hover_style",
    "_has_focus_within",
    "_has_order_style",
    "_has_odd_or_even",
    "_parent",
    "_id",
    "_pseudo_classes_cache_key",
    "_css_type_name",
}
"""What of a node `Stylesheet.apply` reads besides its path and classes (the
last four only for the cache of one update pass, which the shared rules skip)."""


def stylesheet_apply() -> None:
    """`apply` picks the rules by the node's selector names, checks them on the
    path from the app, sets the four flags, and hands its rules to
    `replace_rules`; selectors joined with no combinator test the same node."""
    method(Stylesheet, "apply", ["node", "animate", "cache"])()
    source = inspect.getsource(inspect.unwrap(Stylesheet.apply))
    for part in (
        "rules_map.keys() & node._selector_names",
        "reversed(self.rules)",
        "css_path_nodes = node.css_path_nodes",
        "_check_rule(rule, css_path_nodes)",
        "node._has_hover_style = ",
        "node._has_focus_within = ",
        "node._has_order_style = ",
        "node._has_odd_or_even = ",
        "self.replace_rules(node, node_rules, animate=animate)",
        "self._process_component_classes(node)",
    ):
        assert part in source, f"Stylesheet.apply changed: {part}"
    read = set(re.findall(r"\bnode\.(_\w+)", source))
    assert read == NODE_PRIVATES_APPLY_READS, f"Stylesheet.apply reads {read}"
    checks = inspect.getsource(match_module) + inspect.getsource(model_module)
    assert "node_index + selector.advance" in checks, "selector matching changed"
    assert "int(next_selector.combinator != SAME)" in checks, "combinators changed"
    assert "node.has_pseudo_classes(self.pseudo_classes)" in checks


def replace_rules_classmethod() -> None:
    """`replace_rules(node, rules, animate)` is a classmethod."""
    found = inspect.getattr_static(Stylesheet, "replace_rules")
    assert isinstance(found, classmethod), "Stylesheet.replace_rules changed"
    found = inspect.unwrap(found.__func__)
    params = list(inspect.signature(found).parameters)[1:]
    assert params == ["node", "rules", "animate"], f"replace_rules{tuple(params)}"


def pseudo_class_checks() -> None:
    """A node's pseudo-classes are its class's `_PSEUDO_CLASSES` checks."""
    assert DOMNode._PSEUDO_CLASSES == {}, "DOMNode._PSEUDO_CLASSES changed"
    assert Widget._PSEUDO_CLASSES["focus"](Widget()) is False
    source = inspect.getsource(DOMNode.has_pseudo_classes)
    assert "PSEUDO_CLASSES[name](self)" in source, "has_pseudo_classes changed"


def count_parameters() -> None:
    """A callback gets as many arguments as `_count_parameters` counts, which
    is its signature's parameters (the module's `signature`, patchable)."""
    counter = inspect.unwrap(callback_module._count_parameters)
    source = inspect.getsource(counter)
    assert "return len(signature(func).parameters)" in source, source
    assert vars(callback_module)["signature"] is inspect.signature
    invoke = inspect.getsource(callback_module._invoke)
    assert "count_parameters(callback)" in invoke, "textual._callback changed"
    assert "_count_parameters(" in inspect.getsource(callback_module.count_parameters)


def box_model_cache() -> None:
    """`Widget._box_model_cache` is an `LRUCache`; its `_cache` maps keys to the
    links of its ring, lists `[previous, next, key, value]`."""
    assert isinstance(Widget()._box_model_cache, LRUCache), "_box_model_cache changed"
    cache: LRUCache[str, int] = LRUCache(4)
    cache.set("a", 1)
    cache.set("b", 2)
    link = cache._cache["a"]
    assert isinstance(link, list), "LRUCache links changed"
    assert link[2:] == ["a", 1], "LRUCache links changed"
    assert link[0] is cache._cache["b"], "LRUCache links changed"


def made_scrollbars() -> None:
    """A widget's scrollbars start unmade, and are not among its children
    (`Widget.vertical_scrollbar` makes one, in `_vertical_scrollbar`)."""
    for name in ("_vertical_scrollbar", "_horizontal_scrollbar", "_scrollbar_corner"):
        widget_attribute(name, None)()
    source = inspect.getsource(
        inspect.getattr_static(Widget, "vertical_scrollbar").fget
    )
    assert "self._vertical_scrollbar = " in source, "Widget._vertical_scrollbar changed"


def timers_registry() -> None:
    """A pump keeps its timers in a set, which `set_timer` adds each to."""
    pump = MessagePump()
    assert isinstance(pump._timers, WeakSet), type(pump._timers)


def screen_update_timer() -> None:
    """Textual's `Screen._update_timer` (kept before it was replaced) is a property
    that makes the timer with `set_interval(UPDATE_PERIOD, _on_timer_update,
    name="screen_update", pause=True)`, as `pace_screen_updates`' does; a new
    screen keeps its timer in `_Screen__update_timer`, None until asked for."""
    original = TEXTUAL_UPDATE_TIMER
    assert isinstance(original, property)
    assert original.fget is not None
    source = " ".join(inspect.getsource(original.fget).split())
    made = (
        "self.set_interval( UPDATE_PERIOD, self._on_timer_update, "
        'name="screen_update", pause=True )'
    )
    assert made in source, source
    screen: Screen[None] = Screen()
    assert screen._Screen__update_timer is None  # type: ignore[attr-defined]


def timer_active() -> None:
    """A timer's `_active` is an event, set unless it was made paused."""
    paused = Timer(Screen(), 1.0, pause=True)
    running = Timer(Screen(), 1.0)
    assert isinstance(paused._active, asyncio.Event)
    assert not paused._active.is_set()
    assert running._active.is_set()


CHECKS: dict[str, Callable[[], None]] = {
    "Screen._update_timer": screen_update_timer,
    "Screen._Screen__update_timer": screen_update_timer,
    "Timer._run": method(Timer, "_run", [], coroutine=True),
    "Timer._active": timer_active,
    "Timer._tick": method(Timer, "_tick", ["next_timer", "count"], coroutine=True),
    "Timer._start": method(Timer, "_start", []),
    "MessagePump._timers": timers_registry,
    "Widget._scroll_update": method(Widget, "_scroll_update", ["virtual_size"]),
    "Widget._anchored": widget_attribute("_anchored", False),
    "Widget._anchor_released": widget_attribute("_anchor_released", False),
    "Widget._border_title": widget_attribute("_border_title", None),
    "Widget._border_subtitle": widget_attribute("_border_subtitle", None),
    "DOMNode._css_bases": css_bases,
    "TextArea._on_key": method(TextArea, "_on_key", ["event"], coroutine=True),
    "CollapsibleTitle._update_label": method(CollapsibleTitle, "_update_label", []),
    "Collapsible._title": collapsible_title,
    "Collapsible._contents_list": collapsible_contents_list,
    "App._register": method(
        App, "_register", ["parent", "widgets", "before", "after", "cache"]
    ),
    "AutoComplete._get_target_state": method(AutoComplete, "_get_target_state", []),
    "AutoComplete._listen_to_messages": method(
        AutoComplete, "_listen_to_messages", ["event"]
    ),
    "AutoComplete._handle_target_update": method(
        AutoComplete, "_handle_target_update", []
    ),
    "AutoComplete._align_to_target": method(AutoComplete, "_align_to_target", []),
    "AutoComplete._rebuild_options": method(
        AutoComplete, "_rebuild_options", ["target_state", "search_string"]
    ),
    "Compositor._arrange_root": arrange_then_scroll_offset,
    "Server._make_app": method(Server, "_make_app", [], coroutine=True),
    "Strip.divide": method(Strip, "divide", ["cuts"]),
    "Strip.__slots__": strip_slots,
    "StylesCache.get_inner_outer": styles_cache_inner_outer,
    "DOMNode.display": display_property,
    "App._driver": app_driver,
    "Message._stop_propagation": message_flags,
    "DOMNode._bindings": node_bindings,
    "Widget._repaint_required": refresh_flags,
    "Screen._dirty_widgets": screen_dirty_widgets,
    "Screen._on_timer_update": method(Screen, "_on_timer_update", []),
    "MessagePump._next_callbacks": next_callbacks,
    "Compositor._arrange_root.add_widget": arrange_root_closure,
    "Compositor._full_map_invalidated": full_map_flag,
    "DOMNode._reactive_connect": reactive_connect,
    "Strip.crop_extend": method(Strip, "crop_extend", ["start", "end", "style"]),
    "DOMNode._css_styles": node_styles_hold_the_node,
    "Stylesheet._process_component_classes": component_virtual_nodes,
    "Widget._box_model_cache": box_model_cache,
    "Widget._vertical_scrollbar": made_scrollbars,
    "Stylesheet.apply": stylesheet_apply,
    "Stylesheet.replace_rules": replace_rules_classmethod,
    "DOMNode._PSEUDO_CLASSES": pseudo_class_checks,
    "_callback._count_parameters": count_parameters,
}


def test_every_reliance_has_a_check() -> None:
    assert sorted(CHECKS) == sorted(r.name for r in RELIANCES)


@pytest.mark.parametrize("reliance", RELIANCES, ids=lambda r: r.name)
def test_reliance_still_holds(reliance: Reliance) -> None:
    try:
        CHECKS[reliance.name]()
    except (AssertionError, AttributeError, TypeError, ValueError) as error:
        pytest.fail(
            f"Textual changed {reliance.name}, which {reliance.used_by} relies on "
            f"({reliance.why}): {error}",
            pytrace=False,
        )
