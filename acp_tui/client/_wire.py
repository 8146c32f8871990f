"""Helpers shared by the v1 and v2 dialects, about wire models (v1 never imports v2).

A wire model knows whether a field was omitted (absent from `model_fields_set`),
sent as `null`, or sent with a value. Store patches say the same with the store's
own `UNSET`. Nested wire objects become plain JSON in wire form (`to_wire`), so the
store keeps exactly the keys that were on the wire. `log_defaulted` says which
fields of an agent's request the lenient parse replaced by their default.
"""

from __future__ import annotations

import base64
import binascii
import logging
from collections.abc import Callable, Mapping, Sequence
from typing import Any, ClassVar, Final, TypeVar

from pydantic import BaseModel

from acp_tui.client.dialect import (
    AgentIdentity,
    ElicitationCreate,
    PermissionAsk,
    SessionSummary,
)
from acp_tui.client.errors import UnsupportedOperation
from acp_tui.client.ports import PermissionChoice
from acp_tui.client.steering import (
    STEER_METHOD,
    SteerAnswer,
    advertised,
    answer_from,
    steer_params,
)
from acp_tui.client.subagent_wire import subagent_ops
from acp_tui.config import McpServerSettings
from acp_tui.protocol.schema import unstable
from acp_tui.protocol.schema._base import MAX_JSON_DEPTH, json_nested_deeper, to_wire
from acp_tui.store import ops
from acp_tui.store.auth_status import AuthAccount, AuthStatus
from acp_tui.store.values import UNSET, JSONObject, Patch

__all__ = [
    "CHUNK_ROLES",
    "MAX_UPDATE_DEPTH",
    "TOO_DEEP_TITLE",
    "SteeringExtension",
    "agent_identity",
    "auth_status",
    "commands_ops",
    "decode_base64",
    "elicitation_capabilities",
    "elicitation_create",
    "elicitation_reply",
    "json_list",
    "json_object",
    "log_defaulted",
    "mcp_entry",
    "nested_too_deeply",
    "patch",
    "permission_ask",
    "permission_reply",
    "session_summaries",
    "too_deep_notice",
    "tool_call_patch",
    "turn_usage",
    "unknown_update_ops",
    "usage_ops",
]

_T = TypeVar("_T")

MAX_UPDATE_DEPTH: Final = MAX_JSON_DEPTH - 1
"""How many levels objects and arrays may nest in one update (the update object is
level 1, inside the notification's params). The notification model does not
check this (see "Nesting depth" in `acp_tui.protocol.schema._base`), so the
translators do: a deeper update is skipped with a notice."""

TOO_DEEP_TITLE: Final = "Skipped an update nested too deeply"
"""The title of the notice that replaces an update nested too deeply."""

CHUNK_ROLES: Final[dict[str, ops.MessageRole]] = {
    "user_message_chunk": "user",
    "agent_message_chunk": "agent",
    "agent_thought_chunk": "thought",
}
"""The role of each `*_message_chunk` update kind (the same in v1 and v2)."""


def patch(
    model: BaseModel, name: str, convert: Callable[[Any], _T] | None = None
) -> Patch[Any]:
    """The store patch for field `name`: `UNSET` if omitted, `None` if null."""
    if name not in model.model_fields_set:
        return UNSET
    value = getattr(model, name)
    if value is None:
        return None
    return convert(value) if convert is not None else value


def json_object(value: Any) -> JSONObject:
    """A wire object (model or dict) as plain JSON in wire form."""
    if isinstance(value, BaseModel):
        return to_wire(value)
    result: JSONObject = value
    return result


def json_list(values: Sequence[Any]) -> list[JSONObject]:
    """A list of wire objects as plain JSON."""
    return [json_object(value) for value in values]


def decode_base64(data: str) -> bytes | None:
    """RFC 4648 base64 of one chunk or snapshot; None if it is not valid base64."""
    try:
        return base64.b64decode(data, validate=True)
    except (binascii.Error, ValueError):
        return None


def tool_call_patch(update: BaseModel) -> ops.PatchToolCall:
    """A tool-call update of either version (v1/v2 `ToolCallUpdate`) as a patch.

    The two versions share the field names; v2-only fields (`name`,
    `capabilities`) are simply never set on a v1 model, so they stay `UNSET`.
    """
    return ops.PatchToolCall(
        getattr(update, "tool_call_id"),  # noqa: B009 - both versions, one field
        title=patch(update, "title"),
        kind=patch(update, "kind"),
        status=patch(update, "status"),
        content=patch(update, "content", json_list),
        locations=patch(update, "locations", json_list),
        raw_input=patch(update, "raw_input"),
        raw_output=patch(update, "raw_output"),
        meta=patch(update, "meta"),
        name=patch(update, "name"),
        capabilities=patch(update, "capabilities", json_object),
    )


