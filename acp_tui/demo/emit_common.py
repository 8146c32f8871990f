r"""What the v1 and v2 emitters share.

The agent's identity, the permission options and how an answer is read, the
plain-text rendering of terminal bytes, the config options and commands built from
either version's models, and `Emitter`: notifications that stop once the client is
gone, and elicitations (the two versions spell them alike).

Invariants:

* A permission answer is approval only if it selects one of the options offered:
  `cancelled`, an unknown outcome, an unknown option id, an error reply or a broken
  connection all read as "not approved".
* An elicitation's answer is `(action, content)` only if the response is valid
  for the version; anything else (an error, a broken connection) reads as
  `cancel`.
* `plain_text()` never lets a control sequence through: CSI and OSC sequences are
  removed, `\r` rewinds the current line (the last redraw of a progress bar
  wins), other C0 controls are dropped.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Sequence
from types import ModuleType
from typing import TYPE_CHECKING, Any, ClassVar, Final, TypeAlias, TypeVar

from pydantic import BaseModel, ValidationError

from acp_tui import __version__
from acp_tui.demo.config import OptionSpec, options
from acp_tui.demo.events import JSONObject
from acp_tui.demo.scenarios import COMMANDS
from acp_tui.protocol.dispatcher import Dispatcher
from acp_tui.protocol.jsonrpc import RpcError
from acp_tui.protocol.schema._base import to_wire
from acp_tui.protocol.transport import ConnectionClosed

if TYPE_CHECKING:
    from acp_tui.demo.session import DemoSession, ElicitAsk

__all__ = [
    "AGENT_INFO",
    "PERMISSION_OPTIONS",
    "ElicitAnswer",
    "Emitter",
    "ask_permission",
    "available_commands",
    "config_select",
    "elicitation_modes",
    "permission_options",
    "plain_text",
    "report_opt_ins",
]

log = logging.getLogger(__name__)

AGENT_INFO: Final[JSONObject] = {
    "name": "acp-tui-demo",
    "title": "acp-tui demo agent",
    "version": __version__,
}
"""How the demo names itself (v2 `info`, v1 `agentInfo`)."""

PERMISSION_OPTIONS: Final = (
    ("allow-once", "Allow once", "allow_once"),
    ("allow-always", "Always allow", "allow_always"),
    ("reject-once", "Reject", "reject_once"),
)
"""`(optionId, name, kind)` of every permission request, in both versions."""


_Model = TypeVar("_Model", bound=BaseModel)


def permission_options(model: type[_Model]) -> list[_Model]:
    """`PERMISSION_OPTIONS` as `model`s (either version's `PermissionOption`)."""
    return [model(option_id=o, name=n, kind=k) for o, n, k in PERMISSION_OPTIONS]


async def ask_permission(
    dispatcher: Dispatcher, request: BaseModel, model: type[BaseModel]
) -> str | None:
    """Send `session/request_permission`; the chosen option's kind, or None."""
    try:
        raw = await dispatcher.request("session/request_permission", to_wire(request))
        response = model.model_validate(raw)
    except (RpcError, ValidationError) as error:
        log.warning("permission request failed: %s", error)
        return None
    except ConnectionClosed:
        return None
    outcome = getattr(response, "outcome", None)
    if getattr(outcome, "outcome", None) != "selected":
        return None  # cancelled, or an outcome we don't know: never approval
    chosen = getattr(outcome, "option_id", None)
    return next((kind for o, _, kind in PERMISSION_OPTIONS if o == chosen), None)


def config_select(
    spec: OptionSpec,
    select: type[_Model],
    group: type[BaseModel],
    option: type[BaseModel],
    *,
    id_field: str,
    group_field: str,
) -> _Model:
    """A select config option built from one version's models.

    The versions differ only in how they name the option's id (`id_field`: v1 `id`,
    v2 `config_id`) and a group's id (`group_field`: v1 `group`, v2 `group_id`).
    """

    def values(group_id: str | None) -> list[BaseModel]:
        return [
            option(value=c.value, name=c.name, description=c.description)
            for c in spec.choices
            if group_id is None or c.group == group_id
        ]

    choices: list[BaseModel]
    if spec.groups:
        choices = [
            group(**{group_field: group_id}, name=name, options=values(group_id))
            for group_id, name in spec.groups
        ]
    else:
        choices = values(None)
    return select(
        **{id_field: spec.option_id},
        name=spec.name,
        description=spec.description,
        category=spec.category,
        current_value=spec.current,
        options=choices,
    )


def available_commands(
    command_model: type[_Model], input_model: type[BaseModel]
) -> list[_Model]:
    """Every scenario command as a `command_model`; free text takes an `input_model`."""
    out = []
    for command in COMMANDS:
        fields: dict[str, Any] = {
            "name": command.name,
            "description": command.description,
        }
        if command.hint is not None:
            fields["input"] = input_model(hint=command.hint)
        out.append(command_model(**fields))
    return out


ElicitAnswer: TypeAlias = tuple[str, dict[str, Any] | None]
"""An elicitation's answer: the action and, with `accept`, the content."""


def elicitation_modes(capabilities: Any) -> frozenset[str]:
    """The modes a client's `elicitation` capability advertises (v1 or v2 model).

    A mode is offered only when its entry is present and not null.
    """
    if capabilities is None:
        return frozenset()
    return frozenset(
        mode for mode in ("form", "url") if getattr(capabilities, mode) is not None
    )


def report_opt_ins(session: Any) -> frozenset[str]:
    """The v1 opt-ins in a client's `session` capabilities (`notices`, `compaction`)."""
    if session is None:
        return frozenset()
    return frozenset(
        name for name in ("notices", "compaction") if getattr(session, name) is not None
    )


class Emitter:
    """What both versions' `Port`s share: notifications and elicitations.

    Notifications stop once the client is gone.

    Args:
        dispatcher: The connection.
        elicitation_modes: The elicitation modes the client advertised.
    """

    models: ClassVar[ModuleType]
    """The version's wire models (`protocol.schema.v1` or `v2`)."""
    status_has_state: ClassVar[bool] = True
    """Whether a session's status carries its foreground state (v1's has none)."""

    def __init__(
        self,
        dispatcher: Dispatcher,
        *,
        elicitation_modes: frozenset[str] = frozenset(),
        reports: frozenset[str] = frozenset({"notices", "compaction"}),
        subagents: bool = True,
    ) -> None:
        self.dispatcher = dispatcher
        self.elicitation_modes = elicitation_modes
        self.reports = reports
        """The reports the client takes (`Report.opt_in`): both in v2; in v1, the
        client's opt-ins."""
        self.subagents = subagents
        """Whether the client takes child sessions (v2 always; v1 if declared)."""
        self.closed = False

    async def _notify(self, method: str, params: JSONObject) -> None:
        if self.closed:
            return
        try:
            await self.dispatcher.notify(method, params)
        except ConnectionClosed:
            self.closed = True

    async def _update(self, session_id: str, update: BaseModel | JSONObject) -> None:
        wire = update if isinstance(update, dict) else to_wire(update)
        await self._notify("session/update", {"sessionId": session_id, "update": wire})

    @staticmethod
    def option(spec: OptionSpec) -> BaseModel:
        """The version's model of one config option."""
        raise NotImplementedError

    @staticmethod
    def command_list() -> Sequence[BaseModel]:
        """The version's models of the available commands (every scenario)."""
        raise NotImplementedError

    async def send_config(self, session: DemoSession) -> None:
        """`config_option_update` with the complete list."""
        await self._update(
            session.session_id,
            self.models.ConfigOptionUpdate(
                config_options=[self.option(spec) for spec in options(session.config)]
            ),
        )

    async def send_commands(self, session_id: str) -> None:
        """`available_commands_update` with every scenario."""
        await self._update(
            session_id,
            self.models.AvailableCommandsUpdate(available_commands=self.command_list()),
        )

    async def send_raw(self, session_id: str, update: JSONObject) -> None:
        """A `session/update` as given (`subagent_update`: the same in v1 and v2)."""
        await self._update(session_id, update)

    async def extension(self, method: str, params: JSONObject) -> None:
        """A `_`-prefixed notification."""
        await self._notify(method, params)

    async def elicit(self, session_id: str, ask: ElicitAsk) -> ElicitAnswer:
        """`elicitation/create`, scoped to the session (and its tool call).

        Returns the answer (`cancel` if there is none).
        """
        params: dict[str, Any] = {
            "sessionId": session_id,
            "mode": ask.mode,
            "message": ask.message,
        }
        if ask.tool_call_id is not None:
            params["toolCallId"] = ask.tool_call_id
        if ask.schema is not None:
            params["requestedSchema"] = ask.schema
        if ask.url is not None:
            params["url"] = ask.url
            params["elicitationId"] = ask.url_id
        request = self.models.CreateElicitationRequest.model_validate(params)
        try:
            raw = await self.dispatcher.request("elicitation/create", to_wire(request))
            response = self.models.CreateElicitationResponse.model_validate(raw)
        except (RpcError, ValidationError) as error:
            log.warning("elicitation failed: %s", error)
            return ("cancel", None)
        except ConnectionClosed:
            return ("cancel", None)
        action = str(response.action)
        content = response.content
        return (action, dict(content) if action == "accept" and content else None)

    async def elicitation_complete(self, url_id: str) -> None:
        """`elicitation/complete`: a URL elicitation's interaction finished."""
        await self._notify("elicitation/complete", {"elicitationId": url_id})


_ESCAPES: Final = re.compile(
    r"\x1b\[[0-?]*[ -/]*[@-~]"  # CSI
    r"|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)?"  # OSC
    r"|\x1b[@-_]"  # other two-byte escapes
)
_CONTROLS: Final = re.compile(r"[\x00-\x08\x0b-\x1f\x7f]")


def plain_text(data: bytes) -> str:
    """Terminal output as plain text (what a screen would show, roughly)."""
    text = _ESCAPES.sub("", data.decode("utf-8", errors="replace"))
    text = text.replace("\r\n", "\n")
    lines = []
    for line in text.split("\n"):
        if "\r" in line:
            parts = line.split("\r")
            visible = parts[0]
            for part in parts[1:]:
                visible = part + visible[len(part) :]
            line = visible
        lines.append(_CONTROLS.sub("", line))
    return "\n".join(lines)
