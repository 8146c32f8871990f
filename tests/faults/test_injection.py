"""Hostile agent text renders literally and safely, in `acp-tui print` and the app.

The fault agent's `inject` scenario puts `HOSTILE` (Rich markup, ANSI, OSC, DCS,
C1 and bidi controls, CR, BS, BEL, a lone surrogate) and a 200,000-character
unbroken line into every string it controls. For `print`, what it writes to
stdout and stderr is checked; for the app, the bytes Textual writes to its
terminal are captured (the driver of `tests/ui/test_terminal_security.py`): after
Textual's own sequences are taken out, no control character is left, no bidi
override is written raw, and the markup shows as typed.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

import acp_tui.ui.app as app_module
from acp_tui.frontends import print_turn as headless
from acp_tui.protocol.transport import AgentCommand
from acp_tui.safe_text import printable
from acp_tui.ui.agent_runner import AgentSettings
from acp_tui.ui.app import AcpTuiApp
from acp_tui.ui.widgets.crash_banner import CrashBanner
from tests.fakes.fault_agent import CRASH_STDERR, HOSTILE, HUGE_WORD
from tests.faults.conftest import (
    Pids,
    PrintRunner,
    agent_option,
    argv,
    assert_no_traceback,
    screen_lines,
    screen_text,
    store_agent_text,
)
from tests.ui.helpers import wait_for
from tests.ui.test_app import agent_text, permission_armed
from tests.ui.test_terminal_security import CaptureDriver

pytestmark = pytest.mark.subprocess

WIDE = (160, 40)
"""A wide screen: hostile lines wrap less."""

BIDI = "\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069"

LITERAL = (
    "[bold red]markup[/] [/]",
    "[link=https://evil.example]rich-link[/link]",
    "[@click=app.quit]click-quit[/]",
    "\\x1b[31mansi-red\\x1b[0m",
    "\\x1b]0;evil-title\\x07",
    "\\u202eevil-bidi\\u202c",
)
"""How parts of `HOSTILE` read once made safe: as typed, controls escaped."""


def unsafe_characters(text: str) -> set[str]:
    """Characters that could act on a terminal: all but printable, LF and TAB."""
    return {char for char in text if not (char.isprintable() or char in "\n\t")}


# --- acp-tui print ----------------------------------------------------------------


@pytest.mark.parametrize("version", ["v2", "v1"])
def test_print_text_shows_hostile_text_literally(
    run_print: PrintRunner, pids: Pids, version: str
) -> None:
    run = run_print("--agent", agent_option("inject", version), "go")
    assert run.code == headless.EXIT_OK, run.err
    assert unsafe_characters(run.out) == set()
    assert unsafe_characters(run.err) == set()
    for literal in LITERAL:
        assert literal in run.out
    assert "lone\\ud800surrogate" in run.out
    assert HUGE_WORD in run.out
    assert "Traceback" not in run.out + run.err
    pids.assert_gone()


@pytest.mark.parametrize("version", ["v2", "v1"])
def test_print_json_keeps_the_data_and_escapes_it(
    run_print: PrintRunner, pids: Pids, version: str
) -> None:
    """The JSON document holds the agent's text exactly, yet as bytes on a terminal
    it carries no raw control, C1 or bidi character (they are `\\u` escapes)."""
    run = run_print(
        "--format", "json", "--agent", agent_option("inject", version), "go"
    )
    assert run.code == headless.EXIT_OK, run.err
    assert unsafe_characters(run.out) == set()
    assert "\\u202e" in run.out
    assert "\\u009b" in run.out
    assert "\\ud800" in run.out
    assert "\\udb40\\udc41" in run.out  # U+E0041, as a JSON surrogate pair
    assert HOSTILE in run.agent_text()
    assert HUGE_WORD in run.agent_text()
    [call] = run.document["toolCalls"]
    assert call["title"] == HOSTILE
    assert call["rawInput"] == {"command": HOSTILE}
    pids.assert_gone()


# --- the app: the bytes written to the terminal ------------------------------------


class CaptureApp(AcpTuiApp):
    """The app, writing its frames to `CaptureDriver` instead of a terminal."""

    CSS_PATH = str(Path(app_module.__file__).parent / "app.tcss")

    def get_driver_class(self) -> type[CaptureDriver]:
        return CaptureDriver


OSC8 = re.compile(r"\x1b\]8;(?:id=[0-9]+)?;([!-~]*)\x1b\\")
"""A hyperlink as Rich writes one (`;;` ends it): the target is printable ASCII."""

TEXTUAL_SEQUENCES = re.compile(
    r"\x1b\[[0-9;?<>=]*[ -/]*[@-~]"  # CSI: cursor moves, SGR colours, modes
    r"|\x1b\]22;[^\x07\x1b]*(?:\x07|\x1b\\)"  # OSC 22: Textual's pointer shape
    rf"|{OSC8.pattern}"  # OSC 8: the hyperlink of a markdown link
    # OSC 9;4: the app's progress while a turn runs (in tmux's passthrough in tmux)
    r"|(?:\x1bPtmux;\x1b)?\x1b\]9;4;[03]\x07(?:\x1b\\)?"
)
"""What Textual and the app itself write. Anything else with a control character
came from the agent."""

FRAGMENTS = (
    "red]markup[/]",
    "[link=https://evil.example]rich-link[/link]",
    "[@click=app.quit]click-quit[/]",
    "\\x1b[31mansi-red\\x1b[0m",
    "\\x1b]0;evil-title\\x07",
    "\\x9b31mc1-csi\\x9b0m",
    "\\u202eevil-bidi\\u202c",
)
"""Parts of `HOSTILE` without spaces (a line is never wrapped inside one), as they
read once made safe."""


def written() -> str:
    """What the app wrote so far, decoded strictly (a lone surrogate would fail)."""
    return "".join(CaptureDriver.written).encode("utf-8").decode("utf-8")


def shows_hostile_text(app: AcpTuiApp) -> bool:
    """Every fragment of `HOSTILE` is on one line of the screen, literally."""
    lines = screen_lines(app)
    return all(any(part in line for line in lines) for part in FRAGMENTS)


@pytest.mark.parametrize("version", ["v2", "v1"])
async def test_app_shows_hostile_text_literally(
    app_cwd: Path, pids: Pids, version: str
) -> None:
    CaptureDriver.written.clear()
    settings = AgentSettings(
        command=AgentCommand(argv("inject", version)),
        name="fault",
        cwd=app_cwd,
        init_timeout=10.0,
    )
    app = CaptureApp(settings)
    async with app.run_test(size=WIDE, headless=False, notifications=True) as pilot:
        await wait_for(pilot, lambda: app.store is not None)
        await pilot.press(*"go", "enter")
        # The permission dialog: its title, description and options.
        await wait_for(pilot, lambda: permission_armed(app))
        await wait_for(pilot, lambda: shows_hostile_text(app))
        await pilot.press("n", "n")  # select, then choose
        # The message, last in the turn: its end is on screen.
        await wait_for(pilot, lambda: "tail-marker" in store_agent_text(app), 30)
        await wait_for(pilot, lambda: "tail-marker" in screen_text(app), 30)
        await wait_for(pilot, lambda: shows_hostile_text(app))
        assert HOSTILE in store_agent_text(app)
        assert HUGE_WORD in agent_text(app)
        assert printable(HOSTILE, keep="\n\t") in agent_text(app)
        # The command list, with the hostile description.
        await pilot.press("/")
        await wait_for(pilot, lambda: "hostile" in screen_text(app))
        # The crash banner, with the agent's stderr.
        await pilot.press("backspace", *"crash", "enter")
        await wait_for(pilot, lambda: bool(app.query(CrashBanner)))
        await wait_for(pilot, lambda: "[bold]x[/]" in screen_text(app))
        assert "\\x1b]0;pwned\\x07" in screen_text(app)
        assert CRASH_STDERR in app.query_one(CrashBanner).stderr_tail
        assert_no_traceback(app)
        assert app.is_running
    output = written()
    assert "[@click=app.quit]click-quit[/]" in output  # shown as text
    assert unsafe_characters(TEXTUAL_SEQUENCES.sub("", output)) == set()
    assert not set(BIDI) & set(output)
    # Markdown links (and bare URLs) are hyperlinks: only to the agent's URL.
    assert set(OSC8.findall(output)) <= {"", "https://evil.example"}
    for payload in ("\x1b[31mansi-red", "\x1b]0;evil", "\x1b]8;;https", "\x1b]52;"):
        assert payload not in output
    await pids.wait_gone()
