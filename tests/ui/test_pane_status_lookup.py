"""The pane reaches its status bar without walking its widgets.

The tab label and the status refresh run on every batch of store changes; a
query for the status bar walked every mounted card of the conversation before
it (a few milliseconds per batch in a long session, bench/long_session.py).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from acp_tui.ui.session_pane import SessionPane
from acp_tui.ui.widgets.status_bar import StatusBar
from tests.ui.helpers import wait_for
from tests.ui.test_app import SIZE, fake_app


@pytest.fixture(autouse=True)
def _home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ACP_TUI_HOME", str(tmp_path / "home"))


async def test_the_label_and_the_status_refresh_query_nothing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    app = fake_app("v2", tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: app.store is not None, bound=20)
        pane = app.query_one(SessionPane)
        status = pane.query_one(StatusBar)
        pane._refresh_status()  # the composed status bar, found once
        queried: list[Any] = []

        def counted(*args: Any, **kwargs: Any) -> Any:
            queried.append(args)
            raise AssertionError("the pane queried its widgets")

        monkeypatch.setattr(pane, "query", counted)
        monkeypatch.setattr(pane, "query_one", counted)
        assert pane.label.name(None) == "Fake Agent"
        assert pane._status is status
        assert queried == []
