"""Diff widgets: a line-virtualised `DiffView` and the card segment `DiffSegment`.

`DiffView` is a `ScrollView` with the Line API: the diff is laid out once as
rows (`acp_tui.render.diff.DiffDocument`) and only the rows on screen are
painted, each cached as a `Strip`, so a 20,000-line patch opens and scrolls as
fast as a small one. Unified or side-by-side is chosen by width (`s` toggles),
folded context opens with a click or Enter (`e` opens all).

`DiffSegment` shows one `diff` content item in a tool-call card (the `diff` and
`changes` segment kinds): bounded in height, with `o` (or a click on a file
header) asking for the whole diff full screen: it posts `DiffSegment.OpenFull`,
and the pane (`acp_tui.ui.screens.openers.FullScreenOpener`) pushes
`acp_tui.ui.screens.diff.DiffScreen`. Widgets never import screens.

Paths read as the document's `PathDisplay` shows them (a card's: relative to
its session's directory, `~` for home), file headers shortened from the left to
the width. Hovering a file header shows its full path(s) in a tooltip.

Colours come from the theme through component classes (`diff-view--added`,
...), resolved to Rich styles whenever the CSS changes.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from functools import lru_cache
from typing import ClassVar, Final

from rich.segment import Segment
from rich.style import Style
from textual import events
from textual.binding import Binding, BindingType
from textual.color import Color
from textual.content import Content
from textual.geometry import Offset, Region, Size
from textual.message import Message
from textual.scroll_view import ScrollView
from textual.strip import Strip

from acp_tui.diff.model import ParsedPatch
from acp_tui.diff.parse import parse_patch, patch_from_texts
from acp_tui.display_paths import AS_SENT, PathDisplay
from acp_tui.render.diff import (
    SPLIT_MIN_WIDTH,
    DiffDocument,
    DiffLayout,
    DiffPainter,
    DiffPalette,
    DiffRow,
    file_paths,
)
from acp_tui.safe_text import printable
from acp_tui.store.store import SessionStore
from acp_tui.store.values import JSONObject
from acp_tui.ui.widgets.path_lines import full_paths_text, session_paths

__all__ = [
    "CARD_MAX_HEIGHT",
    "SYNTAX_COMPONENTS",
    "DiffSegment",
    "DiffView",
    "change_line",
    "change_lines",
    "diff_document",
    "diff_patch_text",
    "diff_paths",
]

CARD_MAX_HEIGHT: Final = 24
"""The most rows a diff shows inside a card (the rest scrolls, or opens full
screen with `o`)."""

SYNTAX_COMPONENTS: Final[dict[str, str]] = {
    "Comment": "diff-view--comment",
    "Keyword": "diff-view--keyword",
    "Name.Builtin": "diff-view--builtin",
    "Name.Class": "diff-view--class",
    "Name.Decorator": "diff-view--decorator",
    "Name.Function": "diff-view--function",
    "Name.Tag": "diff-view--function",
    "Name.Attribute": "diff-view--builtin",
    "String": "diff-view--string",
    "Number": "diff-view--number",
    "Literal": "diff-view--number",
    "Generic.Error": "diff-view--error",
}
"""The component class that colours each pygments token type."""


def diff_patch_text(item: JSONObject) -> str | None:
    """The patch of a `diff` content item, or `None` if it has none.

    v2 diffs carry `patch.text`; v1 diffs carry `oldText`/`newText`, turned into
    a git-format patch (`acp_tui.diff.parse.patch_from_texts`).

    Args:
        item: A `diff` content item.

    Returns:
        The patch text, or `None` (a v2 diff without patch: show `changes`).
    """
    patch = item.get("patch")
    if isinstance(patch, Mapping):
        text = patch.get("text")
        if isinstance(text, str):
            return text
    new = item.get("newText")
    if isinstance(new, str):
        old = item.get("oldText")
        path = str(item.get("path") or "file")
        return patch_from_texts(path, old if isinstance(old, str) else None, new)
    return None


def change_line(change: Mapping[str, object], paths: PathDisplay = AS_SENT) -> str:
    """One line for a diff `changes` entry: `delete /p`, `move /a → /b (binary)`.

    Paths as `paths` shows them (default: as sent).
    """
    operation = printable(str(change.get("operation", "change")))
    path = change.get("path")
    old_path = change.get("oldPath")
    where = paths.show(str(path or "?"))
    if old_path:
        where = f"{paths.show(str(old_path))} → {where}"
    file_type = change.get("fileType")
    extra = printable(f" ({file_type})") if file_type and file_type != "text" else ""
    return f"{operation} {where}{extra}"


def change_lines(item: JSONObject, paths: PathDisplay = AS_SENT) -> list[str]:
    """A `diff` item's `changes`, one plain line each (`move /a → /b (binary)`)."""
    changes = item.get("changes")
    if not isinstance(changes, Sequence) or isinstance(changes, str):
        return []
    return [change_line(c, paths) for c in changes if isinstance(c, Mapping)]


