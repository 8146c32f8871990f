"""The status bar: agent, protocol version, state, stop reason, mode and model."""

from __future__ import annotations

from rich.text import Text
from textual.widgets import Static

from acp_tui.client.connection import AgentIdentity
from acp_tui.protocol.framing import printable
from acp_tui.store.store import SessionStore
from acp_tui.store.values import JSONObject

__all__ = ["StatusBar", "current_option_name"]


def current_option_name(options: tuple[JSONObject, ...], category: str) -> str | None:
    """The current value's name of the first select option in `category`."""
    for option in options:
        if option.get("category") != category:
            continue
        current = option.get("currentValue")
        values = option.get("options")
        groups: list[object] = list(values) if isinstance(values, list) else []
        choices: list[object] = []
        for group in groups:
            nested = group.get("options") if isinstance(group, dict) else None
            choices.extend(nested if isinstance(nested, list) else [group])
        for choice in choices:
            if isinstance(choice, dict) and choice.get("value") == current:
                return str(choice.get("name", current))
        return str(current) if current is not None else None
    return None


class StatusBar(Static):
    """One line of session status (plain text built from agent data)."""

    DEFAULT_CSS = """
    StatusBar {
        dock: bottom;
        height: 1;
        background: $panel;
        color: $text;
        padding: 0 1;
    }
    """

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.agent: AgentIdentity | None = None
        self.protocol_version: int | None = None
        self.store: SessionStore | None = None
        self.phase = "starting"
        self.queued = 0

    def on_mount(self) -> None:
        """Render the initial status."""
        self.refresh_status()

    def status_text(self) -> str:
        """The status line as plain text."""
        parts: list[str] = []
        if self.agent is not None:
            name = self.agent.display_name
            parts.append(f"{name} {self.agent.version}" if self.agent.version else name)
        if self.protocol_version is not None:
            parts.append(f"ACP v{self.protocol_version}")
        store = self.store
        if store is None:
            parts.append(self.phase)
        else:
            state = store.state
            if state.is_idle and state.last_stop_reason:
                parts.append(f"{state.state} ({state.last_stop_reason})")
            else:
                parts.append(state.state)
            for category in ("mode", "model"):
                current = current_option_name(store.config_options, category)
                if current:
                    parts.append(f"{category}: {current}")
        if self.queued:
            parts.append(f"{self.queued} queued")
        return printable(" │ ".join(parts))

    def refresh_status(self) -> None:
        """Re-render from the current values."""
        self.update(Text(self.status_text()))
