"""Terminals: snapshots, chunks, exit status, the byte cap, references (§4.8)."""

from __future__ import annotations

import base64

import pytest

from acp_tui.store import (
    AppendTerminalOutput,
    AppendToolCallContent,
    Change,
    JSONObject,
    PatchTerminal,
    PatchToolCall,
    RecordTerminalError,
    SessionStore,
    Terminal,
)
from tests.unit.store.helpers import terminal_item


def _terminal(store: SessionStore, terminal_id: str = "term1") -> Terminal:
    terminal = store.terminal(terminal_id)
    assert terminal is not None
    return terminal


def test_first_update_creates_empty_state(store: SessionStore) -> None:
    changes = store.apply(PatchTerminal("term1", command="ls", cwd="/work"))
    assert changes == (Change("terminal", "term1", "added"),)
    terminal = _terminal(store)
    assert terminal == Terminal("term1", "ls", "/work")
    assert terminal.output == b""
    assert not terminal.exited


def test_chunk_for_unknown_terminal_creates_and_appends(store: SessionStore) -> None:
    changes = store.apply(AppendTerminalOutput("term1", b"hi"))
    assert changes == (Change("terminal", "term1", "added", b"hi"),)
    assert _terminal(store).output == b"hi"


def test_chunks_append_in_order_with_payload(store: SessionStore) -> None:
    store.apply(PatchTerminal("term1"))
    changes = [store.apply(AppendTerminalOutput("term1", c)) for c in [b"a", b"bc"]]
    assert changes == [
        (Change("terminal", "term1", "appended", b"a"),),
        (Change("terminal", "term1", "appended", b"bc"),),
    ]
    assert _terminal(store).output == b"abc"


def test_snapshot_replaces_earlier_chunks_then_chunks_append(
    store: SessionStore,
) -> None:
    store.apply(AppendTerminalOutput("term1", b"old output"))
    before = _terminal(store)
    changes = store.apply(PatchTerminal("term1", output=b"NEW"))
    assert changes == (Change("terminal", "term1", "replaced"),)
    after = _terminal(store)
    assert after.output == b"NEW"
    assert after.resets == before.resets + 1
    store.apply(AppendTerminalOutput("term1", b"+more"))
    assert _terminal(store).output == b"NEW+more"
    assert _terminal(store).resets == after.resets
    assert before.output == b"old output"  # an older snapshot is unchanged


def test_output_null_clears_and_resets(store: SessionStore) -> None:
    store.apply(AppendTerminalOutput("term1", b"data"))
    resets = _terminal(store).resets
    store.apply(PatchTerminal("term1", output=None))
    assert _terminal(store).output == b""
    assert _terminal(store).resets == resets + 1


def test_patch_without_output_keeps_it(store: SessionStore) -> None:
    store.apply(PatchTerminal("term1", output=b"snap"))
    store.apply(PatchTerminal("term1", command="make", meta={"a": 1}))
    terminal = _terminal(store)
    assert (terminal.output, terminal.command, terminal.meta) == (
        b"snap",
        "make",
        {"a": 1},
    )


def test_chunks_split_inside_utf8_and_escapes_are_kept_byte_exact(
    store: SessionStore,
) -> None:
    # Decoding is the emulator's job; the store keeps bytes exactly.
    data = "é\x1b[31mred\x1b[0m".encode()
    for i in range(len(data)):
        store.apply(AppendTerminalOutput("term1", data[i : i + 1]))
    store.apply(AppendTerminalOutput("term1", b"\xff\xfe"))  # invalid UTF-8
    assert _terminal(store).output == data + b"\xff\xfe"


def test_each_base64_chunk_decoded_alone(store: SessionStore) -> None:
    # "YQ==" + "Yg==" decode separately to b"ab"; joined first they would not.
    for chunk in ["YQ==", "Yg=="]:
        store.apply(AppendTerminalOutput("term1", base64.b64decode(chunk)))
    assert _terminal(store).output == b"ab"


