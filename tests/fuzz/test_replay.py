"""Property: a session's store after a resume replay equals the store after it ran live.

Each example generates a session and runs it twice through the real `AcpClient`
(over an in-memory link, `tests/unit/client/peer.py`), each time in a fresh client:

* **live** (store A): `session/new`, then the agent's `session/update`s as they
  stream (v2; also permission requests with tool-call subjects), or the user's
  prompt turns with the agent's updates inside each (v1);
* **replay** (store B): `resume_session(replay=True)`, the agent replaying the
  history it keeps, then its response.

The agent here keeps its history the way the spec describes, in its own terms
(`HistoryV2`, `HistoryV1`), not by reading the client's store:

* v2 `session/resume` with `replayFrom: {"type": "start"}` (v2/session-setup.mdx,
  CLIENT-CHECKLIST §4.4.2): every message, in order of first appearance, either as
  one `*_message` upsert with its whole `content` or as chunks (chosen per
  message); each tool call as one `tool_call_update` with its final fields (its
  content sometimes streamed as `tool_call_content_chunk`s); each plan's last
  state; each terminal as a `terminal_update` with an output *snapshot*; vendor and
  future updates as sent; the final config options, commands, session info and
  usage; and, [Δ2.4], the current `state_update` before the response.
* v1 `session/load` (CLIENT-CHECKLIST §4.4.3): the conversation as it happened, the
  user's prompts as `user_message_chunk`s, the agent's updates as sent. v1 chunks
  need not carry a `messageId`, so the client splits messages by role changes and
  tool calls: a replay has to keep that order, it cannot merge a tool call's
  updates. Modes and config options come back in the `session/load` response;
  commands, session info and usage as updates after the history. (An agent that
  also replayed `config_option_update` or `current_mode_update` would expose a
  client gap: during a load the client does not know the `modes` yet, so the
  synthesised mode option goes missing and a mode change is kept as an unknown
  update; reported, not covered here.)

The documents (`to_json()`) must be equal, except for what legitimately differs:

* `permissions` (v2): permission requests are requests, not `session/update`s; a
  replay never repeats them (the tool-call patches they carried are part of the
  tool call's replayed state), so their timeline entries go too.
* `terminals` (v2) are compared by id, not in order, and a terminal that only a
  tool call's content ever named, and that content has since dropped, is left out:
  a replay states each tool call's *final* content at its first appearance, so a
  terminal reference can come earlier than it did live (the store lists terminals
  in order of first mention), and a dropped reference is never mentioned (the live
  store keeps an empty entry for it). Such an orphan must be empty.
* `stopReason` (v1): a v1 turn ends with the `session/prompt` response, which a
  `session/load` replay does not repeat; the state is idle either way.
* a message's `origin` (v2): the live run sends no prompt, so every user message
  in it is one the agent sent on its own, marked `"origin": "agent"`; the replay
  of a reattached session is history, told by the agent and shown as the
  user's (`acp_tui.client.message_origins`), so it carries no mark.

Notices are live, not history (rfds/session-notices: not replayed): the live
document's `notices` and their timeline entries are left out of the comparison.
Compactions are history: their updates are replayed as sent.

The generated sessions keep to what the spec asks of an agent, where a replay
could not otherwise be faithful: a message id belongs to one role (ids are
agent-owned and name one message); no NaN (never equal to itself) and no invalid
base64 (unusable terminal data is the client's error, not history); in v1, the
agent never sends user chunks during a turn (the prompt is the user's message),
every turn has an answer (a chunk, tool call or plan: two id-less user messages in
a row cannot be told apart on replay), and `current_mode_update` only comes when
there is a mode to move.

The live run is also fed through `FuzzSession` (the synchronous mirror that the
stream fuzz tests use), which must give store A exactly: that keeps the mirror
honest.
"""

from __future__ import annotations

import base64
import copy
from collections import Counter
from collections.abc import Callable
from typing import Any, Final, TypeAlias

import anyio
from hypothesis import given, note
from hypothesis import strategies as st

