"""The context meter, the last turn's tokens and the signed-in account, as status parts.

The status bar shows what the agent reports about itself:

* the context meter, from `usage_update` (rfds/session-usage): a compact bar of
  `used/size`, the percent, the figures and the cumulative cost (amount and
  currency). The RFD's thresholds style it: from 75% it warns ("context filling
  up"), from 90% it is high ("start a new session or summarize"), and above 95%
  critical ("the next prompt may fail");
* the last turn's tokens, from the end-turn usage (rfds/end-turn-token-usage): on
  the v1 `session/prompt` response or the v2 idle `state_update`;
* the signed-in account, from `auth/status` and `auth/status_update`.

Each part is `(text, style)`: the styles are Textual theme variables, and the text
is agent data only where it comes from the agent (the account), passed through
`printable`. Nothing here parses markup.
"""

from __future__ import annotations

from typing import Final, Literal, TypeAlias

from acp_tui.safe_text import printable
from acp_tui.store.auth_status import AuthStatus
from acp_tui.store.model import TurnUsage, Usage

__all__ = [
    "ACCOUNT_WIDTH",
    "BAR_CELLS",
    "LEVEL_STYLES",
    "LOGOUT_HELP",
    "THRESHOLDS",
    "Level",
    "Part",
    "account_part",
    "format_tokens",
    "logout_entry",
    "meter_level",
    "meter_part",
    "turn_usage_part",
]

Level: TypeAlias = Literal["ok", "warn", "high", "critical"]
Part: TypeAlias = tuple[str, str]
"""A piece of the status line: its plain text and its style ('' for none)."""

THRESHOLDS: Final[tuple[tuple[float, Level], ...]] = (
    (95.0, "critical"),
    (90.0, "high"),
    (75.0, "warn"),
)
"""The lowest percent of each level, highest first (rfds/session-usage)."""

LEVEL_STYLES: Final[dict[Level, str]] = {
    "ok": "",
    "warn": "$text-warning",
    "high": "bold $text-warning",
    "critical": "bold $text-error",
}

BAR_CELLS: Final = 8
"""How many cells the bar has (each one eighth of the window)."""

ACCOUNT_WIDTH: Final = 40
"""Characters of the signed-in account shown, at most."""

_FULL: Final = "▰"
_EMPTY: Final = "▱"
_SYMBOLS: Final = {"USD": "$", "EUR": "€", "GBP": "£", "JPY": "¥"}


def format_tokens(count: int) -> str:
    """`950`, `1.2k`, `48k`, `1.5M`."""
    if count >= 1_000_000:
        return f"{count / 1_000_000:.1f}M"
    if count >= 1000:
        return f"{count / 1000:.0f}k" if count >= 10_000 else f"{count / 1000:.1f}k"
    return str(count)


def meter_level(percent: float) -> Level:
    """The level of a context use of `percent`."""
    for lowest, level in THRESHOLDS:
        if percent >= lowest:
            return level
    return "ok"


def _bar(percent: float) -> str:
    filled = min(BAR_CELLS, max(0, round(percent * BAR_CELLS / 100)))
    if percent > 0 and filled == 0:
        filled = 1  # something is in context: never an empty bar
    return _FULL * filled + _EMPTY * (BAR_CELLS - filled)


def _cost(cost: object) -> str | None:
    if not isinstance(cost, dict):
        return None
    amount = cost.get("amount")
    if not isinstance(amount, int | float) or isinstance(amount, bool):
        return None
    currency = cost.get("currency")
    if currency is None or currency in _SYMBOLS:
        return f"{_SYMBOLS.get(str(currency or 'USD'))}{amount:.2f}"
    return printable(f"{amount:.2f} {currency}")


def meter_part(usage: Usage | None) -> Part | None:
    """`ctx ▰▰▱▱▱▱▱▱ 24% 48k/200k $0.42`, styled by level (None: no usage)."""
    if usage is None:
        return None
    words: list[str] = []
    style = ""
    if usage.used is not None and usage.size:
        percent = 100 * usage.used / usage.size
        level = meter_level(percent)
        style = LEVEL_STYLES[level]
        words.append(
            f"ctx {_bar(percent)} {percent:.0f}% "
            f"{format_tokens(usage.used)}/{format_tokens(usage.size)}"
        )
    elif usage.used is not None:
        words.append(f"ctx {format_tokens(usage.used)}")
    cost = _cost(usage.cost)
    if cost is not None:
        words.append(cost)
    return (" ".join(words), style) if words else None


def turn_usage_part(usage: TurnUsage | None) -> Part | None:
    """The last turn's tokens: `turn 53k tok` (dim; `print` has the details)."""
    if usage is None:
        return None
    return f"turn {format_tokens(usage.total)} tok", "dim"


def account_part(status: AuthStatus | None) -> Part | None:
    """`signed in: alice@example.com`, or `signed out` (warning), if known."""
    if status is None:
        return None
    summary = status.summary
    if summary is None:
        return None
    style = "$text-warning" if status.known_state == "unauthenticated" else ""
    text = printable(summary)
    if len(text) > ACCOUNT_WIDTH:
        text = text[: ACCOUNT_WIDTH - 1] + "…"
    return (text, style)


LOGOUT_HELP: Final = (
    "Log out of this tab's agent (the next request that needs a login asks for one)"
)


def logout_entry(status: AuthStatus | None) -> tuple[str, str]:
    """The palette's logout entry: its title and help, naming the account."""
    account = status.account if status is not None else None
    if account is None:
        return "Log out", LOGOUT_HELP
    who = printable(account.display)
    if len(who) > ACCOUNT_WIDTH:
        who = who[: ACCOUNT_WIDTH - 1] + "…"
    return f"Log out ({who})", f"Signed in as {who}. {LOGOUT_HELP}"
