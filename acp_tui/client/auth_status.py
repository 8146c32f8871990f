"""Asking the agent's authentication status (unstable `auth/status`).

Where the agent advertises `auth.status`, the runner asks once connected, and
again after a login or a logout; the agent's `auth/status_update` notifications
update the same `AuthStatusBox` (`AcpClient.handle_notification`). The status is
display information: a refusal, a malformed answer or a slow agent is logged and
changes nothing else (the session goes on as before).
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING, Final

import anyio
from pydantic import ValidationError

from acp_tui.protocol.jsonrpc import RpcError
from acp_tui.protocol.transport import ConnectionClosed

if TYPE_CHECKING:
    from acp_tui.client.session import AcpClient

__all__ = ["AUTH_STATUS_TIMEOUT", "refresh_auth_status"]

log = logging.getLogger(__name__)

AUTH_STATUS_TIMEOUT: Final = 10.0
"""Seconds an `auth/status` may take before it is given up (a pure query)."""


async def refresh_auth_status(client: AcpClient) -> None:
    """Ask `auth/status` if advertised; failures are logged, never raised."""
    if not client.has_auth_status():
        return
    try:
        with anyio.fail_after(AUTH_STATUS_TIMEOUT):
            await client.query_auth_status()
    except (RpcError, ValidationError, TimeoutError, ConnectionClosed) as error:
        log.info("auth/status gave no status: %s", error or "timed out")
