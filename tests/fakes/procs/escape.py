"""A command that leaves a process behind outside its process group, and says which.

Usage: escape.py HOW [--leader-exits]

HOW is how the escapee leaves:

* `setsid`: a child that starts a session of its own.
* `setpgid`: a child that moves to a process group of its own (same session).
* `double-fork`: a grandchild whose parent exits at once (same group, orphaned).
* `daemon`: the classic daemon: fork, `setsid`, fork, the middle process exits.
* `daemon-no-env`: a daemon that then runs `sleep` with an empty environment
  (still holding the terminal: its stdout).
* `daemon-no-env-no-tty`: the same, its stdio on /dev/null, but its parent (a
  session leader of its own, environment intact) stays.

The escapee writes `escaped PID` as a line on the terminal once it has escaped,
then waits for a signal (it never exits by itself within a test). This process
then waits too, or exits 0 at once with `--leader-exits`.
"""

from __future__ import annotations

import os
import signal
import sys
from typing import NoReturn

FOREVER = 4242
"""Seconds `sleep` runs for the escapees that become it (an odd number, so a
leaked one is easy to spot)."""


def pause_forever() -> NoReturn:
    while True:
        signal.pause()


def announce() -> None:
    os.write(1, f"escaped {os.getpid()}\n".encode())


def sleep_without_env(*, detach_stdio: bool) -> None:
    """Become `sleep` with no environment (the marker gone); announce first."""
    announce()
    if detach_stdio:
        null = os.open(os.devnull, os.O_RDWR)
        for fd in (0, 1, 2):
            os.dup2(null, fd)
    os.execve("/bin/sleep", ["sleep", str(FOREVER)], {})


def escapee(how: str) -> None:
    """Runs in the first child; never returns."""
    if how == "setsid":
        os.setsid()
    elif how == "setpgid":
        os.setpgid(0, 0)
    elif how == "double-fork" or how.startswith("daemon"):
        if how.startswith("daemon"):
            os.setsid()
        if os.fork() != 0:
            if how == "daemon-no-env-no-tty":
                pause_forever()  # the parent stays: the tree still links them
            os._exit(0)
        if how == "daemon-no-env":
            sleep_without_env(detach_stdio=False)
        if how == "daemon-no-env-no-tty":
            sleep_without_env(detach_stdio=True)
    else:
        os.write(2, f"unknown escape {how}\n".encode())
        os._exit(2)
    announce()
    pause_forever()


def main() -> int:
    how = sys.argv[1]
    if os.fork() == 0:
        try:
            escapee(how)
        finally:
            os._exit(1)
    if "--leader-exits" in sys.argv[2:]:
        return 0
    pause_forever()


if __name__ == "__main__":
    sys.exit(main())
