"""Fuzz: random v1 and v2 sessions through the client's inbound path, zero crashes.

Each example is a short session: `session/update` notifications (every kind the
translators know, vendor and future kinds), interleaved with what the session
layer writes itself (the `session/new` result, v1 prompts and turn ends,
cancels, permission requests). `FuzzSession` feeds them exactly as `AcpClient`
does: raw JSON, the version's notification model, the translator, the store.

* Valid streams: every update and request is accepted (none is rejected), and
  after every step the store keeps its invariants (`StoreWatch`) and `to_json()`
  works.
* Mutated streams: the same, plus updates and requests with random edits (a
  dropped key, `null`, a wrong type, an unknown tag or enum value, a huge or
  hostile string, a huge number, a deep nesting, an extra key) and updates of
  the other protocol version. A mutated message may be rejected, but only with
  the `ValidationError` the client catches; nothing else may raise, and the
  invariants still hold after every step.

Each test reports how many examples it ran (see `tests/fuzz/conftest.py`).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Final, TypeAlias

from hypothesis import given, note
from hypothesis import strategies as st

from acp_tui.client.v2 import TOO_DEEP_TITLE
from tests.fuzz.client_path import FuzzSession, Version
from tests.fuzz.examples import Examples
from tests.fuzz.invariants import StoreWatch
from tests.fuzz.wire import SESSION_ID, Gen

Strategy: TypeAlias = st.SearchStrategy[Any]
Event: TypeAlias = tuple[str, Any]
RecordProperty: TypeAlias = Callable[[str, object], None]

MAX_EVENTS: Final = 8
SEEDS: Final = st.integers(0, (1 << 32) - 1)
_ANSWERS: Final = ("yes", "no", "not offered", None)
_STOP_REASONS: Final = ("end_turn", "cancelled", "_x", None)

_VALID_EVENTS: Final = ("update", "update", "update", "permission", "cancel")
_V1_EVENTS: Final = ("prompt", "turn_end")
_MUTATED_EVENTS: Final = (
    "mutated update",
    "mutated update",
    "mutated update",
    "other version",
    "mutated permission",
)


def _structure(version: Version, *, mutate: bool) -> Strategy:
    """A session's shape: a setup seed and a list of (event kind, seed)."""
    kinds = _VALID_EVENTS + (_V1_EVENTS if version == 1 else ())
    if mutate:
        kinds += _MUTATED_EVENTS
    events = st.lists(
        st.tuples(st.sampled_from(kinds), SEEDS), min_size=1, max_size=MAX_EVENTS
    )
    return st.tuples(SEEDS, events)


def build(
    version: Version, mutate: bool, setup_seed: int, shape: list[tuple[str, int]]
) -> tuple[Any, list[Event]]:
    """The session's payloads: its `session/new` result and its events."""
    gen = Gen(setup_seed)
    setup = gen.v1_setup() if version == 1 else gen.v2_setup()
    if mutate:
        setup = gen.mutated(setup)
    events: list[Event] = []
    for kind, seed in shape:
        gen = Gen(seed)
        update = gen.v1_update if version == 1 else gen.v2_update
        permission = gen.v1_permission if version == 1 else gen.v2_permission
        if kind == "update":
            events.append(("update", {"sessionId": SESSION_ID, "update": update()}))
        elif kind == "mutated update":
            params = {"sessionId": SESSION_ID, "update": update()}
            events.append(("update", gen.mutated(params)))
        elif kind == "other version":
            other = gen.v2_update if version == 1 else gen.v1_update
            events.append(("update", {"sessionId": SESSION_ID, "update": other()}))
        elif kind == "permission":
            events.append(("permission", (permission(), gen.pick(_ANSWERS))))
        elif kind == "mutated permission":
            params = gen.mutated(permission())
            events.append(("permission", (params, gen.pick(_ANSWERS))))
        elif kind == "prompt":
            events.append(("prompt", gen.prompt()))
        elif kind == "turn_end":
            events.append(("turn_end", gen.pick(_STOP_REASONS)))
        else:
            events.append(("cancel", None))
    return setup, events


