"""The `initialize` params a client sends for each offer."""

from __future__ import annotations

import pytest

from acp_tui.client.connection import ClientFeatures, ClientIdentity, initialize_params
from acp_tui.protocol.schema import v1 as schema_v1
from acp_tui.protocol.schema._base import to_wire
from acp_tui.protocol.version import ProtocolVersion


def test_terminal_auth_is_declared_in_both_versions_when_enabled() -> None:
    features = ClientFeatures(terminal_auth=True)
    v2 = initialize_params(2, ClientIdentity(), features)
    assert v2["capabilities"]["auth"] == {"terminal": {}}
    assert v2["clientCapabilities"]["auth"] == {"terminal": True}
    v1 = initialize_params(1, ClientIdentity(), features)
    assert v1["clientCapabilities"]["auth"] == {"terminal": True}


def test_terminal_auth_is_not_declared_by_default() -> None:
    v2 = initialize_params(2, ClientIdentity(), ClientFeatures())
    assert "auth" not in v2["capabilities"]
    assert "auth" not in v2["clientCapabilities"]
    v1 = initialize_params(1, ClientIdentity(), ClientFeatures())
    assert "auth" not in v1["clientCapabilities"]


@pytest.mark.parametrize("terminal_auth", [False, True])
@pytest.mark.parametrize("fs", [False, True])
def test_a_v2_offer_carries_the_v1_fields_as_the_v1_models_give_them(
    terminal_auth: bool, fs: bool
) -> None:
    """Built as plain JSON (a v2 offer must not load the v1 models), they are
    exactly what a v1 offer sends, and valid v1."""
    features = ClientFeatures(
        read_text_file=fs,
        write_text_file=fs,
        terminal=fs,
        terminal_auth=terminal_auth,
    )
    identity = ClientIdentity(name="n", title="t", version="9")
    v2 = initialize_params(2, identity, features)
    v1 = initialize_params(1, identity, features)
    assert v2["clientInfo"] == v1["clientInfo"]
    assert v2["clientCapabilities"] == v1["clientCapabilities"]
    request = schema_v1.InitializeRequest.model_validate({**v2, "protocolVersion": 1})
    assert to_wire(request.client_capabilities) == v2["clientCapabilities"]


@pytest.mark.parametrize("offer", [1, 2])
def test_v1_capabilities_advertise_boolean_config_options(
    offer: ProtocolVersion,
) -> None:
    """v1 agents may send boolean options only to a client that says it takes them
    (`session.configOptions.boolean`); acp-tui shows and sets them. A v2 offer
    carries it in its v1 fields (v2 has boolean options without a marker)."""
    params = initialize_params(offer, ClientIdentity(), ClientFeatures())
    session = params["clientCapabilities"]["session"]
    assert session["configOptions"] == {"boolean": {}}
    request = schema_v1.InitializeRequest.model_validate(
        {**params, "protocolVersion": 1}
    )
    capabilities = request.client_capabilities.session
    assert capabilities is not None
    assert capabilities.config_options is not None
    assert capabilities.config_options.boolean is not None
    if offer == 2:
        assert "session" not in params["capabilities"]
