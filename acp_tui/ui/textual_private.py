"""Every reliance of the app on a private detail of Textual (or its add-ons), named.

Textual is capped below its next major version (`pyproject.toml`), but a minor
release may still change what is private. Each reliance is listed in `RELIANCES`
(what, where, why), and `tests/ui/test_textual_private.py` checks each one: when
Textual changes it, that test fails and names the reliance, rather than the app
misbehaving somewhere downstream.

Reads of private attributes go through the helpers here (`scroll_update`,
`is_following`, `has_border_titles`), so the code that needs them names no
private attribute itself. Overrides of private methods and behaviour the code
counts on cannot be routed through a helper; they are listed all the same.

The reliances:

* `Timer._start` and `MessagePump._timers`: `set_timer_once` starts a one-shot
  timer that does not skip its only tick (Textual's `set_timer` does, when the
  timer's task first reads the clock after its delay is up: the callback never
  runs), and registers it as `set_timer` does, so it stops with its pump.

* `Screen._update_timer` (a property over `Screen.__update_timer`), `Timer._run`,
  `Timer._active`, `Timer._tick` and `textual._time`: `pace_screen_updates`
  replaces, process-wide, the screens' update timer with a `FrameTimer`, which
  paints as soon as a frame's period has passed since the last one. Textual's
  ticks on a fixed grid of periods and, resumed past its next tick (a screen
  that changes after a quiet spell, as a streamed turn's does every frame), skips
  to the tick after it: frames 17-33 ms apart where one every 16.7 ms was due.

* `Widget._scroll_update(virtual_size)`: `TerminalLines.sync` updates the scroll
  range of a Line API view without the layout pass that setting `virtual_size`
  costs (`scroll_update`).
* `Widget._anchored`, `Widget._anchor_released`: `Conversation.following` tells
  whether the view still sticks to its end (`is_following`).
* `Widget._border_title`, `Widget._border_subtitle`: `PaintStyle` caches a plain
  line only when no border title is drawn (`has_border_titles`).
* `DOMNode._css_bases` (the CSS base chain): a widget's CSS and type names come
  from the first DOM class among its bases, so the `PaintStyle` and
  `PlainBackground` mixins, the session pane's parts (`PanePart`,
  `FullScreenOpener`), the app's `AppTabs` and the dialogs' `Guarded` are plain
  classes listed first.
* `TextArea._on_key`: `PromptInput` overrides it (Enter submits, the newline keys
  insert) and calls it for every other key.
* `CollapsibleTitle._update_label`: `QuietTitle` overrides it to repaint without a
  layout when the label keeps its width.
* `Collapsible._title`: `ToolCallBody` replaces the title widget (a `QuietTitle`)
  before the collapsible composes it.
* `App._register`: a widget not yet attached is styled when it is mounted, so
  `tool_call_view._set_classes` sets its classes without restyling it.
* textual-autocomplete's `AutoComplete._get_target_state`,
  `_listen_to_messages`, `_handle_target_update`, `_align_to_target` and
  `_rebuild_options`: `PromptCompletion` drives a `TextArea` target with them.
* textual-serve's `Server._make_app`: `GuardedServer` serves the app it makes.
* `DOMNode.display`, a property with a setter: `PlanPanel` extends it (it renders
  what came while hidden when shown) and calls Textual's through the descriptor.
* `App._driver` and `Driver.write(data)`: `attention_hook` writes its
  notification and progress sequences to the terminal (`write_to_terminal`), as
  Textual's own `App.copy_to_clipboard` writes OSC 52.
* `MessagePump._next_callbacks` (what `call_next` appends to, as an
  `events.Callback` of a `functools.partial`): `App._prune` has the app await
  every removal of widgets after its next message, so the app's queue, where
  every key comes in, waited until the removed cards' tasks had ended (50-60 ms
  for a few cards while the agent streams). The conversation awaits its
  removals itself, and takes them off the app's queue (`remove_awaited`).
* `Strip.divide(cuts)` caching `[self]` in the strip at its own length (a cycle):
  `strip_cycles.break_strip_cycles` replaces the method, process-wide, so that
  one case is not cached.
* `StylesCache.get_inner_outer`, an `lru_cache` on a method that is not a
  classmethod (its cache keeps 1,024 widgets' rendered lines alive):
  `styles_cache_release.release_styles_caches` replaces it, process-wide, with
  one cached by its two colours.
* `Compositor._arrange_root`'s nested, recursive `add_widget` (a cycle that
  holds the map and the set of widgets it returns): `compositor_cycles`
  returns copies and empties those.
* `Compositor._full_map_invalidated`, the flag that the full map of widgets is
  out of date, which `Compositor.reflow` leaves set when it has just made that
  map: `compositor_map` clears it after the pass.
* `DOMNode._reactive_connect` (what `data_bind` bound, before the node is
  mounted) and a reactive left alone at mount once set (`set_reactive`): the
  footer gives each key bound to its `compact` that value and class before the
  key is mounted (`Footer._settle_compact`), so no watcher restyles it.
* `Strip.crop_extend` caching the strip itself at its own extent (a cycle):
  `strip_cycles.break_strip_cycles` replaces it too.
* `DOMNode._css_styles`, `DOMNode._inline_styles` (whose `node` holds the node
  back), `Stylesheet._process_component_classes` (the virtual nodes of
  `DOMNode._component_styles`), `Widget._box_model_cache` (an `LRUCache`, whose
  `_cache` holds a ring of lists) and a widget's scrollbars
  (`_vertical_scrollbar`, `_horizontal_scrollbar`, `_scrollbar_corner`):
  `widget_cycles` breaks these cycles once a node is removed.
* `Stylesheet.apply` (it matches a node's rules from the rules whose
  selectors end in the node's names, by its and its ancestors' types, ids,
  classes and pseudo-classes, sets four flags from those rules, and hands the
  rules it worked out to `Stylesheet.replace_rules`) and `DOMNode._PSEUDO_CLASSES`
  (each pseudo-class's check of a node): `matched_rules.share_matched_rules`
  keeps the rules matched for a node, by all it depends on, for the next node
  in the same place.
* `textual._callback._count_parameters(func)` (how many arguments Textual
  passes a callback: `len(inspect.signature(func).parameters)`):
  `callback_arity.count_callback_parameters_by_code` keeps a plain function's
  count by its code object.
* `Strip.__slots__` and what `Strip.__init__` sets:
  `strip_cycles.make_strip_caches_lazy` replaces `__init__` with one that leaves
  the seven caches unset, made on first use (`Strip.__getattr__`).
"""