from acp_tui.store.store import SessionStore
from tests.fuzz.client_path import FuzzSession
from tests.fuzz.examples import Examples
from tests.fuzz.invariants import StoreWatch
from tests.fuzz.wire import CHUNK_KINDS, SESSION_ID, WHOLE_KINDS, Gen, Pools
from tests.unit.client.peer import CWD, Harness, ScriptedPrompter, open_harness
from tests.unit.client.peer import v1_init as peer_v1_init
from tests.unit.client.peer import v2_init as peer_v2_init

Json: TypeAlias = Any
Update: TypeAlias = dict[str, Any]
RecordProperty: TypeAlias = Callable[[str, object], None]

ROLE_OF: Final = {
    "user_message_chunk": "user",
    "agent_message_chunk": "agent",
    "agent_thought_chunk": "thought",
    "user_message": "user",
    "agent_message": "agent",
    "agent_thought": "thought",
}
CHUNK_OF: Final = {
    "user": CHUNK_KINDS[0],
    "agent": CHUNK_KINDS[1],
    "thought": CHUNK_KINDS[2],
}
WHOLE_OF: Final = {
    "user": WHOLE_KINDS[0],
    "agent": WHOLE_KINDS[1],
    "thought": WHOLE_KINDS[2],
}
IDS_OF: Final = {"user": ("u1", "u2"), "agent": ("a1", "a2", "a3"), "thought": ("h1",)}
"""Message ids are agent-owned and unique per message, so one id has one role."""

REPLAY: Final = Pools(hostile=True, nan=False, bad_base64=False)
"""Values that survive a JSON round trip equal to themselves (no NaN), and
terminal data that decodes (invalid base64 is the client's problem, not history)."""

_TOOL_FIELDS: Final = (
    "title",
    "kind",
    "status",
    "content",
    "locations",
    "rawInput",
    "rawOutput",
    "_meta",
    "name",
    "capabilities",
)
_TERMINAL_FIELDS: Final = (
    "command",
    "cwd",
    "exitStatus",
    "size",
    "capabilities",
    "_meta",
)


def _patch(
    state: dict[str, Json], update: dict[str, Json], keys: tuple[str, ...]
) -> None:
    """Three-state fields: an omitted key leaves the state, `null` clears it."""
    for key in keys:
        if key in update:
            if update[key] is None:
                state.pop(key, None)
            else:
                state[key] = copy.deepcopy(update[key])


# --- v2 ------------------------------------------------------------------------------


