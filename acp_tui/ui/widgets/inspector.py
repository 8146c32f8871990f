"""The protocol inspector: live JSON-RPC traffic with the agent (f5).

(Not f6: the prompt, a TextArea, binds it to "select line".)

A panel docked at the bottom of the screen. It reads the runner's `TrafficLog`
on a timer (`REFRESH_INTERVAL`, only while shown), adding the entries since the
last one it saw: never per message. Rows show time, direction (`→` to the agent,
`←` from it), method, id, size and request-to-response latency; the agent's
messages that fail strict schema validation are marked `⚠` in the theme's
warning colour. An input filters by method (substring), a button cycles the
direction filter (both, in, out). The highlighted row is shown as pretty JSON
(escaped: agent text is data), and `c` copies it to the clipboard.

Cells are Rich `Text` objects, never strings: DataTable parses strings as markup.
"""

from __future__ import annotations

from collections import deque
from datetime import datetime
from typing import ClassVar, Final

from rich.style import Style
from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.content import Content
from textual.widgets import Button, DataTable, Input, Static

from acp_tui.client.traffic import (
    DirectionFilter,
    TrafficEntry,
    TrafficLog,
    format_latency,
    format_size,
    matches,
    pretty_json,
)
from acp_tui.safe_text import printable

__all__ = ["REFRESH_INTERVAL", "InspectorPanel"]

REFRESH_INTERVAL: Final = 0.25
"""Seconds between two reads of the traffic log while the panel is shown."""

ARROWS: Final = {"in": "←", "out": "→"}
DIRECTIONS: Final[tuple[DirectionFilter, ...]] = ("both", "in", "out")
DIRECTION_LABELS: Final = {"both": "⇄ both", "in": "← in", "out": "→ out"}
COLUMNS: Final = (
    ("time", "Time"),
    ("dir", ""),
    ("method", "Method"),
    ("id", "Id"),
    ("size", "Size"),
    ("latency", "Latency"),
)


