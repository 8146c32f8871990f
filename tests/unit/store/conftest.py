from __future__ import annotations

import pytest

from acp_tui.store import SessionStore


@pytest.fixture
def store() -> SessionStore:
    return SessionStore("sess_1")
