"""Print the capacity of its stdout pipe (Linux `F_GETPIPE_SZ`), then exit."""

import fcntl
import sys

F_GETPIPE_SZ = 1032

sys.stdout.write(f"{fcntl.fcntl(1, F_GETPIPE_SZ)}\n")
sys.stdout.flush()
