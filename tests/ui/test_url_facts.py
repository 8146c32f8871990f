"""URL-mode elicitations: the URL as shown (host apart, warnings) and opening it.

The spec's URL-security rules: show the full URL and its host, warn about
suspicious or ambiguous URLs (Punycode among them), and open only with consent,
in a secure context: here a graphical browser, never a text browser that would
take over acp-tui's terminal.
"""

from __future__ import annotations

import webbrowser
from typing import ClassVar

import pytest

from acp_tui.ui.url_facts import open_in_browser, url_facts

SPEC_URL = "https://agent.example.com/connect?elicitationId=github-oauth-001"


def test_a_plain_https_url_has_no_warnings() -> None:
    facts = url_facts(SPEC_URL)
    assert (facts.before_host, facts.host, facts.after_host) == (
        "https://",
        "agent.example.com",
        "/connect?elicitationId=github-oauth-001",
    )
    assert facts.full == SPEC_URL
    assert facts.host_name == "agent.example.com"
    assert facts.warnings == ()
    assert facts.web


@pytest.mark.parametrize(
    ("url", "host", "name", "warns"),
    [
        ("http://a.example/x", "a.example", "a.example", ["Not HTTPS"]),
        (
            "https://github.com@evil.example/x",
            "evil.example",
            "evil.example",
            ["user name"],
        ),
        (
            "https://xn--pple-43d.com/",
            "xn--pple-43d.com",
            "xn--pple-43d.com (\u0430pple.com)",
            ["Punycode", "\u0430pple.com"],
        ),
        (
            "https://\u0430pple.com/",
            "\u0430pple.com",
            "\u0430pple.com",
            ["non-ASCII", "xn--pple-43d.com"],
        ),
        ("http://127.0.0.1:8080/cb", "127.0.0.1", "127.0.0.1", ["IP address"]),
        ("https://[::1]:8443/", "[::1]", "::1", ["IP address"]),
        ("https://2130706433/", "2130706433", "2130706433", ["IP address"]),
        ("https://0x7f.1/", "0x7f.1", "0x7f.1", ["IP address"]),
        (
            "https://evil.example\\@good.example/",
            "evil.example",
            "evil.example",
            ["backslash"],
        ),
        (
            "https://Host.Example:8443/p",
            "Host.Example",
            "host.example",
            [],
        ),
    ],
)
def test_the_host_is_apart_and_what_is_odd_is_said(
    url: str, host: str, name: str, warns: list[str]
) -> None:
    facts = url_facts(url)
    assert facts.host == host
    assert facts.host_name == name
    assert facts.full == url
    said = " ".join(facts.warnings)
    for word in warns:
        assert word in said
    assert bool(facts.warnings) == bool(warns)


@pytest.mark.parametrize(
    ("url", "warns"),
    [
        ("javascript:alert(1)", "Not a web page"),
        ("file:///etc/passwd", "Not a web page"),
        ("https:///no-host", "names no host"),
        ("https://a.example:99999/", "cannot read this as a URL"),
        ("https://a.example\x1b]8;;x\x07/", "control characters"),
    ],
)
def test_what_is_not_a_web_address_is_said_and_never_opened(
    url: str, warns: str
) -> None:
    facts = url_facts(url)
    assert warns in " ".join(facts.warnings)
    assert "\x1b" not in facts.full
    if "control" not in warns:
        assert not facts.web
        assert not open_in_browser(url, env={"DISPLAY": ":0"}, browser=Browser)


class Browser(webbrowser.BackgroundBrowser):
    """A graphical browser that records what it opened."""

    opened: ClassVar[list[str]] = []

    def __init__(self) -> None:
        super().__init__("true")

    def open(self, url: str, new: int = 0, autoraise: bool = True) -> bool:
        Browser.opened.append(url)
        return True


class TextBrowser(webbrowser.GenericBrowser):
    def __init__(self) -> None:
        super().__init__("lynx")

    def open(self, url: str, new: int = 0, autoraise: bool = True) -> bool:
        raise AssertionError("a text browser would take over the terminal")


class Elinks(webbrowser.UnixBrowser):
    """A text browser Python drives in the foreground."""

    background = False

    def __init__(self) -> None:
        super().__init__("elinks")

    def open(self, url: str, new: int = 0, autoraise: bool = True) -> bool:
        raise AssertionError("a text browser would take over the terminal")


def no_browser() -> webbrowser.BaseBrowser:
    raise webbrowser.Error("could not locate runnable browser")


@pytest.fixture(autouse=True)
def _fresh_browser() -> None:
    Browser.opened = []


def test_a_graphical_browser_opens_the_url() -> None:
    assert open_in_browser(SPEC_URL, env={"DISPLAY": ":0"}, browser=Browser)
    assert open_in_browser(SPEC_URL, env={"WAYLAND_DISPLAY": "w"}, browser=Browser)
    assert open_in_browser(SPEC_URL, env={}, platform="darwin", browser=Browser)
    assert Browser.opened == [SPEC_URL] * 3


def test_without_a_display_nothing_opens() -> None:
    """Over SSH on Linux: no display, so no browser (the user copies the URL)."""
    assert not open_in_browser(
        SPEC_URL, env={"SSH_CONNECTION": "x"}, platform="linux", browser=Browser
    )
    assert Browser.opened == []


def test_a_text_browser_or_none_is_never_used() -> None:
    assert not open_in_browser(SPEC_URL, env={"DISPLAY": ":0"}, browser=TextBrowser)
    assert not open_in_browser(SPEC_URL, env={"DISPLAY": ":0"}, browser=Elinks)
    assert not open_in_browser(SPEC_URL, env={"DISPLAY": ":0"}, browser=no_browser)
