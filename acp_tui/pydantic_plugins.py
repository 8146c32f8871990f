"""acp-tui runs without pydantic plugins: their loader is never imported.

The first schema pydantic builds asks `pydantic.plugin._loader.get_plugins()`
for the plugins installed (observability hooks such as logfire's), and that
module imports `importlib.metadata` (with `email`, `zipfile`, `bz2`, `lzma`...)
to scan every installed distribution's entry points. acp-tui is an application
that wants no such plugin, and that import was about 2.5 MB of an idle app's
memory (`bench/long_session.py`: 72.5 MB → 69.7 MB with the demo agent) and
10-15 ms of every start, `acp-tui print`'s included (issue 28).

`without_plugins()` puts a finder first on `sys.meta_path` that gives pydantic,
when it imports that module, one whose `get_plugins()` finds none: what
pydantic's documented `PYDANTIC_DISABLE_PLUGINS=__all__` gives, without the
import. It is called by `acp_tui/__init__.py`, so it holds in every
process that imports acp-tui before pydantic builds its first schema; once the
real loader is imported (a schema was built first), it changes nothing.
Nothing else is ever imported through it.
`tests/test_pydantic_plugins.py` checks that pydantic still asks this module
(its private layout is pinned by `uv.lock`).
"""

from __future__ import annotations

import sys
from importlib.machinery import ModuleSpec
from types import ModuleType
from typing import TYPE_CHECKING, cast

if TYPE_CHECKING:
    from importlib.abc import Loader

__all__ = ["LOADER", "without_plugins"]

LOADER = "pydantic.plugin._loader"
"""The module pydantic imports its plugins' loader from, at its first schema."""


def _no_plugins() -> tuple[()]:
    return ()


class _NoPlugins:
    """Finds and loads `LOADER` as a module whose `get_plugins()` finds none.

    A finder on `sys.meta_path`, not a module put in `sys.modules` now: pydantic
    is not imported by this, nor seen as imported.
    """

    @classmethod
    def find_spec(
        cls, name: str, path: object = None, target: object = None
    ) -> ModuleSpec | None:
        return ModuleSpec(name, cast("Loader", cls())) if name == LOADER else None

    def create_module(self, spec: ModuleSpec) -> None:
        return None  # the default module

    def exec_module(self, module: ModuleType) -> None:
        module.__doc__ = "acp-tui runs without pydantic plugins."
        module.get_plugins = _no_plugins  # type: ignore[attr-defined]


def without_plugins() -> None:
    """Make pydantic find no plugins without importing its loader (see above)."""
    if _NoPlugins not in sys.meta_path:
        sys.meta_path.insert(0, _NoPlugins)
