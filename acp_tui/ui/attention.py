r"""Attention signals as terminal bytes: desktop notifications, a bell, progress.

Pure (no Textual): `acp_tui.ui.attention_hook` tracks the app's focus and the
turns, and writes what this module formats.

* A desktop notification is OSC 9 (`ESC ] 9 ; text BEL`: iTerm2, WezTerm,
  kitty, Ghostty, Windows Terminal) or OSC 777 (`ESC ] 777 ; notify ; title ;
  body BEL`: VTE terminals such as GNOME Terminal, foot, urxvt), or both.
  `auto` picks one from the environment (`auto_style`).
* Progress is ConEmu's OSC 9;4 (`ESC ] 9 ; 4 ; 3 BEL` indeterminate while a
  turn runs, `ESC ] 9 ; 4 ; 0 BEL` cleared).
* Inside tmux (`TMUX` set) each sequence is wrapped in tmux's passthrough
  (`ESC P tmux; ... ESC \`, every ESC inside doubled); tmux passes it on with
  `set -g allow-passthrough on`. The bell is written as is (tmux has its own).

Invariants:

* Text in a notification (an agent's name, a session title) is data: `clean`
  leaves no control character in it (C0, DEL, C1, so no ESC or BEL that could
  end the sequence or start another), no bidi control, and caps its length.
* An OSC 9 text never starts with a digit (it would read as a ConEmu command
  such as `4;3`, progress), and an OSC 777 title holds no `;`.
* Standard library only (plus `acp_tui.safe_text`).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Final, Literal

from acp_tui.safe_text import printable

__all__ = [
    "BELL",
    "AttentionSignals",
    "NotifyStyle",
    "auto_style",
    "clean",
    "osc9",
    "osc777",
    "progress",
    "tmux_wrap",
]

NotifyStyle = Literal["auto", "osc9", "osc777", "both", "off"]
"""How to send a desktop notification (the config's `[attention] notify`)."""

BELL: Final = "\a"

TITLE_LIMIT: Final = 60
"""Characters of a notification title at most (after cleaning)."""

BODY_LIMIT: Final = 200
"""Characters of a notification body at most (after cleaning)."""

_CONTROLS: Final = re.compile(r"[\x00-\x1f\x7f-\x9f]+")
"""C0 controls (ESC, BEL, CR, LF, TAB...), DEL and C1 controls (CSI, ST, OSC...)."""


def clean(text: str, limit: int = BODY_LIMIT) -> str:
    """Agent text made safe inside a terminal sequence: one line, at most `limit`.

    Every C0, DEL and C1 control becomes a space (so nothing can end or start
    a sequence), any other non-printable character (bidi controls...) is
    escaped by `printable`, runs of spaces become one, and a text longer than
    `limit` is cut with an ellipsis.
    """
    text = printable(_CONTROLS.sub(" ", text))
    text = " ".join(text.split())
    if len(text) > limit:
        text = text[: max(limit - 1, 0)].rstrip() + "…"
    return text


def tmux_wrap(sequence: str) -> str:
    r"""`sequence` in tmux's passthrough: `ESC P tmux; ... ESC \`, ESC doubled."""
    return "\x1bPtmux;" + sequence.replace("\x1b", "\x1b\x1b") + "\x1b\\"


def osc9(text: str) -> str:
    """An OSC 9 desktop notification of `text` (cleaned here)."""
    text = clean(text, TITLE_LIMIT + BODY_LIMIT)
    if text[:1].isdigit():  # "4;3..." would be a ConEmu command, not a message
        text = "# " + text
    return f"\x1b]9;{text}\a"


def osc777(title: str, body: str) -> str:
    """An OSC 777 desktop notification (`notify;title;body`), both cleaned here."""
    title = clean(title, TITLE_LIMIT).replace(";", ",")
    return f"\x1b]777;notify;{title};{clean(body)}\a"


def progress(running: bool) -> str:
    """OSC 9;4 progress: indeterminate while `running`, else cleared."""
    return "\x1b]9;4;3\a" if running else "\x1b]9;4;0\a"


def auto_style(env: Mapping[str, str]) -> Literal["osc9", "osc777"]:
    """The notification the terminal in `env` most likely shows.

    OSC 777 for VTE terminals (GNOME Terminal, Tilix...), foot and urxvt;
    OSC 9 otherwise (iTerm2, WezTerm, kitty, Ghostty, Windows Terminal, and
    the terminals that ignore both). Inside tmux the outer terminal's
    variables are still there when tmux was started from it.
    """
    term = env.get("TERM", "")
    if env.get("VTE_VERSION") or term.startswith(("foot", "rxvt")):
        return "osc777"
    return "osc9"


@dataclass
class AttentionSignals:
    """What to write to the terminal as the app's focus and turns change.

    Each method returns the text to write ("" for nothing). Notifications
    and the bell go out only when the app is focus-aware (it has received a
    focus event from the terminal: otherwise it cannot know it is unfocused)
    and unfocused; progress does not depend on focus.
    """

    notify: NotifyStyle = "auto"
    bell: bool = False
    show_progress: bool = True
    env: Mapping[str, str] = field(default_factory=dict)
    focus_aware: bool = False
    """A focus event came from the terminal (it reports focus)."""
    focused: bool = True
    _progress_shown: bool = False

    def focus(self, focused: bool) -> None:
        """The terminal reported that the window gained or lost the focus."""
        self.focus_aware = True
        self.focused = focused

    @property
    def wants_alerts(self) -> bool:
        """A notification now would be sent (focus-aware and unfocused)."""
        return self.focus_aware and not self.focused

    def alert(self, title: str, body: str) -> str:
        """A notification (and bell) for the user, if unfocused and enabled."""
        if not self.wants_alerts:
            return ""
        style = auto_style(self.env) if self.notify == "auto" else self.notify
        parts: list[str] = []
        if style in ("osc9", "both"):
            parts.append(self._wrap(osc9(f"{clean(title, TITLE_LIMIT)}: {body}")))
        if style in ("osc777", "both"):
            parts.append(self._wrap(osc777(title, body)))
        if self.bell:
            parts.append(BELL)
        return "".join(parts)

    def running(self, running: bool) -> str:
        """Progress shown while a turn runs, cleared when none does (if enabled)."""
        if not self.show_progress or running == self._progress_shown:
            return ""
        self._progress_shown = running
        return self._wrap(progress(running))

    def _wrap(self, sequence: str) -> str:
        return tmux_wrap(sequence) if self.env.get("TMUX") else sequence
