"""Raw ACP `session/update` payloads, valid and mutated, for the fuzz tests.

Everything here is plain JSON in wire form (camelCase keys), exactly what an agent
writes and `framing.decode_line` hands to the client. Shapes follow the v2 schema
(`acp_tui/protocol/schema/v2.py`, `acp-spec/v2`) and the v1 golden fixtures
(`acp-fixtures/python-sdk-0.12.1-golden-v1`).

Hypothesis draws the *structure* of a session (which events, in which order; see
`tests/fuzz/test_streams.py`), and each event's payload is built by `Gen` from a
seed hypothesis also draws. Building a payload in plain Python costs microseconds,
where drawing every field through hypothesis costs a few milliseconds per update on
this machine: that is the difference between 10,000 examples in a minute and in
ten. Failures stay reproducible (derandomized runs, seeds in the failing example)
and shrink structurally (fewer events, simpler kinds, smaller seeds); the test
`note()`s the built payloads so a failure shows them.

* `Gen.v2_update()` / `Gen.v1_update()`: one *valid* update of any kind the
  translators know (the Δ2.4 notice and compaction kinds included) and vendor
  kinds. Optional fields are omitted, `null` or a value (the three states).
* `Gen.mutate(value)`: one random edit anywhere in a JSON tree: drop a key or an
  item, `null`, a wrong type, an unknown tag or enum value, a huge or hostile
  string, a huge number, a deep nesting, an extra key, a swapped container, a
  duplicated item. Mutated messages may be rejected.
"""

from __future__ import annotations

import base64
import copy
import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, Final, TypeAlias, TypeVar

from acp_tui.protocol.schema import v1, v2

Json: TypeAlias = Any
Update: TypeAlias = dict[str, Any]

_T = TypeVar("_T")

SESSION_ID: Final = "sess_fuzz"

# --- pools of values ---------------------------------------------------------------

HOSTILE_TEXTS: Final = (
    "",
    " ",
    "\x00",
    "\x07",
    "\x1b[2J\x1b[H",
    "\x1b]0;pwned\x07",
    "\x1b]8;;file:///etc/passwd\x1b\\link\x1b]8;;\x1b\\",
    "\x1bP+q\x1b\\",
    "\x9b31m",
    "\r",
    "\r\n",
    "\t\v\f",
    "\x7f\x85",
    "\u2028\u2029",
    "\u202ertl\u202c",
    "\u2066iso\u2069",
    "\u200b\u200d\ufeff",
    "e\u0301\u0301\u0301",
    "😀👍🏽🏳️‍🌈",
    "\U0010ffff",
    "\ud800",
    "\udc00x",
    "a\ud83d",
    "[bold red]markup[/]",
    "%s%n%x{0}",
    "../../etc/passwd",
    "null",
    "NaN",
    "-0",
    "  leading and trailing  ",
)
"""Strings that have broken terminals, renderers or encoders somewhere: control and
escape sequences, bidi and zero-width characters, lone surrogates (which
`json.loads` produces from `\\ud800` escapes), Rich markup, format strings."""

ORDINARY_TEXTS: Final = (
    "a",
    "Hello ",
    "world",
    "Hello, world!\n",
    "多言語のテキスト",
    "ls -la /tmp",
    "src/acp_tui/store/store.py",
    "# Title\n\n```python\nprint('x')\n```\n",
    "- [ ] item\n- [x] done",
    "\n\n\n",
    "x" * 300,
    "word " * 60,
)


def has_surrogate(value: Json) -> bool:
    """Whether a JSON value holds a lone surrogate, in a string or a key."""
    if isinstance(value, str):
        return any(0xD800 <= ord(c) <= 0xDFFF for c in value)
    if isinstance(value, dict):
        return any(has_surrogate(k) or has_surrogate(v) for k, v in value.items())
    if isinstance(value, list):
        return any(has_surrogate(v) for v in value)
    return False


def _contains_nan(value: Json) -> bool:
    if isinstance(value, float):
        return value != value or value in (float("inf"), float("-inf"))
    if isinstance(value, dict):
        return any(_contains_nan(v) for v in value.values())
    if isinstance(value, list):
        return any(_contains_nan(v) for v in value)
    return False


VALUE_POOL: Final[tuple[Json, ...]] = (
    None,
    True,
    False,
    0,
    -1,
    7,
    1 << 53,
    1 << 64,
    -(10**30),
    1.5,
    -0.0,
    1e308,
    5e-324,
    float("nan"),
    float("inf"),
    "",
    "text",
    "\x1b[31mred\x1b[0m",
    "\ud800",
    [],
    {},
    [None, 1, "two", [3.0]],
    {"a": {"b": [None, "x"]}, "c": 1},
    {"command": "pytest -q", "cwd": "/work/project", "env": {"CI": "1"}},
    {"": "", "\x00": 0, "\ud800": "a surrogate key"},
    list(range(40)),
    {"deep": [[[[[[[[[["ten"]]]]]]]]]]},
    {"type": "text", "text": "looks like a block"},
    [float("-inf"), {"x": float("nan")}],
)
"""JSON values for `rawInput`, vendor keys and the like (NaN and infinities too:
`json.loads` accepts them)."""