from __future__ import annotations

import inspect
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import partial
from typing import Any, Final

from textual import _time
from textual.app import App
from textual.await_remove import AwaitRemove
from textual.geometry import Size
from textual.message_pump import MessagePump
from textual.screen import UPDATE_PERIOD, Screen
from textual.timer import EventTargetGone, Timer
from textual.widget import Widget

from acp_tui.protocol import loop_deadline

__all__ = [
    "RELIANCES",
    "TEXTUAL_UPDATE_TIMER",
    "FrameTimer",
    "Reliance",
    "has_border_titles",
    "is_following",
    "pace_screen_updates",
    "remove_awaited",
    "scroll_update",
    "set_timer_once",
    "write_to_terminal",
]


@dataclass(frozen=True, slots=True)
class Reliance:
    """One private detail the app relies on."""

    name: str
    """`Owner._attribute`, as the test names it when it fails."""
    used_by: str
    """The code that relies on it."""
    why: str
    """What it is used for."""


RELIANCES: Final = (
    Reliance(
        "Screen._update_timer",
        "acp_tui.ui.textual_private.pace_screen_updates",
        "replaced so a screen's updates are paced by a FrameTimer",
    ),
    Reliance(
        "Screen._Screen__update_timer",
        "acp_tui.ui.textual_private.pace_screen_updates",
        "where a screen keeps its update timer (None until first asked for)",
    ),
    Reliance(
        "Timer._run",
        "acp_tui.ui.textual_private.FrameTimer",
        "overridden: ticks a period after the last tick, not on a grid",
    ),
    Reliance(
        "Timer._active",
        "acp_tui.ui.textual_private.FrameTimer",
        "the event set while the timer is not paused",
    ),
    Reliance(
        "Timer._tick",
        "acp_tui.ui.textual_private.FrameTimer",
        "calls the timer's callback (or posts its event)",
    ),
    Reliance(
        "Timer._start",
        "acp_tui.ui.textual_private.set_timer_once",
        "start a one-shot timer made with skip=False, as set_timer starts its own",
    ),
    Reliance(
        "MessagePump._timers",
        "acp_tui.ui.textual_private.set_timer_once",
        "the pump's timers, stopped when it closes (set_timer adds its own there)",
    ),
    Reliance(
        "Strip.divide",
        "acp_tui.ui.strip_cycles.break_strip_cycles",
        "replaced so a strip divided at its own length holds no cycle",
    ),
    Reliance(
        "StylesCache.get_inner_outer",
        "acp_tui.ui.styles_cache_release.release_styles_caches",
        "replaced so removed widgets' lines are not kept alive by its cache",
    ),
    Reliance(
        "Strip.__slots__",
        "acp_tui.ui.strip_cycles.make_strip_caches_lazy",
        "a strip's caches are made on first use, not with the strip",
    ),
    Reliance(
        "Widget._scroll_update",
        "acp_tui.ui.widgets.terminal_view.TerminalLines.sync",
        "update the scroll range without a layout pass",
    ),
    Reliance(
        "Widget._anchored",
        "acp_tui.ui.widgets.conversation.Conversation.following",
        "whether the view is anchored to its end",
    ),
    Reliance(
        "Widget._anchor_released",
        "acp_tui.ui.widgets.conversation.Conversation.following",
        "whether the user scrolled away from the anchor",
    ),
    Reliance(
        "Widget._border_title",
        "acp_tui.ui.widgets._paint.PaintStyle",
        "a plain line is cached only without a border title",
    ),
    Reliance(
        "Widget._border_subtitle",
        "acp_tui.ui.widgets._paint.PaintStyle",
        "a plain line is cached only without a border subtitle",
    ),
    Reliance(
        "DOMNode._css_bases",
        "the mixins PaintStyle, PlainBackground, PanePart, FullScreenOpener, "
        "AppTabs and Guarded",
        "the CSS base chain follows the first DOM class among the bases",
    ),
    Reliance(
        "Message._stop_propagation",
        "acp_tui.ui.widgets.prompt_input.PromptInput._run_own_binding",
        "whether a handler took the key (stopped it, or prevented its default)",
    ),
    Reliance(
        "DOMNode._bindings",
        "acp_tui.ui.widgets.prompt_input.PromptInput._run_own_binding",
        "the prompt's own bindings, run as the app would once the key bubbled up",
    ),
    Reliance(
        "Widget._repaint_required",
        "acp_tui.ui.widgets.prompt_input.PromptInput._paint_now",
        "a widget's pending repaint, layout and scroll, before its queue hands "
        "them to the screen",
    ),
    Reliance(
        "Screen._dirty_widgets",
        "acp_tui.ui.widgets.prompt_input.PromptInput._paint_now",
        "the widgets the next frame repaints (as `Screen._on_update` adds them), "
        "and `Screen._compositor`, which holds the widgets on screen",
    ),
    Reliance(
        "Screen._on_timer_update",
        "acp_tui.ui.widgets.prompt_input.PromptInput._paint_now",
        "paint a frame now (what the screen's update timer calls; Pilot does too)",
    ),
    Reliance(
        "TextArea._on_key",
        "acp_tui.ui.widgets.prompt_input.PromptInput",
        "Enter submits, the newline keys insert; other keys go to the base",
    ),
    Reliance(
        "CollapsibleTitle._update_label",
        "acp_tui.ui.widgets.tool_call_body.QuietTitle",
        "repaint a label of the same width without a layout",
    ),
    Reliance(
        "Collapsible._title",
        "acp_tui.ui.widgets.tool_call_body.ToolCallBody",
        "replace the title widget before it is composed",
    ),
    Reliance(
        "Collapsible._contents_list",
        "acp_tui.ui.widgets.tool_call_body.ToolCallBody",
        "the parts given before it is composed, which it composes as its own "
        "children (no Contents container between)",
    ),
    Reliance(
        "App._register",
        "acp_tui.ui.widgets.tool_call_view._set_classes",
        "a widget is styled when it is mounted",
    ),
    Reliance(
        "AutoComplete._get_target_state",
        "acp_tui.ui.widgets.prompt_completion.PromptCompletion",
        "read a TextArea target's text and cursor",
    ),
    Reliance(
        "AutoComplete._listen_to_messages",
        "acp_tui.ui.widgets.prompt_completion.PromptCompletion",
        "also react to TextArea.Changed",
    ),
    Reliance(
        "AutoComplete._handle_target_update",
        "acp_tui.ui.widgets.prompt_completion.PromptCompletion",
        "refresh the dropdown when the target changes",
    ),
    Reliance(
        "AutoComplete._align_to_target",
        "acp_tui.ui.widgets.prompt_completion.PromptCompletion",
        "place the dropdown at a TextArea cursor",
    ),
    Reliance(
        "AutoComplete._rebuild_options",
        "acp_tui.ui.widgets.prompt_completion.PromptCompletion",
        "rebuild the options for a target state",
    ),
    Reliance(
        "DOMNode.display",
        "acp_tui.ui.widgets.plan_panel.PlanPanel.display",
        "extend the property: render what came while hidden when shown",
    ),
    Reliance(
        "Compositor._arrange_root",
        "acp_tui.ui.widgets.conversation_window.Windowing.arrange",
        "the compositor calls a container's `arrange`, then reads its scroll "
        "offset: an override may move the offset with the first visible card",
    ),
    Reliance(
        "Server._make_app",
        "acp_tui.ui.serve_server.GuardedServer",
        "serve the aiohttp app textual-serve makes, behind the guard",
    ),
    Reliance(
        "MessagePump._next_callbacks",
        "acp_tui.ui.textual_private.remove_awaited (the conversation's removals, "
        "and the pane's of prompts shown as sending)",
        "take a removal the caller awaits off the app's queue",
    ),
    Reliance(
        "Compositor._arrange_root.add_widget",
        "acp_tui.ui.compositor_cycles.break_arrangement_cycles",
        "the recursive closure holds the map and set it returns: emptied after "
        "copying them, so the cycle it leaves holds no arrangement",
    ),
    Reliance(
        "Compositor._full_map_invalidated",
        "acp_tui.ui.compositor_map.keep_full_map_after_reflow",
        "`reflow` stores the full map it arranged but leaves it marked out of "
        "date: marked up to date after the pass",
    ),
    Reliance(
        "DOMNode._reactive_connect",
        "acp_tui.ui.widgets.footer.Footer._settle_compact",
        "a key bound to the footer's `compact` gets that value and its class "
        "before it is mounted, so no watcher restyles it",
    ),
    Reliance(
        "Strip.crop_extend",
        "acp_tui.ui.strip_cycles.break_strip_cycles",
        "replaced so a strip cropped to its own extent holds no cycle",
    ),
    Reliance(
        "DOMNode._css_styles",
        "acp_tui.ui.widget_cycles.release_nodes",
        "a node's own `Styles` (with `_inline_styles`) hold it back: cleared "
        "once it is removed",
    ),
    Reliance(
        "Stylesheet._process_component_classes",
        "acp_tui.ui.widget_cycles.break_component_style_cycles",
        "the virtual nodes it makes (`DOMNode._component_styles`) are kept by "
        "their node instead of a cycle with their styles",
    ),
    Reliance(
        "Widget._box_model_cache",
        "acp_tui.ui.widget_cycles.release_nodes",
        "a `LRUCache` whose entries (`LRUCache._cache`) are a ring of lists: "
        "unlinked once the widget is removed",
    ),
    Reliance(
        "Widget._vertical_scrollbar",
        "acp_tui.ui.widget_cycles.scrollbars",
        "the scrollbars a widget made (with `_horizontal_scrollbar` and "
        "`_scrollbar_corner`), released with it",
    ),
    Reliance(
        "Stylesheet.apply",
        "acp_tui.ui.matched_rules.share_matched_rules",
        "the rules matched for a node depend only on the rules that may apply "
        "and what their selectors test on the node and its ancestors; they go "
        "to `replace_rules`",
    ),
    Reliance(
        "Stylesheet.replace_rules",
        "acp_tui.ui.matched_rules.share_matched_rules",
        "a classmethod that sets the rules `apply` worked out on the node",
    ),
    Reliance(
        "DOMNode._PSEUDO_CLASSES",
        "acp_tui.ui.matched_rules.share_matched_rules",
        "each pseudo-class a node may have, with its check of the node",
    ),
    Reliance(
        "_callback._count_parameters",
        "acp_tui.ui.callback_arity.count_callback_parameters_by_code",
        "the number of arguments a callback gets is its signature's parameters",
    ),
    Reliance(
        "App._driver",
        "acp_tui.ui.attention_hook.AttentionHook",
        "write notification and progress sequences to the terminal",
    ),
)
"""Each reliance, checked by `tests/ui/test_textual_private.py`."""