def plan_update_ops(raw: JSONObject, update: JSONObject) -> list[ops.Op]:
    """A plan by id (`plan_update` of either version; `raw` is its `plan`)."""
    plan_id = raw.get("planId")
    if not isinstance(plan_id, str):
        return [ops.RecordUnknownUpdate(update)]
    entries = raw.get("entries")
    return [
        ops.ReplacePlan(
            plan_id,
            str(raw.get("type")),
            entries if isinstance(entries, list) else [],
            raw,
        )
    ]


def nested_too_deeply(update: BaseModel) -> bool:
    """Whether `update` nests JSON more than `MAX_UPDATE_DEPTH` levels deep."""
    return json_nested_deeper(update, MAX_UPDATE_DEPTH)


def too_deep_notice(update: Any) -> list[ops.Op]:
    """The notice that replaces an update nested too deeply (which is skipped)."""
    kind = getattr(update, "session_update", None)
    return [
        ops.RecordNotice(
            "error",
            TOO_DEEP_TITLE,
            f"The agent sent a {kind if isinstance(kind, str) else 'session'} update "
            f"whose JSON nests more than {MAX_UPDATE_DEPTH} levels deep.",
        )
    ]


def log_defaulted(
    logger: logging.Logger, method: str, params: Any, request: BaseModel
) -> None:
    """Log what the lenient parse of a request dropped, one warning per field.

    Fields marked `x-deserialize-default-on-error` read as omitted when their value
    is malformed (negative, fractional, too large, mistyped), and arrays marked
    `x-deserialize-skip-invalid-items` lose their bad items: the request is served
    with the default, never refused (checklist §4.14.4). The agent is not told, so
    the log says which field fell back, and to what.
    """
    if not isinstance(params, Mapping):
        return
    for name, info in type(request).model_fields.items():
        key = info.alias or name
        if key not in params:
            continue
        sent, value = params[key], getattr(request, name)
        if name not in request.model_fields_set:
            if sent is not None:
                logger.warning(
                    "%s: %s=%s is not a valid value; using the default (%r)",
                    method,
                    key,
                    _shown(sent),
                    value,
                )
        elif (
            isinstance(sent, list)
            and isinstance(value, list)
            and len(value) < len(sent)
        ):
            dropped = len(sent) - len(value)
            logger.warning(
                "%s: %s had %d invalid item%s, left out",
                method,
                key,
                dropped,
                "" if dropped == 1 else "s",
            )


def _shown(value: Any) -> str:
    """`repr(value)`, cut to 80 characters (it came from the agent)."""
    text = repr(value)
    return text if len(text) <= 80 else f"{text[:77]}..."


def mcp_entry(name: str, server: McpServerSettings, *, typed_stdio: bool) -> JSONObject:
    """A configured MCP server in wire form.

    The v1 and v2 shapes match except that a v1 stdio server carries no `type`
    tag (`typed_stdio=False`).
    """
    entry: dict[str, Any] = (
        {} if not typed_stdio and server.type == "stdio" else {"type": server.type}
    )
    entry["name"] = name
    if server.type == "stdio":
        entry["command"] = server.command
        entry["args"] = list(server.args)
        entry["env"] = [{"name": k, "value": v} for k, v in server.env.items()]
    else:
        entry["url"] = server.url
        entry["headers"] = [{"name": k, "value": v} for k, v in server.headers.items()]
    return entry


def permission_ask(
    session_id: str,
    title: str | None,
    description: str | None,
    subject: JSONObject | None,
    options: Sequence[BaseModel],
    tool_call_id: str | None,
    meta: JSONObject | None,
) -> PermissionAsk:
    """A permission request of either version as the neutral `PermissionAsk`.

    The options of both versions share `optionId`, `name` and `kind`.
    """
    choices = tuple(
        PermissionChoice(
            getattr(o, "option_id"),  # noqa: B009 - both versions, one field
            getattr(o, "name"),  # noqa: B009
            getattr(o, "kind"),  # noqa: B009
        )
        for o in options
    )
    return PermissionAsk(
        session_id,
        title,
        description,
        subject,
        [to_wire(o) for o in options],
        choices,
        tool_call_id,
        meta,
    )


