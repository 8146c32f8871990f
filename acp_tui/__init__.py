"""acp-tui: a terminal UI for coding agents over the Agent Client Protocol."""

__version__ = "0.1.0"
