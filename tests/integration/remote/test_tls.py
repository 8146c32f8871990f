"""TLS with a private CA: `acp-tui print` against the scripted server over https/wss.

A CA and server certificates are made at test time (`tests/fakes/pki.py`, the
`openssl` CLI; the tests skip with the reason without it). The scripted server
(`tests/fakes/remote_server.py CERT KEY`, its own process) serves them under
uvicorn's TLS. Without `--cacert` the turn fails with the TLS message and exit
3, no traceback; with it, a turn works over wss (WebSocket) and https
(Streamable HTTP, pinned by `transport = "http"`); a certificate for another
host name fails even with `--cacert`. In-process, Streamable HTTP over TLS to
a server without ALPN h2 (uvicorn speaks HTTP/1.1 only) works on HTTP/1.1.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import anyio
import pytest

from acp_tui.cli import EXIT_AGENT, main
from acp_tui.protocol.remote.open import open_remote
from acp_tui.protocol.remote.target import RemoteConnectError, RemoteTarget
from tests.fakes.pki import OPENSSL_MISSING, Pki, make_pki
from tests.fakes.remote_server import ScriptedServer, serve
from tests.fakes.spawn import spawned
from tests.integration.remote.test_transports import (
    INITIALIZE,
    NEW,
    PROMPT,
    receive_json,
)
from tests.interop.test_remote_pysdk import agent_text

pytestmark = [
    pytest.mark.subprocess,
    pytest.mark.skipif(OPENSSL_MISSING is not None, reason=str(OPENSSL_MISSING)),
]

BOUND = 10.0


@pytest.fixture(scope="module")
def pki(tmp_path_factory: pytest.TempPathFactory) -> Pki:
    return make_pki(tmp_path_factory.mktemp("pki"))


def serve_tls(
    cert: Path, key: Path, module: str = "tests.fakes.remote_server"
) -> Iterator[int]:
    """Run `python -m MODULE CERT KEY`; yield the port it prints."""
    with spawned(module, str(cert), str(key)) as (port, _):
        yield port


@pytest.fixture(scope="module")
def port(pki: Pki) -> Iterator[int]:
    """The scripted server with the certificate for 127.0.0.1 and localhost."""
    yield from serve_tls(pki.cert, pki.key)


@pytest.fixture(scope="module")
def other_port(pki: Pki) -> Iterator[int]:
    """The scripted server with a certificate for other.example only."""
    yield from serve_tls(pki.other_cert, pki.other_key)


@pytest.fixture(autouse=True)
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ACP_TUI_HOME", str(tmp_path))


def run_print(
    capsys: pytest.CaptureFixture[str], agent: str, cwd: Path, *args: str
) -> tuple[int, dict[str, Any] | None, str]:
    argv = ["print", "--agent", agent, "--cwd", str(cwd), "--format", "json"]
    code = main([*argv, "--timeout", "30", *args, "hi"])
    captured = capsys.readouterr()
    document = json.loads(captured.out) if captured.out.strip() else None
    return code, document, captured.err


def pinned(tmp_path: Path, url: str, transport: str) -> str:
    """A catalogue agent `remote` with its `transport` pinned; its name."""
    config = tmp_path / "config"
    config.mkdir(exist_ok=True)
    (config / "config.toml").write_text(
        f'[agents.remote]\nurl = "{url}"\ntransport = "{transport}"\n'
    )
    return "remote"


def assert_tls_refusal(code: int, document: dict[str, Any] | None, err: str) -> None:
    assert code == EXIT_AGENT, err
    assert document is None or document["sessionId"] is None
    assert "TLS failed" in err
    assert "Traceback" not in err


@pytest.mark.parametrize("transport", ["auto", "websocket", "http"])
def test_without_the_ca_the_turn_fails_with_the_tls_message(
    transport: str, port: int, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    url = f"https://127.0.0.1:{port}/acp"
    agent = pinned(tmp_path, url, transport)
    code, document, err = run_print(capsys, agent, tmp_path)
    assert_tls_refusal(code, document, err)
    assert "unable to get local issuer certificate" in err
    assert "--cacert" in err
    assert f"at {url}" in err


@pytest.mark.parametrize(
    ("scheme", "transport"), [("wss", "websocket"), ("https", "http")]
)
def test_with_the_ca_a_turn_works_over_each_profile(
    scheme: str,
    transport: str,
    pki: Pki,
    port: int,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    agent = pinned(tmp_path, f"{scheme}://127.0.0.1:{port}/acp", transport)
    code, document, err = run_print(capsys, agent, tmp_path, "--cacert", str(pki.ca))
    assert code == 0, err
    assert document is not None
    assert document["stopReason"] == "end_turn"
    assert agent_text(document) == "one two"


def test_a_bare_https_url_with_the_ca_works(
    pki: Pki, port: int, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """`--agent https://…/acp --cacert CA` (WebSocket first), and by localhost."""
    for host in ("127.0.0.1", "localhost"):
        url = f"https://{host}:{port}/acp"
        code, document, err = run_print(capsys, url, tmp_path, "--cacert", str(pki.ca))
        assert code == 0, err
        assert document is not None
        assert agent_text(document) == "one two"


@pytest.mark.parametrize("transport", ["websocket", "http"])
def test_a_certificate_for_another_host_fails_even_with_the_ca(
    transport: str,
    pki: Pki,
    other_port: int,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    agent = pinned(tmp_path, f"https://127.0.0.1:{other_port}/acp", transport)
    code, document, err = run_print(capsys, agent, tmp_path, "--cacert", str(pki.ca))
    assert_tls_refusal(code, document, err)
    assert "127.0.0.1" in err
    assert "mismatch" in err.lower()
    assert "certificate is for another host name" in err
    assert "--cacert" not in err  # the CA was given: not the advice here


class VersionRecorder:
    """An ASGI app around the scripted server, recording each HTTP version."""

    def __init__(self, app: ScriptedServer) -> None:
        self.app = app
        self.versions: list[str] = []

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] == "http":
            self.versions.append(scope["http_version"])
        await self.app(scope, receive, send)


async def test_http_over_tls_to_a_server_without_h2_uses_http_1_1(pki: Pki) -> None:
    """httpx offers h2 by ALPN; uvicorn picks none: HTTP/1.1, and a turn works."""
    recorder = VersionRecorder(ScriptedServer())
    options = {"ssl_certfile": str(pki.cert), "ssl_keyfile": str(pki.key)}
    async with serve(recorder, **options) as port:
        target = RemoteTarget(
            f"https://127.0.0.1:{port}/acp", transport="http", cacert=pki.ca
        )
        async with open_remote(target) as stream:
            for message in (INITIALIZE, NEW, PROMPT):
                await stream.send(message)
            seen = [await receive_json(stream) for _ in range(5)]
    assert seen[-1]["result"] == {"stopReason": "end_turn"}
    assert recorder.versions
    assert set(recorder.versions) == {"1.1"}


async def test_an_unreadable_ca_file_is_a_config_error(tmp_path: Path) -> None:
    target = RemoteTarget("https://127.0.0.1:1/acp", cacert=tmp_path / "missing.pem")
    with anyio.fail_after(BOUND), pytest.raises(RemoteConnectError) as caught:
        async with open_remote(target):
            pass
    assert caught.value.kind == "config"
    assert "missing.pem" in str(caught.value)
