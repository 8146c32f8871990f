"""Remote agents in the catalogue: `[agents.NAME] url = "…"` and `--agent URL`.

    [agents.build-box]
    url = "https://build.example.com/acp"    # ws://, wss://, http:// or https://
    headers = { "X-Team" = "tools" }    # optional, sent on every request
    token_env = "BUILD_BOX_TOKEN"       # optional: sent as Authorization: Bearer …
    transport = "websocket"             # optional: "websocket" or "http" (else both)

`url` excludes `command`, `args`, `env` and `cwd` (nothing is started). The
token's variable is read when connecting, so the token never sits in the file.

A URL given directly (`--agent http://…/acp`, no table) takes its token from
`ACP_TUI_REMOTE_TOKEN` when that is set (`adhoc_target`): what `acp-tui bridge`
prints to paste.
Standard library only (the transports come with `acp-tui[remote]`).
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping
from typing import Final, cast

from acp_tui.protocol.remote.target import (
    PROFILES,
    RemoteTarget,
    is_remote_url,
)

__all__ = ["REMOTE_KEYS", "TOKEN_VARIABLE", "adhoc_target", "remote_target"]

REMOTE_KEYS: Final = frozenset({"url", "headers", "token_env", "transport"})
"""The keys of an `[agents.NAME]` table that name a remote agent."""

TOKEN_VARIABLE: Final = "ACP_TUI_REMOTE_TOKEN"
"""The token of a URL agent given on the command line (sent as a bearer token)."""

_LOCAL_ONLY: Final = ("command", "args", "env", "cwd")
_ENV_NAME: Final = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_HEADER_NAME: Final = re.compile(r"[!#$%&'*+.^_`|~0-9A-Za-z-]+")


def remote_target(table: Mapping[str, object]) -> RemoteTarget:
    """The remote agent of a config table that has `url`.

    Raises:
        ValueError: A problem, worded for `[agents.NAME]: …`.
    """
    local = [key for key in _LOCAL_ONLY if key in table]
    if local:
        raise ValueError(
            f"'url' names a remote agent: remove {', '.join(map(repr, local))} "
            "(nothing is started for it)"
        )
    url = table["url"]
    if not isinstance(url, str) or not is_remote_url(url):
        raise ValueError("'url' must be a ws://, wss://, http:// or https:// URL")
    headers = table.get("headers", {})
    if not isinstance(headers, Mapping):
        raise ValueError("'headers' must be a table of strings")
    for key, value in headers.items():
        if not isinstance(value, str) or "\n" in value or "\r" in value:
            raise ValueError(f"header {key!r} must be a one-line string")
        if not _HEADER_NAME.fullmatch(str(key)):
            raise ValueError(f"invalid header name {key!r}")
    token_env = table.get("token_env")
    if token_env is not None and (
        not isinstance(token_env, str) or not _ENV_NAME.fullmatch(token_env)
    ):
        raise ValueError("'token_env' must be the name of an environment variable")
    transport = table.get("transport", "auto")
    if transport not in PROFILES:
        raise ValueError('\'transport\' must be "websocket" or "http"')
    target = RemoteTarget(
        url.strip(),
        headers=dict(cast("Mapping[str, str]", headers)),
        token_env=token_env,
        transport=transport,
    )
    problem = _url_problem(target)
    if problem is not None:
        raise ValueError(problem)
    return target


def _url_problem(target: RemoteTarget) -> str | None:
    """Problems of the URL itself (plain-text rules wait for --insecure)."""
    problem = target.problem()
    if problem is None or problem.startswith("refusing plain"):
        return None
    return problem


def adhoc_target(url: str, environ: Mapping[str, str] | None = None) -> RemoteTarget:
    """The remote agent of a URL given on the command line (no config table).

    Its token is `ACP_TUI_REMOTE_TOKEN`'s value, if that is set (read again
    when connecting, so it never sits in the command line).
    """
    env = os.environ if environ is None else environ
    token_env = TOKEN_VARIABLE if env.get(TOKEN_VARIABLE) else None
    return RemoteTarget(url, token_env=token_env)