class HistoryV2:
    """What a v2 agent remembers of a session, built from what it sent."""

    def __init__(self, setup: dict[str, Json]) -> None:
        self.order: list[tuple[str, Any]] = []
        """(kind, key) in order of first appearance; each vendor update is its own."""
        self.messages: dict[str, dict[str, Json]] = {}
        self.tools: dict[str, dict[str, Json]] = {}
        self.plans: dict[str, dict[str, Json]] = {}
        self.terminals: dict[str, dict[str, Json]] = {}
        self.output: dict[str, bytes] = {}
        self.vendor: list[Update] = []
        self.options: list[Json] = copy.deepcopy(setup.get("configOptions", []))
        self.commands: list[Json] = copy.deepcopy(setup.get("availableCommands", []))
        self.info: dict[str, Json] = {}
        self.usage: dict[str, Json] | None = None
        self.state: Update = {"sessionUpdate": "state_update", "state": "idle"}

    def _first(self, kind: str, key: str, table: dict[str, Any], new: Any) -> Any:
        if key not in table:
            table[key] = new
            self.order.append((kind, key))
        return table[key]

    def tool(self, tool_call_id: str) -> dict[str, Json]:
        tool: dict[str, Json] = self._first("tool", tool_call_id, self.tools, {})
        return tool

    def sent(self, update: Update) -> None:
        """The agent sent `update` (live)."""
        kind = update["sessionUpdate"]
        if kind in ROLE_OF:
            message = self._first(
                "message",
                update["messageId"],
                self.messages,
                {"role": ROLE_OF[kind], "content": [], "_meta": None},
            )
            if kind in CHUNK_KINDS:
                message["content"].append(copy.deepcopy(update["content"]))
            else:
                if "content" in update:
                    message["content"] = copy.deepcopy(update["content"] or [])
                if "_meta" in update:
                    message["_meta"] = copy.deepcopy(update["_meta"])
        elif kind == "tool_call_update":
            _patch(self.tool(update["toolCallId"]), update, _TOOL_FIELDS)
        elif kind == "tool_call_content_chunk":
            tool = self.tool(update["toolCallId"])
            tool["content"] = [
                *tool.get("content", []),
                copy.deepcopy(update["content"]),
            ]
        elif kind == "plan_update":
            plan = update["plan"]
            self._first("plan", plan["planId"], self.plans, {})
            self.plans[plan["planId"]] = copy.deepcopy(plan)
        elif kind in ("terminal_update", "terminal_output_chunk"):
            terminal_id = update["terminalId"]
            fields = self._first("terminal", terminal_id, self.terminals, {})
            data = self.output.setdefault(terminal_id, b"")
            if kind == "terminal_output_chunk":
                self.output[terminal_id] = data + base64.b64decode(update["data"])
            else:
                _patch(fields, update, _TERMINAL_FIELDS)
                if "output" in update:
                    output = update["output"]
                    snapshot = (
                        b"" if output is None else base64.b64decode(output["data"])
                    )
                    self.output[terminal_id] = snapshot
        elif kind == "state_update":
            self.state = copy.deepcopy(update)
        elif kind == "available_commands_update":
            self.commands = copy.deepcopy(update["availableCommands"])
        elif kind == "config_option_update":
            self.options = copy.deepcopy(update["configOptions"])
        elif kind == "session_info_update":
            for key in ("title", "updatedAt", "_meta"):
                if key in update:
                    self.info[key] = copy.deepcopy(update[key])
        elif kind == "usage_update":
            usage = self.usage or {}
            usage["used"], usage["size"] = update["used"], update["size"]
            _patch(usage, update, ("cost", "_meta"))
            self.usage = usage
        elif kind != "notice":  # a notice is live, not history
            self.order.append(("vendor", len(self.vendor)))
            self.vendor.append(copy.deepcopy(update))

    def asked(self, params: dict[str, Json]) -> None:
        """The agent sent a permission request: its tool-call subject is a patch."""
        subject = params.get("subject")
        if isinstance(subject, dict) and subject.get("type") == "tool_call":
            tool_call = subject["toolCall"]
            _patch(self.tool(tool_call["toolCallId"]), tool_call, _TOOL_FIELDS)

    def final_references(self) -> set[str]:
        """The terminals the tool calls' final content refers to."""
        return {
            item["terminalId"]
            for tool in self.tools.values()
            for item in tool.get("content", [])
            if item.get("type") == "terminal"
            and isinstance(item.get("terminalId"), str)
        }

    def replay(self, gen: Gen) -> list[Update]:
        """The `session/update`s of a `replayFrom: start` replay, in order."""
        out: list[Update] = []
        for kind, key in self.order:
            if kind == "message":
                out += self._replay_message(gen, key, self.messages[key])
            elif kind == "tool":
                out += self._replay_tool(gen, key, self.tools[key])
            elif kind == "plan":
                out.append({"sessionUpdate": "plan_update", "plan": self.plans[key]})
            elif kind == "terminal":
                snapshot = base64.b64encode(self.output[key]).decode("ascii")
                out.append(
                    {
                        "sessionUpdate": "terminal_update",
                        "terminalId": key,
                        **self.terminals[key],
                        "output": {"data": snapshot},
                    }
                )
            else:
                out.append(self.vendor[key])
        out.append(
            {"sessionUpdate": "config_option_update", "configOptions": self.options}
        )
        out.append(
            {
                "sessionUpdate": "available_commands_update",
                "availableCommands": self.commands,
            }
        )
        info = {k: v for k, v in self.info.items() if v is not None}
        if info:
            out.append({"sessionUpdate": "session_info_update", **info})
        if self.usage is not None:
            usage = {k: v for k, v in self.usage.items() if v is not None}
            out.append({"sessionUpdate": "usage_update", **usage})
        out.append(self.state)  # [Δ2.4] the current state, before the response
        return out

    @staticmethod
    def _replay_message(
        gen: Gen, message_id: str, message: dict[str, Json]
    ) -> list[Update]:
        role, content, meta = message["role"], message["content"], message["_meta"]
        whole: Update = {"sessionUpdate": WHOLE_OF[role], "messageId": message_id}
        style = gen.pick(("whole", "chunks", "mixed"))
        if style == "whole" or not content:
            whole["content"] = content
            if meta is not None:
                whole["_meta"] = meta
            return [whole]
        split = len(content) if style == "chunks" else gen.rng.randint(0, len(content))
        out: list[Update] = []
        if style == "mixed":
            out.append({**whole, "content": content[:split]})
            content = content[split:]
        for block in content:
            chunk: Update = {
                "sessionUpdate": CHUNK_OF[role],
                "messageId": message_id,
                "content": block,
            }
            if gen.chance(0.2):
                chunk["_meta"] = {"chunk": True}  # the chunk's own: not the message's
            out.append(chunk)
        if meta is not None:
            out.append({**whole, "_meta": meta})  # content omitted: left alone
        return out

    @staticmethod
    def _replay_tool(
        gen: Gen, tool_call_id: str, tool: dict[str, Json]
    ) -> list[Update]:
        update: Update = {
            "sessionUpdate": "tool_call_update",
            "toolCallId": tool_call_id,
            **tool,
        }
        content = tool.get("content", [])
        if not content or gen.chance(0.5):
            return [update]
        update.pop("content")
        return [
            update,
            *(
                {
                    "sessionUpdate": "tool_call_content_chunk",
                    "toolCallId": tool_call_id,
                    "content": item,
                }
                for item in content
            ),
        ]


