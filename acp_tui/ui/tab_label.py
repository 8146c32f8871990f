"""What a tab label shows: the agent, the session title and what it is doing.

`SessionPane.label` builds a `TabLabel`; the app renders it in the tab bar and
in the title of a hidden tab's notifications. Agent text is made printable and
kept as data: the label is plain `Content` with styles, never markup.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final, Literal

from textual.content import Content

from acp_tui.safe_text import printable

__all__ = ["MARKERS", "TITLE_WIDTH", "Activity", "TabLabel"]

TITLE_WIDTH: Final = 24
"""Characters of a session title shown in a tab label (the status bar has more)."""

Activity = Literal[
    "starting", "idle", "running", "done", "waiting", "stopped", "transcript"
]
"""What a tab's session is doing, as its label shows it."""

MARKERS: Final[dict[Activity, tuple[str, str]]] = {
    "starting": ("○", "$text-muted"),
    "idle": ("", ""),
    "running": ("●", "$text-accent"),
    "done": ("✓", "$text-success"),
    "waiting": ("! needs you", "bold $text-warning"),
    "stopped": ("✕ stopped", "$text-error"),
    "transcript": ("(saved)", "$text-muted"),
}
"""The state marker after a tab label: text and style."""


@dataclass(frozen=True, slots=True)
class TabLabel:
    """What a tab label shows (agent text is kept as data: never markup)."""

    agent: str
    title: str | None
    activity: Activity

    def name(self, number: int | None = None) -> str:
        """The label without its state marker, as plain text: `2 Fake Agent · Greeting`.

        What a notification names the tab by: its text says what the tab wants,
        so the marker ("! needs you") would say it twice.
        """
        return self.render(number, marker=False).plain

    def render(self, number: int | None = None, *, marker: bool = True) -> Content:
        """The label: `2 Fake Agent · Greeting ●` (plain text plus styles)."""
        parts: list[str | tuple[str, str]] = []
        if number is not None:
            parts.append((f"{number} ", "dim"))
        parts.append(printable(self.agent))
        if self.title:
            title = printable(self.title)
            if len(title) > TITLE_WIDTH:
                title = title[: TITLE_WIDTH - 1] + "…"
            parts.append(f" · {title}")
        shown, style = MARKERS[self.activity]
        if marker and shown:
            parts.append((f" {shown}", style))
        return Content.assemble(*parts)
