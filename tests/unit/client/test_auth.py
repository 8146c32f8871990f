"""`acp_tui.client.auth`: the agent's auth methods, the same for ACP v1 and v2.

Every `initialize` result here is a wire dict, checked against the reference JSON
schema of its version and read by that version's model, as `connect()` does.
Checklist section 4.3 (authentication).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from jsonschema import Draft202012Validator

from acp_tui.client.auth import (
    LABEL_WIDTH,
    AuthChoice,
    AuthKind,
    auth_choices,
    is_auth_required,
    method_label,
    terminal_login_command,
    unusable_methods_text,
)
from acp_tui.client.connection import AgentIdentity, Connection
from acp_tui.protocol.dispatcher import Dispatcher
from acp_tui.protocol.framing import Line, OversizedLine
from acp_tui.protocol.jsonrpc import (
    AUTH_REQUIRED,
    INVALID_PARAMS,
    RESOURCE_NOT_FOUND,
    RpcError,
)
from acp_tui.protocol.schema import v1, v2
from acp_tui.protocol.transport import AgentCommand
from tests.spec_examples import SCHEMAS, load_schema

JSON = dict[str, Any]

SCHEMA_FILES = {1: "v1/schema.json", 2: "v2/schema.json"}


def v2_result(*methods: JSON) -> JSON:
    return {
        "protocolVersion": 2,
        "info": {"name": "agent", "version": "1.0"},
        "capabilities": {},
        "authMethods": list(methods),
    }


def v1_result(*methods: JSON) -> JSON:
    return {
        "protocolVersion": 1,
        "agentCapabilities": {},
        "authMethods": list(methods),
    }


class NullStream:
    """A `MessageStream` that is never used: `auth_choices` does no I/O."""

    async def receive(self) -> Line | OversizedLine:
        raise AssertionError("auth_choices must not read")

    async def send(self, line: bytes) -> None:
        raise AssertionError("auth_choices must not write")

    async def aclose(self) -> None:
        pass


def check_schema(version: int, result: JSON) -> None:
    """The result is a valid `InitializeResponse` per the reference schema."""
    if not SCHEMAS.is_dir():
        return  # the model check below still runs
    root = load_schema(SCHEMA_FILES[version])
    validator = Draft202012Validator(
        {"$ref": "#/$defs/InitializeResponse", "$defs": root["$defs"]}
    )
    errors = [error.message for error in validator.iter_errors(result)]
    assert errors == []


def connection_for(version: int, result: JSON, *, valid: bool = True) -> Connection:
    """A connection whose agent answered `initialize` with `result`.

    `valid=False` skips the schema check, for results the models must repair.
    """
    if valid:
        check_schema(version, result)
    model: v1.InitializeResponse | v2.InitializeResponse
    if version == 2:
        model = v2.InitializeResponse.model_validate(result)
    else:
        model = v1.InitializeResponse.model_validate(result)
    stream = NullStream()
    return Connection(
        protocol_version=2 if version == 2 else 1,
        dispatcher=Dispatcher(stream),
        stream=stream,
        initialize_result=model,
        agent=AgentIdentity(name="agent", title=None, version=None),
    )


# -- auth_choices ------------------------------------------------------------------


def test_v2_agent_and_terminal_methods() -> None:
    connection = connection_for(
        2,
        v2_result(
            {
                "methodId": "agent-login",
                "name": "Agent login",
                "type": "agent",
                "description": "Sign in using the agent's login flow",
            },
            {
                "methodId": "terminal-login",
                "name": "Log in from the terminal",
                "type": "terminal",
                "args": ["--login", "--no-browser"],
                "env": [
                    {"name": "ACP_INTERACTIVE_LOGIN", "value": "1"},
                    {"name": "LANG", "value": "C"},
                ],
            },
        ),
    )

    agent, terminal = auth_choices(connection)

    assert agent == AuthChoice(
        method_id="agent-login",
        name="Agent login",
        description="Sign in using the agent's login flow",
        kind="agent",
        wire_type="agent",
    )
    assert agent.can_login
    assert not agent.is_terminal
    assert agent.args == ()
    assert dict(agent.env) == {}
    assert terminal.method_id == "terminal-login"
    assert terminal.kind == "terminal"
    assert terminal.wire_type == "terminal"
    assert terminal.is_terminal
    assert not terminal.can_login
    assert terminal.description is None
    assert terminal.args == ("--login", "--no-browser")
    assert dict(terminal.env) == {"ACP_INTERACTIVE_LOGIN": "1", "LANG": "C"}


def test_v1_untyped_method_is_agent_and_terminal_env_is_a_map() -> None:
    connection = connection_for(
        1,
        v1_result(
            {"id": "agent-login", "name": "Agent login"},
            {"id": "typed", "name": "Typed agent login", "type": "agent"},
            {
                "id": "terminal-login",
                "name": "Log in from the terminal",
                "description": "Interactive",
                "type": "terminal",
                "args": ["--login"],
                "env": {"ACP_INTERACTIVE_LOGIN": "1"},
            },
        ),
    )

    untyped, typed, terminal = auth_choices(connection)

    assert (untyped.method_id, untyped.kind, untyped.wire_type) == (
        "agent-login",
        "agent",
        "agent",
    )
    assert untyped.description is None
    assert untyped.can_login
    assert (typed.method_id, typed.kind) == ("typed", "agent")
    assert terminal == AuthChoice(
        method_id="terminal-login",
        name="Log in from the terminal",
        description="Interactive",
        kind="terminal",
        wire_type="terminal",
        args=("--login",),
        env={"ACP_INTERACTIVE_LOGIN": "1"},
    )


@pytest.mark.parametrize("version", [1, 2])
def test_no_methods_gives_no_choices(version: int) -> None:
    result = v1_result() if version == 1 else v2_result()
    assert auth_choices(connection_for(version, result)) == []


def test_v2_unknown_type_is_kept_as_other() -> None:
    connection = connection_for(
        2,
        v2_result(
            {
                "methodId": "vendor",
                "name": "Vendor SSO",
                "type": "_vendor_sso",
                "url": "https://example.invalid/login",
            },
            {"methodId": "a", "name": "A", "type": "agent"},
        ),
    )

    vendor, agent = auth_choices(connection)

    assert vendor.kind == "other"
    assert vendor.wire_type == "_vendor_sso"
    assert (vendor.method_id, vendor.name) == ("vendor", "Vendor SSO")
    assert not vendor.can_login
    assert not vendor.is_terminal
    assert agent.kind == "agent"


def test_v1_unknown_type_is_kept_as_other() -> None:
    # The v1 schema reads it as an agent method (anything but `terminal`), but
    # acp-tui does not send an id whose type it does not know.
    connection = connection_for(
        1, v1_result({"id": "env", "name": "API key", "type": "env_var"})
    )

    (choice,) = auth_choices(connection)

    assert (choice.method_id, choice.kind, choice.wire_type) == (
        "env",
        "other",
        "env_var",
    )
    assert not choice.can_login


def test_malformed_terminal_fields_are_dropped_not_fatal() -> None:
    # `args` and `env` are lenient in both schemas: bad items are skipped.
    result = v2_result(
        {
            "methodId": "t",
            "name": "T",
            "type": "terminal",
            "args": ["--login", 7],
            "env": [{"name": "OK", "value": "1"}, {"name": "BAD"}],
        }
    )

    (choice,) = auth_choices(connection_for(2, result, valid=False))

    assert choice.args == ("--login",)
    assert dict(choice.env) == {"OK": "1"}


def test_choice_env_is_read_only() -> None:
    connection = connection_for(
        1,
        v1_result(
            {
                "id": "t",
                "name": "T",
                "type": "terminal",
                "env": {"A": "1"},
            }
        ),
    )
    (choice,) = auth_choices(connection)
    with pytest.raises(TypeError):
        choice.env["A"] = "2"  # type: ignore[index]
    assert hash(choice) == hash(choice)  # usable as a key despite the mapping


# -- terminal_login_command ---------------------------------------------------------


def test_terminal_login_command_appends_args_and_overrides_env(
    tmp_path: Path,
) -> None:
    base = AgentCommand(
        argv=("npx", "-y", "agent-acp", "--acp"),
        env={"LANG": "en_GB.UTF-8", "KEEP": "yes"},
        cwd=tmp_path,
    )
    choice = AuthChoice(
        method_id="terminal-login",
        name="Terminal",
        description=None,
        kind="terminal",
        wire_type="terminal",
        args=("--login",),
        env={"LANG": "C", "ACP_INTERACTIVE_LOGIN": "1"},
    )

    command = terminal_login_command(base, choice)

    assert command.argv == ("npx", "-y", "agent-acp", "--acp", "--login")
    assert dict(command.env) == {
        "LANG": "C",
        "KEEP": "yes",
        "ACP_INTERACTIVE_LOGIN": "1",
    }
    assert command.cwd == tmp_path
    assert base.argv == ("npx", "-y", "agent-acp", "--acp")  # base untouched
    assert dict(base.env) == {"LANG": "en_GB.UTF-8", "KEEP": "yes"}


def test_terminal_login_command_without_args_reruns_the_agent() -> None:
    base = AgentCommand(argv=("agent",))
    choice = AuthChoice("t", "T", None, "terminal", "terminal")
    command = terminal_login_command(base, choice)
    assert command.argv == ("agent",)
    assert dict(command.env) == {}
    assert command.cwd is None


@pytest.mark.parametrize("kind", ["agent", "other"])
def test_terminal_login_command_rejects_other_kinds(kind: AuthKind) -> None:
    choice = AuthChoice("agent-login", "Agent", None, kind)
    with pytest.raises(ValueError, match="agent-login"):
        terminal_login_command(AgentCommand(argv=("agent",)), choice)


# -- is_auth_required -----------------------------------------------------------------


def test_is_auth_required() -> None:
    assert AUTH_REQUIRED == -32000
    assert is_auth_required(RpcError(AUTH_REQUIRED, "Authentication required"))
    assert not is_auth_required(RpcError(INVALID_PARAMS, "Invalid params"))
    assert not is_auth_required(RpcError(RESOURCE_NOT_FOUND, "Resource not found"))
    assert not is_auth_required(ValueError("Authentication required"))
    assert not is_auth_required(KeyboardInterrupt())


# -- odd methods -------------------------------------------------------------------


@pytest.mark.parametrize("version", [1, 2])
def test_odd_ids_and_names_still_give_usable_choices(version: int) -> None:
    """An empty or huge id, an empty name, escapes and markup: all kept as sent
    (the id goes back to the agent unchanged); only a non-string id is invalid."""
    key = "id" if version == 1 else "methodId"
    typed = {} if version == 1 else {"type": "agent"}
    huge = "x" * 5000 + "\x1b[31m[b]"
    methods = (
        {key: "", "name": "", **typed},
        {key: huge, "name": "  ", **typed},
        {key: 42, "name": "A number for an id", **typed},
    )
    result = v1_result(*methods) if version == 1 else v2_result(*methods)
    choices = auth_choices(connection_for(version, result, valid=False))
    assert [c.method_id for c in choices] == ["", huge]
    assert all(c.usable and c.can_login for c in choices)
    labels = [method_label(c.name, c.method_id, n) for n, c in enumerate(choices, 1)]
    assert labels[0] == "Method 1"
    assert labels[1] == "x" * (LABEL_WIDTH - 1) + "…"


@pytest.mark.parametrize(
    ("name", "method_id", "label"),
    [
        ("Log in", "id", "Log in"),
        ("", "agent-login", "agent-login"),
        ("\x1b]0;pwned\x07Evil", "e", "\\x1b]0;pwned\\x07Evil"),
        ("", "", "Method 3"),
        (" \t", "\x00", "\\x00"),
    ],
)
def test_method_label_is_printable_short_and_never_empty(
    name: str, method_id: str, label: str
) -> None:
    assert method_label(name, method_id, 3) == label


def test_other_kinds_are_not_usable_and_say_why() -> None:
    connection = connection_for(
        2,
        v2_result(
            {"methodId": "sso", "name": "Company SSO", "type": "_vendor_sso"},
            {"methodId": "", "name": "", "type": "_vendor_key"},
        ),
    )
    choices = auth_choices(connection)
    assert not any(c.usable for c in choices)
    assert unusable_methods_text(choices) == (
        "none of its login methods can be used by acp-tui: "
        "Company SSO (type _vendor_sso), Method 2 (type _vendor_key)"
    )
    assert unusable_methods_text([]) == "it offers no login method"
