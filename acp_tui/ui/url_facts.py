"""A URL-mode elicitation's address, read for display, and opened with consent.

* `url_facts(url)` splits the address for display (the host apart, so it can be
  highlighted) and lists what should make the user wary (not HTTPS, an
  IP-literal or Punycode host, a user name before `@`, hidden characters).
* `open_in_browser(url)` opens it, but only in a graphical browser.

Nothing here prefetches or opens a URL except `open_in_browser`, and that only
when called (after the user's consent). No Textual: the dialogs
(`acp_tui.ui.screens.elicitation_url`) show what it finds.
"""

from __future__ import annotations

import ipaddress
import os
import re
import sys
import webbrowser
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Final
from urllib.parse import urlsplit

from acp_tui.safe_text import printable

__all__ = ["WEB_SCHEMES", "UrlFacts", "open_in_browser", "url_facts"]


@dataclass(frozen=True, slots=True)
class UrlFacts:
    """A URL-mode address as the dialog shows it (every piece printable)."""

    before_host: str
    """The URL up to its host (scheme, `//`, any user name and `@`)."""
    host: str
    """The host as written in the URL ("" when it names none)."""
    after_host: str
    """The rest: port, path, query, fragment."""
    host_name: str
    """The host as a browser reads it (lower case; Punycode decoded, in brackets
    after the ASCII form)."""
    warnings: tuple[str, ...]
    """Why the user should look twice, one sentence each (none: nothing odd)."""

    @property
    def web(self) -> bool:
        """Whether it is an http or https address with a host (what acp-tui opens)."""
        return bool(self.host_name) and _scheme(self.before_host) in WEB_SCHEMES

    @property
    def full(self) -> str:
        """The whole URL, printable."""
        return self.before_host + self.host + self.after_host


def url_facts(url: str) -> UrlFacts:
    """Split a URL around its host and say what looks suspicious about it.

    Warns about: a scheme other than https (http is unencrypted, others are not
    web pages), no host, a user name before `@` (it reads like a host), an IP
    literal or a number that browsers read as one, a Punycode (`xn--`) or
    non-ASCII host (it may imitate another name), and characters that cannot
    be shown (escaped in the display).
    """
    warnings: list[str] = []
    if printable(url) != url:
        warnings.append(
            "The URL holds invisible or control characters (shown escaped)."
        )
    try:
        scheme = urlsplit(url).scheme.lower()
        # Browsers read a backslash in a web address as a slash, so
        # `https://evil.example\\@good.example` is evil.example: read it alike.
        web = scheme in WEB_SCHEMES
        parts = urlsplit(url.replace("\\", "/") if web else url)
        parts.port  # noqa: B018 - raises on a port that is not a number
    except ValueError:
        warnings.append("acp-tui cannot read this as a URL.")
        return UrlFacts(printable(url), "", "", "", tuple(warnings))
    if web and "\\" in url:
        warnings.append("The URL holds a backslash, which browsers read as “/”.")
    netloc = parts.netloc
    if not netloc:
        warnings.insert(0, "The URL names no host.")
        if scheme != "https":
            warnings.insert(0, _scheme_warning(scheme))
        return UrlFacts(printable(url), "", "", "", tuple(warnings))
    start = url.find(netloc, url.find("//") + 2)
    user_end = netloc.rfind("@") + 1
    host_part = netloc[user_end:]
    if host_part.startswith("["):
        host_written = host_part[: host_part.find("]") + 1 or len(host_part)]
    else:
        host_written = host_part.rsplit(":", 1)[0]
    host_start = start + user_end
    host_end = host_start + len(host_written)
    if start < 0:  # urlsplit dropped a tab or newline: show it whole
        host_start = host_end = len(url)
    name = (parts.hostname or "").rstrip(".")
    shown_name = name
    if scheme != "https":
        warnings.insert(0, _scheme_warning(scheme))
    if user_end:
        warnings.append(
            "Text before “@” is a user name, not the site: the site is the "
            "highlighted host."
        )
    if _is_ip(name):
        warnings.append("The host is an IP address, not a name.")
    if not name.isascii():
        try:
            ascii_name = name.encode("idna").decode("ascii")
        except UnicodeError:
            ascii_name = "an invalid name"
        warnings.append(
            f"The host has non-ASCII letters (in ASCII: {printable(ascii_name)}): "
            "it may imitate another name."
        )
    elif any(label.startswith("xn--") for label in name.split(".")):
        decoded = _from_punycode(name)
        shown_name = f"{name} ({printable(decoded)})" if decoded else name
        warnings.append(
            "The host is written in Punycode (xn--): "
            + (f"it reads “{printable(decoded)}” and " if decoded else "")
            + "it may imitate another name."
        )
    return UrlFacts(
        printable(url[:host_start]),
        printable(url[host_start:host_end]),
        printable(url[host_end:]),
        printable(shown_name),
        tuple(warnings),
    )


