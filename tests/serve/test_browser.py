"""One prompt round trip through `acp-tui serve` in headless Chromium.

The real command line serves the app (with the built-in demo agent) on a free
loopback port; Debian's Chromium, driven by Selenium through Debian's chromedriver,
opens the page, waits for the app, types a prompt and Enter, and the demo agent's
answer must arrive, seen two ways:

* on the page: textual-serve draws the app with xterm.js (WebGL or canvas, so the
  text is not in the DOM). A script injected before the page's own keeps the
  xterm `Terminal` the page creates, and the test reads its buffer through the
  public API (`buffer.active.getLine(y).translateToString()`): the text the
  browser shows;
* in the session transcript the served app journals under the data dir.

Every wait is bounded. The server runs in a process group of its own and is always
stopped; all files (acp-tui's home, XDG dirs, the browser profile) live in
tmp_path. The browser resolves no host name but 127.0.0.1 and localhost.
"""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Final, Literal

import pytest
from selenium import webdriver
from selenium.common.exceptions import TimeoutException
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys
from selenium.webdriver.support.wait import WebDriverWait

from acp_tui.transcripts import list_transcripts, read_transcript
from tests.serve.conftest import Browser

pytestmark = [pytest.mark.browser, pytest.mark.subprocess]

PROMPT: Final = "hello from chromium"
REPLY: Final = f"You said: “{PROMPT}”"
"""What the demo agent's default answer says back (acp_tui/demo/scenarios.py)."""
READY_TEXT: Final = ("Message the agent", "│ idle │")
"""The prompt's placeholder and the status bar once the session is open."""

SERVER_START_BOUND: Final = 30.0
APP_READY_BOUND: Final = 60.0
REPLY_BOUND: Final = 60.0
STOP_BOUND: Final = 10.0

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
    "--window-size=1400,900",
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


@dataclass(frozen=True)
class Served:
    """A running `acp-tui serve`."""

    url: str
    port: int
    process: subprocess.Popen[bytes]
    log: Path

    def log_tail(self) -> str:
        text = self.log.read_text(errors="replace") if self.log.exists() else ""
        return text[-3000:]


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


def wait_listening(served: Served, port: int) -> None:
    """Until the server accepts connections (fails if it exits or takes too long)."""
    deadline = time.monotonic() + SERVER_START_BOUND
    while True:
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=1.0):
                return
        except OSError:
            pass
        try:  # the pause between tries doubles as the check that it still runs
            served.process.wait(timeout=0.1)
        except subprocess.TimeoutExpired:
            pass
        else:
            pytest.fail(f"acp-tui serve exited early:\n{served.log_tail()}")
        if time.monotonic() > deadline:
            pytest.fail(f"acp-tui serve did not listen in time:\n{served.log_tail()}")


def stop_group(process: subprocess.Popen[bytes]) -> None:
    """SIGTERM the server's process group, then SIGKILL it if it lingers."""
    for sig in (signal.SIGTERM, signal.SIGKILL):
        try:
            os.killpg(process.pid, sig)
        except ProcessLookupError:
            break
        try:
            process.wait(timeout=STOP_BOUND)
            break
        except subprocess.TimeoutExpired:
            continue
    process.wait(timeout=STOP_BOUND)


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
    port = free_port()
    workdir = tmp_path / "project"
    workdir.mkdir()
    log = tmp_path / "serve.log"
    with log.open("wb") as sink:
        process = subprocess.Popen(
            [sys.executable, "-m", "acp_tui", "serve", "--port", str(port)],
            cwd=workdir,
            env=isolated_env,
            stdin=subprocess.DEVNULL,
            stdout=sink,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
    server = Served(
        url=f"http://127.0.0.1:{port}/", port=port, process=process, log=log
    )
    try:
        wait_listening(server, port)
        yield server
    finally:
        stop_group(process)


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
    with urllib.request.urlopen(served.url, timeout=10) as response:
        page = response.read().decode()
    assert "textual-terminal" in page
    assert f'data-session-websocket-url="ws://127.0.0.1:{served.port}/ws"' in page

    driver.execute_cdp_cmd(
        "Page.addScriptToEvaluateOnNewDocument", {"source": KEEP_TERMINAL_JS}
    )
    driver.get(served.url)
    ready = wait_for_screen(driver, served, READY_TEXT, APP_READY_BOUND)
    assert "acp-tui demo agent" in ready
    assert REPLY not in ready

    driver.find_element(By.CSS_SELECTOR, ".xterm-helper-textarea").send_keys(
        PROMPT, Keys.ENTER
    )

    # (a) what the browser shows: the user's message and the agent's answer.
    shown = wait_for_screen(
        driver, served, (REPLY, "Hello from the demo agent"), REPLY_BOUND
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
