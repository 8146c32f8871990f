"""`python -m acp_tui.demo`: run the demo agent on stdin/stdout."""

from __future__ import annotations

import sys

from acp_tui.demo.server import main

if __name__ == "__main__":
    sys.exit(main())
