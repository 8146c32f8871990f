"""The version-neutral session store (stdlib only).

One `SessionStore` per ACP session holds the state that both protocol versions
feed: the client's translators turn v1/v2 wire messages into the ops of
`acp_tui.store.ops`, `SessionStore.apply` applies them and reports `Change`s, and
the UI reads the frozen entities of `acp_tui.store.model` through the store's
queries.

Never imports Textual, Rich, pydantic, anyio or the protocol layer; enforced by
import-linter and tests/test_import_hygiene.py.
"""

from __future__ import annotations

from acp_tui.store import changes, model, ops
from acp_tui.store._buffers import ContentView
from acp_tui.store.changes import *  # noqa: F403 (the package's names)
from acp_tui.store.config import ConfigChoice, ConfigOption
from acp_tui.store.model import *  # noqa: F403 (the package's names)
from acp_tui.store.ops import *  # noqa: F403 (the package's names)
from acp_tui.store.store import DEFAULT_MAX_TERMINAL_BYTES, Listener, SessionStore
from acp_tui.store.values import UNSET, JSONObject, JSONValue, Patch, Unset

__all__ = [
    "DEFAULT_MAX_TERMINAL_BYTES",
    "UNSET",
    "ConfigChoice",
    "ConfigOption",
    "ContentView",
    "JSONObject",
    "JSONValue",
    "Listener",
    "Patch",
    "SessionStore",
    "Unset",
]
__all__ += changes.__all__
__all__ += model.__all__
__all__ += ops.__all__
