"""acp-tui: a terminal UI for coding agents over the Agent Client Protocol."""

from acp_tui.pydantic_plugins import without_plugins

__version__ = "0.1.0"

without_plugins()  # (before any schema is built: `acp_tui.pydantic_plugins`)