@pytest.mark.parametrize(
    "status", [{}, {"exitCode": 0}, {"signal": "SIGTERM"}, {"exitCode": -1}]
)
def test_exit_status_objects_mean_exited_and_null_clears(
    store: SessionStore, status: JSONObject
) -> None:
    store.apply(PatchTerminal("term1", exit_status=status))
    assert _terminal(store).exited
    assert _terminal(store).exit_status == status
    store.apply(PatchTerminal("term1", command="x"))
    assert _terminal(store).exit_status == status
    store.apply(PatchTerminal("term1", exit_status=None))
    assert not _terminal(store).exited


def test_exit_status_sequence(store: SessionStore) -> None:
    seen = []
    statuses: list[JSONObject | None] = [{}, {"exitCode": 0}, {"signal": "SIGTERM"}]
    for status in [*statuses, None]:
        store.apply(PatchTerminal("term1", exit_status=status))
        seen.append((_terminal(store).exited, _terminal(store).exit_status))
    assert seen == [
        (True, {}),
        (True, {"exitCode": 0}),
        (True, {"signal": "SIGTERM"}),
        (False, None),
    ]


def test_other_fields_patch(store: SessionStore) -> None:
    store.apply(
        PatchTerminal(
            "term1", size={"cols": 80, "rows": 24}, capabilities={"cancel": {}}
        )
    )
    store.apply(PatchTerminal("term1", size=None))
    terminal = _terminal(store)
    assert (terminal.size, terminal.capabilities) == (None, {"cancel": {}})
    store.apply(PatchTerminal("term1", meta={"a": 1, "b": 2}))
    store.apply(PatchTerminal("term1", meta={"a": None}, meta_merge=True))
    assert _terminal(store).meta == {"b": 2}


# --- the byte cap -----------------------------------------------------------


def test_cap_drops_the_oldest_bytes() -> None:
    store = SessionStore("s", max_terminal_bytes=10)
    store.apply(AppendTerminalOutput("term1", b"0123456"))
    store.apply(AppendTerminalOutput("term1", b"789ab"))
    terminal = _terminal(store)
    assert terminal.output == b"23456789ab"
    assert terminal.dropped_bytes == 2
    store.apply(AppendTerminalOutput("term1", b"cdefghijklmnop"))
    terminal = _terminal(store)
    assert terminal.output == b"ghijklmnop"
    assert terminal.dropped_bytes == 16


def test_cap_applies_to_snapshots_and_reset_clears_the_count() -> None:
    store = SessionStore("s", max_terminal_bytes=4)
    store.apply(AppendTerminalOutput("term1", b"abcdef"))
    assert _terminal(store).dropped_bytes == 2
    store.apply(PatchTerminal("term1", output=b"xy"))
    assert (_terminal(store).output, _terminal(store).dropped_bytes) == (b"xy", 0)
    store.apply(PatchTerminal("term1", output=b"123456"))
    assert (_terminal(store).output, _terminal(store).dropped_bytes) == (b"3456", 2)


def test_cap_does_not_start_inside_a_utf8_sequence() -> None:
    store = SessionStore("s", max_terminal_bytes=4)
    store.apply(AppendTerminalOutput("term1", "aé€".encode()))  # 1 + 2 + 3 bytes
    # Keeping 4 bytes would start inside "é": its continuation byte is dropped too.
    assert _terminal(store).output == "€".encode()
    assert _terminal(store).dropped_bytes == 3
    store.apply(AppendTerminalOutput("term1", b"ab"))
    # The last 4 bytes would start inside "€": both continuation bytes go.
    assert _terminal(store).output == b"ab"
    assert _terminal(store).dropped_bytes == 6


def test_cap_over_many_small_and_large_chunks() -> None:
    cap = 50_000
    store = SessionStore("s", max_terminal_bytes=cap)
    expected = bytearray()
    sizes = [1, 7, 300, 17_000, 3, 40_000, 9_000, 2, 60_000, 11]
    for n, size in enumerate(sizes * 3):
        data = bytes([65 + n % 26]) * size
        expected += data
        store.apply(AppendTerminalOutput("term1", data))
        terminal = _terminal(store)
        assert terminal.output == bytes(expected[-cap:])
        assert terminal.dropped_bytes == max(0, len(expected) - cap)