@lru_cache(maxsize=64)
def _parse(text: str) -> ParsedPatch:
    return parse_patch(text)


def diff_document(item: JSONObject, paths: PathDisplay = AS_SENT) -> DiffDocument:
    """Lay out a `diff` content item (v1 or v2) for display.

    Args:
        item: The content item.
        paths: How its paths are shown (default: as sent).

    Returns:
        A fresh document (folds closed); the parse is shared with other
        documents of the same patch text.
    """
    changes_value = item.get("changes")
    changes: list[Mapping[str, object]] = []
    if isinstance(changes_value, Sequence) and not isinstance(changes_value, str):
        changes = [c for c in changes_value if isinstance(c, Mapping)]
    patch_value = item.get("patch")
    text = diff_patch_text(item)
    if isinstance(patch_value, Mapping):
        fmt = patch_value.get("format")
        if fmt is not None and fmt != "git_patch":
            # Not ours to parse: the text as it is, and the tree of `changes`.
            note = f"patch format {printable(str(fmt))!r} is not git_patch"
            return DiffDocument(ParsedPatch((), text or "", note), changes, paths=paths)
    if text is None:
        return DiffDocument(None, changes, paths=paths)
    return DiffDocument(_parse(text), changes, paths=paths)


def diff_paths(item: JSONObject) -> list[str]:
    """Every path a `diff` item names, as sent, each once.

    Its `path`, its `changes` (old path first), then the files of its patch.
    """
    found: list[str] = []
    path = item.get("path")
    if isinstance(path, str) and path:
        found.append(path)
    changes = item.get("changes")
    if isinstance(changes, Sequence) and not isinstance(changes, str):
        for change in changes:
            if isinstance(change, Mapping):
                for key in ("oldPath", "path"):
                    value = change.get(key)
                    if isinstance(value, str) and value:
                        found.append(value)
    text = diff_patch_text(item)
    if text is not None:
        for file in _parse(text).files:
            found.extend(p for p in (file.old_path, file.new_path) if p is not None)
    return list(dict.fromkeys(found))


def _colour(style: Style, background: bool = False) -> str | None:
    colour = style.bgcolor if background else style.color
    if colour is None:
        return None
    return colour.get_truecolor().hex


SHARED_PALETTES: Final = 32
"""Palettes kept for sharing (`DiffView.shared_palette`); kept anew beyond that."""

_PALETTES: dict[
    tuple[type[DiffView], frozenset[str], Style], tuple[object, DiffPalette]
] = {}
"""The shared palettes by view class, classes and style, with the stylesheet
rules they were read with."""

CACHED_ROWS: Final = 2_000
"""Painted rows kept (a few screens); the cache starts over beyond that."""

WORD_EMPHASIS: Final = 0.3
"""How far a changed word's background moves from the line's towards its text
colour."""


def _word_bg(style: Style) -> str:
    """The background of changed words: the line's, tinted with its text colour."""
    background = _colour(style, True)
    foreground = _colour(style)
    if background is None or foreground is None:
        return background or "default"
    mixed = Color.parse(background).blend(Color.parse(foreground), WORD_EMPHASIS)
    return mixed.hex