def play(
    version: Version, setup: Any, events: list[Event], budget: Examples, *, valid: bool
) -> None:
    """Play one session, checking the store after every step."""
    note(setup)
    note(events)
    session = FuzzSession(version)
    watch = StoreWatch(session.store)
    watch.check()
    outcome = session.setup_v1(setup) if version == 1 else session.setup_v2(setup)
    budget.tally[f"setup {outcome}"] += 1
    assert outcome == "applied" or not valid
    watch.check(session.changes)
    for kind, payload in events:
        if kind == "update":
            outcome = session.receive(payload)
            budget.tally[f"update {outcome}"] += 1
            assert outcome == "applied" or not valid, payload
            notices = {n.notice_id: n.title for n in session.store.notices}
            for change in session.changes:
                if (
                    change.kind == "notice"
                    and notices.get(str(change.id)) == TOO_DEEP_TITLE
                ):
                    budget.tally["update too deep"] += 1
        elif kind == "permission":
            params, answer = payload
            outcome = session.permission(params, answer)
            budget.tally[f"permission {outcome}"] += 1
            assert outcome == "applied" or not valid, params
        elif kind == "prompt":
            session.prompt(payload)
        elif kind == "turn_end":
            session.turn_end(payload)
        else:
            session.cancel()
        watch.check(session.changes)
    watch.check(final=True)


def _run(version: Version, mutate: bool, budget: Examples, shape: Any) -> None:
    budget.tick()
    setup, events = build(version, mutate, *shape)
    play(version, setup, events, budget, valid=not mutate)


V2_VALID: Final = Examples(2000)
V1_VALID: Final = Examples(2000)
V2_MUTATED: Final = Examples(2000)
V1_MUTATED: Final = Examples(2000)


@V2_VALID.settings
@given(_structure(2, mutate=False))
def _v2_valid(shape: Any) -> None:
    _run(2, False, V2_VALID, shape)


@V1_VALID.settings
@given(_structure(1, mutate=False))
def _v1_valid(shape: Any) -> None:
    _run(1, False, V1_VALID, shape)


@V2_MUTATED.settings
@given(_structure(2, mutate=True))
def _v2_mutated(shape: Any) -> None:
    _run(2, True, V2_MUTATED, shape)


@V1_MUTATED.settings
@given(_structure(1, mutate=True))
def _v1_mutated(shape: Any) -> None:
    _run(1, True, V1_MUTATED, shape)


def test_fuzz_valid_v2_sessions_are_accepted_and_keep_the_store_sound(
    record_property: RecordProperty,
) -> None:
    V2_VALID.run(_v2_valid, record_property)
    V2_VALID.reached("update applied", "permission applied", "setup applied")
    assert not V2_VALID.tally["update too deep"]  # valid sessions are shallow


def test_fuzz_valid_v1_sessions_are_accepted_and_keep_the_store_sound(
    record_property: RecordProperty,
) -> None:
    V1_VALID.run(_v1_valid, record_property)
    V1_VALID.reached("update applied", "permission applied", "setup applied")
    assert not V1_VALID.tally["update too deep"]


def test_fuzz_mutated_v2_sessions_reject_cleanly_and_never_crash(
    record_property: RecordProperty,
) -> None:
    V2_MUTATED.run(_v2_mutated, record_property)
    # the mutations reach every outcome: accepted, rejected, and not routed
    V2_MUTATED.reached(
        "update applied",
        "update rejected",
        "update ignored",
        "permission applied",
        "permission rejected",
        "setup applied",
        "setup rejected",
        "update too deep",
    )


def test_fuzz_mutated_v1_sessions_reject_cleanly_and_never_crash(
    record_property: RecordProperty,
) -> None:
    V1_MUTATED.run(_v1_mutated, record_property)
    V1_MUTATED.reached(
        "update applied",
        "update rejected",
        "update ignored",
        "permission applied",
        "permission rejected",
        "setup applied",
        "setup rejected",
        "update too deep",
    )
