"""Attention signals as bytes (`acp_tui.ui.attention`) and their settings."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from acp_tui.config import AttentionSettings, Settings, load_settings
from acp_tui.ui.attention import (
    BODY_LIMIT,
    AttentionSignals,
    auto_style,
    clean,
    osc9,
    osc777,
    progress,
    tmux_wrap,
)

HOSTILE = (
    "evil\x07\x1b]0;pwned\x07\x1b]9;4;3\x07\x1b[31mred\x9b31m\x9d0;c1\x9c"
    "\x1bP$q\x1b\\ line\nbreak\r\u202eflip\u202c\x00nul\x7fdel;semi"
)
"""Agent text that would end the notification and start sequences of its own."""

CONTROLS = re.compile(r"[\x00-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]")


def test_osc9_is_a_notification() -> None:
    assert osc9("acp-tui: the turn ended") == "\x1b]9;acp-tui: the turn ended\a"


def test_osc9_text_never_reads_as_a_conemu_command() -> None:
    """Agent text "4;3" alone would set progress: it is never taken for a command."""
    assert osc9("4;3") == "\x1b]9;# 4;3\a"


def test_osc777_has_a_title_and_a_body() -> None:
    assert osc777("acp-tui", "Fake · Greeting: the turn ended") == (
        "\x1b]777;notify;acp-tui;Fake · Greeting: the turn ended\a"
    )
    # A `;` in the title would move the body's start.
    assert osc777("a;b", "c") == "\x1b]777;notify;a,b;c\a"


def test_progress_is_osc_9_4() -> None:
    assert progress(True) == "\x1b]9;4;3\a"
    assert progress(False) == "\x1b]9;4;0\a"


def test_tmux_passthrough_doubles_every_escape() -> None:
    assert tmux_wrap("\x1b]9;4;3\a") == "\x1bPtmux;\x1b\x1b]9;4;3\a\x1b\\"
    assert tmux_wrap("\x1b[1m\x1b]9;x\a") == (
        "\x1bPtmux;\x1b\x1b[1m\x1b\x1b]9;x\a\x1b\\"
    )


@pytest.mark.parametrize("make", [osc9, lambda text: osc777(text, text)])
def test_hostile_text_cannot_end_or_inject_a_sequence(make: object) -> None:
    assert callable(make)
    sequence = make(HOSTILE)
    # One ESC (the start) and one BEL (the end): nothing of the agent's acts.
    assert sequence.count("\x1b") == 1
    assert sequence.count("\a") == 1
    body = sequence[2:-1]
    assert not CONTROLS.search(body), repr(body)
    assert "pwned" in body  # the text is kept, as text
    assert "flip" in body


def test_clean_caps_the_length_and_keeps_one_line() -> None:
    text = clean("word " * 200)
    assert len(text) == BODY_LIMIT
    assert text.endswith("…")
    assert clean("a\nb\tc\r\nd") == "a b c d"
    assert clean(HOSTILE) == clean(clean(HOSTILE))
    assert not CONTROLS.search(clean(HOSTILE))


def test_auto_picks_osc777_for_vte_foot_and_urxvt() -> None:
    assert auto_style({"VTE_VERSION": "7600", "TERM": "xterm-256color"}) == "osc777"
    assert auto_style({"TERM": "foot"}) == "osc777"
    assert auto_style({"TERM": "rxvt-unicode-256color"}) == "osc777"
    assert auto_style({"TERM_PROGRAM": "iTerm.app"}) == "osc9"
    assert auto_style({}) == "osc9"


# --- when: focus, settings ----------------------------------------------------------


def test_no_alert_before_a_focus_report() -> None:
    """An app that never heard of focus cannot know it is unfocused."""
    signals = AttentionSignals(notify="both", bell=True)
    assert signals.alert("acp-tui", "done") == ""
    signals.focus(True)
    assert signals.alert("acp-tui", "done") == ""
    signals.focus(False)
    assert signals.alert("acp-tui", "done") == (
        "\x1b]9;acp-tui: done\a\x1b]777;notify;acp-tui;done\a\a"
    )


@pytest.mark.parametrize(
    ("notify", "env", "expected"),
    [
        ("osc9", {}, "\x1b]9;acp-tui: done\a"),
        ("osc777", {}, "\x1b]777;notify;acp-tui;done\a"),
        ("auto", {"TERM": "foot"}, "\x1b]777;notify;acp-tui;done\a"),
        ("auto", {"TERM": "xterm-kitty"}, "\x1b]9;acp-tui: done\a"),
        ("off", {}, ""),
        (
            "osc9",
            {"TMUX": "/tmp/tmux-1/default,1,0"},
            "\x1bPtmux;\x1b\x1b]9;acp-tui: done\a\x1b\\",
        ),
    ],
)
def test_alert_follows_the_setting(
    notify: str, env: dict[str, str], expected: str
) -> None:
    settings = AttentionSettings.model_validate({"notify": notify})
    signals = AttentionSignals(notify=settings.notify, env=env)
    signals.focus(False)
    assert signals.alert("acp-tui", "done") == expected


def test_progress_is_written_on_changes_only_and_without_focus() -> None:
    signals = AttentionSignals()
    assert signals.running(True) == "\x1b]9;4;3\a"
    assert signals.running(True) == ""
    assert signals.running(False) == "\x1b]9;4;0\a"
    assert signals.running(False) == ""
    off = AttentionSignals(show_progress=False)
    assert off.running(True) == ""
    tmux = AttentionSignals(env={"TMUX": "x"})
    assert tmux.running(True) == "\x1bPtmux;\x1b\x1b]9;4;3\a\x1b\\"


# --- the config file --------------------------------------------------------------


def test_attention_defaults() -> None:
    attention = Settings().attention
    assert (attention.notify, attention.bell, attention.progress) == (
        "auto",
        False,
        False,
    )


def test_attention_table_is_read(tmp_path: Path) -> None:
    path = tmp_path / "config.toml"
    path.write_text('[attention]\nnotify = "osc777"\nbell = true\nprogress = false\n')
    assert load_settings(path).attention == AttentionSettings(
        notify="osc777", bell=True, progress=False
    )
