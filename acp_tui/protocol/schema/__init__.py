"""Per-version ACP wire models. `v1` and `v2` never import each other.

What both define the same way lives once, in `common` (and `unstable`), and
each of them exports it under its own name.

`v1` is loaded lazily: importing it gives a module whose body runs on first
attribute access (`importlib.util.LazyLoader`). Building its ~130 pydantic models
takes about 0.16 s, and a connection that negotiates v2 (offered first) never
touches them; that time would otherwise stand between starting the app and the
first session. `v2` is imported as usual: `initialize` is always offered as v2
first, so it is always needed.

The model modules (`v1`, `v2`, `common`, `unstable`) do not use
`from __future__ import annotations`: with string annotations pydantic compiles
and evaluates every field's annotation when it builds each class, about a tenth
of importing `v2` (~4 ms of the ~45 ms, at every start of the app, `acp-tui
print` and the demo agent). The models come out the same (fields, core schemas,
JSON schemas); a forward reference, should one be needed, is written quoted.
"""

from __future__ import annotations

import importlib.util
import sys
from types import ModuleType


def _load_lazily(name: str) -> None:
    """Register module `name` (of this package) to execute on first use."""
    if name in sys.modules:
        return
    spec = importlib.util.find_spec(name)
    if spec is None or spec.loader is None:  # pragma: no cover - a packaging bug
        raise ImportError(f"no module named {name!r}", name=name)
    loader = importlib.util.LazyLoader(spec.loader)
    spec.loader = loader
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    loader.exec_module(module)
    # Not a plain assignment: to type checkers `v1` stays the submodule.
    setattr(sys.modules[__name__], name.rpartition(".")[2], module)


_load_lazily(f"{__name__}.v1")


def wire_models(version: int) -> ModuleType:
    """The wire-model module of `version` (1 or 2; v1 loads on first use).

    Only that version's module is imported: a v1 peer (the demo agent answering
    a v1 client) never builds the v2 models.
    """
    if version == 1:
        from acp_tui.protocol.schema import v1

        return v1
    from acp_tui.protocol.schema import v2

    return v2
