"""Wire models that the v1 and v2 schemas define the same way.

`v1` and `v2` import these and export them under the same names (`v1.Cost is
v2.Cost`), so either version's module still reads as its schema; a definition
that comes to differ between the versions moves back into both modules. Class
names are the schema's definition names, as in `v1` and `v2`.
"""

from __future__ import annotations

from typing import Literal

from acp_tui.protocol.schema._base import JSONNumber, Lenient, WireModel

__all__ = [
    "CancelledPermissionOutcome",
    "Cost",
    "ElicitationFormCapabilities",
    "ElicitationUrlCapabilities",
    "EnumOption",
    "EnvVariable",
    "HttpHeader",
    "Implementation",
    "NumberPropertySchema",
    "SessionAdditionalDirectoriesCapabilities",
    "SessionDeleteCapabilities",
]

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


class SessionDeleteCapabilities(WireModel):
    pass


class SessionAdditionalDirectoriesCapabilities(WireModel):
    pass


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
