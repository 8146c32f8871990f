"""A hidden tab's notice names the tab once and says what it wants once
(issue 23, item 7: the tab notice wording is not doubled)."""

from __future__ import annotations

from pathlib import Path

import pytest

from acp_tui.ui.tab_label import TabLabel
from tests.ui.helpers import wait_for
from tests.ui.test_app import SIZE, _home, fake_app
from tests.ui.test_tabs import hidden_second_tab, notices

__all__ = ["_home"]  # the autouse fixture: a private ACP_TUI_HOME per test


@pytest.mark.subprocess
async def test_a_hidden_tabs_permission_notice_says_needs_you_once(
    tmp_path: Path,
) -> None:
    app = fake_app("v2", tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        _, second = await hidden_second_tab(pilot, app)
        second.runner.prompts.put_nowait((1, "hello"))  # asks for permission
        await wait_for(pilot, lambda: any("needs your" in n for n in notices(app)))
        (notice,) = [n for n in notices(app) if "needs your" in n]
        assert notice.startswith("2 Fake Agent needs your permission (tab 2")
        assert notice.count("needs you") == 1
        assert "!" not in notice


def test_a_label_names_its_tab_without_the_marker() -> None:
    label = TabLabel("Fake Agent", "Greeting", "waiting")
    assert label.render(2).plain == "2 Fake Agent · Greeting ! needs you"
    assert label.name(2) == "2 Fake Agent · Greeting"
    assert TabLabel("Fake Agent", None, "stopped").name() == "Fake Agent"
