"""The agent's authentication status, version-neutral (unstable `auth/status`).

Where an agent advertises it, the client asks `auth/status` once connected (and
again after a login or a logout), and the agent may push `auth/status_update` at
any time. The dialects read either into an `AuthStatus`; an `AuthStatusBox` holds
the connection's latest and tells its listeners when it changes.

`state` is open: `authenticated`, `unauthenticated`, `not_required`, `unknown`,
or anything else (read as `unknown`, as the draft asks). Accounts are display
information only (agent text: show it through `printable`).

Stdlib only, like the rest of `acp_tui.store`.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Final

__all__ = ["KNOWN_STATES", "AuthAccount", "AuthStatus", "AuthStatusBox"]

KNOWN_STATES: Final = frozenset(
    {"authenticated", "unauthenticated", "not_required", "unknown"}
)


@dataclass(frozen=True, slots=True)
class AuthAccount:
    """An account or credential the agent has configured."""

    label: str
    name: str | None = None
    email: str | None = None
    organization: str | None = None
    active: bool | None = None

    @property
    def display(self) -> str:
        """Who it is, shortest first: the email, else the name, else the label."""
        for text in (self.email, self.name, self.label):
            if text and text.strip():
                return text.strip()
        return "account"


@dataclass(frozen=True, slots=True)
class AuthStatus:
    """One `auth/status` answer or `auth/status_update`."""

    state: str
    accounts: tuple[AuthAccount, ...] = ()

    @property
    def known_state(self) -> str:
        """`state`, or `unknown` for a value this client does not know."""
        return self.state if self.state in KNOWN_STATES else "unknown"

    @property
    def account(self) -> AuthAccount | None:
        """The account in effect: the first marked active, else the only one."""
        for account in self.accounts:
            if account.active:
                return account
        if len(self.accounts) == 1 and self.accounts[0].active is None:
            return self.accounts[0]
        return None

    @property
    def summary(self) -> str | None:
        """A few words for the status bar (None: nothing worth showing)."""
        state = self.known_state
        account = self.account
        if state == "authenticated":
            return f"signed in: {account.display}" if account else "signed in"
        if state == "unauthenticated":
            return "signed out"
        return None


class AuthStatusBox:
    """The latest `AuthStatus` of a connection, with change listeners."""

    def __init__(self) -> None:
        self._value: AuthStatus | None = None
        self._listeners: list[Callable[[AuthStatus | None], None]] = []

    @property
    def value(self) -> AuthStatus | None:
        """The latest status (None: not asked, not advertised, or reset)."""
        return self._value

    def set(self, value: AuthStatus | None) -> None:
        """Replace the status; listeners hear of a change only."""
        if value == self._value:
            return
        self._value = value
        for listener in list(self._listeners):
            listener(value)

    def subscribe(
        self, listener: Callable[[AuthStatus | None], None]
    ) -> Callable[[], None]:
        """Call `listener` on every change; returns the unsubscribe function."""
        self._listeners.append(listener)

        def unsubscribe() -> None:
            if listener in self._listeners:
                self._listeners.remove(listener)

        return unsubscribe
