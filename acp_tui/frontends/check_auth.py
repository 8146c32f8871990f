"""`acp-tui check`'s `auth/status` row (the unstable `auth.status` capability).

An agent that advertises `agentCapabilities.auth.status` (v1) or
`capabilities.auth.status` (v2) must answer `auth/status` with a `state`, and
must not answer it with `auth_required`: clients ask it to learn whether a login
is needed. An agent that does not advertise it is not asked, and gets no row
(reports stay as they were). The strict schema rows check the answer's shape too.
"""

from __future__ import annotations

from typing import Final

import anyio
from pydantic import ValidationError

from acp_tui.client.auth import is_auth_required
from acp_tui.client.auth_status import STATUS_METHOD, query_auth_status
from acp_tui.client.schema_check import CheckRow
from acp_tui.client.session import AcpClient
from acp_tui.protocol.jsonrpc import RpcError
from acp_tui.protocol.transport import ConnectionClosed
from acp_tui.protocol.version import ProtocolVersion
from acp_tui.safe_text import printable

__all__ = ["NAME", "auth_status_row"]

NAME: Final = STATUS_METHOD


async def auth_status_row(
    client: AcpClient, version: ProtocolVersion, seconds: float
) -> list[CheckRow]:
    """Ask `auth/status` where advertised (for at most `seconds`): its row.

    No row for an agent that does not advertise it (its report is as before).
    """
    if not client.dialect.has_auth_status():
        return []
    try:
        with anyio.fail_after(seconds):
            status = await query_auth_status(client)
    except RpcError as error:
        why = "auth_required (it must not be)" if is_auth_required(error) else ""
        detail = f"answered error {error.code}: {printable(error.message)}"
        return [CheckRow(NAME, version, "fail", f"{detail} {why}".rstrip())]
    except ValidationError as error:
        detail = f"invalid answer: {error.errors()[0]['msg']}"
        return [CheckRow(NAME, version, "fail", detail)]
    except (TimeoutError, ConnectionClosed) as error:
        detail = str(error) or f"no answer within {seconds:g} s"
        return [CheckRow(NAME, version, "fail", detail)]
    assert status is not None
    accounts = len(status.accounts)
    detail = f"state {printable(status.state)}, {accounts} account(s)"
    return [CheckRow(NAME, version, "pass", detail)]
