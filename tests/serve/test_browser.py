"""One prompt round trip through `acp-tui serve` in headless Chromium.

The real command line serves the app (with the built-in demo agent) on a free
loopback port; Debian's Chromium, driven by Selenium through Debian's chromedriver,
opens the URL the server printed (its per-launch token is traded for a cookie,
which the page's WebSocket then carries), waits for the app, types a prompt and
Enter, and the demo agent's answer must arrive, seen two ways:

* on the page: textual-serve draws the app with xterm.js (WebGL or canvas, so the
  text is not in the DOM). A script injected before the page's own keeps the
  xterm `Terminal` the page creates, and the test reads its buffer through the
  public API (`buffer.active.getLine(y).translateToString()`): the text the
  browser shows;
* in the session transcript the served app journals under the data dir.

A second test is the attack of issue 20 in the browser: pages on other origins
(another port of 127.0.0.1, which shares the cookie, and localhost) open a
WebSocket to the app; both are refused and start no app process.

Every wait is bounded. The server runs in a process group of its own and is always
stopped; all files (acp-tui's home, XDG dirs, the browser profile) live in
tmp_path. The browser resolves no host name but 127.0.0.1 and localhost.
"""

from __future__ import annotations

import os
import threading
import urllib.error
import urllib.request
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Final, Literal

import pytest
from selenium import webdriver
from selenium.common.exceptions import TimeoutException
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys
from selenium.webdriver.support.wait import WebDriverWait

from acp_tui.storage.transcripts import list_transcripts, read_transcript
from tests.serve.conftest import Browser
from tests.serve.running import Served, start_serve, stop_group

pytestmark = [pytest.mark.browser, pytest.mark.subprocess]

PROMPT: Final = "hello from chromium"
REPLY: Final = f"You said: “{PROMPT}”"
"""What the demo agent's default answer says back (acp_tui/demo/scenarios.py)."""
READY_TEXT: Final = ("Message the agent", "│ idle │")
"""The prompt's placeholder and the status bar once the session is open."""

APP_READY_BOUND: Final = 60.0
REPLY_BOUND: Final = 60.0

CHROMIUM_FLAGS: Final = (
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--disable-dev-shm-usage",
    # Tall enough for the whole demo turn (user message, thought, plan, tool call
    # and the answer from its heading down): at 900 px the answer's heading
    # scrolled off once the turn ended, and a poll that missed the frames where
    # both showed (a loaded machine) failed the round trip.
    "--window-size=1400,1800",
    # The page links a web font; never leave the machine for it.
    "--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE 127.0.0.1, EXCLUDE localhost",
)

KEEP_TERMINAL_JS: Final = """
// textual-serve's page does `this.terminal = new Terminal(...)` in its own scope.
// An accessor on Object.prototype sees that first assignment, turns it back into a
// plain own property, and keeps any value that looks like an xterm Terminal.
Object.defineProperty(Object.prototype, "terminal", {
  configurable: true,
  set(value) {
    Object.defineProperty(this, "terminal", {
      value, writable: true, configurable: true, enumerable: true,
    });
    if (value && value.buffer && value.buffer.active) {
      window.__acpTuiTerminal = value;
    }
  },
});
"""

SCREEN_TEXT_JS: Final = """
const terminal = window.__acpTuiTerminal;
if (!terminal) { return null; }
const buffer = terminal.buffer.active;
const lines = [];
for (let y = 0; y < buffer.length; y++) {
  const line = buffer.getLine(y);
  lines.push(line ? line.translateToString(true) : "");
}
return lines.join("\\n");
"""


PROBE_JS: Final = """
// Open a WebSocket to the served app the way a page's script would; report
// "open" once the app behind it painted, or how it closed.
const [url, done] = arguments;
const socket = new WebSocket(url);
socket.binaryType = "arraybuffer";
socket.onmessage = () => { socket.close(); done("open"); };
socket.onclose = (event) => done(`closed ${event.code}`);
"""


