"""ctrl+c (SIGINT) held back while `acp-tui print` starts, until its event loop runs.

Python turns SIGINT into a `KeyboardInterrupt` at whatever line runs when it
arrives. While `print` imports its modules and before its event loop runs, that
line can be inside a weakref callback or a finalizer (which swallow it: the turn
then ran on as if never interrupted), or at interpreter exit (the process then
died of the signal, not with exit status 130). So `print` blocks SIGINT from its
start (`sigint_held`) and unblocks it as the first step inside its event loop
(`release_sigint`): a ctrl+c pressed meanwhile is delivered there, where asyncio's
runner turns it into a cancellation of the run, which ends cleanly (the agent
stopped, exit status 130). Threads started meanwhile inherit the blocked mask,
so the signal still reaches the main thread. Where signal masks are not
available (or off the main thread), nothing is held.
"""

from __future__ import annotations

import signal
import threading
from collections.abc import Iterator
from contextlib import contextmanager

__all__ = ["release_sigint", "sigint_held"]


def _can_mask() -> bool:
    return (
        hasattr(signal, "pthread_sigmask")
        and threading.current_thread() is threading.main_thread()
    )


@contextmanager
def sigint_held() -> Iterator[None]:
    """Block SIGINT in this (main) thread; restore the previous mask at the end."""
    if not _can_mask():
        yield
        return
    previous = signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT})
    try:
        yield
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, previous)


def release_sigint() -> None:
    """Unblock SIGINT (a press held back is delivered now)."""
    if _can_mask():
        signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT})
