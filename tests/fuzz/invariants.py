"""The store's documented invariants, checked after every step of a fuzz stream.

`StoreWatch(store).check(changes)` asserts what `acp_tui/store/store.py`,
`model.py` and `changes.py` promise, whatever the input was:

* `to_json()` works, is ready for `json.dumps`, is a deep copy, and lists what the
  queries list;
* queries by id return the listed snapshot; message text is the join of its text
  blocks; a tool call's terminal ids are its terminal content items, and the
  terminal ↔ tool-call links agree both ways and point at existing terminals;
* the timeline lists every message, tool call, plan, permission and unknown update
  once, in order of first appearance, and only standalone terminals;
* revisions come from one counter (distinct, positive) and never go back; an
  unchanged entity is the same object; snapshots taken earlier never change;
* every `Change` names an entity that exists, appends carry their payload;
* terminal output stays within the byte cap;
* every stored value has the type the model promises (the translator is trusted
  with types: a wire value of the wrong type must never reach the store).
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any

from acp_tui.store.changes import Change
from acp_tui.store.model import Message, Terminal, ToolCall, block_text
from acp_tui.store.store import SessionStore

_ENTITY_KINDS = ("message", "tool_call", "plan", "terminal", "permission")


def _terminal_refs(tool_call: ToolCall) -> tuple[str, ...]:
    refs = (
        item.get("terminalId")
        for item in tool_call.content
        if item.get("type") == "terminal"
    )
    return tuple(dict.fromkeys(r for r in refs if isinstance(r, str)))


class StoreWatch:
    """Checks one store's invariants after each step, and between steps."""

    def __init__(self, store: SessionStore) -> None:
        self.store = store
        self._entities: dict[tuple[str, str], Any] = {}
        self._frozen: list[tuple[Message | ToolCall, tuple[Any, ...]]] = []
        self._terminal_bytes: list[tuple[Terminal, bytes]] = []
        self._timeline: tuple[tuple[str, str], ...] = store.timeline()
        self._timeline_revision = store.timeline_revision

    def _lookup(self, kind: str, entity_id: str) -> Any:
        store = self.store
        if kind == "message":
            return store.message(entity_id)
        if kind == "tool_call":
            return store.tool_call(entity_id)
        if kind == "plan":
            return store.plan(entity_id)
        if kind == "terminal":
            return store.terminal(entity_id)
        return store.permission(entity_id)

    def check(
        self, changes: Sequence[Change] = (), *, final: bool = False
    ) -> dict[str, Any]:
        """Assert every invariant; returns `to_json()`.

        With `final`, also that `to_json()` is a deep copy (once per session: it
        costs another `to_json()`).
        """
        store = self.store
        messages = store.messages()
        tool_calls = store.tool_calls()
        plans = store.plans()
        terminals = store.terminals()
        permissions = store.permissions()
        listed: dict[str, Sequence[Any]] = {
            "message": [(m.key, m) for m in messages],  # a message is id + role
            "tool_call": [(t.tool_call_id, t) for t in tool_calls],
            "plan": [(p.plan_id, p) for p in plans],
            "terminal": [(t.terminal_id, t) for t in terminals],
            "permission": [(p.permission_id, p) for p in permissions],
        }

        # queries agree with the listings; ids are unique
        for kind, entries in listed.items():
            ids = [entity_id for entity_id, _ in entries]
            assert len(set(ids)) == len(ids), (kind, ids)
            for entity_id, entity in entries:
                assert self._lookup(kind, entity_id) is entity

        for message in messages:
            texts = [t for b in message.content if (t := block_text(b)) is not None]
            assert message.text == "".join(texts)
            assert len(message.runs()) <= len(message.content)

        terminal_ids = {t.terminal_id for t in terminals}
        for tool_call in tool_calls:
            refs = _terminal_refs(tool_call)
            assert tool_call.terminal_ids == refs
            assert store.terminal_ids_for_tool_call(tool_call.tool_call_id) == refs
            for terminal_id in refs:
                assert terminal_id in terminal_ids
                users = store.tool_call_ids_for_terminal(terminal_id)
                assert tool_call.tool_call_id in users
        for terminal in terminals:
            for tool_call_id in store.tool_call_ids_for_terminal(terminal.terminal_id):
                user = store.tool_call(tool_call_id)
                assert user is not None
                assert terminal.terminal_id in user.terminal_ids
            assert terminal.output_size == len(terminal.output)
            assert terminal.output_size <= store.max_terminal_bytes
            assert terminal.output_tail(7) == terminal.output[-7:]

        # the timeline
        timeline = store.timeline()
        assert len(set(timeline)) == len(timeline), timeline
        for kind in ("message", "tool_call", "plan", "permission"):
            in_timeline = [i for k, i in timeline if k == kind]
            assert in_timeline == [i for i, _ in listed[kind]], kind
        unknown = [i for k, i in timeline if k == "unknown_update"]
        assert unknown == [str(n) for n in range(len(store.unknown_updates))]
        for kind, entity_id in timeline:
            if kind == "terminal":
                assert entity_id in terminal_ids
                assert not store.tool_call_ids_for_terminal(entity_id)
        if timeline != self._timeline:
            assert store.timeline_revision > self._timeline_revision
        assert store.timeline_revision >= self._timeline_revision
        previous = [e for e in self._timeline if e[0] != "terminal"]
        current = [e for e in timeline if e[0] != "terminal"]
        assert current[: len(previous)] == previous  # append-only
        self._timeline = timeline
        self._timeline_revision = store.timeline_revision

        # revisions: one counter, never back; unchanged entities are the same object
        revisions = [e.revision for entries in listed.values() for _, e in entries]
        assert all(r > 0 for r in revisions), revisions
        assert len(set(revisions)) == len(revisions), revisions
        current_entities = {
            (kind, entity_id): entity
            for kind, entries in listed.items()
            for entity_id, entity in entries
        }
        for key, old in self._entities.items():
            new = current_entities.get(key)
            assert new is not None, key  # nothing is ever removed
            assert new.revision >= old.revision
            assert (new is old) == (new.revision == old.revision), key
        self._entities = current_entities

        # snapshots taken earlier never change
        for snapshot, content in self._frozen:
            assert tuple(snapshot.content) == content
        for terminal, output in self._terminal_bytes:
            assert terminal.output == output
        self._frozen = [(m, tuple(m.content)) for m in messages]
        self._frozen += [(t, tuple(t.content)) for t in tool_calls]
        self._terminal_bytes = [(t, t.output) for t in terminals]

        # changes name existing entities; appends carry their payload
        for change in changes:
            if change.kind in _ENTITY_KINDS:
                assert change.id is not None
                assert self._lookup(change.kind, change.id) is not None, change
            if change.action == "appended":
                assert change.payload is not None, change

        assert store.state.is_idle == (store.state.state == "idle")
        _check_types(store)

        # the document
        document: dict[str, Any] = store.to_json()
        text = json.dumps(document)
        assert document["timeline"] == [{"kind": k, "id": i} for k, i in timeline]
        assert len(document["messages"]) == len(messages)
        assert len(document["toolCalls"]) == len(tool_calls)
        assert len(document["plans"]) == len(plans)
        assert len(document["terminals"]) == len(terminals)
        assert len(document["permissions"]) == len(permissions)
        if final:
            document["messages"].clear()  # a deep copy: the store is not touched
            document = store.to_json()
            assert json.dumps(document) == text
        return document


