"""Command palette entries (ctrl+p): every app action, plus one entry per config value.

The app returns these from `get_system_commands`, so they sit beside Textual's own
(theme, keys, quit). Config values are listed directly ("Model: GPT-5"), which makes
switching a model two keystrokes plus a few letters of its name.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from typing import Final

from acp_tui.client.options import option_id, option_kind, select_choices
from acp_tui.protocol.framing import printable
from acp_tui.store.values import JSONObject

__all__ = ["ACTIONS", "ActionEntry", "config_entries"]


@dataclass(frozen=True, slots=True)
class ActionEntry:
    """One palette entry that runs an app action."""

    title: str
    help: str
    action: str
    """The action name, without the `action_` prefix."""
    key: str | None = None
    """The key bound to it, for the key-help screen."""


ACTIONS: Final[tuple[ActionEntry, ...]] = (
    ActionEntry(
        "Sessions", "Pick a session to resume, or start one", "pick_session", "f2"
    ),
    ActionEntry(
        "New session", "Start a new session with this agent", "new_session", "ctrl+n"
    ),
    ActionEntry(
        "Agent settings", "Switch mode, model and other options", "switch_config", "f3"
    ),
    ActionEntry(
        "Cycle mode", "Switch to the agent's next mode", "cycle_mode", "shift+tab"
    ),
    ActionEntry(
        "Toggle plan panel", "Show or hide the plan side panel", "toggle_plan", "f4"
    ),
    ActionEntry(
        "Cancel turn", "Ask the agent to stop the running turn", "cancel_turn", "escape"
    ),
    ActionEntry(
        "Restart agent",
        "Restart the agent and resume this session",
        "restart_agent",
        "ctrl+r",
    ),
    ActionEntry("Keys", "Show every key binding", "key_help", "f1"),
    ActionEntry("Quit", "Shut the agent down and quit", "quit", "ctrl+q"),
)
"""The app's actions, in palette and key-help order."""


def config_entries(
    options: Sequence[JSONObject],
    apply: Callable[[str, str | bool], None],
) -> Iterator[tuple[str, str, Callable[[], None]]]:
    """`(title, help, callback)` for every config value that is not current."""
    for option in options:
        config_id = option_id(option)
        if config_id is None:
            continue
        name = printable(str(option.get("name") or config_id))
        kind = option_kind(option)
        current = option.get("currentValue")
        if kind == "boolean":
            new = not bool(current)
            title = f"{name}: {'on' if new else 'off'}"
            yield (
                title,
                f"Turn {name} {'on' if new else 'off'}",
                _bind(apply, config_id, new),
            )
        elif kind == "select":
            for choice in select_choices(option):
                if choice.value == current:
                    continue
                label = printable(choice.name)
                help_text = printable(choice.description or f"Set {name} to {label}")
                yield (
                    f"{name}: {label}",
                    help_text,
                    _bind(apply, config_id, choice.value),
                )


def _bind(
    apply: Callable[[str, str | bool], None], config_id: str, value: str | bool
) -> Callable[[], None]:
    def run() -> None:
        apply(config_id, value)

    return run
