"""Validate what the demo agent sends against the reference ACP JSON schemas.

v1: `acp-schema/v1/schema.json`; v2: `acp-schema/v2/schema.json` (alpha.3, the
draft acp-tui implements; the demo must send alpha.3-valid messages), except for
what only the TS SDK 2.4's unstable v2 draft defines (markdown plans,
`plan_removed`, the `tool_call/cancel` result): a v2 message that alpha.3
rejects passes if `ts-sdk-2.4.0/v2/schema.unstable.json` accepts it (counted
apart, as `... (2.4 unstable)`).

Each message is validated against the **root** schema (an agent message) and,
where the schema names one, the **method's own `$def`**, found through the
`x-method` / `x-side` annotations:

* a request the agent sends (`session/request_permission`, v1 `terminal/*`) →
  its params `$def` (`x-side: client`, name ending in `Request`);
* a notification → its params `$def` (`session/update` → the update
  notification; `_`-prefixed → `ExtNotification`);
* a result → the `Response` `$def` of the method the client called
  (`x-side: agent`); an error → the `Error` `$def`.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from functools import cache
from typing import Any, Final

from jsonschema import Draft202012Validator

from tests.spec_examples import load_schema

SCHEMA_FILES: Final = {1: "v1/schema.json", 2: "v2/schema.json"}
UNSTABLE_FILES: Final = {2: "ts-sdk-2.4.0/v2/schema.unstable.json"}
"""The newer draft a v2 message may follow where alpha.3 has no such feature."""

TOTALS: Counter[int] = Counter()
"""Messages validated per protocol version in this test run (see conftest)."""


@cache
def _validator(schema: str, definition: str | None) -> Any:
    root = load_schema(schema)
    if definition is None:
        return Draft202012Validator(root)
    return Draft202012Validator(
        {"$ref": f"#/$defs/{definition}", "$defs": root["$defs"]}
    )


@cache
def _definitions(schema: str) -> dict[tuple[str, str, str], str]:
    """(side, method, Request|Response|Notification) -> $def name."""
    defs = load_schema(schema)["$defs"]
    out: dict[tuple[str, str, str], str] = {}
    for name, definition in defs.items():
        method = definition.get("x-method")
        side = definition.get("x-side")
        if not method or not side:
            continue
        for suffix in ("Request", "Response", "Notification"):
            if name.endswith(suffix):
                out[(side, method, suffix)] = name
    return out


def _errors(schema: str, definition: str | None, instance: Any) -> list[str]:
    validator = _validator(schema, definition)
    where = definition or "root"
    return [
        f"{where}: {'/'.join(map(str, e.absolute_path))}: {e.message[:300]}"
        for e in validator.iter_errors(instance)
    ]


@dataclass
class SchemaReport:
    """What was validated, by kind, and every failure."""

    version: int
    checked: Counter[str] = field(default_factory=Counter)
    failures: list[str] = field(default_factory=list)

    @property
    def total(self) -> int:
        return sum(self.checked.values())

    def check(self, message: dict[str, Any], request_method: str | None = None) -> None:
        """Validate one message the agent sent.

        Args:
            message: The message.
            request_method: For a response, the method of the client's request.
        """
        kind, problems = _check(SCHEMA_FILES[self.version], message, request_method)
        unstable = UNSTABLE_FILES.get(self.version)
        if problems and unstable is not None:
            _, newer = _check(unstable, message, request_method)
            if not newer:
                kind, problems = f"{kind} (2.4 unstable)", []
        self.checked[kind] += 1
        for problem in problems:
            self.failures.append(f"v{self.version} {kind}: {problem}")


def _check(
    schema: str, message: dict[str, Any], request_method: str | None
) -> tuple[str, list[str]]:
    """`(kind, problems)` of one message against one schema file."""
    definitions = _definitions(schema)
    problems = _errors(schema, None, message)
    method = message.get("method")
    if isinstance(method, str) and "id" in message:
        kind = f"request {method}"
        name = definitions.get(("client", method, "Request"))
        if name is None:
            problems.append(f"no schema definition for the request {method}")
        else:
            problems += _errors(schema, name, message.get("params"))
    elif isinstance(method, str):
        kind = f"notification {method}"
        if method.startswith("_"):
            name = "ExtNotification"
        elif method.startswith("$/"):
            name = definitions.get(("protocol", method, "Notification"))
        else:
            name = definitions.get(("client", method, "Notification"))
        if name is None:
            problems.append(f"no schema definition for the notification {method}")
        else:
            problems += _errors(schema, name, message.get("params"))
        update = (message.get("params") or {}).get("update")
        if isinstance(update, dict):
            kind = f"update {update.get('sessionUpdate')}"
    elif "error" in message:
        kind = f"error {request_method}"
        problems += _errors(schema, "Error", message["error"])
    else:
        kind = f"result {request_method}"
        name = definitions.get(("agent", str(request_method), "Response"))
        if name is None:
            problems.append(f"no schema definition for the result of {request_method}")
        else:
            problems += _errors(schema, name, message.get("result"))
    return kind, problems


def validate_messages(
    version: int, messages: list[dict[str, Any]], requested: dict[Any, str]
) -> SchemaReport:
    """Validate every message an agent sent; `requested` maps our request ids to
    their methods (to find the `$def` of each result)."""
    report = SchemaReport(version)
    for message in messages:
        method = None if "method" in message else requested.get(message.get("id"))
        report.check(message, method)
    TOTALS[version] += report.total
    return report