def agent_identity(info: Any) -> AgentIdentity:
    """An `initialize` result's implementation info (v1 `agentInfo`, v2 `info`).

    Both versions' `Implementation` have `name`, `title` and `version`; an agent
    that gives none is named `agent`.
    """
    if info is None:
        return AgentIdentity(name="agent", title=None, version=None)
    return AgentIdentity(name=info.name, title=info.title, version=info.version)


def session_summaries(sessions: Sequence[Any]) -> list[SessionSummary]:
    """A `session/list` page's entries (`SessionInfo` of either version).

    `archived` (unstable, in both versions) is read from the kept wire form.
    """
    summaries = []
    for info in sessions:
        raw = to_wire(info)
        summaries.append(
            SessionSummary(
                info.session_id,
                info.cwd,
                info.title,
                info.updated_at,
                raw,
                archived=raw.get("archived") is True,
            )
        )
    return summaries


UNSTABLE_SESSION_MARKERS: Final = {
    "fork": "fork",
    "set_title": "title",
    "archive": "archive",
    "status": "status",
}
"""`SessionFeatures` fields and their capability markers (TS SDK 2.4 unstable; the
same keys under v1 `sessionCapabilities` and v2 `session`)."""


def unstable_session_features(caps: BaseModel | None) -> dict[str, bool]:
    """The unstable session methods a capabilities object marks (kept as extras)."""
    extra = (caps.model_extra or {}) if caps is not None else {}
    return {
        field: isinstance(extra.get(key), dict)
        for field, key in UNSTABLE_SESSION_MARKERS.items()
    }


def permission_reply(outcome: JSONObject) -> JSONObject:
    """The `session/request_permission` result (the same shape in v1 and v2)."""
    return {"outcome": outcome}


def elicitation_capabilities(form: bool, url: bool) -> JSONObject | None:
    """`elicitation` of the client capabilities (the same in v1 and v2).

    Each supported mode is an explicit `{}`; None when neither is offered (the
    key is then left out: elicitation unsupported).
    """
    modes: dict[str, Any] = {}
    if form:
        modes["form"] = {}
    if url:
        modes["url"] = {}
    return modes or None


def elicitation_create(request: Any) -> ElicitationCreate:
    """An `elicitation/create` of either version (`CreateElicitationRequest`).

    The two versions' models share every field name.
    """
    schema = request.requested_schema
    return ElicitationCreate(
        mode=request.mode,
        message=request.message,
        session_id=request.session_id,
        tool_call_id=request.tool_call_id,
        requested_schema=to_wire(schema) if schema is not None else None,
        url=request.url,
        url_id=request.elicitation_id,
        meta=request.meta,
    )


def elicitation_reply(
    model: type[BaseModel], action: str, content: Mapping[str, Any] | None
) -> JSONObject:
    """The `elicitation/create` result, validated by its version's `model`.

    `content` goes only with `accept` (receivers ignore it otherwise), and is
    left out when there is none.
    """
    reply: dict[str, Any] = {"action": action}
    if action == "accept" and content is not None:
        reply["content"] = dict(content)
    return to_wire(model.model_validate(reply))


# --- unstable drafts shared by v1 and v2 (protocol/schema/unstable.py) --------


def turn_usage(usage: unstable.Usage | None) -> list[ops.Op]:
    """The op for a turn's end-turn `usage` (none if it reported none)."""
    if usage is None:
        return []
    return [
        ops.SetTurnUsage(
            usage.total_tokens,
            usage.input_tokens,
            usage.output_tokens,
            usage.thought_tokens,
            usage.cached_read_tokens,
            usage.cached_write_tokens,
        )
    ]


def auth_status(raw: Any) -> AuthStatus:
    """An `auth/status` result or `auth/status_update` params, version-neutral.

    Raises:
        ValidationError: Not the draft's shape (`state` missing, say).
    """
    parsed = unstable.AuthStatusResponse.model_validate(raw)
    return AuthStatus(
        parsed.state,
        tuple(
            AuthAccount(a.label, a.name, a.email, a.organization, a.active)
            for a in parsed.accounts
        ),
    )


def session_info_ops(update: Any) -> list[ops.Op]:
    """The op for a `session_info_update` (the same fields in v1 and v2)."""
    return [
        ops.PatchSessionInfo(
            title=patch(update, "title"),
            updated_at=patch(update, "updated_at"),
            meta=patch(update, "meta"),
        )
    ]


