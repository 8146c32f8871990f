"""`python -m acp_tui` runs the command line."""

from acp_tui.cli import main

raise SystemExit(main())