def _v2_live(gen: Gen) -> Update:
    """One live v2 update; a message id always belongs to one role."""
    update = gen.v2_update()
    kind = update["sessionUpdate"]
    if kind in ROLE_OF:
        update["messageId"] = gen.pick(IDS_OF[ROLE_OF[kind]])
    return update


# --- v1 ------------------------------------------------------------------------------

_V1_SESSION_LEVEL: Final = frozenset(
    {
        "available_commands_update",
        "config_option_update",
        "current_mode_update",
        "session_info_update",
        "usage_update",
    }
)
_V1_BREAKS: Final = frozenset(
    {
        "agent_message_chunk",
        "agent_thought_chunk",
        "tool_call",
        "tool_call_update",
        "plan",
    }
)
"""Updates after which the next prompt's id-less user chunks start a new message."""


def _mode_select(option: dict[str, Json]) -> bool:
    return option.get("category") == "mode" and option.get("type") == "select"


class HistoryV1:
    """What a v1 agent remembers of a session, built from what it sent."""

    def __init__(self, setup: dict[str, Json]) -> None:
        self.items: list[Update] = []
        """The conversation: user chunks for each prompt, then the agent's updates."""
        self.options: list[Json] = copy.deepcopy(setup.get("configOptions") or [])
        self.modes: dict[str, Json] | None = copy.deepcopy(setup.get("modes"))
        self.commands: list[Json] | None = None
        self.info: dict[str, Json] = {}
        self.usage: dict[str, Json] | None = None

    def has_mode(self) -> bool:
        """Whether `current_mode_update` has an option to move (else it is unknown)."""
        return self.modes is not None or any(_mode_select(o) for o in self.options)

    def prompted(self, blocks: list[dict[str, Json]]) -> None:
        for block in blocks:
            self.items.append({"sessionUpdate": "user_message_chunk", "content": block})

    def sent(self, update: Update) -> None:
        kind = update["sessionUpdate"]
        if kind not in _V1_SESSION_LEVEL:
            self.items.append(copy.deepcopy(update))
        elif kind == "config_option_update":
            self.options = copy.deepcopy(update["configOptions"])
        elif kind == "current_mode_update":
            mode = update["currentModeId"]
            if self.modes is not None:
                self.modes["currentModeId"] = mode
            for option in self.options:
                if _mode_select(option):  # only a select holds a mode id
                    option["currentValue"] = mode
                    break
        elif kind == "available_commands_update":
            self.commands = copy.deepcopy(update["availableCommands"])
        elif kind == "session_info_update":
            for key in ("title", "updatedAt", "_meta"):
                if key in update:
                    self.info[key] = copy.deepcopy(update[key])
        else:
            usage = self.usage or {}
            usage["used"], usage["size"] = update["used"], update["size"]
            _patch(usage, update, ("cost", "_meta"))
            self.usage = usage

    def replay(self) -> list[Update]:
        """The `session/update`s of a `session/load`, in order."""
        out = list(self.items)
        if self.commands is not None:
            out.append(
                {
                    "sessionUpdate": "available_commands_update",
                    "availableCommands": self.commands,
                }
            )
        info = {k: v for k, v in self.info.items() if v is not None}
        if info:
            out.append({"sessionUpdate": "session_info_update", **info})
        if self.usage is not None:
            usage = {k: v for k, v in self.usage.items() if v is not None}
            out.append({"sessionUpdate": "usage_update", **usage})
        return out

    def load_result(self) -> dict[str, Json]:
        result: dict[str, Json] = {"configOptions": self.options}
        if self.modes is not None:
            result["modes"] = self.modes
        return result


