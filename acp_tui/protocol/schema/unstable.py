"""Wire models of the TypeScript SDK 2.4.0 unstable drafts shared by v1 and v2.

`acp-schema/ts-sdk-2.4.0/{v1,v2}/schema.unstable.json` define these the same way
in both versions (class names are the schema's definition names):

* end-turn token usage (`Usage`): on the v1 `session/prompt` response and on the
  v2 idle `state_update` (rfds/end-turn-token-usage);
* the agent's authentication state: `auth/status` (advertised with
  `agentCapabilities.auth.status: {}`) and the `auth/status_update` notification
  (rfds/get-auth-state).

They are not in the stable schemas, so they stay out of `v1`/`v2`'s method
tables (whose tests compare them with the stable `meta.json`): `AGENT_METHODS` and
`CLIENT_NOTIFICATIONS` here list them, and `client.schema_check` adds them.
Only `v1`, `v2` and the dialects use these models.
"""

from typing import Final

from pydantic import Field, StrictBool, StrictInt

from acp_tui.protocol.schema._base import Lenient, LenientList, MethodSpec, WireModel

__all__ = [
    "AGENT_METHODS",
    "CLIENT_NOTIFICATIONS",
    "AuthAccount",
    "AuthStatusCapabilities",
    "AuthStatusRequest",
    "AuthStatusResponse",
    "AuthStatusUpdateNotification",
    "Usage",
]


class Usage(WireModel):
    """Token usage of the foreground work that just ended (not cumulative)."""

    total_tokens: StrictInt = Field(ge=0)
    input_tokens: StrictInt = Field(ge=0)
    output_tokens: StrictInt = Field(ge=0)
    thought_tokens: Lenient[StrictInt | None] = Field(default=None, ge=0)
    cached_read_tokens: Lenient[StrictInt | None] = Field(default=None, ge=0)
    cached_write_tokens: Lenient[StrictInt | None] = Field(default=None, ge=0)


class AuthStatusCapabilities(WireModel):
    """`agentCapabilities.auth.status`: `{}` means `auth/status` is served."""


class AuthAccount(WireModel):
    """An account or credential the agent has configured (display only)."""

    label: str
    active: Lenient[StrictBool | None] = None
    name: Lenient[str | None] = None
    email: Lenient[str | None] = None
    organization: Lenient[str | None] = None


class AuthStatusRequest(WireModel):
    """`auth/status` params (nothing but `_meta`)."""


class AuthStatusResponse(WireModel):
    """`auth/status` result. `state` is open: an unknown value reads as `unknown`."""

    state: str
    accounts: LenientList[list[AuthAccount]] = Field(default_factory=list)


class AuthStatusUpdateNotification(WireModel):
    """`auth/status_update` params: the same fields as the `auth/status` result."""

    state: str
    accounts: LenientList[list[AuthAccount]] = Field(default_factory=list)


AGENT_METHODS: Final[dict[str, MethodSpec]] = {
    "auth/status": MethodSpec(AuthStatusRequest, AuthStatusResponse),
}
"""Unstable requests the agent handles (client -> agent), both versions."""

CLIENT_NOTIFICATIONS: Final[dict[str, type[WireModel]]] = {
    "auth/status_update": AuthStatusUpdateNotification,
}
"""Unstable notifications the client receives (agent -> client), both versions."""