META_POOL: Final[tuple[dict[str, Json], ...]] = (
    {},
    {"k": 1},
    {"trace": {"id": "abc", "spans": [1, 2]}},
    {"a": None, "b": False},
    {"\ud800": 1, "": "", "\x1b": "esc"},
    {"vendor.example/x": [{"y": None}]},
)

PATHS: Final = (
    "/",
    "/home/u/project/main.py",
    "/tmp/a b/ü.txt",
    "C:\\Users\\x",
    "relative/p",
)
URIS: Final = ("file:///home/u/a.py", "https://example.com/x?y=1#z", "", "data:,hi")
MIME_TYPES: Final = ("image/png", "audio/wav", "text/plain", "", "x")
BAD_BASE64: Final = ("!!!!", "abc", "é", "aGk", "a===", " aGk=", "\ud800")


def b64(data: bytes) -> str:
    """RFC 4648 base64 of `data`."""
    return base64.b64encode(data).decode("ascii")


# --- pools of ids ------------------------------------------------------------------


@dataclass(frozen=True)
class Pools:
    """The ids and the kinds of value one session draws from."""

    messages: tuple[str, ...] = ("m1", "m2", "m3", "")
    tool_calls: tuple[str, ...] = ("c1", "c2", "t1")
    """`t1` is also a terminal id: the two id spaces must stay independent."""
    plans: tuple[str, ...] = ("p1", "p2")
    terminals: tuple[str, ...] = ("t1", "t2", "\x1b[31m")
    config_ids: tuple[str, ...] = ("mode", "model", "x")
    modes: tuple[str, ...] = ("ask", "code", "_x")
    hostile: bool = True
    """Strings and keys may hold lone surrogates."""
    nan: bool = True
    """JSON values may hold NaN and infinities (never equal to themselves)."""
    bad_base64: bool = True
    """Terminal data and media may be invalid base64."""


FUZZ: Final = Pools()
"""Everything goes: hostile text, NaN, invalid base64, shared ids."""


# --- the builder -------------------------------------------------------------------

_V2_KINDS: Final = (*sorted(v2.TOOL_KINDS), "_vendor", "")
_V2_STATUSES: Final = (*sorted(v2.TOOL_CALL_STATUSES), "weird")
_V1_KINDS: Final = (*sorted(v1.TOOL_KINDS), "_vendor")
_V1_STATUSES: Final = (*sorted(v1.TOOL_CALL_STATUSES), "weird")
_CAPABILITIES: Final[tuple[dict[str, Json], ...]] = (
    {},
    {"cancel": {}},
    {"cancel": None},
)
CHUNK_KINDS: Final = (
    "user_message_chunk",
    "agent_message_chunk",
    "agent_thought_chunk",
)
WHOLE_KINDS: Final = ("user_message", "agent_message", "agent_thought")

OMIT: Final = object()
"""A field builder's way to say "leave the key out"."""


