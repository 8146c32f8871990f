"""A plain command-line program, not an ACP agent: it greets, then waits for input.

Run as `python plain_cli.py`; it prints a question to stdout and reads stdin
until it ends, as an interactive CLI does.
"""

import sys

print("Hello! What would you like to build today?", flush=True)
for _line in sys.stdin:
    pass
