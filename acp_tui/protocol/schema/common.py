"""Wire models that the v1 and v2 schemas define the same way.

`v1` and `v2` star-import this module (its `__all__`), so each still exports
these under the same names (`v1.Cost is v2.Cost`) and reads as its schema. A
definition that comes to differ between the versions moves back into both
modules. Class names are the schema's definition names, as in `v1` and `v2`.
"""

from typing import Literal, TypeAlias

from pydantic import Field

from acp_tui.protocol.schema._base import JSONNumber, Lenient, WireModel

__all__ = [
    "CancelledPermissionOutcome",
    "CloseSessionRequest",
    "Cost",
    "DeleteSessionRequest",
    "ElicitationCapabilities",
    "ElicitationFormCapabilities",
    "ElicitationUrlCapabilities",
    "EnumOption",
    "EnvVariable",
    "HttpHeader",
    "Implementation",
    "Notice",
    "NumberPropertySchema",
    "SessionAdditionalDirectoriesCapabilities",
    "SessionDeleteCapabilities",
    "SessionId",
    "SessionInfoUpdate",
    "UnknownContentBlock",
    "UnknownSessionUpdate",
    "UnknownToolCallContent",
]

SessionId: TypeAlias = str

# ------------------------------------------------------------------------------------
# Content and session updates
# ------------------------------------------------------------------------------------


class UnknownContentBlock(WireModel):
    """A content block of a type this client does not know; every key is kept."""

    type: str


class UnknownToolCallContent(WireModel):
    type: str


class SessionInfoUpdate(WireModel):
    """Omitted: unchanged; `None`: clear."""

    session_update: Literal["session_info_update"] = "session_info_update"
    title: Lenient[str | None] = None
    updated_at: Lenient[str | None] = None
    """ISO 8601."""


class Notice(WireModel):
    """A live, advisory notice: not session history. `severity` is open.

    v1 sends it to a client that opted in (`session.notices`); v2 has it from
    the TS SDK 2.4 drafts ([Δ2.4]).
    """

    session_update: Literal["notice"] = "notice"
    severity: str
    title: str = Field(min_length=1)
    description: Lenient[str | None] = None


class UnknownSessionUpdate(WireModel):
    """A session update this client does not know; every key is kept."""

    session_update: str


# ------------------------------------------------------------------------------------
# Initialization, sessions, MCP servers
# ------------------------------------------------------------------------------------


class Implementation(WireModel):
    name: str
    title: Lenient[str | None] = None
    version: str


class EnvVariable(WireModel):
    name: str
    value: str


class HttpHeader(WireModel):
    name: str
    value: str


class Cost(WireModel):
    amount: JSONNumber
    currency: str


class ElicitationFormCapabilities(WireModel):
    pass


class ElicitationUrlCapabilities(WireModel):
    pass


class ElicitationCapabilities(WireModel):
    """A mode is advertised only by a present, non-null object."""

    form: Lenient[ElicitationFormCapabilities | None] = None
    url: Lenient[ElicitationUrlCapabilities | None] = None


class SessionDeleteCapabilities(WireModel):
    pass


class SessionAdditionalDirectoriesCapabilities(WireModel):
    pass


class DeleteSessionRequest(WireModel):
    session_id: SessionId


class CloseSessionRequest(WireModel):
    session_id: SessionId


class CancelledPermissionOutcome(WireModel):
    outcome: Literal["cancelled"] = "cancelled"


class EnumOption(WireModel):
    const: str
    title: str
    description: Lenient[str | None] = None


class NumberPropertySchema(WireModel):
    type: Literal["number"] = "number"
    title: Lenient[str | None] = None
    description: Lenient[str | None] = None
    minimum: JSONNumber | None = None
    maximum: JSONNumber | None = None
    default: Lenient[JSONNumber | None] = None
