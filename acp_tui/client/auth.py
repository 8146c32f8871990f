"""The agent's authentication methods, the same for ACP v1 and v2.

https://agentclientprotocol.com/protocol/v1/authentication and
https://agentclientprotocol.com/protocol/v2/authentication.

An agent lists its login methods in its `initialize` result (`authMethods`). Each
method's type says how to use it:

* `agent`: the client asks the agent to log in (`auth/login` in v2, `authenticate`
  in v1) with the method's id. A v1 method without a `type` is one of these.
* `terminal`: the client runs **its own** configured agent command again, in an
  interactive terminal, with the method's `args` appended and its `env` added (see
  `terminal_login_command`). Exit status 0 means success; the client then
  reconnects. Such a method is never sent to `auth/login` / `authenticate`.
* anything else (custom `_...` types, future ones) is kept as kind `other`, with
  its wire `type`: shown generically, never used to log in.

Any session request may fail with the `auth_required` error (-32000) until the
user has logged in; `is_auth_required` recognises it.

Agent-provided ids and names are data, and may be odd: an empty or very long id,
an empty name, control characters or markup. `method_label` always gives a short,
printable, non-empty label, so such a method can still be shown and chosen. A
method whose id is not a string is invalid and dropped by the schema. Only
`agent` and `terminal` methods are `usable`; `unusable_methods_text` says why
none is, so the user is told to log in outside acp-tui rather than to restart and
choose (which would only show the same choices again).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import TYPE_CHECKING, Final, Literal, TypeAlias

from acp_tui.protocol.jsonrpc import AUTH_REQUIRED, RpcError
from acp_tui.protocol.transport import AgentCommand
from acp_tui.safe_text import printable

if TYPE_CHECKING:
    from acp_tui.client.connection import Connection

__all__ = [
    "LABEL_WIDTH",
    "AuthChoice",
    "AuthKind",
    "auth_choices",
    "is_auth_required",
    "method_label",
    "terminal_login_command",
    "unusable_methods_text",
]

LABEL_WIDTH: Final = 60
"""Characters of a method's name or id shown as its label, at most."""

AuthKind: TypeAlias = Literal["agent", "terminal", "other"]
"""How a method is used: `auth/login` (agent), a terminal run, or not at all."""


def _empty_env() -> Mapping[str, str]:
    return MappingProxyType({})


@dataclass(frozen=True, slots=True)
class AuthChoice:
    """One of the agent's authentication methods, version-neutral."""

    method_id: str
    """The id to pass to `auth/login` / `authenticate` (v2 `methodId`, v1 `id`)."""
    name: str
    """Human-readable name (agent-provided: render as plain text)."""
    description: str | None
    """Optional longer text (agent-provided: render as plain text)."""
    kind: AuthKind
    """`agent`, `terminal`, or `other` for a type acp-tui does not know."""
    wire_type: str = "agent"
    """The wire `type` as sent (`agent` when a v1 method has none)."""
    args: tuple[str, ...] = ()
    """Terminal methods: arguments appended to the agent command."""
    env: Mapping[str, str] = field(default_factory=_empty_env, hash=False)
    """Terminal methods: variables set on the agent command (read-only)."""

    @property
    def can_login(self) -> bool:
        """Whether the agent logs in itself when sent this method's id."""
        return self.kind == "agent"

    @property
    def is_terminal(self) -> bool:
        """Whether the client logs in by running the agent in a terminal."""
        return self.kind == "terminal"

    @property
    def usable(self) -> bool:
        """Whether acp-tui can log in with it (an `agent` or `terminal` method)."""
        return self.kind != "other"


def method_label(name: str, method_id: str, number: int) -> str:
    """A method's label: its name, else its id, else `Method <number>`.

    Always printable (control characters escaped), stripped, non-empty, and at
    most `LABEL_WIDTH` characters (cut with `…`).
    """
    for text in (name, method_id):
        label = printable(text.strip()).strip()
        if label:
            if len(label) > LABEL_WIDTH:
                label = label[: LABEL_WIDTH - 1] + "…"
            return label
    return f"Method {number}"


def unusable_methods_text(choices: Sequence[AuthChoice]) -> str:
    """Why the agent's login methods cannot be used, for a message to the user.

    Args:
        choices: All the agent's methods (none of them usable).
    """
    if not choices:
        return "it offers no login method"
    listed = ", ".join(
        f"{method_label(c.name, c.method_id, n)} (type {printable(c.wire_type)})"
        for n, c in enumerate(choices, start=1)
    )
    return f"none of its login methods can be used by acp-tui: {listed}"


def auth_choices(connection: Connection) -> list[AuthChoice]:
    """The agent's authentication methods from its `initialize` result, in order.

    Args:
        connection: A negotiated connection (v1 or v2).

    Returns:
        One choice per advertised method; empty when the agent offers none (its
        dialect reads them: `client.v1`, `client.v2`).
    """
    return connection.dialect.auth_choices()


def terminal_login_command(base: AgentCommand, choice: AuthChoice) -> AgentCommand:
    """The command that runs a terminal login: the agent's own command, extended.

    The method's `args` are appended to the configured argv, and its `env` is laid
    over the configured variables (a method's value wins).

    Args:
        base: How acp-tui starts this agent.
        choice: A `terminal` method of that agent.

    Returns:
        The command to run interactively; exit status 0 means logged in.

    Raises:
        ValueError: The choice is not a terminal method.
    """
    if not choice.is_terminal:
        raise ValueError(f"{choice.method_id!r} is not a terminal login method")
    return AgentCommand(
        argv=(*base.argv, *choice.args),
        env={**base.env, **choice.env},
        cwd=base.cwd,
    )


def is_auth_required(error: BaseException) -> bool:
    """Whether an error is the agent's `auth_required` answer (-32000).

    Args:
        error: Anything raised by a request, e.g. by `AcpClient.new_session`.

    Returns:
        True for an `RpcError` with the auth-required code.
    """
    return isinstance(error, RpcError) and error.code == AUTH_REQUIRED
