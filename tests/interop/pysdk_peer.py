"""The Python SDK peer: `pysdk_agent.py` served by the SDK's HTTP/WebSocket app.

`.ci/install-peers` installs `agent-client-protocol[http]` into
`$PEERS/pysdk` (its own venv); if that failed, `$PEERS/pysdk/SKIP` holds the
reason and these tests skip with it, loudly. Under CI, a peer neither
installed nor explained fails.
"""

from __future__ import annotations

import os
import subprocess
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from tests.interop.conftest import INTEROP_SKIPPED, PEERS

PYSDK = PEERS / "pysdk"
PYTHON = PYSDK / "bin" / "python"
AGENT = Path(__file__).with_name("pysdk_agent.py")
START_TIMEOUT = 30.0


def require_pysdk() -> Path:
    """The SDK venv's Python, or a loud skip (a failure under CI)."""
    skip_file = PYSDK / "SKIP"
    if skip_file.exists():
        reason = f"{INTEROP_SKIPPED} (Python SDK peer install failed): "
        pytest.skip(reason + skip_file.read_text().strip())
    if not PYTHON.exists():
        message = (
            f"the Python SDK peer is not installed in {PYSDK}; "
            "run `bash .ci/install-peers`"
        )
        if os.environ.get("CI"):
            pytest.fail(message)
        pytest.skip(f"{INTEROP_SKIPPED}: {message}")
    return PYTHON


@contextmanager
def pysdk_server(*args: str) -> Iterator[int]:
    """Run the SDK agent on 127.0.0.1; yields its port; stops it after."""
    python = require_pysdk()
    process = subprocess.Popen(
        [str(python), str(AGENT), *args],
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
    )
    try:
        assert process.stdout is not None
        line = first_line(process)
        assert line.startswith("PORT "), f"the SDK agent said {line!r}"
        yield int(line.split()[1])
    finally:
        process.terminate()
        try:
            process.wait(timeout=5)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait(timeout=5)
        if process.stdout is not None:
            process.stdout.close()


def first_line(process: subprocess.Popen[str]) -> str:
    import selectors

    assert process.stdout is not None
    with selectors.DefaultSelector() as selector:
        selector.register(process.stdout, selectors.EVENT_READ)
        if not selector.select(START_TIMEOUT):
            raise AssertionError(f"the SDK agent did not start in {START_TIMEOUT} s")
    return process.stdout.readline().strip()
