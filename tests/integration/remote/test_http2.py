"""Streamable HTTP over HTTP/2, negotiated by ALPN (`tests/fakes/h2_server.py`).

The client's httpx transport offers h2 by ALPN; against a TLS server that
selects it, one turn (initialize, both event streams, `session/new`, a
notification, a prompt with its chunks, the DELETE) runs over HTTP/2 with the
RFD's headers: the POSTs on one connection, the event streams on another. A
POST answered 202 with nothing after it is not held until more data comes,
and closing does not wait out the DELETE's bound. `acp-tui print` runs a turn
against the same server in its own process. The HTTP/1.1 fallback over TLS is
in `test_tls.py`.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path

import anyio
import pytest

from acp_tui.protocol.remote.http import DELETE_TIMEOUT, HttpStream
from acp_tui.protocol.remote.open import open_remote
from acp_tui.protocol.remote.target import RemoteTarget
from tests.fakes.h2_server import H2Server, serve_h2
from tests.fakes.pki import OPENSSL_MISSING, Pki, make_pki
from tests.fakes.remote_server import CONNECTION, SESSION
from tests.integration.remote.test_tls import pinned, run_print, serve_tls
from tests.integration.remote.test_transports import (
    BOUND,
    INITIALIZE,
    NEW,
    PROMPT,
    line,
    receive_json,
)
from tests.interop.test_remote_pysdk import agent_text

NOTHING_AFTER = 2.0
"""Seconds a POST answered 202, with nothing after it, may take."""
CANCEL = line({"method": "session/cancel", "params": {"sessionId": SESSION}})

pytestmark = [
    pytest.mark.subprocess,  # openssl makes the certificates
    pytest.mark.skipif(OPENSSL_MISSING is not None, reason=str(OPENSSL_MISSING)),
]


@pytest.fixture(scope="module")
def pki(tmp_path_factory: pytest.TempPathFactory) -> Pki:
    return make_pki(tmp_path_factory.mktemp("pki"))


async def test_a_turn_over_http2_negotiated_by_alpn(pki: Pki) -> None:
    server = H2Server()
    async with serve_h2(server, pki.cert, pki.key) as port:
        target = RemoteTarget(
            f"https://localhost:{port}/acp", transport="http", cacert=pki.ca
        )
        async with open_remote(target) as stream:
            assert isinstance(stream, HttpStream)
            await stream.send(INITIALIZE)
            initialized = await receive_json(stream)
            assert initialized["result"]["agentInfo"] == {"name": "scripted"}
            await stream.send(NEW)
            assert (await receive_json(stream))["result"] == {"sessionId": SESSION}
            # A POST answered 202 with nothing after it, both event streams
            # open: its answer is read at once (httpcore reads an HTTP/2
            # connection one waiter at a time; behind two waiting streams it
            # stayed unread until more data came).
            with anyio.fail_after(NOTHING_AFTER):
                await stream.send(CANCEL)
            await stream.send(PROMPT)
            seen = [await receive_json(stream) for _ in range(3)]
            closing = time.monotonic()
        closed = time.monotonic() - closing
        with anyio.fail_after(BOUND):
            await server.deleted.wait()
    texts = [m["params"]["update"]["content"]["text"] for m in seen[:2]]
    assert texts == ["one ", "two"]
    assert seen[2] == {"jsonrpc": "2.0", "id": 2, "result": {"stopReason": "end_turn"}}
    # The DELETE's answer was read, not waited out to its bound.
    assert closed < DELETE_TIMEOUT / 2
    # Two HTTP/2 connections, both negotiated by ALPN: the POSTs', the streams'.
    assert server.alpn == ["h2", "h2"]
    assert server.prefaces == 2
    posts = [seen.body["method"] for seen in server.requests if seen.method == "POST"]
    assert posts == ["initialize", "session/new", "session/cancel", "session/prompt"]
    assert [seen.method for seen in server.requests][-1] == "DELETE"
    gets = [seen.headers for seen in server.requests if seen.method == "GET"]
    assert [g.get("acp-session-id") for g in gets] == [None, SESSION]
    assert all(g["accept"] == "text/event-stream" for g in gets)
    later = server.requests[1:]
    assert all(r.headers["acp-connection-id"] == CONNECTION for r in later)
    assert all(r.headers[":scheme"] == "https" for r in server.requests)
    assert all(r.headers[":path"] == "/acp" for r in server.requests)


@pytest.fixture(scope="module")
def h2_port(pki: Pki) -> Iterator[int]:
    """`tests/fakes/h2_server.py` in its own process."""
    yield from serve_tls(pki.cert, pki.key, "tests.fakes.h2_server")


def test_print_over_http2(
    pki: Pki,
    h2_port: int,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    """`acp-tui print` against the HTTP/2-only server: a whole turn, exit 0."""
    monkeypatch.setenv("ACP_TUI_HOME", str(tmp_path))
    agent = pinned(tmp_path, f"https://localhost:{h2_port}/acp", "http")
    code, document, err = run_print(capsys, agent, tmp_path, "--cacert", str(pki.ca))
    assert code == 0, err
    assert document is not None
    assert document["stopReason"] == "end_turn"
    assert agent_text(document) == "one two"