class Gen:
    """Builds wire payloads from one seed (plain `random.Random`, reproducible)."""

    def __init__(self, seed: int, pools: Pools = FUZZ) -> None:
        self.rng = random.Random(seed)
        self.pools = pools
        texts = [*ORDINARY_TEXTS, *HOSTILE_TEXTS]
        values = list(VALUE_POOL)
        metas = list(META_POOL)
        if not pools.hostile:
            texts = [t for t in texts if not has_surrogate(t)]
            values = [v for v in values if not has_surrogate(v)]
            metas = [m for m in metas if not has_surrogate(m)]
        if not pools.nan:
            values = [v for v in values if not _contains_nan(v)]
        self._texts = tuple(texts)
        self._values = tuple(values)
        self._metas = tuple(metas)

    # --- primitives --------------------------------------------------------------

    def pick(self, options: Sequence[_T]) -> _T:
        """One of `options`."""
        return options[self.rng.randrange(len(options))]

    def chance(self, probability: float) -> bool:
        return self.rng.random() < probability

    def text(self) -> str:
        """A string: mostly from the pools, sometimes random code points."""
        if self.chance(0.15):
            top = 0x110000 if self.pools.hostile else 0xD800
            return "".join(
                chr(self.rng.randrange(top)) for _ in range(self.rng.randint(1, 6))
            )
        return self.pick(self._texts)

    def value(self) -> Json:
        """A JSON value: from the pool, or a small random tree."""
        roll = self.rng.random()
        if roll < 0.6:
            return copy.deepcopy(self.pick(self._values))
        if roll < 0.7:
            return self.rng.randint(-(1 << 70), 1 << 70)
        if roll < 0.8:
            return self.text()
        if roll < 0.9:
            return [self.value() for _ in range(self.rng.randint(0, 3))]
        return {self.text(): self.value() for _ in range(self.rng.randint(0, 3))}

    def meta(self) -> dict[str, Json]:
        """A `_meta` object."""
        if self.chance(0.7):
            return copy.deepcopy(self.pick(self._metas))
        return {self.text(): self.value() for _ in range(self.rng.randint(1, 2))}

    def base64(self) -> str:
        """Base64 of random bytes (sometimes invalid base64, if the pools allow)."""
        if self.pools.bad_base64 and self.chance(0.1):
            return self.pick(BAD_BASE64)
        size = self.pick((0, 1, 2, 3, 8, 48))
        return b64(bytes(self.rng.randrange(256) for _ in range(size)))

    def fields(
        self,
        out: dict[str, Json],
        optional: dict[str, Callable[[], Json]],
        *,
        tri: bool,
    ) -> dict[str, Json]:
        """Add each optional field to `out`: omitted, `null` (if `tri`), or a value.

        Keys are wire names; `meta` stands for `_meta`.
        """
        for key, make in optional.items():
            roll = self.rng.random()
            if roll < 0.5:
                continue
            wire = "_meta" if key == "meta" else key
            out[wire] = None if tri and roll < 0.62 else make()
        return out

    def items(self, make: Callable[[], _T], most: int = 3) -> list[_T]:
        return [make() for _ in range(self.rng.randint(0, most))]

    # --- shared shapes -------------------------------------------------------------

    def _plan_entry(self) -> dict[str, Json]:
        return self.fields(
            {
                "content": self.text(),
                "priority": self.pick(("high", "medium", "low", "_x")),
                "status": self.pick(("pending", "in_progress", "completed", "_x")),
            },
            {"meta": self.meta},
            tri=False,
        )

    def _location(self) -> dict[str, Json]:
        return self.fields(
            {"path": self.pick(PATHS)},
            {"line": lambda: self.rng.randint(0, (1 << 32) - 1)},
            tri=True,
        )

    def _usage(self, limit: int) -> Update:
        return self.fields(
            {
                "sessionUpdate": "usage_update",
                "used": self.rng.randint(0, limit),
                "size": self.rng.randint(0, limit),
            },
            {
                "cost": lambda: {
                    "amount": self.pick((0, 1, 0.25, 1e300, -(1 << 70))),
                    "currency": self.text(),
                },
                "meta": self.meta,
            },
            tri=True,
        )

    def _session_info(self) -> Update:
        return self.fields(
            {"sessionUpdate": "session_info_update"},
            {
                "title": self.text,
                "updatedAt": lambda: self.pick(("2026-01-01T00:00:00Z", "yesterday")),
                "meta": self.meta,
            },
            tri=True,
        )

    def _vendor(self, kinds: Sequence[str]) -> Update:
        return {"sessionUpdate": self.pick(kinds), "x": self.value()}

    # --- v2 --------------------------------------------------------------------------

    def v2_block(self) -> dict[str, Json]:
        """A v2 content block of any type, unknown types included."""
        kind = self.rng.randrange(6)
        if kind == 0:

            def annotations() -> Json:
                return self.fields(
                    {},
                    {
                        "audience": lambda: self.items(
                            lambda: self.pick(("user", "assistant", "_x")), 2
                        ),
                        "priority": lambda: self.pick((0, 1, 0.5)),
                        "lastModified": self.text,
                    },
                    tri=False,
                )

            return self.fields(
                {"type": "text", "text": self.text()},
                {"annotations": annotations, "meta": self.meta},
                tri=False,
            )
        if kind in (1, 2):
            block = {
                "type": "image" if kind == 1 else "audio",
                "data": self.base64(),
                "mimeType": self.pick(MIME_TYPES),
            }
            return self.fields(block, {"uri": lambda: self.pick(URIS)}, tri=False)
        if kind == 3:
            return self.fields(
                {"type": "resource_link", "name": self.text(), "uri": self.pick(URIS)},
                {
                    "title": self.text,
                    "description": self.text,
                    "mimeType": lambda: self.pick(MIME_TYPES),
                    "size": lambda: self.rng.randint(0, 1 << 40),
                },
                tri=False,
            )
        if kind == 4:
            resource: dict[str, Json] = {"uri": self.pick(URIS)}
            if self.chance(0.5):
                resource["text"] = self.text()
            else:
                resource["blob"] = self.base64()
            return {"type": "resource", "resource": resource}
        return {"type": self.pick(("_acme_chart", "future")), "x": self.value()}

    def v2_tool_content(self) -> dict[str, Json]:
        """A v2 tool-call content item (content, diff, terminal reference, unknown)."""
        kind = self.rng.randrange(4)
        if kind == 0:
            return {"type": "content", "content": self.v2_block()}
        if kind == 1:
            return self.fields(
                {"type": "diff", "changes": self.items(self._diff_change, 2)},
                {
                    "patch": lambda: {
                        "format": self.pick(("git_patch", "_x")),
                        "text": self.text(),
                    }
                },
                tri=True,
            )
        if kind == 2:
            return {"type": "terminal", "terminalId": self.pick(self.pools.terminals)}
        return {"type": "_acme_table", "rows": self.value()}

    def _diff_change(self) -> dict[str, Json]:
        kind = self.rng.randrange(3)
        if kind == 0:
            return self.fields(
                {
                    "operation": self.pick(("add", "delete", "modify")),
                    "path": self.pick(PATHS),
                },
                {
                    "fileType": lambda: self.pick(("text", "binary", "_x")),
                    "mimeType": lambda: self.pick(MIME_TYPES),
                },
                tri=False,
            )
        if kind == 1:
            return {
                "operation": self.pick(("move", "copy")),
                "oldPath": self.pick(PATHS),
                "path": self.pick(PATHS),
            }
        return {"operation": self.pick(("_rename", "chmod"))}

    def v2_tool_call_update(self, tool_call_id: str | None = None) -> Update:
        """A v2 `tool_call_update`: every field omitted, `null` or a value."""
        return self.fields(
            {
                "sessionUpdate": "tool_call_update",
                "toolCallId": tool_call_id or self.pick(self.pools.tool_calls),
            },
            {
                "title": self.text,
                "kind": lambda: self.pick(_V2_KINDS),
                "status": lambda: self.pick(_V2_STATUSES),
                "content": lambda: self.items(self.v2_tool_content),
                "locations": lambda: self.items(self._location, 2),
                "rawInput": self.value,
                "rawOutput": self.value,
                "meta": self.meta,
                "name": self.text,
                "capabilities": lambda: copy.deepcopy(self.pick(_CAPABILITIES)),
            },
            tri=True,
        )

    def v2_plan(self, plan_id: str | None = None) -> dict[str, Json]:
        """A v2 plan object (`items`, or an unknown type that names its plan)."""
        plan_id = plan_id or self.pick(self.pools.plans)
        if self.chance(0.8):
            return self.fields(
                {
                    "type": "items",
                    "planId": plan_id,
                    "entries": self.items(self._plan_entry),
                },
                {"meta": self.meta},
                tri=False,
            )
        return {
            "type": self.pick(("_graph", "md")),
            "planId": plan_id,
            "x": self.value(),
        }

    def v2_terminal_update(self, terminal_id: str | None = None) -> Update:
        """A v2 `terminal_update` (an `output` snapshot replaces every byte)."""
        return self.fields(
            {
                "sessionUpdate": "terminal_update",
                "terminalId": terminal_id or self.pick(self.pools.terminals),
            },
            {
                "command": self.text,
                "cwd": lambda: self.pick(PATHS),
                "output": lambda: {"data": self.base64()},
                "exitStatus": lambda: self.fields(
                    {},
                    {
                        "exitCode": lambda: self.rng.randint(-255, 255),
                        "signal": lambda: self.pick(("SIGTERM", "SIGKILL", "_x")),
                    },
                    tri=True,
                ),
                "size": lambda: {
                    "cols": self.rng.randint(1, 500),
                    "rows": self.rng.randint(1, 200),
                },
                "capabilities": lambda: copy.deepcopy(self.pick(_CAPABILITIES)),
                "meta": self.meta,
            },
            tri=True,
        )

    def v2_state_update(self) -> Update:
        """A v2 `state_update` (running, idle with a stop reason or error, unknown)."""
        state = self.pick(("running", "idle", "idle", "requires_action", "_paused"))
        update: Update = {"sessionUpdate": "state_update", "state": state}

        def background() -> Json:
            return self.items(self._background, 2)

        if state != "idle":
            return self.fields(update, {"background": background}, tri=True)
        return self.fields(
            update,
            {
                "stopReason": lambda: self.pick((*sorted(v2.STOP_REASONS), "_x")),
                "error": lambda: self.fields(
                    {"code": self.rng.randint(-32768, 32767), "message": self.text()},
                    {"data": self.value},
                    tri=False,
                ),
                "background": background,
            },
            tri=True,
        )

    def _background(self) -> dict[str, Json]:
        kind = self.rng.randrange(3)
        if kind == 0:
            return {"type": "terminal", "terminalId": self.pick(self.pools.terminals)}
        if kind == 1:
            return {"type": "tool_call", "toolCallId": self.pick(self.pools.tool_calls)}
        return {"type": "_x"}

    def v2_config_option(self) -> dict[str, Json]:
        """A v2 config option: `select` (flat or grouped), `boolean`, or unknown."""

        def option() -> Json:
            return self.fields(
                {"value": self.text(), "name": self.text()},
                {"description": self.text},
                tri=False,
            )

        base: dict[str, Json] = {
            "configId": self.pick(self.pools.config_ids),
            "name": self.text(),
        }
        optional: dict[str, Callable[[], Json]] = {
            "category": lambda: self.pick(("mode", "model", "thought_level", "_x")),
            "description": self.text,
        }
        kind = self.rng.randrange(3)
        if kind == 0:
            options: list[Json]
            if self.chance(0.7):
                options = self.items(option)
            else:
                options = self.items(
                    lambda: {
                        "groupId": self.text(),
                        "name": self.text(),
                        "options": self.items(option, 2),
                    },
                    2,
                )
            select = {
                **base,
                "type": "select",
                "currentValue": self.text(),
                "options": options,
            }
            return self.fields(select, optional, tri=False)
        if kind == 1:
            boolean = {**base, "type": "boolean", "currentValue": self.chance(0.5)}
            return self.fields(boolean, optional, tri=False)
        return {**base, "type": "_slider", "max": self.rng.randint(-9, 9)}

    def v2_command(self) -> dict[str, Json]:
        """A v2 available command (untagged alpha.3 or tagged Δ2.4)."""
        return self.fields(
            {"name": self.text(), "description": self.text()},
            {
                "type": lambda: self.pick(("command", "_x")),
                "input": lambda: (
                    {"type": "text", "hint": self.text()}
                    if self.chance(0.8)
                    else {"type": "_x"}
                ),
                "meta": self.meta,
            },
            tri=False,
        )

    def v2_chunk(
        self, kind: str | None = None, message_id: str | None = None
    ) -> Update:
        """A v2 message chunk (its `_meta` is the chunk's own, never the message's)."""
        return self.fields(
            {
                "sessionUpdate": kind or self.pick(CHUNK_KINDS),
                "messageId": self.pick(self.pools.messages)
                if message_id is None
                else message_id,
                "content": self.v2_block(),
            },
            {"meta": self.meta},
            tri=False,
        )

    def v2_message(
        self, kind: str | None = None, message_id: str | None = None
    ) -> Update:
        """A v2 whole-message upsert: `content` and `_meta` are three-state."""
        return self.fields(
            {
                "sessionUpdate": kind or self.pick(WHOLE_KINDS),
                "messageId": self.pick(self.pools.messages)
                if message_id is None
                else message_id,
            },
            {"content": lambda: self.items(self.v2_block), "meta": self.meta},
            tri=True,
        )

    def v2_update(self) -> Update:
        """One valid v2 `session/update` `update` object, of any kind."""
        kind = self.rng.randrange(17)
        if kind <= 2:
            return self.v2_chunk()
        if kind == 3:
            return self.v2_message()
        if kind in (4, 5):
            return self.v2_tool_call_update()
        if kind == 6:
            return self.fields(
                {
                    "sessionUpdate": "tool_call_content_chunk",
                    "toolCallId": self.pick(self.pools.tool_calls),
                    "content": self.v2_tool_content(),
                },
                {"meta": self.meta},
                tri=False,
            )
        if kind == 7:
            return {"sessionUpdate": "plan_update", "plan": self.v2_plan()}
        if kind == 8:
            return self.v2_terminal_update()
        if kind == 9:
            return {
                "sessionUpdate": "terminal_output_chunk",
                "terminalId": self.pick(self.pools.terminals),
                "data": self.base64(),
            }
        if kind == 10:
            return self.v2_state_update()
        if kind == 11:
            return {
                "sessionUpdate": "available_commands_update",
                "availableCommands": self.items(self.v2_command),
            }
        if kind == 12:
            return {
                "sessionUpdate": "config_option_update",
                "configOptions": self.items(self.v2_config_option),
            }
        if kind == 13:
            return self._session_info() if self.chance(0.5) else self._usage(1 << 70)
        if kind == 14:
            return self.fields(
                {
                    "sessionUpdate": "notice",
                    "severity": self.pick(("info", "warning", "error", "_x")),
                    # `minLength: 1`: a lone surrogate fails it (not a whole char)
                    "title": self.pick(ORDINARY_TEXTS),
                },
                {"description": self.text},
                tri=True,
            )
        if kind == 15:
            if self.chance(0.5):
                return {
                    "sessionUpdate": "compaction_summary_chunk",
                    "compactionId": self.text(),
                    "content": self.v2_block(),
                }
            return self.fields(
                {
                    "sessionUpdate": "compaction_update",
                    "compactionId": self.text(),
                    "status": self.pick(("in_progress", "completed", "_x")),
                },
                {"summary": lambda: self.items(self.v2_block, 2)},
                tri=True,
            )
        return self._vendor(
            ("_vendor_sparkle", "plan", "tool_call", "current_mode_update")
        )

    def v2_setup(self) -> dict[str, Json]:
        """A v2 `session/new` result: optional `configOptions`, `availableCommands`."""
        return self.fields(
            {"sessionId": SESSION_ID},
            {
                "configOptions": lambda: self.items(self.v2_config_option),
                "availableCommands": lambda: self.items(self.v2_command),
            },
            tri=False,
        )

    def v2_permission(self) -> dict[str, Json]:
        """v2 `session/request_permission` params (tool-call, command or no subject)."""

        def tool_call() -> Json:
            return self.fields(
                {"toolCallId": self.pick(self.pools.tool_calls)},
                {
                    "title": self.text,
                    "status": lambda: self.pick(_V2_STATUSES),
                    "content": lambda: self.items(self.v2_tool_content, 2),
                    "rawInput": self.value,
                },
                tri=True,
            )

        kind = self.rng.randrange(3)
        subject: dict[str, Json]
        if kind == 0:
            subject = {"type": "tool_call", "toolCall": tool_call()}
        elif kind == 1:
            subject = self.fields(
                {"type": "command", "command": self.text(), "cwd": self.pick(PATHS)},
                {
                    "toolCallId": lambda: self.pick(self.pools.tool_calls),
                    "terminalId": lambda: self.pick(self.pools.terminals),
                },
                tri=True,
            )
        else:
            subject = {"type": "_x"}
        return self.fields(
            {
                "sessionId": SESSION_ID,
                "title": self.text(),
                "options": [
                    self._permission_option() for _ in range(self.rng.randint(1, 2))
                ],
            },
            {"description": self.text, "subject": lambda: subject, "meta": self.meta},
            tri=True,
        )

    def _permission_option(self) -> dict[str, Json]:
        return {
            "optionId": self.pick(("yes", "no")),
            "name": self.text(),
            "kind": self.pick(("allow_once", "reject_once", "_x")),
        }

    # --- v1 --------------------------------------------------------------------------

    def v1_block(self) -> dict[str, Json]:
        """A v1 content block of any type, unknown types included."""
        kind = self.rng.randrange(6)
        if kind == 0:

            def annotations() -> Json:
                return self.fields(
                    {},
                    {
                        "audience": lambda: self.items(
                            lambda: self.pick(("user", "assistant")), 2
                        ),
                        "priority": lambda: self.pick((0, 1, 0.25)),
                        "lastModified": self.text,
                    },
                    tri=True,
                )

            return self.fields(
                {"type": "text", "text": self.text()},
                {"annotations": annotations},
                tri=False,
            )
        if kind in (1, 2):
            block = {
                "type": "image" if kind == 1 else "audio",
                "data": self.base64(),
                "mimeType": self.pick(MIME_TYPES),
            }
            return self.fields(block, {"uri": lambda: self.pick(URIS)}, tri=False)
        if kind == 3:
            return self.fields(
                {"type": "resource_link", "name": self.text(), "uri": self.pick(URIS)},
                {"title": self.text, "size": lambda: self.rng.randint(0, 1 << 40)},
                tri=False,
            )
        if kind == 4:
            resource: dict[str, Json] = {"uri": self.pick(URIS)}
            if self.chance(0.5):
                resource["text"] = self.text()
            else:
                resource["blob"] = self.base64()
            return {"type": "resource", "resource": resource}
        return {"type": "_acme_chart", "x": self.value()}

    def v1_tool_content(self) -> dict[str, Json]:
        """A v1 tool-call content item (content, diff, terminal reference, unknown)."""
        kind = self.rng.randrange(4)
        if kind == 0:
            return {"type": "content", "content": self.v1_block()}
        if kind == 1:
            return self.fields(
                {"type": "diff", "path": self.pick(PATHS), "newText": self.text()},
                {"oldText": self.text},
                tri=True,
            )
        if kind == 2:
            return {"type": "terminal", "terminalId": self.pick(self.pools.terminals)}
        return {"type": "_acme_table", "rows": self.value()}

    def v1_tool_call(self, tool_call_id: str | None = None) -> Update:
        """A v1 `tool_call` (creates or fully restates a tool call)."""
        return self.fields(
            {
                "sessionUpdate": "tool_call",
                "toolCallId": tool_call_id or self.pick(self.pools.tool_calls),
                "title": self.text(),
            },
            {
                "kind": lambda: self.pick(_V1_KINDS),
                "status": lambda: self.pick(_V1_STATUSES),
                "content": lambda: self.items(self.v1_tool_content),
                "locations": lambda: self.items(self._location, 2),
                "rawInput": self.value,
                "rawOutput": self.value,
                "meta": self.meta,
            },
            tri=False,
        )

    def v1_tool_call_update(self, tool_call_id: str | None = None) -> Update:
        """A v1 `tool_call_update` (a patch; `null` clears)."""
        return self.fields(
            {
                "sessionUpdate": "tool_call_update",
                "toolCallId": tool_call_id or self.pick(self.pools.tool_calls),
            },
            {
                "title": self.text,
                "kind": lambda: self.pick(_V1_KINDS),
                "status": lambda: self.pick(_V1_STATUSES),
                "content": lambda: self.items(self.v1_tool_content),
                "locations": lambda: self.items(self._location, 2),
                "rawInput": self.value,
                "rawOutput": self.value,
                "meta": self.meta,
            },
            tri=True,
        )

    def v1_config_option(self) -> dict[str, Json]:
        """A v1 config option: `select` (flat or grouped), `boolean`, or unknown."""

        def option() -> Json:
            return {"value": self.text(), "name": self.text()}

        base: dict[str, Json] = {
            "id": self.pick(self.pools.config_ids),
            "name": self.text(),
        }
        category: dict[str, Callable[[], Json]] = {
            "category": lambda: self.pick(("mode", "model", "_x"))
        }
        kind = self.rng.randrange(3)
        if kind == 0:
            options: list[Json]
            if self.chance(0.7):
                options = self.items(option)
            else:
                options = self.items(
                    lambda: {
                        "group": self.text(),
                        "name": self.text(),
                        "options": self.items(option, 2),
                    },
                    2,
                )
            select = {
                **base,
                "type": "select",
                "currentValue": self.text(),
                "options": options,
            }
            return self.fields(select, category, tri=False)
        if kind == 1:
            boolean = {**base, "type": "boolean", "currentValue": self.chance(0.5)}
            return self.fields(boolean, category, tri=False)
        return {**base, "type": "_slider"}

    def v1_modes(self) -> dict[str, Json]:
        """A v1 `modes` state (from session setup)."""
        modes = self.items(
            lambda: self.fields(
                {"id": self.pick(self.pools.modes), "name": self.text()},
                {"description": self.text},
                tri=False,
            )
        )
        return {"currentModeId": self.pick(self.pools.modes), "availableModes": modes}

    def v1_setup(self) -> dict[str, Json]:
        """A v1 `session/new` result: optional `modes` and `configOptions`."""
        return self.fields(
            {"sessionId": SESSION_ID},
            {
                "modes": self.v1_modes,
                "configOptions": lambda: self.items(self.v1_config_option),
            },
            tri=True,
        )

    def v1_chunk(self, kind: str | None = None, message_id: Json = OMIT) -> Update:
        """A v1 message chunk (`messageId` optional: omitted, `null` or an id)."""
        update = self.fields(
            {
                "sessionUpdate": kind or self.pick(CHUNK_KINDS),
                "content": self.v1_block(),
            },
            {"meta": self.meta},
            tri=False,
        )
        if message_id is OMIT:
            self.fields(
                update, {"messageId": lambda: self.pick(self.pools.messages)}, tri=True
            )
        else:
            update["messageId"] = message_id
        return update

    def v1_update(self) -> Update:
        """One valid v1 `session/update` `update` object, of any kind."""
        kind = self.rng.randrange(13)
        if kind <= 2:
            return self.v1_chunk()
        if kind == 3:
            return self.v1_tool_call()
        if kind in (4, 5):
            return self.v1_tool_call_update()
        if kind == 6:
            return self.fields(
                {"sessionUpdate": "plan", "entries": self.items(self._plan_entry)},
                {"meta": self.meta},
                tri=False,
            )
        if kind == 7:

            def command() -> Json:
                return self.fields(
                    {"name": self.text(), "description": self.text()},
                    {"input": lambda: {"hint": self.text()}},
                    tri=True,
                )

            return {
                "sessionUpdate": "available_commands_update",
                "availableCommands": self.items(command),
            }
        if kind == 8:
            return {
                "sessionUpdate": "current_mode_update",
                "currentModeId": self.pick(self.pools.modes),
            }
        if kind == 9:
            return {
                "sessionUpdate": "config_option_update",
                "configOptions": self.items(self.v1_config_option),
            }
        if kind == 10:
            return self._session_info()
        if kind == 11:
            return self._usage((1 << 64) - 1)
        return self._vendor(  # (v1 reads `plan_update` and `notice`: opt-ins)
            ("_vendor_sparkle", "future_update", "state_update", "session_message")
        )

    def v1_permission(self) -> dict[str, Json]:
        """v1 `session/request_permission` params (the subject is a tool-call patch)."""
        tool_call = self.fields(
            {"toolCallId": self.pick(self.pools.tool_calls)},
            {
                "title": self.text,
                "status": lambda: self.pick(_V1_STATUSES),
                "content": lambda: self.items(self.v1_tool_content, 2),
                "rawInput": self.value,
            },
            tri=True,
        )
        return self.fields(
            {
                "sessionId": SESSION_ID,
                "toolCall": tool_call,
                "options": self.items(self._permission_option, 2),
            },
            {"meta": self.meta},
            tri=False,
        )

    def prompt(self) -> list[dict[str, Json]]:
        """A prompt as the client builds it (text and resource links; never empty)."""
        blocks: list[dict[str, Json]] = []
        for _ in range(self.rng.randint(1, 3)):
            if self.chance(0.8):
                blocks.append({"type": "text", "text": self.text()})
            else:
                blocks.append(
                    {
                        "type": "resource_link",
                        "name": self.text(),
                        "uri": self.pick(URIS),
                    }
                )
        return blocks

    # --- mutations -------------------------------------------------------------------

    def mutated(self, value: Json, edits: int = 3) -> Json:
        """A copy of `value` with 1 to `edits` random edits."""
        value = copy.deepcopy(value)
        for _ in range(self.rng.randint(1, edits)):
            value = self.mutate(value)
        return value

    def mutate(self, root: Json) -> Json:
        """`root` with one random edit somewhere in it (edited in place if possible)."""
        path = self.pick(_paths(root))
        node = _get(root, path)
        kind = self.pick(MUTATIONS)
        if kind == "drop":
            if not path:
                return self.pick((None, [], "", {}))
            del _get(root, path[:-1])[path[-1]]
            return root
        if kind == "null":
            return _replace(root, path, None)
        if kind == "wrong_type":
            return _replace(root, path, self.weird())
        if kind == "retag":
            if isinstance(node, dict):
                keys = [k for k in _TAG_KEYS if k in node] or ["type"]
                node[self.pick(keys)] = self.pick(_RETAGS)
                return root
            return _replace(root, path, self.pick(_RETAGS))
        if kind == "huge_string":
            unit = self.pick(("x", "\x1b[31m", "é", "😀", "\ud800", "line\n"))
            return _replace(root, path, unit * (self.pick(HUGE_SIZES) // len(unit)))
        if kind == "hostile_string":
            text = self.pick(HOSTILE_TEXTS)
            return _replace(root, path, node + text if isinstance(node, str) else text)
        if kind == "huge_number":
            return _replace(root, path, self.pick(HUGE_NUMBERS))
        if kind == "deep":
            return _replace(root, path, self.deep())
        if kind == "extra_key":
            if isinstance(node, dict):
                key = self.pick(("_vendor", "", "\x1b", "__proto__", "_meta", "\ud800"))
                node[key] = self.deep() if self.chance(0.3) else self.weird()
                return root
            return _replace(root, path, {"value": node})
        if kind == "swap_container":
            if isinstance(node, dict):
                return _replace(root, path, list(node.values()))
            if isinstance(node, list):
                return _replace(root, path, {str(i): v for i, v in enumerate(node)})
            return _replace(root, path, [node])
        # duplicate_item: shared, not copied (a deep copy of a deep value would
        # overflow the stack); the client sees a fresh `json.loads` copy anyway
        if isinstance(node, list) and node:
            node.append(self.pick(node))
            return root
        return _replace(root, path, [node, node])

    def weird(self) -> Json:
        """A wrong-type or out-of-range value."""
        if self.chance(0.5):
            return copy.deepcopy(self.pick(WEIRD_VALUES))
        return self.value()

    def deep(self) -> Json:
        """JSON nested deeper than pydantic serializes (about 250 levels) or than a
        recursive walk survives, but inside what `json.loads` accepts (about 990)."""
        value: Json = "bottom"
        as_dict = self.chance(0.5)
        for _ in range(self.pick(DEEP_LEVELS)):
            value = {"a": value} if as_dict else [value]
        return value


HUGE_SIZES: Final = (1 << 12, 1 << 16, 1 << 18)
"""Huge strings: 4 Ki to 256 Ki characters."""
HUGE_NUMBERS: Final = (
    1 << 31,
    1 << 63,
    1 << 64,
    -(1 << 63) - 1,
    10**100,
    1e308,
    -0.0,
    5e-324,
    float("inf"),
    float("-inf"),
    float("nan"),
)
DEEP_LEVELS: Final = (8, 64, 127, 128, 129, 200, 254, 255, 300, 500)
WEIRD_VALUES: Final[tuple[Json, ...]] = (
    None,
    True,
    False,
    0,
    -1,
    1.5,
    "",
    "x",
    [],
    [None],
    {},
    {"type": "text"},
    {"type": "terminal"},
    [[[]]],
    *HUGE_NUMBERS,
)
_RETAGS: Final = (
    "",
    "_unknown",
    "IDLE",
    "Text",
    "null",
    *sorted(v2.SESSION_UPDATE_TYPES),
    *sorted(v1.SESSION_UPDATE_KINDS),
    "text",
    "terminal",
    "diff",
    "items",
    "select",
    "idle",
)
"""Unknown tags, and known tags of the wrong variant."""
_TAG_KEYS: Final = ("sessionUpdate", "type", "state", "operation", "status", "kind")
MUTATIONS: Final = (
    "drop",
    "null",
    "wrong_type",
    "retag",
    "huge_string",
    "hostile_string",
    "huge_number",
    "deep",
    "extra_key",
    "swap_container",
    "duplicate_item",
)


def _paths(value: Json, path: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    """The paths of a JSON tree's nodes (the root's is `()`), parents first.

    Nodes below `_MAX_EDIT_DEPTH` are left out, so that an edit never nests a deep
    value inside another one (the wire caps nesting at about 990 levels).
    """
    found = [path]
    if len(path) >= _MAX_EDIT_DEPTH:
        return found
    if isinstance(value, dict):
        for key, item in value.items():
            found.extend(_paths(item, (*path, key)))
    elif isinstance(value, list):
        for index, item in enumerate(value):
            found.extend(_paths(item, (*path, index)))
    return found


_MAX_EDIT_DEPTH: Final = 32


def _get(value: Json, path: tuple[Any, ...]) -> Json:
    for step in path:
        value = value[step]
    return value


def _replace(root: Json, path: tuple[Any, ...], new: Json) -> Json:
    if not path:
        return new
    _get(root, path[:-1])[path[-1]] = new
    return root