def _object(value: Any) -> bool:
    return isinstance(value, Mapping)


def _optional(value: Any, kind: type | tuple[type, ...]) -> bool:
    return value is None or isinstance(value, kind)


def _objects(values: Sequence[Any]) -> bool:
    return all(isinstance(v, Mapping) for v in values)


def _check_types(store: SessionStore) -> None:
    """Every stored value has the type `acp_tui.store.model` declares."""
    for m in store.messages():
        assert isinstance(m.message_id, str)
        assert m.role in ("user", "agent", "thought"), m
        assert _objects(m.content), m
        assert _optional(m.meta, Mapping), m
    for t in store.tool_calls():
        assert _optional(t.title, str), t
        assert isinstance(t.kind, str), t
        assert isinstance(t.status, str), t
        assert _objects(t.content), t
        assert _objects(t.locations), t
        assert _optional(t.meta, Mapping), t
        assert _optional(t.name, str), t
        assert _optional(t.capabilities, Mapping), t
    for p in store.plans():
        assert isinstance(p.plan_type, str), p
        assert _objects(p.entries), p
        assert _object(p.raw), p
    for terminal in store.terminals():
        assert _optional(terminal.command, str), terminal
        assert _optional(terminal.cwd, str), terminal
        assert _optional(terminal.exit_status, Mapping), terminal
        assert _optional(terminal.meta, Mapping), terminal
        assert _optional(terminal.size, Mapping), terminal
        assert _optional(terminal.capabilities, Mapping), terminal
        assert all(isinstance(e, str) for e in terminal.errors), terminal
    for permission in store.permissions():
        assert _optional(permission.title, str), permission
        assert _optional(permission.subject, Mapping), permission
        assert _objects(permission.options), permission
        assert _optional(permission.outcome, Mapping), permission
    assert _objects(store.config_options)
    assert _objects(store.commands)
    assert _objects(store.unknown_updates)
    info = store.session_info
    assert _optional(info.title, str), info
    assert _optional(info.updated_at, str), info
    assert _optional(info.meta, Mapping), info
    usage = store.usage
    if usage is not None:
        assert _optional(usage.used, int), usage
        assert _optional(usage.size, int), usage
        assert _optional(usage.cost, Mapping), usage
        assert _optional(usage.meta, Mapping), usage
    state = store.state
    assert isinstance(state.state, str), state
    assert _optional(state.stop_reason, str), state
    assert _optional(state.error, Mapping), state
    assert _optional(state.raw, Mapping), state
    for notice in store.notices:
        assert isinstance(notice.severity, str), notice
        assert isinstance(notice.title, str), notice
        assert _optional(notice.description, str), notice