def scroll_update(view: Widget, virtual_size: Size) -> None:
    """Update a view's scroll range for a new virtual size, without a layout."""
    view._scroll_update(virtual_size)


def is_following(widget: Widget) -> bool:
    """Whether the widget is anchored to its end and the user has not scrolled away."""
    return widget._anchored and not widget._anchor_released


def has_border_titles(widget: Widget) -> bool:
    """Whether the widget draws a border title or subtitle."""
    return widget._border_title is not None or widget._border_subtitle is not None


def write_to_terminal(app: App[Any], data: str) -> None:
    """Write `data` to the app's terminal as is (nothing before it runs)."""
    driver = app._driver
    if driver is not None and data:
        driver.write(data)


def remove_awaited(parent: Widget, widgets: Sequence[Widget]) -> AwaitRemove:
    """Remove `widgets` from `parent`; the caller must await the result.

    As `parent.remove_children(widgets)`, except that the app's message queue
    does not wait for the removal (Textual has the app await it after its next
    message): the keys typed meanwhile come in through that queue. Awaiting the
    result, as the caller must, waits for the widgets to be gone and lays the
    parent out again, as the app would have.
    """
    removal = parent.remove_children(widgets)
    pending = parent.app._next_callbacks
    pending[:] = [
        callback
        for callback in pending
        if not (
            isinstance(callback.callback, partial) and callback.callback.func is removal
        )
    ]
    return removal


