"""Agent terminal output never reaches the real terminal: capture what Textual writes.

The app runs with a driver that is not headless (so Textual renders and writes every
frame, as to a real terminal) but records the bytes instead of writing them. The
terminal output holds OSC 52 (clipboard), OSC 0/2 (title), OSC 8 (hyperlink), DA,
DSR, DECRQSS, bracketed paste, alternate screen and mouse mode sequences between
visible words; the card and the full-screen view show the words, and none of the
agent's sequences or payloads appear in what was written.
"""

from __future__ import annotations

from typing import ClassVar

from textual.driver import Driver
from textual.drivers.headless_driver import HeadlessDriver

from acp_tui.store import ops
from acp_tui.store.store import SessionStore
from acp_tui.ui.screens.terminal import TerminalScreen
from tests.ui.helpers import wait_for
from tests.ui.test_cards import CardsApp

SIZE = (100, 30)

HOSTILE = (
    b"visible-one "
    b"\x1b]52;c;Y2xpcGJvYXJkLXBheWxvYWQ=\x07"  # OSC 52: set the clipboard
    b"\x1b]52;p;c2Vjb25kLWNsaXA=\x1b\\"  # OSC 52 with ST
    b"\x1b]0;evil-title-zero\x07"  # OSC 0: icon name and title
    b"\x1b]2;evil-title-two\x1b\\"  # OSC 2: title
    b"\x1b]8;;https://evil.example/phish\x1b\\click\x1b]8;;\x1b\\"  # OSC 8 link
    b" visible-two "
    b"\x1b[c\x1b[>c\x1b[=c"  # DA primary, secondary, tertiary
    b"\x1b[5n\x1b[6n\x1b[?6n"  # DSR: status, cursor position
    b'\x1bP$qm\x1b\\\x1bP$q"p\x1b\\'  # DECRQSS queries
    b"\x1b[?2004h\x1b[?2004l"  # bracketed paste on and off
    b"\x1b[?1049h\x1b[?47h\x1b[?1047h"  # alternate screen
    b"\x1b[?1000h\x1b[?1002h\x1b[?1003h\x1b[?1006h\x1b[?1015h"  # mouse modes
    b"\x1b[?1004h\x1b[?25l\x1b[?1h"  # focus events, hidden cursor, app cursor
    b"\x1b[21t\x1b[14t"  # window title / size reports
    b"\x1b]10;?\x07\x1b]11;?\x07"  # colour queries
    b" visible-three\r\n"
)

FORBIDDEN = (
    b"\x1b]52",
    b"Y2xpcGJvYXJkLXBheWxvYWQ=",
    b"c2Vjb25kLWNsaXA=",
    b"\x1b]0;",
    b"\x1b]2;",
    b"evil-title",
    b"\x1b]8;",
    b"evil.example",
    b"\x1b[c",
    b"\x1b[>c",
    b"\x1b[=c",
    b"\x1b[5n",
    b"\x1b[6n",
    b"\x1b[?6n",
    b"\x1bP",
    b"$q",
    b"\x1b[?2004",
    b"\x1b[?1049",
    b"\x1b[?47h",
    b"\x1b[?1047",
    b"\x1b[?1000",
    b"\x1b[?1002",
    b"\x1b[?1003",
    b"\x1b[?1006",
    b"\x1b[?1015",
    b"\x1b[?1004",
    b"\x1b[21t",
    b"\x1b[14t",
    b"\x1b]10;",
    b"\x1b]11;",
    b"\x1b_",
    b"\x1b^",
    b"\x1bX",
)
"""Sequences and payloads of the agent's output. The capture driver starts no
application mode of its own, so Textual writes none of these either: any match
came from the agent."""


class CaptureDriver(HeadlessDriver):
    """A driver that is not headless (Textual writes its frames) and records them."""

    written: ClassVar[list[str]] = []

    @property
    def is_headless(self) -> bool:
        return False

    def write(self, data: str) -> None:
        CaptureDriver.written.append(data)


class CaptureApp(CardsApp):
    def get_driver_class(self) -> type[Driver]:
        return CaptureDriver


def captured() -> bytes:
    return "".join(CaptureDriver.written).encode("utf-8", "surrogateescape")


async def test_agent_sequences_never_reach_the_terminal() -> None:
    CaptureDriver.written.clear()
    store = SessionStore("sec")
    store.apply_many(
        [
            ops.PatchToolCall(
                "t1",
                title="Hostile",
                kind="execute",
                status="in_progress",
                content=[{"type": "terminal", "terminalId": "term"}],
            ),
            ops.PatchTerminal("term", command="cat hostile", cwd="/p"),
        ]
    )
    # Split the output at every 7th byte: sequences straddle chunks.
    for start in range(0, len(HOSTILE), 7):
        store.apply(ops.AppendTerminalOutput("term", HOSTILE[start : start + 7]))
    app = CaptureApp(store, panel=False)
    async with app.run_test(size=SIZE, headless=False) as pilot:
        await wait_for(pilot, lambda: b"visible-three" in captured())
        card_output = captured()
        await pilot.click(".terminal-header")
        await wait_for(pilot, lambda: isinstance(app.screen, TerminalScreen))
        CaptureDriver.written.clear()
        # More hostile output while the full-screen view is open.
        store.apply(ops.AppendTerminalOutput("term", HOSTILE.replace(b"one", b"four")))
        await wait_for(pilot, lambda: b"visible-four" in captured())
        screen_output = captured()
    assert b"visible-one" in card_output
    assert b"visible-two" in card_output
    assert b"click" in card_output  # the link's text shows, its target does not
    for output in (card_output, screen_output):
        leaked = [sequence for sequence in FORBIDDEN if sequence in output]
        assert leaked == []
        # The only OSC written is Textual's own pointer shape (OSC 22).
        oscs = {output[i : i + 5] for i in osc_starts(output)}
        assert oscs <= {b"\x1b]22;"}


def osc_starts(output: bytes) -> list[int]:
    starts: list[int] = []
    index = output.find(b"\x1b]")
    while index != -1:
        starts.append(index)
        index = output.find(b"\x1b]", index + 1)
    return starts
