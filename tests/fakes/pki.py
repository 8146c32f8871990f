"""A private CA and server certificates, made at test time with the `openssl` CLI.

`make_pki(directory)` writes a CA (`ca.pem`), a server certificate for
127.0.0.1 and localhost signed by it (`server.pem`, `server.key`) and one for
another host name only (`other.pem`, `other.key`, for `other.example`), all
EC P-256, valid for two days. `OPENSSL_MISSING` is None when the CLI is on
PATH, else the reason to skip (the `cryptography` package is not a
dependency of acp-tui, so the CLI is what there is).
"""

from __future__ import annotations

import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path
from typing import Final

OPENSSL: Final = shutil.which("openssl")
OPENSSL_MISSING: Final = (
    None
    if OPENSSL is not None
    else "no `openssl` CLI on PATH to make a private CA (and the `cryptography` "
    "package is not installed): the TLS tests cannot run"
)
TIMEOUT: Final = 30.0
"""Seconds each openssl run may take."""


@dataclass(frozen=True, slots=True)
class Pki:
    ca: Path
    """The CA's certificate (PEM): what `--cacert` takes."""
    cert: Path
    """The server certificate for 127.0.0.1 and localhost."""
    key: Path
    other_cert: Path
    """A server certificate for `other.example` only, signed by the same CA."""
    other_key: Path


def _openssl(directory: Path, *args: str) -> None:
    assert OPENSSL is not None, OPENSSL_MISSING
    subprocess.run(
        [OPENSSL, *args],
        cwd=directory,
        check=True,
        capture_output=True,
        timeout=TIMEOUT,
    )


def _server(directory: Path, name: str, alt_names: str) -> tuple[Path, Path]:
    extensions = directory / f"{name}.ext"
    extensions.write_text(
        "basicConstraints = critical, CA:FALSE\n"
        "keyUsage = critical, digitalSignature\n"
        "extendedKeyUsage = serverAuth\n"
        "subjectKeyIdentifier = hash\n"
        "authorityKeyIdentifier = keyid, issuer\n"
        f"subjectAltName = {alt_names}\n"
    )
    _openssl(
        directory,
        *("req", "-new", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256"),
        *("-nodes", "-keyout", f"{name}.key", "-out", f"{name}.csr"),
        *("-subj", f"/CN={name}"),
    )
    _openssl(
        directory,
        *("x509", "-req", "-in", f"{name}.csr", "-CA", "ca.pem", "-CAkey", "ca.key"),
        *("-CAcreateserial", "-days", "2", "-sha256"),
        *("-extfile", extensions.name, "-out", f"{name}.pem"),
    )
    return directory / f"{name}.pem", directory / f"{name}.key"


def make_pki(directory: Path) -> Pki:
    """Write the CA and both server certificates into `directory`."""
    directory.mkdir(parents=True, exist_ok=True)
    _openssl(
        directory,
        *("req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256"),
        *("-nodes", "-keyout", "ca.key", "-out", "ca.pem", "-days", "2"),
        *("-subj", "/CN=acp-tui test CA", "-sha256"),
        *("-addext", "basicConstraints = critical, CA:TRUE"),
        *("-addext", "keyUsage = critical, keyCertSign, cRLSign"),
    )
    cert, key = _server(directory, "server", "IP:127.0.0.1, DNS:localhost")
    other_cert, other_key = _server(directory, "other", "DNS:other.example")
    return Pki(directory / "ca.pem", cert, key, other_cert, other_key)