def set_timer_once(
    pump: MessagePump, delay: float, callback: Callable[[], object], *, name: str
) -> Timer:
    """`pump.set_timer(delay, callback, name=name)`, but the callback always runs.

    Textual's one-shot timer is made with `skip=True`: its task reads the clock
    once to start and once more to plan its only tick, and when the second read
    is already past `start + delay` it counts the tick as missed and ends
    without calling back. A delay of a few milliseconds is missed so whenever a
    collection or a wait for a CPU falls between the two reads: the store
    bridge's batch timer was, under load, and a whole streamed turn stayed
    unshown (bench/long_session.py: 10,574 changes pending after the turn ended,
    nothing left to flush them). With `skip=False` a late tick runs at once.
    """
    timer = Timer(
        pump,
        delay,
        name=name,
        callback=partial(pump.call_next, callback),
        repeat=0,
        skip=False,
    )
    timer._start()
    pump._timers.add(timer)
    return timer


class FrameTimer(Timer):
    """A repeating timer that ticks once its period has passed since its last tick.

    While paused it waits; resumed, it ticks at once if a period has passed since
    the last tick, else when it has. Textual's timer keeps a grid instead (tick
    n at start + n periods) and, resumed after a tick of the grid went by, skips
    to the one after: up to two periods for one (see `pace_screen_updates`).
    It repeats until stopped (`repeat` and `skip` are not used); `reset` makes
    the next tick come at once. While it sleeps until a tick, the tick's time is
    in `protocol.loop_deadline`, so that a flooding agent's reading makes way for
    it on time.
    """

    _last_tick: float | None = None
    """When it last ticked (None: never, or reset since)."""

    def reset(self) -> None:
        """Forget the last tick and resume: the next tick comes at once."""
        self._last_tick = None
        self._active.set()

    async def _run(self) -> None:
        while True:
            await self._active.wait()
            last = self._last_tick
            due = None if last is None else last + self._interval
            if due is not None and due > _time.get_time():
                # The read loop makes way for the tick when it is due.
                loop_deadline.set_due(due)
                try:
                    await _time.sleep(due - _time.get_time())
                finally:
                    loop_deadline.clear(due)
                await self._active.wait()
            self._last_tick = _time.get_time()
            try:
                await self._tick(next_timer=self._last_tick, count=0)
            except EventTargetGone:
                break


