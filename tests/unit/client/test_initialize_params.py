"""The `initialize` params a client sends for each offer."""

from __future__ import annotations

from acp_tui.client.connection import ClientFeatures, ClientIdentity, initialize_params


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
