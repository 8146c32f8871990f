"""Reconnecting to a remote agent after its connection dropped.

A remote agent (`AgentCommand.remote`) whose connection ends after a session
was open (`ConnectionClosed`: the server went away, a cut or half-open
connection found by the keepalive; or a clean end of stream) is connected to
again by `ClientRunner.serve`, which resumes the open session (a replay where
the agent offers one: the new store replaces the old one, so nothing is shown
twice). Between attempts it waits `backoff_delay(attempt)` seconds: 0.5, 1, 2,
4, ... capped at `MAX_DELAY`, at most `MAX_ATTEMPTS` times; the front end is
told each attempt (`Reconnecting`), and a restart (ctrl+r) retries at once.

What the drop cost is said once, when it happens (`drop_notes`): the turn that
was running is interrupted (never finished), and the permission requests and
elicitations that were waiting can no longer be answered.

No Textual, no client stack: plain policy and wording.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Final

from acp_tui.protocol.remote.target import RemoteConnectError
from acp_tui.protocol.transport import ConnectionClosed

if TYPE_CHECKING:
    from acp_tui.client.runner import RunnerPort
    from acp_tui.store.store import SessionStore

__all__ = [
    "FIRST_DELAY",
    "MAX_ATTEMPTS",
    "MAX_DELAY",
    "Reconnecting",
    "backoff_delay",
    "drop_notes",
    "is_drop",
    "may_retry",
    "report_drop",
]

FIRST_DELAY: Final = 0.5
"""Seconds before the first attempt; each next one waits twice as long."""

MAX_DELAY: Final = 30.0
"""The longest wait between two attempts."""

MAX_ATTEMPTS: Final = 12
"""Attempts before giving up (about four minutes in all); then ctrl+r retries."""


@dataclass(frozen=True, slots=True)
class Reconnecting:
    """One attempt to come: its number, how many there may be, when, and why."""

    attempt: int
    attempts: int
    delay: float
    reason: str

    def status(self) -> str:
        """The status line's words for it (plain text)."""
        return (
            f"reconnecting… attempt {self.attempt}/{self.attempts} in "
            f"{self.delay:g} s (ctrl+r: now)"
        )


def backoff_delay(attempt: int) -> float:
    """Seconds to wait before attempt `attempt` (1-based): 0.5, 1, 2, ... 30."""
    return min(FIRST_DELAY * 2.0 ** max(attempt - 1, 0), MAX_DELAY)


def is_drop(error: BaseException) -> bool:
    """Whether `error` ended an established connection (not a refusal)."""
    import anyio

    return isinstance(error, ConnectionClosed | anyio.EndOfStream)


def may_retry(error: BaseException) -> bool:
    """Whether an attempt that failed with `error` is worth another one.

    The connection dropping again, or the server not reachable yet (refused,
    unreachable, a timeout, a server error) are; a refused token, TLS or a 404
    are not.
    """
    if isinstance(error, RemoteConnectError):
        return error.kind in ("refused", "unreachable", "timeout", "http")
    return is_drop(error) or isinstance(error, TimeoutError)


def drop_notes(store: SessionStore | None, reason: str, *, in_turn: bool) -> list[str]:
    """What the drop cost, one sentence each (plain text).

    Args:
        store: The session open at the drop.
        reason: Why the connection ended.
        in_turn: A turn was running.
    """
    notes: list[str] = []
    if in_turn:
        notes.append(
            f"The turn was interrupted: the connection to the agent dropped "
            f"({reason}). It did not finish; what the agent kept of it is shown "
            "once the session is resumed."
        )
    if store is None:
        return notes
    for permission in store.pending_permissions():
        title = permission.title or "a tool call"
        notes.append(
            f"The permission request for {title} can no longer be answered: the "
            "connection to the agent dropped."
        )
    for elicitation in store.elicitations():
        if elicitation.pending:
            notes.append(
                "The agent's question can no longer be answered: the connection "
                "to the agent dropped."
            )
    return notes


def report_drop(
    port: RunnerPort, store: SessionStore | None, prompt_id: int | None, reason: str
) -> None:
    """Tell the front end what the drop cost (`drop_notes`), in the conversation.

    The interrupted turn as its prompt's failure (else a note), then each
    question that can no longer be answered.
    """
    from acp_tui.client.runner import RunFailure

    busy = prompt_id is not None or (store is not None and store.state.is_busy)
    notes = drop_notes(store, reason, in_turn=busy)
    if busy:
        turn_note = notes.pop(0)
        if prompt_id is not None:
            port.prompt_failed(prompt_id, turn_note)
        else:
            port.run_failed(RunFailure(turn_note, restartable=False))
    for note in notes:
        port.run_failed(RunFailure(note, restartable=False))