def _v1_turn(gen: Gen, history: HistoryV1) -> list[Update]:
    """The agent's updates in one turn (no user chunks: the prompt is the user's)."""
    updates: list[Update] = []
    for _ in range(gen.rng.randint(1, 5)):
        update = gen.v1_update()
        kind = update["sessionUpdate"]
        if kind == "user_message_chunk":
            kind = gen.pick(CHUNK_KINDS[1:])
            update["sessionUpdate"] = kind
        if kind in ROLE_OF and "messageId" in update:
            ids = IDS_OF[ROLE_OF[kind]]
            update["messageId"] = None if update["messageId"] is None else gen.pick(ids)
        if kind == "current_mode_update" and not history.has_mode():
            continue  # an agent without modes does not send one
        updates.append(update)
        history.sent(update)
    if not any(u["sessionUpdate"] in _V1_BREAKS for u in updates):
        # a turn with no answer at all would let two prompts' id-less user chunks
        # run together on replay: v1 cannot tell them apart
        chunk = gen.v1_chunk("agent_message_chunk", message_id=None)
        updates.append(chunk)
        history.sent(chunk)
    return updates


# --- running both sides --------------------------------------------------------------


def _document(store: SessionStore) -> dict[str, Json]:
    document: dict[str, Json] = store.to_json()
    return document


def _renumbered(document: dict[str, Json]) -> dict[str, Json]:
    """`document` with permission ids replaced by their order of arrival."""
    ids = {p["permissionId"]: f"#{n}" for n, p in enumerate(document["permissions"])}
    for permission in document["permissions"]:
        permission["permissionId"] = ids[permission["permissionId"]]
    for entry in document["timeline"]:
        if entry["kind"] == "permission":
            entry["id"] = ids[entry["id"]]
    return document


def _harness_init(version: int) -> dict[str, Json]:
    return peer_v1_init(loadSession=True) if version == 1 else peer_v2_init({})


async def _live_v2(
    h: Harness, setup: dict[str, Json], script: list[tuple[str, Update]]
) -> SessionStore:
    store = await h.new_session(
        SESSION_ID, **{k: v for k, v in setup.items() if k != "sessionId"}
    )
    for kind, payload in script:
        if kind == "update":
            await h.peer.update(SESSION_ID, payload)
        else:
            response = await h.peer.call("session/request_permission", payload)
            assert "result" in response, response
    await h.peer.sync()
    return store


async def _resume(
    h: Harness, method: str, replay: list[Update], result: dict[str, Json]
) -> SessionStore:
    call = h.start(h.client.resume_session, SESSION_ID, CWD, replay=True)
    request = await h.peer.expect_request(method)
    if method == "session/resume":
        assert request["params"]["replayFrom"] == {"type": "start"}
    for update in replay:
        await h.peer.update(SESSION_ID, update)
    await h.peer.reply(request, result)
    return await call.wait()