class _BlankPage(BaseHTTPRequestHandler):
    def do_GET(self) -> None:
        body = b"<!DOCTYPE html><title>another site</title>"
        self.send_response(200)
        self.send_header("Content-Type", "text/html")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, format: str, *args: object) -> None:
        pass


@pytest.fixture
def other_site() -> Iterator[int]:
    """A web server on another loopback port (another origin); yields its port."""
    server = ThreadingHTTPServer(("127.0.0.1", 0), _BlankPage)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield server.server_address[1]
    finally:
        server.shutdown()
        server.server_close()
        thread.join(timeout=10)


@pytest.fixture
def isolated_env(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> dict[str, str]:
    """This process's and the children's environment: every home under tmp_path."""
    monkeypatch.setenv("ACP_TUI_HOME", str(tmp_path / "acp-tui-home"))
    for name in ("XDG_CONFIG_HOME", "XDG_DATA_HOME", "XDG_CACHE_HOME"):
        monkeypatch.setenv(name, str(tmp_path / "xdg" / name.lower()))
    monkeypatch.setenv("SE_OFFLINE", "true")  # Selenium Manager: never download
    return dict(os.environ)


@pytest.fixture
def served(
    browser_binaries: Browser, tmp_path: Path, isolated_env: dict[str, str]
) -> Iterator[Served]:
    """`acp-tui serve` with the default (demo) agent on a free loopback port.

    Asks for the browser first, so a missing one skips before anything starts.
    """
    server = start_serve(tmp_path / "project", isolated_env)
    try:
        yield server
    finally:
        stop_group(server.process)


@pytest.fixture
def driver(
    browser_binaries: Browser, tmp_path: Path, isolated_env: dict[str, str]
) -> Iterator[webdriver.Chrome]:
    """Headless Debian Chromium with a fresh profile, through Debian's chromedriver."""
    options = webdriver.ChromeOptions()
    options.binary_location = str(browser_binaries.chromium)
    for flag in CHROMIUM_FLAGS:
        options.add_argument(flag)
    options.add_argument(f"--user-data-dir={tmp_path / 'chromium-profile'}")
    service = Service(
        executable_path=str(browser_binaries.chromedriver),
        log_output=str(tmp_path / "chromedriver.log"),
        env={**isolated_env, "HOME": str(tmp_path / "browser-home")},
    )
    browser = webdriver.Chrome(options=options, service=service)
    try:
        browser.set_page_load_timeout(30)
        browser.set_script_timeout(10)
        yield browser
    finally:
        browser.quit()


def open_page(browser: webdriver.Chrome, url: str) -> None:
    """Open the served page, keeping its xterm `Terminal` for `screen_text`."""
    browser.execute_cdp_cmd(
        "Page.addScriptToEvaluateOnNewDocument", {"source": KEEP_TERMINAL_JS}
    )
    browser.get(url)


def screen_text(browser: webdriver.Chrome) -> str | None:
    """The xterm.js screen as text lines, or None before the page made it."""
    text = browser.execute_script(SCREEN_TEXT_JS)
    return text if isinstance(text, str) else None


def wait_for_screen(
    browser: webdriver.Chrome, served: Served, needles: tuple[str, ...], bound: float
) -> str:
    """Until the screen shows every needle; returns the screen."""

    def shown(_: webdriver.Chrome) -> str | Literal[False]:
        text = screen_text(browser)
        if text is not None and all(needle in text for needle in needles):
            return text
        return False

    try:
        result: str = WebDriverWait(browser, bound, poll_frequency=0.1).until(shown)
    except TimeoutException:
        pytest.fail(
            f"the page never showed {needles!r} within {bound} s; it shows:\n"
            f"{screen_text(browser)}\n--- acp-tui serve log:\n{served.log_tail()}"
        )
    return result


def journaled_reply(agent: str) -> tuple[list[str], list[str]] | Literal[False]:
    """The (user, agent) message texts of the one saved session, once it answered."""
    saved = list_transcripts(agent)
    if len(saved) != 1:
        return False
    loaded = read_transcript(saved[0].path, session_id=saved[0].session_id)
    if loaded is None:
        return False
    messages = loaded.store.messages()
    users = [m.text for m in messages if m.role == "user"]
    agents = [m.text for m in messages if m.role == "agent"]
    if not any(REPLY in text for text in agents):
        return False
    return users, agents


def test_a_prompt_round_trip_in_chromium(
    served: Served, driver: webdriver.Chrome
) -> None:
    url, token = served.printed_url()
    # What any HTTP client gets: the redirect that trades the token for the
    # cookie, then the page.
    opener = urllib.request.build_opener(urllib.request.HTTPCookieProcessor())
    with opener.open(url, timeout=10) as response:
        page = response.read().decode()
    assert "textual-terminal" in page
    assert f'data-session-websocket-url="ws://127.0.0.1:{served.port}/ws"' in page
    with pytest.raises(urllib.error.HTTPError) as refused:
        urllib.request.urlopen(f"http://127.0.0.1:{served.port}/", timeout=10)
    refused.value.close()
    assert refused.value.code == 403

    open_page(driver, url)
    # The page's own WebSocket got in with the cookie; the token left the URL.
    assert token not in driver.current_url
    ready = wait_for_screen(driver, served, READY_TEXT, APP_READY_BOUND)
    assert "acp-tui demo agent" in ready
    assert REPLY not in ready

    driver.find_element(By.CSS_SELECTOR, ".xterm-helper-textarea").send_keys(
        PROMPT, Keys.ENTER
    )

    # (a) what the browser shows: the user's message and the agent's answer.
    # Its end state (the turn over), not a frame on the way to it.
    shown = wait_for_screen(
        driver, served, (REPLY, "Hello from the demo agent", "(end_turn)"), REPLY_BOUND
    )
    assert any(line.strip().endswith(PROMPT) for line in shown.splitlines())

    # (b) what the served app journaled: the prompt and the reply, in one session.
    try:
        journal = WebDriverWait(driver, REPLY_BOUND, poll_frequency=0.2).until(
            lambda _: journaled_reply("acp-tui-demo")  # the name the demo reports
        )
    except TimeoutException:
        pytest.fail(
            f"no saved demo session holds the reply: {list_transcripts()!r}\n"
            f"--- acp-tui serve log:\n{served.log_tail()}"
        )
    users, agents = journal
    assert users == [PROMPT]
    assert any("Hello from the demo agent" in text for text in agents)


def probe(browser: webdriver.Chrome, served: Served) -> str:
    """From the page the browser shows, a WebSocket to the app: how it went."""
    result = browser.execute_async_script(
        PROBE_JS, f"ws://127.0.0.1:{served.port}/ws?width=80&height=24"
    )
    assert isinstance(result, str)
    return result


def test_a_page_on_another_origin_gets_no_session_in_chromium(
    served: Served, driver: webdriver.Chrome, other_site: int
) -> None:
    """The attack of issue 20, in a real browser that holds the cookie.

    A page on another port of 127.0.0.1 is the same site (cookies ignore ports),
    so Chromium may send the token cookie with its WebSocket; the Origin check
    is what stands between it and an agent session. localhost is another site (no
    cookie). Both are refused and start no app; the served page's own script
    gets in (the control).
    """
    driver.set_script_timeout(APP_READY_BOUND)
    open_page(driver, served.printed_url()[0])
    wait_for_screen(driver, served, READY_TEXT, APP_READY_BOUND)
    assert probe(driver, served) == "open"

    before = served.children()
    for host in ("127.0.0.1", "localhost"):
        driver.get(f"http://{host}:{other_site}/")
        assert driver.title == "another site"
        assert probe(driver, served) == "closed 1006"
    assert served.children() <= before, "a page on another origin started an app"
    assert "refused GET /ws" in served.log_text()