class DiffView(ScrollView, can_focus=True):
    """A diff, painted one visible row at a time.

    Args:
        document: The diff to show (or `None`, then call `show_document`).
        layout: Force a layout; `None` picks by width (`SPLIT_MIN_WIDTH`).
        name: The widget's name.
        id: The widget's id.
        classes: Space-separated CSS classes.
    """

    DEFAULT_CSS = """
    DiffView {
        height: 1fr;
        background: $surface;
        color: $foreground;
        & > .diff-view--text { color: $foreground; }
        & > .diff-view--muted { color: $text-muted; }
        & > .diff-view--added {
            color: $diff-added;
            background: $diff-added-background;
        }
        & > .diff-view--removed {
            color: $diff-removed;
            background: $diff-removed-background;
        }
        & > .diff-view--hunk { color: $diff-hunk; }
        & > .diff-view--header { color: $text-primary; background: $panel; }
        & > .diff-view--warning { color: $text-warning; }
        & > .diff-view--comment { color: $text-muted; }
        & > .diff-view--keyword { color: $text-accent; }
        & > .diff-view--builtin { color: $text-secondary; }
        & > .diff-view--class { color: $text-warning; }
        & > .diff-view--decorator { color: $text-secondary; }
        & > .diff-view--function { color: $text-primary; }
        & > .diff-view--string { color: $text-success; }
        & > .diff-view--number { color: $text-warning; }
        & > .diff-view--error { color: $text-error; }
        &:focus { background-tint: $foreground 3%; }
    }
    """

    COMPONENT_CLASSES: ClassVar[set[str]] = {
        "diff-view--text",
        "diff-view--muted",
        "diff-view--added",
        "diff-view--removed",
        "diff-view--hunk",
        "diff-view--header",
        "diff-view--warning",
        *SYNTAX_COMPONENTS.values(),
    }

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("s", "toggle_layout", "Side by side / unified"),
        Binding("enter", "expand_fold", "Show hidden lines", show=False),
        Binding("e", "expand_all", "Show all lines"),
    ]

    def __init__(
        self,
        document: DiffDocument | None = None,
        *,
        layout: DiffLayout | None = None,
        name: str | None = None,
        id: str | None = None,
        classes: str | None = None,
    ) -> None:
        super().__init__(name=name, id=id, classes=classes)
        self.document = document
        self.chosen_layout: DiffLayout | None = layout
        """The layout the user picked (`None`: by width)."""
        self._painter: DiffPainter | None = None
        self._cache: dict[tuple[int, int, int], Strip] = {}
        self._rows: list[DiffRow] = []
        self._rows_layout: DiffLayout | None = None
        self.rows_painted = 0
        self._frame: (
            tuple[Offset, int, Style, DiffPainter | None, DiffLayout] | None
        ) = None
        """Rows painted so far (cache misses): virtualisation is visible in tests."""

    # --- state -----------------------------------------------------------

    @property
    def diff_layout(self) -> DiffLayout:
        """The layout in use: the user's choice, else split on wide screens."""
        if self.chosen_layout is not None:
            return self.chosen_layout
        return "split" if self.size.width >= SPLIT_MIN_WIDTH else "unified"

    @property
    def rows(self) -> list[DiffRow]:
        """The rows of the current layout."""
        self._sync_rows()
        return self._rows

    def show_document(self, document: DiffDocument | None) -> None:
        """Show another diff (scroll position kept where possible)."""
        self.document = document
        self._painter = None
        self._rows_layout = None
        self._sync_rows()

    def row_texts(self) -> list[str]:
        """Every row as plain text (tests; paints all rows, so not for big diffs)."""
        painter = self._get_painter()
        if painter is None:
            return []
        return [painter.row_text(row, self.diff_layout) for row in self.rows]

    def _get_painter(self) -> DiffPainter | None:
        if self.document is None:
            return None
        if self._painter is None or self._painter.document is not self.document:
            self._painter = DiffPainter(self.document, self.shared_palette())
        return self._painter

    def shared_palette(self) -> DiffPalette:
        """`palette()`, shared by the diff views that get the same one.

        Reading the fifteen component styles walks the view's ancestors for
        each (their backgrounds blend): 2-5 ms, the largest part of a card's
        first paint of its diff, when paging brings a diff card into view. What
        they depend on is the stylesheet's rules (a theme or CSS change parses
        them anew, into a new list), the view's class and classes, and what its
        ancestors make of its own style (`rich_style`: their backgrounds,
        tints, colours and text styles, blended), so views that agree on those
        share the palette, computed once.
        """
        rules = self.app.stylesheet.rules
        key = (type(self), self.classes, self.rich_style)
        known = _PALETTES.get(key)
        if known is not None and known[0] is rules:
            return known[1]
        palette = self.palette()
        if len(_PALETTES) >= SHARED_PALETTES:
            _PALETTES.clear()
        _PALETTES[key] = (rules, palette)
        return palette

    def palette(self) -> DiffPalette:
        """The colours of the current theme, from the component classes."""

        def component(name: str) -> Style:
            return self.get_component_rich_style(name, default=Style())

        text = component("diff-view--text")
        muted = component("diff-view--muted")
        added = component("diff-view--added")
        removed = component("diff-view--removed")
        header = component("diff-view--header")
        fallback = _colour(text) or "default"
        syntax = {
            role: colour
            for role, name in SYNTAX_COMPONENTS.items()
            if (colour := _colour(component(name))) is not None
        }
        return DiffPalette(
            text=fallback,
            muted=_colour(muted) or fallback,
            added=_colour(added) or fallback,
            added_bg=_colour(added, True) or "default",
            added_word_bg=_word_bg(added),
            removed=_colour(removed) or fallback,
            removed_bg=_colour(removed, True) or "default",
            removed_word_bg=_word_bg(removed),
            hunk=_colour(component("diff-view--hunk")) or fallback,
            header=_colour(header) or fallback,
            header_bg=_colour(header, True) or "default",
            warning=_colour(component("diff-view--warning")) or fallback,
            syntax=syntax,
        )

    def _sync_rows(self) -> None:
        layout = self.diff_layout
        document = self.document
        if document is None:
            rows: list[DiffRow] = []
        else:
            rows = document.rows(layout)
        if rows is self._rows and layout == self._rows_layout:
            return
        self._rows = rows
        self._rows_layout = layout
        self._cache.clear()
        # Only unified lines scroll sideways (split halves are cropped), so only
        # they may be wider than the view.
        width = 0
        if layout == "unified" and document is not None:
            files = document.files
            digits = max(
                (document.number_width(i) for i in range(len(files))), default=1
            )
            width = 2 * digits + 3 + document.widest_line
        self.virtual_size = Size(width, len(rows))
        self.refresh()

    def notify_style_update(self) -> None:
        """The theme or CSS changed: repaint with the new colours."""
        super().notify_style_update()
        self._painter = None
        self._cache.clear()
        self.refresh()

    def on_resize(self, event: events.Resize) -> None:
        """A new width: maybe another layout, and other row widths."""
        self._cache.clear()
        self._rows_layout = None
        self._sync_rows()

    # --- painting --------------------------------------------------------

    def render_lines(self, crop: Region) -> list[Strip]:
        """Paint the lines in `crop`, with what every line needs looked up once."""
        self._sync_rows()
        self._frame = (
            self.scroll_offset,
            self.scrollable_content_region.width,
            self.rich_style,
            self._get_painter(),
            self.diff_layout,
        )
        try:
            return super().render_lines(crop)
        finally:
            self._frame = None

    def render_line(self, y: int) -> Strip:
        """Paint the row at screen line `y` (the Line API)."""
        frame = self._frame
        if frame is None:  # called outside `render_lines`
            self._sync_rows()
            frame = (
                self.scroll_offset,
                self.scrollable_content_region.width,
                self.rich_style,
                self._get_painter(),
                self.diff_layout,
            )
        (scroll_x, scroll_y), width, base, painter, layout = frame
        index = scroll_y + y
        rows = self._rows
        if painter is None or not 0 <= index < len(rows) or width <= 0:
            return Strip.blank(max(width, 0), base)
        row = rows[index]
        offset = scroll_x if row.kind == "line" else 0
        key = (index, width, offset)
        strip = self._cache.get(key)
        if strip is None:
            self.rows_painted += 1
            segments = painter.row(row, width, layout, offset)
            strip = Strip(Segment.apply_style(segments, base), width)
            if len(self._cache) > CACHED_ROWS:
                self._cache.clear()
            self._cache[key] = strip
        return strip

    # --- actions ---------------------------------------------------------

    def action_toggle_layout(self) -> None:
        """Switch between unified and side by side."""
        self.chosen_layout = "unified" if self.diff_layout == "split" else "split"
        self._sync_rows()

    def expand_fold_at(self, index: int) -> bool:
        """Open the fold shown at row `index`; `False` if that row is no fold."""
        rows = self.rows
        if self.document is None or not 0 <= index < len(rows):
            return False
        row = rows[index]
        if row.kind != "fold" or not self.document.expand(row.fold):
            return False
        self._rows_layout = None
        self._sync_rows()
        return True

    def action_expand_fold(self) -> None:
        """Open the first fold on screen."""
        top = self.scroll_offset.y
        for index in range(top, min(top + self.size.height, len(self.rows))):
            if self.rows[index].kind == "fold":
                self.expand_fold_at(index)
                return

    def action_expand_all(self) -> None:
        """Open every fold."""
        if self.document is not None and self.document.expand_all():
            self._rows_layout = None
            self._sync_rows()

    def on_click(self, event: events.Click) -> None:
        """A click on a fold opens it."""
        offset = event.get_content_offset(self)
        if offset is None:
            return
        index = self.scroll_offset.y + offset.y
        if self.expand_fold_at(index):
            event.stop()
        else:
            self.row_clicked(index)

    def row_clicked(self, index: int) -> None:
        """A click on a row that is not a fold (subclasses react)."""

    def row_paths(self, index: int) -> list[str]:
        """The full paths (as sent) a file header row names; none for other rows."""
        rows = self.rows
        document = self.document
        if document is None or not 0 <= index < len(rows):
            return []
        row = rows[index]
        if row.kind != "file":
            return []
        return file_paths(document.files[row.file])

    def on_mouse_move(self, event: events.MouseMove) -> None:
        """Over a file header, the tooltip is its full path(s)."""
        offset = event.get_content_offset(self)
        document = self.document
        text = ""
        if offset is not None and document is not None:
            names = self.row_paths(self.scroll_offset.y + offset.y)
            text = full_paths_text(document.paths, names)
        tooltip = Content(text) if text else None
        if tooltip != self.tooltip:
            self.tooltip = tooltip