TEXTUAL_UPDATE_TIMER: Final[object] = inspect.getattr_static(Screen, "_update_timer")
"""Textual's own `Screen._update_timer` (a property), kept as it was before
`pace_screen_updates` replaced it (test_textual_private checks what it does)."""


def _paced_update_timer(screen: Screen[Any]) -> Timer:
    timer: Timer | None = screen._Screen__update_timer  # type: ignore[attr-defined]
    if timer is None:
        # What Textual's makes (`set_interval(UPDATE_PERIOD, _on_timer_update,
        # name="screen_update", pause=True)`), as a FrameTimer.
        timer = FrameTimer(
            screen,
            UPDATE_PERIOD,
            name="screen_update",
            callback=screen._on_timer_update,
            pause=True,
        )
        timer._start()
        screen._timers.add(timer)
        screen._Screen__update_timer = timer  # type: ignore[attr-defined]
    return timer


def pace_screen_updates() -> None:
    """Give every screen a `FrameTimer` for its updates (process-wide, idempotent).

    A screen paints from its update timer: paused after each frame, resumed once
    something changed. With Textual's timer a streamed turn painted 47 frames a
    second (bench/ui.py, a paragraph at 1,000 words a second); the timer's ticks
    now come a period (1/60 s) after its last tick at the soonest, as soon as
    there is something to paint. (A frame painted outside the timer, as a layout
    forced by a resize or the prompt's own paint, does not move its last tick.)
    """
    Screen._update_timer = property(_paced_update_timer)  # type: ignore[method-assign,assignment]
