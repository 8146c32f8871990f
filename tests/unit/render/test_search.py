"""Searching the conversation: over the store's text, every kind of entry."""

from __future__ import annotations

from acp_tui.render.search import ConversationSearch, SearchMatch, entry_text
from acp_tui.store.ops import (
    AppendMessageChunk,
    AppendTerminalOutput,
    AppendToolCallContent,
    PatchTerminal,
    PatchToolCall,
    ReplacePlan,
)
from acp_tui.store.store import SessionStore
from acp_tui.store.values import JSONObject


def _text(text: str) -> JSONObject:
    return {"type": "text", "text": text}


def _say(store: SessionStore, message_id: str, text: str, role: str = "agent") -> None:
    store.apply(AppendMessageChunk(message_id, role, _text(text)))  # type: ignore[arg-type]


def _found(store: SessionStore, query: str, **kwargs: bool) -> list[SearchMatch]:
    search = ConversationSearch(store)
    search.set_query(query, **kwargs)
    search.finish()
    return search.matches


def test_messages_and_thoughts_are_found_in_order() -> None:
    store = SessionStore("s")
    _say(store, "u1", "Where is the Needle?", role="user")
    _say(store, "t1", "a needle, thought of", role="thought")
    _say(store, "a1", "needle here and NEEDLE there")
    found = _found(store, "needle")
    assert [(m.key, m.start) for m in found] == [
        (("message", "u1"), 13),
        (("message", "t1"), 2),
        (("message", "a1"), 0),
        (("message", "a1"), 16),
    ]
    assert [m.end - m.start for m in found] == [6] * 4


def test_case_sensitive_search() -> None:
    store = SessionStore("s")
    _say(store, "a1", "needle NEEDLE Needle")
    found = _found(store, "NEEDLE", case_sensitive=True)
    assert [m.start for m in found] == [7]


def test_tool_call_title_content_and_output_are_found() -> None:
    store = SessionStore("s")
    store.apply(PatchToolCall("c1", title="Read config.toml"))
    store.apply(
        AppendToolCallContent(
            "c1", {"type": "content", "content": _text("port = 8080")}
        )
    )
    assert len(_found(store, "config.toml")) == 1
    assert [m.key for m in _found(store, "8080")] == [("tool_call", "c1")]


def test_diff_text_is_found_in_both_shapes() -> None:
    store = SessionStore("s")
    store.apply(
        PatchToolCall(
            "v1",
            title="Edit",
            content=[
                {
                    "type": "diff",
                    "path": "/p/a.py",
                    "oldText": "x = 1\n",
                    "newText": "x = oldvalue_gone\n",
                }
            ],
        )
    )
    store.apply(
        PatchToolCall(
            "v2",
            title="Edit",
            content=[
                {
                    "type": "diff",
                    "patch": {"text": "--- a/b.py\n+++ b/b.py\n+patched_line\n"},
                }
            ],
        )
    )
    assert [m.key for m in _found(store, "oldvalue_gone")] == [("tool_call", "v1")]
    assert [m.key for m in _found(store, "patched_line")] == [("tool_call", "v2")]
    assert [m.key for m in _found(store, "a.py")] == [("tool_call", "v1")]


def test_terminal_text_is_the_emulated_screen() -> None:
    store = SessionStore("s")
    store.apply(PatchTerminal("t1", command="make"))
    # Colours and a carriage return: the screen reads "done", not "working".
    store.apply(
        AppendTerminalOutput("t1", b"\x1b[31mbuil\x1b[0md ok\r\nworking\rdone   \r\n")
    )
    assert [m.key for m in _found(store, "build ok")] == [("terminal", "t1")]
    assert _found(store, "working") == []
    assert [m.key for m in _found(store, "make")] == [("terminal", "t1")]


def test_a_terminal_in_a_tool_call_is_found_in_that_card() -> None:
    store = SessionStore("s")
    store.apply(PatchToolCall("c1", title="Run tests"))
    store.apply(AppendToolCallContent("c1", {"type": "terminal", "terminalId": "t1"}))
    store.apply(AppendTerminalOutput("t1", b"3 passed\r\n"))
    search = ConversationSearch(store)
    search.set_query("passed")
    search.finish()
    assert [m.key for m in search.matches] == [("tool_call", "c1")]
    store.apply(AppendTerminalOutput("t1", b"1 passed again\r\n"))
    search.changed([("terminal", "t1")])
    search.finish()
    assert len(search.matches) == 2


def test_plan_entries_are_found() -> None:
    store = SessionStore("s")
    entries = [{"content": "Write the tests", "status": "pending"}]
    store.apply(ReplacePlan("p1", "items", entries, {"entries": entries}))
    assert [m.key for m in _found(store, "the tests")] == [("plan", "p1")]


def test_markup_and_escapes_match_as_data() -> None:
    store = SessionStore("s")
    _say(store, "a1", "say [bold]hi[/bold] and \x1b[31mred and \\n")
    assert [m.start for m in _found(store, "[bold]hi")] == [4]
    assert len(_found(store, "\x1b[31m")) == 1
    assert len(_found(store, "\\n")) == 1
    assert entry_text(store, ("message", "a1")).startswith("say [bold]")


def test_streamed_text_is_scanned_only_where_it_grew() -> None:
    store = SessionStore("s")
    _say(store, "a1", "first nee")
    search = ConversationSearch(store)
    search.set_query("needle")
    search.finish()
    assert search.matches == []
    _say(store, "a1", "dle, and needle")
    search.changed([("message", "a1")])
    assert search.pending
    search.finish()
    assert [m.start for m in search.matches] == [6, 18]
    _say(store, "a2", "another needle")  # a new entry: the timeline changed
    assert search.pending
    search.finish()
    assert [m.key for m in search.matches][-1] == ("message", "a2")


def test_next_and_previous_wrap_round() -> None:
    store = SessionStore("s")
    _say(store, "a1", "x x")
    _say(store, "a2", "x")
    search = ConversationSearch(store)
    search.set_query("x")
    search.finish()
    matches = search.matches
    assert search.nearest(None, 1) == 0
    assert search.nearest(None, -1) == 2
    assert search.nearest(matches[0], 1) == 1
    assert search.nearest(matches[2], 1) == 0
    assert search.nearest(matches[0], -1) == 2
    assert search.index_of(matches[1]) == 1


def test_steps_are_bounded() -> None:
    store = SessionStore("s")
    for index in range(200):
        _say(store, f"a{index}", "needle " * 10)
    search = ConversationSearch(store)
    search.set_query("needle")
    assert not search.step(0.0)  # one entry at least, not all of them
    assert search.pending
    search.finish()
    assert len(search.matches) == 2000


def test_an_empty_query_finds_nothing() -> None:
    store = SessionStore("s")
    _say(store, "a1", "text")
    assert _found(store, "") == []