class DiffSegment(DiffView):
    """A `diff` content item in a tool-call card (implements `SegmentView`).

    The card bounds its height (`CARD_MAX_HEIGHT`); `o` or a click on a file
    header opens the whole diff full screen.
    """

    DEFAULT_CSS = """
    DiffSegment {
        height: auto;
        max-height: 24;
        overflow-x: hidden;
        background: $boost;
    }
    """

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("o", "open_full", "Open full diff"),
    ]

    def __init__(self) -> None:
        super().__init__(classes="tool-segment")
        self._item: JSONObject | None = None
        self._paths = AS_SENT
        self._plain = ""
        self._lines = 1

    def show_segment(
        self, store: SessionStore, items: Sequence[JSONObject], start: int, end: int
    ) -> int:
        """Show the diff item `items[start]`; return its height in lines."""
        item = items[start]
        if item is self._item:
            return self._lines
        self._item = item
        self._paths = session_paths(store)
        text = diff_patch_text(item)
        if text is not None:
            plain = printable(text.rstrip("\n"), keep="\n\t")
        else:
            plain = "\n".join(change_lines(item, self._paths)) or "(no changes listed)"
        self._plain = plain
        self._lines = plain.count("\n") + 1
        self.show_document(diff_document(item, self._paths))
        return self._lines

    @property
    def plain_text(self) -> str:
        """The patch text (or one line per change when there is no patch)."""
        return self._plain

    class OpenFull(Message):
        """Asks for the diff full screen (`FullScreenOpener` pushes it)."""

        def __init__(self, item: JSONObject, paths: PathDisplay) -> None:
            super().__init__()
            self.item = item
            self.paths = paths

    def action_open_full(self) -> None:
        """Ask for the diff full screen."""
        if self._item is None:
            return
        self.post_message(self.OpenFull(self._item, self._paths))

    def row_clicked(self, index: int) -> None:
        """A click on a file header opens the full diff."""
        rows = self.rows
        if 0 <= index < len(rows) and rows[index].kind == "file":
            self.action_open_full()
