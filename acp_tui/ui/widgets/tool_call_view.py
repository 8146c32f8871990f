"""A tool-call card: kind icon, title, status, locations and collapsible content.

The card is built from small parts that update on their own, so a stream of
updates to one tool call only re-renders what changed:

* the header (icon, title, status) when the kind, title or status changes;
* the locations when the location list is replaced: each path relative to the
  session's directory (`~` for the home directory), shortened from the left to
  the card's width, with the full paths in a tooltip (`path_lines.PathLines`);
* one widget per content *segment* (a run of text items, a diff, a terminal, ...)
  when its items change or, for a terminal, when the terminal changes. Terminal
  text is kept up to date incrementally (only new bytes are fed to the emulator);
* the input, shown only when there is no other content, as readable lines
  (`tool_segments.input_summary`: `$ command`, `key: value`), and the output.
  `r`, with the focus in the card, shows the raw input and output as JSON instead
  (always, content or not), and `r` again goes back.

Content sits in a `Collapsible`. Running, pending and failed calls stay open;
completed and cancelled ones collapse, unless their content is a small diff or
terminal. Once the user toggles it, the card leaves it alone.

The record of each permission request and each elicitation about the tool call
(how it was answered, or that it waits) sits at the end of its card
(`PermissionView`, `ElicitationView`, attached): the conversation gives them no
entry of their own, and calls `refresh_permissions` when one changes.

`p`, with the focus in the card (its title, diff or terminal), shows the full
paths the card names (locations, diff files, terminal directories) in a
notification and copies them. `x` asks to cancel this tool call alone, where
the agent offers it (the header then says "cancelling…" until the final status;
`tool_call_header`). The header shows the tool's `name` as a dim tag.

Agent text is data: everything is shown as plain `Content` with styles from theme
variables, never parsed as markup, and passed through `printable` first.

The segments, their widgets and the card as plain text are in
`acp_tui.ui.widgets.tool_segments` (re-exported here).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import ClassVar, Final, cast

from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.content import Content
from textual.widget import Widget
from textual.widgets import Static

from acp_tui.client.cancel_one import CancelKind
from acp_tui.store.model import Elicitation, Permission, ToolCall, terminal_ref
from acp_tui.store.store import SessionStore
from acp_tui.store.values import JSONObject, JSONValue
from acp_tui.ui.widgets.diff_view import change_line, diff_patch_text
from acp_tui.ui.widgets.elicitation_view import ElicitationView
from acp_tui.ui.widgets.path_lines import (
    PathLine,
    PathLines,
    copy_full_paths,
    full_paths_text,
    session_paths,
)
from acp_tui.ui.widgets.permission_view import PermissionView
from acp_tui.ui.widgets.terminal_view import TerminalSegment
from acp_tui.ui.widgets.tool_call_body import QuietTitle, ToolCallBody
from acp_tui.ui.widgets.tool_call_header import (
    KIND_ICONS,
    STATUS_ICONS,
    STATUS_TOKENS,
    CancelOneRequested,
    header_content,
)
from acp_tui.ui.widgets.tool_segments import (
    SEGMENT_LABELS,
    SEGMENT_VIEWS,
    ContentSegment,
    Segment,
    SegmentKind,
    SegmentView,
    card_paths,
    compact_json,
    diff_content,
    input_summary,
    raw_json,
    segment_view_factory,
    split_segments,
    static_plain,
    tool_call_body,
)

__all__ = [
    "KIND_ICONS",
    "SEGMENT_VIEWS",
    "STATUS_ICONS",
    "STATUS_TOKENS",
    "ContentSegment",
    "QuietTitle",
    "SegmentKind",
    "SegmentView",
    "ToolCallBody",
    "ToolCallView",
    "card_paths",
    "change_line",
    "diff_content",
    "diff_patch_text",
    "tool_call_body",
]

SMALL_CONTENT_LINES: Final = 15
DIFF_OPEN_LINES: Final = 80
"""A finished card keeps a diff of up to this many lines open: the change is what
the user wants to read (longer ones fold, one click away)."""
"""A completed call's diff or terminal with at most this many lines stays open."""


_RecordView = PermissionView | ElicitationView
"""A record at the end of a card: a permission request's, or an elicitation's."""


