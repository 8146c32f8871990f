"""The collapsible body of a tool-call card, and its quiet title.

`ToolCallBody` remembers whether the user toggled it (then the card stops
deciding) and can change without scrolling itself into view; its title,
`QuietTitle`, repaints a label of the same width without a layout. Both rely on
private details of Textual, named in `acp_tui.ui.textual_private`.
"""

from __future__ import annotations

from textual.app import ComposeResult
from textual.content import Content
from textual.types import AnimationLevel, CallbackType, EasingFunction
from textual.widget import Widget
from textual.widgets import Collapsible
from textual.widgets.collapsible import CollapsibleTitle

from acp_tui.ui.widget_cycles import release_nodes

__all__ = ["QuietTitle", "ToolCallBody"]


class QuietTitle(CollapsibleTitle):
    """A collapsible's title whose changes of the same width cost no layout.

    The body's title counts the content's lines ("terminal · 1234 lines"), so
    while a terminal streams it changes with every feed. `CollapsibleTitle`
    relayouts the whole screen on each change (its width is `auto`); a count of
    the same number of digits cannot move anything, so it only repaints itself.
    """

    def __init__(self, *, label: str, template: CollapsibleTitle) -> None:
        self._shown_width = -1  # before the label's first watcher runs
        super().__init__(
            label=label,
            collapsed_symbol=template.collapsed_symbol,
            expanded_symbol=template.expanded_symbol,
            collapsed=template.collapsed,
        )

    def _update_label(self) -> None:
        symbol = self.collapsed_symbol if self.collapsed else self.expanded_symbol
        label = self.label
        assert isinstance(label, Content)
        content = Content.assemble(symbol, " ", label)
        width = content.cell_length
        self.update(content, layout=width != self._shown_width)
        self._shown_width = width


class ToolCallBody(Collapsible):
    """The card's collapsible content; remembers whether the user toggled it.

    Its parts are its own children, after the title, not the children of a
    `Collapsible.Contents` container: one widget fewer in every card, to mount,
    style, arrange and paint (each nested container of a card is laid out and
    painted on its own, and paging through a long session mounts a card in
    nearly every frame). The container's left padding is each part's left
    margin, and collapsing hides the parts instead of the container, so the
    card looks the same. The parts are the card's segments (`.tool-segment`)
    and its raw input and output (`.tool-raw`), matched by class (a universal
    selector would be tried on every widget of the app). A part's visibility is
    its CSS (a class), never its `display` set in code: that is an inline
    style, which collapsing cannot override.
    """

    DEFAULT_CSS = """
    ToolCallBody {
        background: transparent;
        border-top: none;
        padding: 0;
        margin: 0;
        &:focus-within { background-tint: transparent; }
        & > .tool-segment, & > .tool-raw { margin: 0 0 0 2; }
        &.-collapsed > .tool-segment, &.-collapsed > .tool-raw { display: none; }
        & CollapsibleTitle { padding: 0; color: $text-muted; }
    }
    """

    def __init__(
        self, *children: Widget, collapsed: bool, title: str = "output"
    ) -> None:
        super().__init__(*children, title=title, collapsed=collapsed)
        template = self._title
        self._title = QuietTitle(label=title, template=template)
        release_nodes([template])  # never mounted: nothing cyclic left of it
        # `Collapsible` sets this class once mounted, which restyles the whole
        # body a second time (the cost of a card's mount, measured: about half of
        # the body's share). Set before mounting, the styles include it at once
        # and the mount handler finds nothing to change.
        self.set_class(collapsed, "-collapsed", update=False)  # not attached yet
        self.user_toggled = False
        """Whether the user opened or closed it (then the card stops deciding)."""
        self._quiet_scrolls = 0
        self._composed = False

    def compose(self) -> ComposeResult:
        """The title, then the parts (no `Contents` container between)."""
        self._composed = True
        yield self._title
        yield from self._contents_list

    def add_part(self, part: Widget) -> None:
        """Add a part after the others, composed or mounted as they are."""
        if self._composed:
            self.mount(part)
        else:
            self._contents_list.append(part)

    def on_collapsible_title_toggle(self, event: CollapsibleTitle.Toggle) -> None:
        """The user clicked the title or pressed Enter on it."""
        self.user_toggled = True

    def set_collapsed_quietly(self, collapsed: bool) -> None:
        """Collapse or expand without scrolling the card into view.

        `Collapsible` scrolls itself into view whenever it changes, which is right
        for a click but would yank the conversation to a card that completed
        off-screen.
        """
        if collapsed != self.collapsed:
            if self.is_mounted:  # only then does `Collapsible` scroll
                self._quiet_scrolls += 1
            self.collapsed = collapsed  # its watcher sets `-collapsed`, even now

    def scroll_visible(
        self,
        animate: bool = True,
        *,
        speed: float | None = None,
        duration: float | None = None,
        top: bool = False,
        easing: EasingFunction | str | None = None,
        force: bool = False,
        on_complete: CallbackType | None = None,
        level: AnimationLevel = "basic",
        immediate: bool = False,
    ) -> None:
        """Scroll into view, except right after `set_collapsed_quietly`."""
        if self._quiet_scrolls:
            self._quiet_scrolls -= 1
            return
        super().scroll_visible(
            animate,
            speed=speed,
            duration=duration,
            top=top,
            easing=easing,
            force=force,
            on_complete=on_complete,
            level=level,
            immediate=immediate,
        )
