"""Where `acp-tui serve` listens unless told: the CLI's defaults.

Apart from `acp_tui.ui.serve` so that the CLI's parser can name them without
importing the server's guard (and its hashing and random modules) on every start.
"""

from __future__ import annotations

from typing import Final

__all__ = ["DEFAULT_HOST", "DEFAULT_PORT"]

DEFAULT_HOST: Final = "127.0.0.1"
DEFAULT_PORT: Final = 8000