def _key(record: Permission | Elicitation) -> tuple[str, str]:
    if isinstance(record, Permission):
        return ("permission", record.permission_id)
    return ("elicitation", record.elicitation_id)


class ToolCallView(Widget):
    """Renders a `ToolCall` and keeps it current with cheap partial updates.

    Mounting is the expensive part of a card (a frame with a new card costs
    more than anything else the card does), so the card is kept to few widgets
    and is complete when it is mounted: the first snapshot is rendered in the
    constructor, the segments are the body's children from the start, and
    nothing is mounted or re-rendered once the card is on screen unless a later
    snapshot changes it.

    Args:
        store: The session store (for the terminals the content refers to).
        tool_call: The snapshot to show first.
    """

    DEFAULT_CSS = """
    ToolCallView {
        height: auto;
        border-left: outer $tool-pending;
        background: $boost;
        padding: 0 1;
        margin: 0 0 1 0;
        & > .tool-header { height: auto; }
        & > .tool-locations { color: $text-muted; height: auto; }
        & .tool-segment { height: auto; }
        & .tool-segment.-text { color: $text-muted; }
        & .tool-segment.-changes { color: $text-muted; }
        & .tool-segment.-terminal { background: $surface; }
        & .tool-raw { color: $text-muted; height: auto; }
        & .tool-raw.-empty { display: none; }
        &.-in_progress { border-left: outer $tool-running; }
        &.-completed { border-left: outer $tool-completed; }
        &.-failed { border-left: outer $tool-failed; }
        &.-cancelled { border-left: outer $tool-cancelled; }
    }
    """

    STATUS_CLASSES: ClassVar[tuple[str, ...]] = tuple(STATUS_ICONS)
    """Statuses with a state class (`-pending`, `-in_progress`, ...)."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("p", "show_paths", "Full paths"),
        Binding("r", "toggle_raw", "Raw input/output"),
        Binding("x", "cancel_one", "Cancel this tool call"),
    ]

    def __init__(self, store: SessionStore, tool_call: ToolCall) -> None:
        super().__init__()
        self.store = store
        self.tool_call = tool_call
        self.paths = session_paths(store)
        """How paths are shown (relative to the session's directory)."""
        self._header = Static(classes="tool-header")
        self._locations = PathLines(classes="tool-locations")
        self._body_made = False
        self._raw: Static | None = None
        """The raw input and output, made the first time there is any to show
        (most cards never show it: it shows only without other content, or on
        `r`); then hidden by its `-empty` class, not `display` (see
        `ToolCallBody`)."""
        self._locations.display = False
        self._header_key: (
            tuple[tuple[str, str | None, str, str | None], bool] | None
        ) = None
        self._locations_key: tuple[JSONObject, ...] | None = None
        self._raw_key: tuple[JSONValue, JSONValue, bool] | None = None
        self._raw_lines = 0
        self.show_raw = False
        """Whether the raw input and output are shown as JSON (`r` toggles)."""
        self._seen: list[JSONObject] = []
        """The content items rendered, to tell appends from replacements."""
        self._segments: list[Segment] = []
        self._segment_widgets: list[Widget] = []
        self._segment_keys: list[tuple[object, ...]] = []
        self._segment_lines: list[int] = []
        self._segment_factories: list[Callable[[], Widget]] = []
        self._sync_scheduled = False
        self._contents: Widget | None = None
        """The body, once composed (new segments are mounted in it)."""
        self.renders = 0
        """How many parts were re-rendered so far (for tests and benchmarks)."""
        # The first snapshot, rendered before mounting: no second pass.
        self._sync_header(tool_call)
        self._sync_locations(tool_call)
        self._sync_segments(tool_call)
        self._sync_raw(tool_call)
        has_content, title, collapse = self._body_state(tool_call)
        raw: list[Widget] = [] if self._raw is None else [self._raw]
        self._body = ToolCallBody(
            *self._segment_widgets, *raw, collapsed=collapse, title=title
        )
        self._body_made = True
        self._body.display = has_content
        self._permissions = self._own_permissions()
        self._permission_views: dict[tuple[str, str], _RecordView] = {
            _key(p): self._record_view(p) for p in self._permissions
        }

    def compose(self) -> ComposeResult:
        """Yield the parts, already rendered from the first snapshot."""
        yield self._header
        yield self._locations
        yield self._body
        yield from self._permission_views.values()

    def _own_permissions(self) -> tuple[Permission | Elicitation, ...]:
        tool_call_id = self.tool_call.tool_call_id
        store = self.store
        records: list[Permission | Elicitation] = [*store.permissions()]
        records += store.elicitations()
        return tuple(r for r in records if r.tool_call_id == tool_call_id)

    def _record_view(self, record: Permission | Elicitation) -> _RecordView:
        if isinstance(record, Permission):
            return PermissionView(record, self.paths, attached=True)
        return ElicitationView(record, attached=True)

    @property
    def permission_views(self) -> list[PermissionView]:
        """The records of the permission requests about this tool call."""
        views = self._permission_views.values()
        return [view for view in views if isinstance(view, PermissionView)]

    @property
    def elicitation_views(self) -> list[ElicitationView]:
        """The records of the elicitations about this tool call."""
        views = self._permission_views.values()
        return [view for view in views if isinstance(view, ElicitationView)]

    def refresh_permissions(self) -> None:
        """Show the newest permission requests and elicitations about the call."""
        permissions = self._own_permissions()
        shown = self._permissions
        if len(permissions) == len(shown) and all(
            a is b for a, b in zip(permissions, shown, strict=True)
        ):
            return
        self._permissions = permissions
        new: list[_RecordView] = []
        for permission in permissions:
            view = self._permission_views.get(_key(permission))
            if view is None:
                view = self._record_view(permission)
                self._permission_views[_key(permission)] = view
                new.append(view)
            elif isinstance(view, PermissionView):
                assert isinstance(permission, Permission)
                view.update_permission(permission)
            else:
                assert isinstance(permission, Elicitation)
                view.update_elicitation(permission)
        if new and self.is_mounted:
            self.mount_all(new)

    def on_mount(self) -> None:
        """Catch up with a snapshot given before the card was mounted."""
        self._sync()

    @property
    def status(self) -> str:
        """The status shown."""
        return self.tool_call.status

    @property
    def collapsed(self) -> bool:
        """Whether the content is collapsed."""
        return self._body.collapsed

    @property
    def header_text(self) -> str:
        """The header as plain text (icon, title, status)."""
        return static_plain(self._header)

    @property
    def locations_text(self) -> str:
        """The locations as plain text, one per line, as fitted to the width."""
        return self._locations.text

    @property
    def content_text(self) -> str:
        """The content as plain text (segments, then raw input/output if shown)."""
        parts = [cast(SegmentView, w).plain_text for w in self._segment_widgets]
        if self._raw is not None and self._raw_shown:
            parts.append(static_plain(self._raw))
        return "\n".join(parts)

    def segment_contents(self) -> list[Content]:
        """The rendered content of each segment (styled), in order."""
        return [
            w.styled
            if isinstance(w, ContentSegment)
            else Content(cast(SegmentView, w).plain_text)
            for w in self._segment_widgets
        ]

    def update_tool_call(self, tool_call: ToolCall) -> None:
        """Show a newer snapshot (only the parts that changed are re-rendered)."""
        self.tool_call = tool_call
        self._sync()

    @property
    def _raw_shown(self) -> bool:
        return self._raw is not None and not self._raw.has_class("-empty")

    def _find_contents(self) -> Widget | None:
        if self._contents is None and self._body.is_mounted:
            self._contents = self._body
        return self._contents

    def _sync(self) -> None:
        if not self.is_mounted or self._find_contents() is None:
            # The body is still composing: render once it is there.
            if not self._sync_scheduled and self.is_attached:
                self._sync_scheduled = True
                self.call_after_refresh(self._deferred_sync)
            return
        tool_call = self.tool_call
        self._sync_header(tool_call)
        self._sync_locations(tool_call)
        self._sync_segments(tool_call)
        self._sync_raw(tool_call)
        self._sync_body(tool_call)

    def _deferred_sync(self) -> None:
        self._sync_scheduled = False
        if self.is_attached:
            self._sync()

    def cancel_target(self) -> tuple[CancelKind, str]:
        """What `x` asks to cancel: this tool call (a terminal card: its terminal)."""
        return "tool_call", self.tool_call.tool_call_id

    def _sync_header(self, tool_call: ToolCall) -> None:
        store = self.store
        cancelling = store.cancelling(*self.cancel_target()) or any(
            store.cancelling("terminal", t) for t in tool_call.terminal_ids
        )
        key = (tool_call.kind, tool_call.title, tool_call.status, tool_call.name)
        if (key, cancelling) == self._header_key:
            return
        self._header_key = (key, cancelling)
        self.renders += 1
        status = tool_call.status
        # Not attached yet (the first snapshot, in the constructor): the styles
        # are applied when it is mounted, with these classes.
        attached = self.is_attached
        for name in self.STATUS_CLASSES:
            self.set_class(status == name, f"-{name}", update=attached)
        self._header.update(header_content(tool_call, cancelling=cancelling))

    def action_cancel_one(self) -> None:
        """Ask to cancel this tool call alone (`x`); the pane checks the agent."""
        terminals = tuple(self.tool_call.terminal_ids)
        self.post_message(CancelOneRequested(*self.cancel_target(), terminals))

    def _sync_locations(self, tool_call: ToolCall) -> None:
        locations = tool_call.locations
        if locations is self._locations_key:
            return
        self._locations_key = locations
        self.renders += 1
        lines = []
        for location in locations:
            path = str(location.get("path", ""))
            line = location.get("line")
            after = f":{line}" if line is not None else ""
            lines.append(PathLine("↳ ", path, after))
        self._locations.show_lines(lines, self.paths)
        self._locations.display = bool(lines)

    def action_show_paths(self) -> None:
        """Show the full paths the card names, and copy them (`p`)."""
        copy_full_paths(
            self,
            full_paths_text(self.paths, card_paths(self.store, self.tool_call)),
            none="this card names no path",
        )

    def _sync_segments(self, tool_call: ToolCall) -> None:
        items = tool_call.content
        seen = self._seen
        first_changed = min(len(seen), len(items))
        for index in range(first_changed):
            if items[index] is not seen[index]:
                first_changed = index
                break
        if first_changed < len(seen):
            del seen[first_changed:]
        seen.extend(items[first_changed:])
        kept = [s for s in self._segments if s.end <= first_changed]
        start = kept[-1].end if kept else 0
        segments = split_segments(items, kept, start)
        self._segments = segments
        widgets = self._segment_widgets
        keys = self._segment_keys
        new: list[Widget] = []
        for index, segment in enumerate(segments):
            key = self._segment_key(segment, items)
            factory = segment_view_factory(segment.kind)
            if index < len(widgets):
                if keys[index] == key and segment.end <= first_changed:
                    continue
                widget = widgets[index]
                if self._segment_factories[index] is not factory:
                    # Another kind of segment now: swap in its own widget.
                    replacement = factory()
                    if widget in new:
                        new[new.index(widget)] = replacement
                    elif self._contents is not None:
                        self._contents.mount(replacement, before=widget)
                    widget.remove()
                    widgets[index] = widget = replacement
                    self._segment_factories[index] = factory
            else:
                widget = factory()
                widgets.append(widget)
                keys.append(())
                self._segment_lines.append(0)
                self._segment_factories.append(factory)
                new.append(widget)
            keys[index] = key
            view = cast(SegmentView, widget)
            _set_classes(widget, frozenset(("tool-segment", f"-{segment.kind}")))
            self._segment_lines[index] = view.show_segment(
                self.store, items, segment.start, segment.end
            )
            self.renders += 1
        if new and self._contents is not None:
            self._contents.mount_all(new, before=self._raw)  # None: at the end
        if len(widgets) > len(segments):
            for widget in widgets[len(segments) :]:
                widget.remove()
            del widgets[len(segments) :]
            del keys[len(segments) :]
            del self._segment_lines[len(segments) :]
            del self._segment_factories[len(segments) :]

    def on_terminal_segment_lines_changed(
        self, message: TerminalSegment.LinesChanged
    ) -> None:
        """A terminal fed later than the card's sync: recount the title's lines."""
        message.stop()
        widgets = self._segment_widgets
        if message.segment in widgets:
            index = widgets.index(message.segment)
            self._segment_lines[index] = message.segment.line_count
            self._sync_body(self.tool_call)

    def _segment_key(
        self, segment: Segment, items: Sequence[JSONObject]
    ) -> tuple[object, ...]:
        if segment.kind == "terminal":
            terminal_id = terminal_ref(items[segment.start]) or ""
            terminal = self.store.terminal(terminal_id)
            revision = terminal.revision if terminal is not None else -1
            return (segment, terminal_id, revision)
        return (segment,)

    def _sync_raw(self, tool_call: ToolCall) -> None:
        raw = self.show_raw
        has_raw = tool_call.raw_input is not None or tool_call.raw_output is not None
        show = has_raw and (raw or not self._segments)
        key = (tool_call.raw_input, tool_call.raw_output, raw) if show else None
        previous = self._raw_key
        if key is previous or (
            key is not None
            and previous is not None
            and key[0] is previous[0]
            and key[1] is previous[1]
            and key[2] == previous[2]
        ):
            return
        self._raw_key = key
        self.renders += 1
        lines: list[str] = []
        if key is not None:
            raw_input, raw_output = key[0], key[1]
            if raw:
                if raw_input is not None:
                    lines.append(f"input: {raw_json(raw_input)}")
                if raw_output is not None:
                    lines.append(f"output: {raw_json(raw_output)}")
            else:
                lines.extend(input_summary(raw_input, self.paths))
                if raw_output is not None:
                    lines.append(f"output: {compact_json(raw_output)}")
        text = "\n".join(lines)
        self._raw_lines = text.count("\n") + 1
        view = self._raw
        if view is None:
            if not lines:
                return
            view = self._raw = Static(classes="tool-raw")
            if self._body_made:  # else the body is made with it
                self._body.add_part(view)
        view.update(Content(text))
        view.set_class(not lines, "-empty", update=view.is_attached)

    def action_toggle_raw(self) -> None:
        """Show the raw input and output as JSON, or the readable summary (`r`)."""
        tool_call = self.tool_call
        if tool_call.raw_input is None and tool_call.raw_output is None:
            self.notify("This tool call has no raw input or output.")
            return
        self.show_raw = not self.show_raw
        self._sync_raw(tool_call)
        self._sync_body(tool_call)
        if self.show_raw:
            self._body.set_collapsed_quietly(False)

    def _body_state(self, tool_call: ToolCall) -> tuple[bool, str, bool]:
        """Whether the body shows, its title, and whether the card would fold it."""
        has_content = bool(self._segments) or self._raw_shown
        if not has_content:
            return False, "output", False
        lines = sum(self._segment_lines) + (self._raw_lines if self._raw_shown else 0)
        kinds = {segment.kind for segment in self._segments}
        labels = dict.fromkeys(SEGMENT_LABELS[s.kind] for s in self._segments)
        label = ", ".join(labels) if labels else "input/output"
        title = f"{label} · {lines} {'line' if lines == 1 else 'lines'}"
        collapse = False
        if tool_call.status in ("completed", "cancelled"):
            small_visual = ("diff" in kinds and lines <= DIFF_OPEN_LINES) or (
                bool(kinds & {"diff", "changes", "terminal"})
                and lines <= SMALL_CONTENT_LINES
            )
            collapse = not small_visual
        return True, title, collapse

    def _sync_body(self, tool_call: ToolCall) -> None:
        body = self._body
        has_content, title, collapse = self._body_state(tool_call)
        body.display = has_content
        if not has_content:
            return
        if body.title != title:
            body.title = title
        if not body.user_toggled:
            body.set_collapsed_quietly(collapse)


def _set_classes(widget: Widget, names: frozenset[str]) -> None:
    """Give `widget` exactly these classes, restyling it only if it is attached.

    A widget not attached yet is styled when it is mounted (`App._register`
    applies the stylesheet then): restyling it here as well (what `set_classes`
    does) cost about 0.7 ms per new segment. One that is attached (a replacement
    mounted before its classes are set) is styled already, so it is restyled.
    """
    current = widget.classes
    if current == names:
        return
    if widget.is_attached:
        widget.set_classes(names)
        return
    widget.remove_class(*(current - names), update=False)
    widget.add_class(*(names - current), update=False)
