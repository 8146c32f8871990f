"""The context meter, the turn's tokens and the account as status-bar parts.

Pure functions and the status bar's layout, without an agent: the thresholds of
rfds/session-usage (75, 90, 95%), the bar, the cost in its currency, and what
gives way when the line is too narrow.
"""

from __future__ import annotations

import pytest

from acp_tui.client.dialect import AgentIdentity
from acp_tui.store import ops
from acp_tui.store.auth_status import AuthAccount, AuthStatus
from acp_tui.store.model import TurnUsage, Usage
from acp_tui.store.store import SessionStore
from acp_tui.ui.widgets.context_meter import (
    LEVEL_STYLES,
    account_part,
    logout_entry,
    meter_level,
    meter_part,
    turn_usage_part,
)
from acp_tui.ui.widgets.status_bar import StatusBar


@pytest.mark.parametrize(
    ("percent", "level"),
    [
        (0, "ok"),
        (74.9, "ok"),
        (75, "warn"),
        (89.9, "warn"),
        (90, "high"),
        (94.9, "high"),
        (95, "critical"),
        (120, "critical"),
    ],
)
def test_levels_change_at_75_90_and_95(percent: float, level: str) -> None:
    assert meter_level(percent) == level


@pytest.mark.parametrize(
    ("used", "expected"),
    [
        (0, "ctx ▱▱▱▱▱▱▱▱ 0% 0/200k"),
        (500, "ctx ▰▱▱▱▱▱▱▱ 0% 500/200k"),  # something in context: one cell
        (100_000, "ctx ▰▰▰▰▱▱▱▱ 50% 100k/200k"),
        (200_000, "ctx ▰▰▰▰▰▰▰▰ 100% 200k/200k"),
        (260_000, "ctx ▰▰▰▰▰▰▰▰ 130% 260k/200k"),
    ],
)
def test_the_bar_fills_by_eighths(used: int, expected: str) -> None:
    text, _ = meter_part(Usage(used, 200_000)) or ("", "")
    assert text == expected


def test_the_meter_is_styled_by_level_and_shows_the_cost() -> None:
    text, style = meter_part(
        Usage(190_000, 200_000, {"amount": 0.4, "currency": "USD"})
    ) or ("", "")
    assert text == "ctx ▰▰▰▰▰▰▰▰ 95% 190k/200k $0.40"
    assert style == LEVEL_STYLES["critical"]
    assert meter_part(Usage(1, 10, {"amount": 3, "currency": "credits"})) == (
        "ctx ▰▱▱▱▱▱▱▱ 10% 1/10 3.00 credits",
        "",
    )
    assert meter_part(Usage(cost={"amount": 1.5, "currency": "EUR"})) == ("€1.50", "")
    assert meter_part(None) is None


def test_the_turns_tokens() -> None:
    assert turn_usage_part(TurnUsage(53_000, 35_000, 12_000)) == ("turn 53k tok", "dim")
    assert turn_usage_part(None) is None


def test_the_account_is_printable_and_short() -> None:
    evil = AuthAccount("x", email="\x1b]8;;http://x\x07me[b]@example.com" + "y" * 60)
    text, _ = account_part(AuthStatus("authenticated", (evil,))) or ("", "")
    assert "\x1b" not in text
    assert "\x07" not in text
    assert len(text) == 40
    assert account_part(AuthStatus("unauthenticated")) == (
        "signed out",
        "$text-warning",
    )
    assert account_part(AuthStatus("not_required")) is None
    assert account_part(None) is None


def test_the_logout_entry_names_the_account() -> None:
    ada = AuthStatus("authenticated", (AuthAccount("Pro", email="ada@example.com"),))
    title, help_text = logout_entry(ada)
    assert title == "Log out (ada@example.com)"
    assert help_text.startswith("Signed in as ada@example.com.")
    assert logout_entry(None)[0] == "Log out"
    several = AuthStatus("authenticated", (AuthAccount("a"), AuthAccount("b")))
    assert logout_entry(several)[0] == "Log out"  # none marked active: no guess


def test_a_narrow_line_keeps_the_state_and_the_meter() -> None:

    store = SessionStore("s")
    store.apply_many(
        [
            ops.PatchUsage(used=184_000, size=200_000),
            ops.SetTurnUsage(53_000, 35_000, 12_000),
            ops.SetState("idle", "end_turn"),
        ]
    )
    bar = StatusBar()
    bar.store = store
    bar.phase = "connected"
    bar.protocol_version = 2
    bar.auth_status = AuthStatus(
        "authenticated", (AuthAccount("a", email="ada@x.org"),)
    )
    wide = bar.status_line(120).plain
    assert wide.startswith("ACP v2 │ idle (end_turn)")
    assert wide.endswith(
        "ctx ▰▰▰▰▰▰▰▱ 92% 184k/200k │ turn 53k tok │ signed in: ada@x.org"
    )
    assert len(wide) == 120
    narrow = bar.status_line(80).plain
    assert narrow.startswith("ACP v2 │ idle (end_turn)")
    assert "turn 53k tok" not in narrow  # the turn's tokens gave way first
    assert narrow.endswith("signed in: ada@x.org")
    narrower = bar.status_line(70).plain
    assert narrower.endswith("ctx ▰▰▰▰▰▰▰▱ 92% 184k/200k")  # then the account
    assert narrower.startswith("ACP v2 │ idle (end_turn)")


def test_a_part_that_does_not_fit_is_left_out_not_cut_to_a_few_letters() -> None:
    """Seen with claude-agent-acp at 120 columns: `mode: Manual │ mode…`."""
    store = SessionStore("s")
    store.apply_many(
        [ops.PatchUsage(used=1_000, size=200_000), ops.SetState("idle", "end_turn")]
    )
    bar = StatusBar()
    bar.store = store
    bar.phase = "connected"
    bar.protocol_version = 2
    bar.agent = AgentIdentity("a", "Agent", None)
    bar.queued = 3  # a last left part: "3 queued"
    full = bar.status_line(200).plain
    assert "│ 3 queued" in full
    meter = full[full.index("ctx") :]
    for width in range(61, 80):
        line = bar.status_line(width).plain
        assert len(line) == width
        assert line.endswith(meter)
        left = line[: -len(meter)].rstrip(" │")
        assert left.endswith(("idle (end_turn)", "3 queued")), (width, line)
    assert bar.status_line(48).plain.startswith("Agent │ ACP v2 │ id")  # kept, cut
