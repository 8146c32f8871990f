"""The complete JSON-RPC examples in the ACP docs, and the shared reference data.

The docs live beside the project in `../shared` (see DEVELOPERS.md); tests that need
them skip with a loud reason when that folder is missing.

An example is a fenced ```json block in an `.mdx` file that parses as a JSON-RPC
envelope (`"jsonrpc"` key). Fragments (a bare content block, a capability object) are
not complete messages and are left to the model tests that build them. A response
carries no method, so it takes the method of the closest earlier request in the same
file with the same `id`.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any, Literal

SHARED = Path(__file__).resolve().parents[1].parent / "shared"
SPEC = SHARED / "acp-spec"
SCHEMAS = SHARED / "acp-schema"
FIXTURES = SHARED / "acp-fixtures" / "python-sdk-0.12.1-golden-v1"

_FENCE = re.compile(r"```json[^\n]*\n(.*?)```", re.S)

Kind = Literal["request", "notification", "response"]


@dataclass(frozen=True)
class Example:
    """One complete example message from the docs."""

    source: str
    """`<folder>/<file>.mdx#<n>`: where the block is (n counts json blocks from 1)."""
    version: int
    """1 for `v1/`, 2 for `v2/` and `rfds-v2/`."""
    kind: Kind
    method: str | None
    """The method; for a response, the method of its request (None if unmatched)."""
    message: dict[str, Any]

    @property
    def id(self) -> str:
        return self.source


def _kind(message: dict[str, Any]) -> Kind:
    if "method" in message:
        return "request" if "id" in message else "notification"
    return "response"


@cache
def spec_examples() -> tuple[Example, ...]:
    """Every complete JSON-RPC example in `acp-spec/{v1,v2,rfds-v2}/*.mdx`."""
    examples: list[Example] = []
    for folder, version in (("v1", 1), ("v2", 2), ("rfds-v2", 2)):
        for path in sorted((SPEC / folder).glob("*.mdx")):
            requests: dict[Any, str] = {}
            for n, match in enumerate(_FENCE.finditer(path.read_text("utf-8")), 1):
                try:
                    message = json.loads(match.group(1))
                except ValueError:
                    continue  # prose-style blocks with comments or ellipses
                if not isinstance(message, dict) or "jsonrpc" not in message:
                    continue
                kind = _kind(message)
                method: str | None
                if kind == "response":
                    method = requests.get(_key(message.get("id"))) or _infer(message)
                else:
                    method = message["method"]
                    if kind == "request":
                        requests[_key(message["id"])] = method
                examples.append(
                    Example(f"{folder}/{path.name}#{n}", version, kind, method, message)
                )
    return tuple(examples)


def _infer(response: dict[str, Any]) -> str | None:
    """Name the method of a response shown without its request (by its result keys)."""
    result = response.get("result")
    if not isinstance(result, dict):
        return None
    if "protocolVersion" in result:
        return "initialize"
    if "sessionId" in result:
        return "session/new"
    if "stopReason" in result:
        return "session/prompt"
    return None


def _key(request_id: Any) -> str:
    return json.dumps(request_id)


@cache
def load_schema(name: str) -> dict[str, Any]:
    """Load a schema by relative path under `acp-schema`, e.g. `"v2/schema.json"`."""
    result: dict[str, Any] = json.loads((SCHEMAS / name).read_text("utf-8"))
    return result


def fixture_files() -> list[Path]:
    """The golden v1 payloads from the Python SDK."""
    return sorted(FIXTURES.glob("*.json"))
