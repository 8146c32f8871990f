"""`python -m acp_tui.demo`: run the demo agent on stdin/stdout.

Its imports (the JSON-RPC stack, pydantic, the schema's models: about 0.2 s of
CPU at every start) run with the garbage collector off: they make objects that
live as long as the process, and the collector walked them again and again while
they were made. What they made is then frozen (`gc.freeze`), so that no later
collection walks it, and the collector runs as before; at exit everything is
frozen once more, so the interpreter's last collections skip the heap. Objects
are still freed by reference counting, and every `atexit` hook still runs.
Imported as a module (not run), it does none of this.
"""

from __future__ import annotations

import atexit
import gc
import sys


def run() -> int:
    """Import the agent with the collector off, freeze what that made, serve."""
    gc.disable()
    try:
        from acp_tui.demo.server import main
    finally:
        gc.freeze()
        gc.enable()
    atexit.register(gc.freeze)
    return main()


if __name__ == "__main__":
    sys.exit(run())
