"""A pytest plugin for bench/suite.py's `--cpu`: each test process writes when each
test starts (its setup; its teardown ends before the next starts) to a file of its
own in `$ACP_TUI_SUITE_LOG`, so that the CPU its subprocesses use can be put down to
the test file it was running then."""

from __future__ import annotations

import os
import time
from typing import TextIO

_log: list[TextIO] = []


def pytest_runtest_logstart(nodeid: str, location: object) -> None:
    """Write `<time> <node id>` to this process's file."""
    directory = os.environ.get("ACP_TUI_SUITE_LOG")
    if not directory:
        return
    if not _log:
        _log.append(open(f"{directory}/{os.getpid()}.log", "a", buffering=1))  # noqa: SIM115
    _log[0].write(f"{time.time():.3f} {nodeid}\n")