class InspectorPanel(Vertical):
    """The inspector panel over one `TrafficLog`.

    Args:
        traffic: The traffic to show.
        id: The widget id.
        classes: CSS classes.
    """

    DEFAULT_CSS = """
    InspectorPanel {
        dock: bottom;
        height: 45%;
        background: $panel;
        border-top: hkey $secondary;
        & > #inspector-bar { height: 1; }
        & #inspector-title {
            width: auto;
            text-style: bold;
            color: $text-primary;
            padding: 0 1;
        }
        & #inspector-filter { width: 1fr; height: 1; border: none; padding: 0 1; }
        & #inspector-direction { width: 10; min-width: 10; height: 1; border: none; }
        & > #inspector-body { height: 1fr; }
        & #inspector-table { width: 3fr; height: 1fr; }
        & #inspector-detail-scroll {
            width: 2fr;
            height: 1fr;
            border-left: vkey $secondary;
            padding: 0 1;
        }
        & #inspector-problem { color: $text-warning; }
    }
    """

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("c", "copy_message", "Copy"),
        Binding("ctrl+c", "copy_message", "Copy", show=False),
    ]

    def __init__(
        self, traffic: TrafficLog, *, id: str | None = None, classes: str | None = None
    ) -> None:
        super().__init__(id=id, classes=classes)
        self.traffic = traffic
        self.method_filter = ""
        self.direction: DirectionFilter = "both"
        self._seen = 0
        """The index of the next log entry to read."""
        self._rows: deque[int] = deque()
        """The indexes of the entries shown, in order."""
        self._shown: set[int] = set()
        """The same, for lookups."""
        self.selected: TrafficEntry | None = None
        """The entry whose JSON is shown."""

    def compose(self) -> ComposeResult:
        """The filter bar, the table and the detail view."""
        with Horizontal(id="inspector-bar"):
            yield Static(Content("Protocol inspector"), id="inspector-title")
            yield Input(placeholder="filter by method", id="inspector-filter")
            yield Button(DIRECTION_LABELS["both"], id="inspector-direction")
        with Horizontal(id="inspector-body"):
            table: DataTable[Text] = DataTable(
                id="inspector-table", cursor_type="row", zebra_stripes=True
            )
            yield table
            with VerticalScroll(id="inspector-detail-scroll"):
                yield Static(Content(""), id="inspector-problem")
                yield Static(Content("Select a message"), id="inspector-detail")

    def on_mount(self) -> None:
        """Set the columns up and start reading the log."""
        table = self.table
        for key, label in COLUMNS:
            table.add_column(label, key=key)
        self.query_one("#inspector-problem", Static).display = False
        self.set_interval(REFRESH_INTERVAL, self._tick)

    @property
    def table(self) -> DataTable[Text]:
        """The traffic table."""
        return self.query_one("#inspector-table", DataTable)

    @property
    def shown_indexes(self) -> list[int]:
        """The log indexes of the rows shown, in order."""
        return list(self._rows)

    # ------------------------------------------------------------------ reading

    def _tick(self) -> None:
        if self.display:
            self.update_entries()

    def update_entries(self) -> None:
        """Add the log entries that came since the last read (cheap if none)."""
        table = self.table
        fresh = self.traffic.since(self._seen)
        self._seen = self.traffic.total
        if not fresh and (
            not self._rows or self.traffic.get(self._rows[0]) is not None
        ):
            return
        follow = table.row_count == 0 or table.cursor_row >= table.row_count - 1
        for entry in fresh:
            if entry.request_index is not None and entry.request_index in self._shown:
                request = self.traffic.get(entry.request_index)
                if request is not None:
                    table.update_cell(
                        str(entry.request_index), "latency", self._latency(request)
                    )
            if matches(entry, self.method_filter, self.direction):
                self._add_row(entry)
        while self._rows and self.traffic.get(self._rows[0]) is None:
            gone = self._rows.popleft()
            self._shown.discard(gone)
            table.remove_row(str(gone))
        if follow and table.row_count:
            table.move_cursor(row=table.row_count - 1)

    def rebuild(self) -> None:
        """Show every kept entry that passes the filters again."""
        table = self.table
        table.clear()
        self._rows.clear()
        self._shown.clear()
        self._seen = self.traffic.total
        for entry in self.traffic.entries():
            if matches(entry, self.method_filter, self.direction):
                self._add_row(entry)
        if table.row_count:
            table.move_cursor(row=table.row_count - 1)
            # The cursor may not have moved (no highlight event): show it here.
            self._show(self.traffic.get(self._rows[-1]))
        else:
            self._show(None)

    def _add_row(self, entry: TrafficEntry) -> None:
        style = self._warning_style() if not entry.valid else Style()
        method = entry.method or (
            entry.kind if entry.kind != "other" else "(no method)"
        )
        if not entry.valid:
            method = f"⚠ {method}"
        stamp = datetime.fromtimestamp(entry.time).strftime("%H:%M:%S.%f")[:-3]
        ident = "" if entry.id is None else str(entry.id)
        cells = (
            Text(stamp, style=style),
            Text(ARROWS[entry.direction], style=style),
            Text(printable(method), style=style),
            Text(printable(ident), style=style),
            Text(format_size(entry.size), style=style),
            self._latency(entry),
        )
        self.table.add_row(*cells, key=str(entry.index))
        self._rows.append(entry.index)
        self._shown.add(entry.index)

    def _latency(self, entry: TrafficEntry) -> Text:
        return Text(format_latency(entry.latency))

    def _warning_style(self) -> Style:
        color = self.app.theme_variables.get(
            "text-warning"
        ) or self.app.theme_variables.get("warning", "")
        try:
            return Style.parse(f"bold {color}".strip())
        except Exception:  # an unparsable theme value: bold only
            return Style(bold=True)

    # ------------------------------------------------------------- interaction

    @on(Input.Changed, "#inspector-filter")
    def _filter_changed(self, event: Input.Changed) -> None:
        event.stop()
        self.set_method_filter(event.value)

    def set_method_filter(self, text: str) -> None:
        """Show only the messages whose method contains `text` (any case)."""
        self.method_filter = text
        self.rebuild()

    @on(Button.Pressed, "#inspector-direction")
    def _direction_pressed(self, event: Button.Pressed) -> None:
        event.stop()
        self.cycle_direction()

    def cycle_direction(self) -> None:
        """Both, then only incoming, then only outgoing messages."""
        position = DIRECTIONS.index(self.direction)
        self.set_direction(DIRECTIONS[(position + 1) % len(DIRECTIONS)])

    def set_direction(self, direction: DirectionFilter) -> None:
        """Show only the messages going this way (`both`: all)."""
        self.direction = direction
        self.query_one("#inspector-direction", Button).label = DIRECTION_LABELS[
            direction
        ]
        self.rebuild()

    @on(DataTable.RowHighlighted, "#inspector-table")
    def _row_highlighted(self, event: DataTable.RowHighlighted) -> None:
        event.stop()
        key = event.row_key.value
        self._show(self.traffic.get(int(key)) if key is not None else None)

    def _show(self, entry: TrafficEntry | None) -> None:
        self.selected = entry
        detail = self.query_one("#inspector-detail", Static)
        problem = self.query_one("#inspector-problem", Static)
        if entry is None:
            detail.update(Content("Select a message"))
            problem.display = False
            return
        detail.update(Content(pretty_json(entry)))
        if entry.problem is not None:
            problem.update(Content(f"⚠ not valid: {printable(entry.problem)}"))
            problem.display = True
        else:
            problem.display = False

    def action_copy_message(self) -> None:
        """Copy the selected message's JSON to the clipboard."""
        if self.selected is None:
            self.app.notify("no message selected", severity="warning")
            return
        self.app.copy_to_clipboard(pretty_json(self.selected))
        self.app.notify("message copied")