def _both(
    version: int,
    live: Callable[[Harness], Any],
    method: str,
    replay: Callable[[], list[Update]],
    result: Callable[[], dict[str, Json]],
) -> tuple[SessionStore, SessionStore]:
    stores: list[SessionStore] = []

    async def main() -> None:
        prompter = ScriptedPrompter(answer=lambda request: "yes")
        async with open_harness(_harness_init(version), prompter=prompter) as h:
            stores.append(await live(h))
            assert not h.diagnostics, h.diagnostics  # every live update accepted
        async with open_harness(_harness_init(version)) as h:
            stores.append(await _resume(h, method, replay(), result()))
            assert not h.diagnostics, h.diagnostics

    anyio.run(main)
    return stores[0], stores[1]


def run_v2(seed: int, shape: list[int], tally: Counter[str]) -> None:
    """One v2 session, live and replayed; the documents must agree."""
    gen = Gen(seed, REPLAY)
    setup = gen.v2_setup()
    history = HistoryV2(setup)
    script: list[tuple[str, Update]] = []
    for event_seed in shape:
        event = Gen(event_seed, REPLAY)
        if event.chance(0.1):
            params = event.v2_permission()
            script.append(("permission", params))
            history.asked(params)
            continue
        updates = [_v2_live(event)]
        if event.chance(0.05):  # a terminal reference that the content then drops
            tool_call_id = event.pick(REPLAY.tool_calls)
            reference = {"type": "terminal", "terminalId": f"dropped-{event_seed}"}
            updates = [
                {**event.v2_tool_call_update(tool_call_id), "content": [reference]},
                *updates,
                {**event.v2_tool_call_update(tool_call_id), "content": []},
            ]
        for update in updates:
            script.append(("update", update))
            history.sent(update)
    note(setup)
    note(script)
    mirror = FuzzSession(2)
    mirror.setup_v2(setup)
    for kind, payload in script:
        if kind == "update":
            mirror.receive({"sessionId": SESSION_ID, "update": payload})
        else:
            mirror.permission(payload, "yes")

    replay = history.replay(gen)
    tally.update(f"replayed {u['sessionUpdate']}" for u in replay)
    tally["permission requests"] += sum(kind == "permission" for kind, _ in script)
    a, b = _both(
        2,
        lambda h: _live_v2(h, setup, script),
        "session/resume",
        lambda: replay,
        lambda: {
            "configOptions": history.options,
            "availableCommands": history.commands,
        },
    )
    live, replayed = _document(a), _document(b)
    # the mirror is the client (permission ids are JSON-RPC ids there)
    assert _renumbered(_document(mirror.store)) == _renumbered(live)
    StoreWatch(b).check(final=True)

    # user messages: the agent's own live, history when replayed
    for message in live["messages"]:
        origin = message.pop("origin", None)
        assert origin is None or (origin == "agent" and message["role"] == "user")
    assert all("origin" not in message for message in replayed["messages"])
    # permissions are not replayed
    live.pop("permissions")
    assert replayed.pop("permissions") == []
    live["timeline"] = [e for e in live["timeline"] if e["kind"] != "permission"]
    # notices are live, never replayed
    assert "notices" not in replayed
    if live.pop("notices", None):
        tally["live notices"] += 1
    live["timeline"] = [e for e in live["timeline"] if e["kind"] != "agent_notice"]
    # terminals by id; orphans (a dropped reference, never any state) left out
    kept = set(history.terminals) | history.final_references()
    live_terminals = {t["terminalId"]: t for t in live.pop("terminals")}
    replayed_terminals = {t["terminalId"]: t for t in replayed.pop("terminals")}
    for terminal_id, terminal in live_terminals.items():
        if terminal_id not in kept:
            tally["orphan terminals"] += 1
            assert terminal == {
                "terminalId": terminal_id,
                "command": None,
                "cwd": None,
                "exitStatus": None,
                "output": "",
            }
    assert replayed_terminals == {i: t for i, t in live_terminals.items() if i in kept}
    assert replayed == live