WEB_SCHEMES: Final = frozenset({"http", "https"})
"""The schemes `open_in_browser` opens (others may start another program)."""


def _scheme(url: str) -> str:
    try:
        return urlsplit(url).scheme.lower()
    except ValueError:
        return ""


def _scheme_warning(scheme: str) -> str:
    if scheme == "http":
        return "Not HTTPS: the connection is not encrypted."
    if not scheme:
        return "The URL has no scheme (such as https:)."
    return (
        f"Not a web page: the scheme is “{printable(scheme)}”, "
        "which may open another program."
    )


_IP_LIKE: Final = re.compile(r"(?:0x[0-9a-f]*|[0-9]+)(?:\.(?:0x[0-9a-f]*|[0-9]+)){0,3}")
"""A host browsers read as an IPv4 address (`2130706433`, `0x7f.1`, `127.1`)."""


def _is_ip(name: str) -> bool:
    try:
        ipaddress.ip_address(name)
    except ValueError:
        return bool(_IP_LIKE.fullmatch(name))
    return True


def _from_punycode(name: str) -> str | None:
    try:
        return name.encode("ascii").decode("idna")
    except UnicodeError:
        return None


def open_in_browser(
    url: str,
    *,
    env: Mapping[str, str] | None = None,
    platform: str = sys.platform,
    browser: Callable[[], webbrowser.BaseBrowser] = webbrowser.get,
) -> bool:
    """Open `url` in a graphical browser; whether one took it.

    Call this only once the user has consented. Only http and https addresses
    with a host are opened (another scheme may start another program). Never a
    text browser (`lynx`,
    `w3m`: Python's fallback without a display): it would take over this
    terminal. Without a display on Linux or BSD (over SSH, say) there is no
    browser to open, and the caller shows the URL for copying instead.

    Args:
        url: The address.
        env: The environment to look for a display in (default: `os.environ`).
        platform: `sys.platform`.
        browser: `webbrowser.get` (tests pass their own).
    """
    if _scheme(url) not in WEB_SCHEMES or not url_facts(url).host_name:
        return False
    environ = os.environ if env is None else env
    graphical = platform in ("darwin", "win32") or bool(
        environ.get("DISPLAY") or environ.get("WAYLAND_DISPLAY")
    )
    if not graphical:
        return False
    try:
        controller = browser()
    except webbrowser.Error:
        return False
    if _runs_in_this_terminal(controller):
        return False
    try:
        return bool(controller.open(url, new=2))
    except (OSError, webbrowser.Error):
        return False


def _runs_in_this_terminal(controller: webbrowser.BaseBrowser) -> bool:
    """Whether a browser runs in the foreground here (`lynx`, `w3m`, `elinks`)."""
    if isinstance(controller, webbrowser.BackgroundBrowser):
        return False
    if isinstance(controller, webbrowser.GenericBrowser):
        return True
    return isinstance(controller, webbrowser.UnixBrowser) and not controller.background