def usage_ops(update: Any) -> list[ops.Op]:
    """The op for a `usage_update` (the same fields in v1 and v2)."""
    return [
        ops.PatchUsage(
            used=update.used,
            size=update.size,
            cost=patch(update, "cost", json_object),
            meta=patch(update, "meta"),
        )
    ]


def commands_ops(update: Any) -> list[ops.Op]:
    """The op for an `available_commands_update` (the whole list, v1 and v2)."""
    return [ops.SetAvailableCommands(json_list(update.available_commands))]


def unknown_update_ops(update: Any) -> list[ops.Op]:
    """An update kind the dialect does not map: a subagent's, or kept raw."""
    raw = to_wire(update)
    return subagent_ops(raw) or [ops.RecordUnknownUpdate(raw)]


class AgentAsks:
    """The permission reply and `elicitation/*`, the same shapes in v1 and v2.

    A dialect mixes it in and names its version's models; what a lenient parse
    drops is logged under the dialect's module.
    """

    ELICITATION_REQUEST: ClassVar[type[BaseModel]]
    """The version's `CreateElicitationRequest`."""
    ELICITATION_RESPONSE: ClassVar[type[BaseModel]]
    """The version's `CreateElicitationResponse`."""

    def permission_reply(self, outcome: JSONObject) -> JSONObject:
        """`{"outcome": outcome}`."""
        return permission_reply(outcome)

    def elicitation(self, params: Any) -> ElicitationCreate:
        """An `elicitation/create` request."""
        request = self.ELICITATION_REQUEST.model_validate(params)
        logger = logging.getLogger(type(self).__module__)
        log_defaulted(logger, "elicitation/create", params, request)
        return elicitation_create(request)

    def elicitation_reply(
        self, action: str, content: Mapping[str, Any] | None
    ) -> JSONObject:
        """A `CreateElicitationResponse` (`ValidationError` if invalid)."""
        return elicitation_reply(self.ELICITATION_RESPONSE, action, content)


class ResultReads:
    """Results read alike in v1 and v2, each by its version's models.

    A dialect mixes it in and names the models (`session/new`, `session/list`,
    `session/set_config_option`); `auth/status` is the same draft in both.
    """

    NEW_SESSION_RESPONSE: ClassVar[type[Any]]
    """The version's `NewSessionResponse`."""
    LIST_SESSIONS_RESPONSE: ClassVar[type[Any]]
    """The version's `ListSessionsResponse`."""
    SET_CONFIG_OPTION_RESPONSE: ClassVar[type[Any]]
    """The version's `SetSessionConfigOptionResponse`."""

    def parse_new(self, raw: Any) -> tuple[str, object]:
        """A `session/new` result: its session id, and the parsed result."""
        result = self.NEW_SESSION_RESPONSE.model_validate(raw)
        return result.session_id, result

    def list_page(self, raw: Any) -> tuple[list[SessionSummary], str | None]:
        """A `session/list` page: its sessions and the next cursor."""
        page = self.LIST_SESSIONS_RESPONSE.model_validate(raw)
        return session_summaries(page.sessions), page.next_cursor

    def parse_config_options(self, raw: Any) -> list[JSONObject]:
        """A `session/set_config_option` result's options in wire form."""
        result = self.SET_CONFIG_OPTION_RESPONSE.model_validate(raw)
        return json_list(result.config_options)

    def auth_status(self, raw: Any) -> AuthStatus:
        """An `auth/status` result or `auth/status_update` (the same in v1 and v2)."""
        return auth_status(raw)


class SteeringExtension:
    """claude-agent-acp's steering extension, spoken alike in v1 and v2.

    A dialect mixes it in; it reads the `_meta` of the dialect's `result` (the
    parsed `initialize` result; see `acp_tui.client.steering`).
    """

    @property
    def steering(self) -> bool:
        """Whether the agent takes a prompt into its running turn."""
        return advertised(getattr(getattr(self, "result", None), "meta", None))

    def steer_request(
        self, session_id: str, blocks: Sequence[JSONObject]
    ) -> tuple[str, JSONObject]:
        """The method and params that steer the running turn with `blocks`."""
        if not self.steering:
            raise UnsupportedOperation("the agent takes no prompt during a turn")
        return STEER_METHOD, steer_params(session_id, blocks)

    def steer_answer(self, raw: Any) -> SteerAnswer:
        """The agent's answer to a steered prompt."""
        return answer_from(raw)