def test_zero_cap_keeps_nothing() -> None:
    store = SessionStore("s", max_terminal_bytes=0)
    store.apply(AppendTerminalOutput("term1", b"abc"))
    assert (_terminal(store).output, _terminal(store).dropped_bytes) == (b"", 3)


def test_negative_cap_is_rejected() -> None:
    with pytest.raises(ValueError, match="negative"):
        SessionStore("s", max_terminal_bytes=-1)


def test_default_cap_is_32_mib(store: SessionStore) -> None:
    assert store.max_terminal_bytes == 32 * 2**20


# --- references from tool calls ---------------------------------------------


def test_reference_before_state(store: SessionStore) -> None:
    changes = store.apply(PatchToolCall("t1", content=[terminal_item("term1")]))
    assert changes == (
        Change("tool_call", "t1", "added"),
        Change("terminal", "term1", "added"),
    )
    assert _terminal(store) == Terminal("term1")
    changes = store.apply(AppendTerminalOutput("term1", b"out"))
    assert changes == (Change("terminal", "term1", "appended", b"out"),)
    assert store.tool_call_ids_for_terminal("term1") == ("t1",)
    assert store.timeline() == (("tool_call", "t1"),)


def test_reference_after_state(store: SessionStore) -> None:
    store.apply(PatchTerminal("term1", command="ls", output=b"a\n"))
    assert store.timeline() == (("terminal", "term1"),)
    changes = store.apply(AppendToolCallContent("t1", terminal_item("term1")))
    assert changes == (Change("tool_call", "t1", "added", terminal_item("term1")),)
    assert _terminal(store).output == b"a\n"
    assert store.terminal_ids_for_tool_call("t1") == ("term1",)
    assert store.timeline() == (("tool_call", "t1"),)


def test_terminal_id_independent_of_tool_call_id(store: SessionStore) -> None:
    store.apply(PatchToolCall("same", content=[terminal_item("same")]))
    store.apply(AppendTerminalOutput("same", b"x"))
    assert _terminal(store, "same").output == b"x"
    tool_call = store.tool_call("same")
    assert tool_call is not None
    assert list(tool_call.content) == [terminal_item("same")]


def test_terminals_in_order(store: SessionStore) -> None:
    store.apply(PatchTerminal("b"))
    store.apply(AppendTerminalOutput("a", b"x"))
    assert [t.terminal_id for t in store.terminals()] == ["b", "a"]
    assert store.terminal("nope") is None


def test_long_stream_compacts_and_old_snapshots_stay_valid() -> None:
    cap = 100_000
    store = SessionStore("s", max_terminal_bytes=cap)
    expected = bytearray()
    snapshots: list[tuple[Terminal, bytes]] = []
    for n in range(300):
        data = bytes([48 + n % 10]) * 10_000  # one chunk each: past the tail size
        expected += data
        store.apply(AppendTerminalOutput("term1", data))
        if n % 50 == 0:
            snapshots.append((_terminal(store), bytes(expected[-cap:])))
    assert _terminal(store).output == bytes(expected[-cap:])
    assert _terminal(store).dropped_bytes == len(expected) - cap
    for snapshot, output in snapshots:
        assert snapshot.output == output


def test_terminal_errors_keep_the_last_few_and_leave_the_output(
    store: SessionStore,
) -> None:
    store.apply(AppendTerminalOutput("term1", b"ok"))
    before = _terminal(store)
    for n in range(7):
        changes = store.apply(RecordTerminalError("term1", f"bad {n}"))
        assert changes == (Change("terminal", "term1", "updated"),)
    terminal = _terminal(store)
    assert terminal.errors == ("bad 2", "bad 3", "bad 4", "bad 5", "bad 6")
    assert terminal.output == b"ok"
    assert terminal.revision > before.revision
    assert before.errors == ()  # snapshots never change
    dumped = store.to_json()["terminals"]
    assert isinstance(dumped, list)
    assert isinstance(dumped[0], dict)
    assert dumped[0]["errors"] == list(terminal.errors)


def test_terminal_error_for_an_unknown_terminal_creates_it(store: SessionStore) -> None:
    changes = store.apply(RecordTerminalError("term9", "bad"))
    assert changes == (Change("terminal", "term9", "added"),)
    assert _terminal(store, "term9").errors == ("bad",)