def run_v1(seed: int, turns: list[int], tally: Counter[str]) -> None:
    """One v1 session of prompt turns, live and loaded; the documents must agree."""
    gen = Gen(seed, REPLAY)
    setup = gen.v1_setup()
    history = HistoryV1(setup)
    script: list[tuple[list[dict[str, Json]], list[Update], str]] = []
    for turn_seed in turns:
        turn = Gen(turn_seed, REPLAY)
        blocks = turn.prompt()
        history.prompted(blocks)
        script.append((blocks, _v1_turn(turn, history), turn.pick(("end_turn", "_x"))))
    note(setup)
    note(script)
    mirror = FuzzSession(1)
    mirror.setup_v1(setup)
    for blocks, updates, stop_reason in script:
        mirror.prompt(blocks)
        for update in updates:
            mirror.receive({"sessionId": SESSION_ID, "update": update})
        mirror.turn_end(stop_reason)

    async def live(h: Harness) -> SessionStore:
        store = await h.new_session(
            SESSION_ID, **{k: v for k, v in setup.items() if k != "sessionId"}
        )
        for blocks, updates, stop_reason in script:
            call = h.start(h.client.prompt, SESSION_ID, blocks)
            request = await h.peer.expect_request("session/prompt")
            for update in updates:
                await h.peer.update(SESSION_ID, update)
            await h.peer.reply(request, {"stopReason": stop_reason})
            assert await call.wait() == stop_reason
        return store

    for _, updates, _ in script:
        tally.update(u["sessionUpdate"] for u in updates)
        tally["id-less chunks"] += sum(
            u["sessionUpdate"] in ROLE_OF and u.get("messageId") is None
            for u in updates
        )
    a, b = _both(1, live, "session/load", history.replay, history.load_result)
    live_document, replayed = _document(a), _document(b)
    tally["mode options"] += any(
        _mode_select(o) for o in live_document["configOptions"]
    )
    assert _document(mirror.store) == live_document  # the mirror is the client
    StoreWatch(b).check(final=True)
    assert live_document.pop("stopReason") == script[-1][2]
    assert replayed.pop("stopReason") is None
    assert replayed == live_document


SEEDS: Final = st.integers(0, (1 << 32) - 1)
V2_REPLAY: Final = Examples(1000)
V1_REPLAY: Final = Examples(1000)


@V2_REPLAY.settings
@given(SEEDS, st.lists(SEEDS, max_size=12))
def _v2_replay(seed: int, shape: list[int]) -> None:
    V2_REPLAY.tick()
    run_v2(seed, shape, V2_REPLAY.tally)


@V1_REPLAY.settings
@given(SEEDS, st.lists(SEEDS, min_size=1, max_size=4))
def _v1_replay(seed: int, turns: list[int]) -> None:
    V1_REPLAY.tick()
    run_v1(seed, turns, V1_REPLAY.tally)


def test_v2_store_after_a_resume_replay_equals_the_live_store(
    record_property: RecordProperty,
) -> None:
    V2_REPLAY.run(_v2_replay, record_property)
    # the sessions reached every replay shape and every legitimate difference
    V2_REPLAY.reached(
        "replayed user_message",
        "replayed agent_message_chunk",
        "replayed agent_thought",
        "replayed tool_call_update",
        "replayed tool_call_content_chunk",
        "replayed plan_update",
        "replayed terminal_update",
        "replayed _vendor_sparkle",
        "replayed compaction_update",
        "replayed session_info_update",
        "replayed usage_update",
        "permission requests",
        "orphan terminals",
    )


def test_v1_store_after_a_session_load_equals_the_live_store(
    record_property: RecordProperty,
) -> None:
    V1_REPLAY.run(_v1_replay, record_property)
    V1_REPLAY.reached(
        "agent_thought_chunk",
        "id-less chunks",
        "tool_call",
        "tool_call_update",
        "plan",
        "current_mode_update",
        "config_option_update",
        "_vendor_sparkle",
        "mode options",
    )
