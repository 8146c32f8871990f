"""The agent's authentication status (unstable `auth/status`, `auth/status_update`).

Where the agent advertises `auth.status`, the runner asks `auth/status` once
connected, and again after a login or a logout; the agent's `auth/status_update`
notifications (which it may send at any time after `initialize`) update the
same `AuthStatusBox`, which the front end listens to. The dialects read both into
the version-neutral `store.auth_status.AuthStatus`.

The status is display information: a refusal, a malformed answer or a slow agent
is logged (a malformed notification also reported as a diagnostic) and changes
nothing else: the session goes on as before.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, Final

import anyio
from pydantic import ValidationError

from acp_tui.protocol.dispatcher import Diagnostic
from acp_tui.protocol.jsonrpc import RpcError
from acp_tui.protocol.transport import ConnectionClosed
from acp_tui.store.auth_status import AuthStatus, AuthStatusBox

if TYPE_CHECKING:
    from acp_tui.client.session import AcpClient

__all__ = [
    "AUTH_STATUS_TIMEOUT",
    "STATUS_METHOD",
    "UPDATE_METHOD",
    "AuthStatusUpdates",
    "query_auth_status",
    "refresh_auth_status",
]

log = logging.getLogger(__name__)

STATUS_METHOD: Final = "auth/status"
UPDATE_METHOD: Final = "auth/status_update"

AUTH_STATUS_TIMEOUT: Final = 10.0
"""Seconds an `auth/status` may take before it is given up (a pure query)."""


async def query_auth_status(client: AcpClient) -> AuthStatus | None:
    """Ask `auth/status` where advertised (None: not advertised).

    Raises:
        RpcError: The agent refused.
        ValidationError: The answer is not the draft's shape.
    """
    dialect = client.dialect
    if not dialect.has_auth_status():
        return None
    raw = await client.connection.dispatcher.request(STATUS_METHOD, {})
    return dialect.auth_status(raw)


async def refresh_auth_status(client: AcpClient, box: AuthStatusBox) -> None:
    """Ask `auth/status` if advertised and keep the answer in `box`.

    Failures are logged, never raised: `box` keeps what it had.
    """
    try:
        with anyio.fail_after(AUTH_STATUS_TIMEOUT):
            status = await query_auth_status(client)
    except (RpcError, ValidationError, TimeoutError, ConnectionClosed) as error:
        log.info("auth/status gave no status: %s", error or "timed out")
        return
    if status is not None:
        box.set(status)


class AuthStatusUpdates:
    """Serves `auth/status_update` for one connection into `box`.

    An update that arrives before the client is attached to the negotiated
    connection (right after the `initialize` answer) is held, the latest only
    (each one replaces the whole status), and applied by `attached()`. A
    malformed one is reported and ignored.
    """

    def __init__(
        self,
        client: AcpClient,
        box: AuthStatusBox,
        report: Callable[[Diagnostic], None],
    ) -> None:
        self.client = client
        self.box = box
        self.report = report
        self._attached = False
        self._held: tuple[Any] | None = None

    def receive(self, params: Any) -> None:
        """An `auth/status_update` notification's params."""
        if self._attached:
            self._apply(params)
        else:
            self._held = (params,)

    def attached(self) -> None:
        """The client is attached: apply the update held, if any."""
        self._attached = True
        if self._held is not None:
            self._apply(self._held[0])
            self._held = None

    def _apply(self, params: Any) -> None:
        try:
            status = self.client.dialect.auth_status(params)
        except ValidationError as error:
            message = f"a malformed {UPDATE_METHOD} was ignored: {error}"
            log.warning("%s", message)
            self.report(Diagnostic("handler_error", message))
            return
        self.box.set(status)
