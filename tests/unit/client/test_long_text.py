"""A message chunk on a long line reaches the store as what the store keeps of it.

The dispatcher hands the chunk's text over in pieces (`LongText`); the client
validates and translates the update without it, then gives the store the
whole text, or, past what any message keeps, its ends and the count between
(`cut_chunk`). Either way the store ends as it would have with the whole text.
Sizes are made small here (the same code runs for a 200 MB chunk).
"""

from __future__ import annotations

from typing import Any

import pytest

from acp_tui.client.long_text import holds_long_text, put_back, set_aside
from acp_tui.protocol import dispatcher as dispatcher_module
from acp_tui.protocol import framing
from acp_tui.protocol.framing import LongText
from acp_tui.store import AppendMessageChunk, CutMessageText, SessionStore
from acp_tui.store import store as store_module
from tests.unit.client.peer import open_harness, v1_init, v2_init

CAP = 4_000


@pytest.fixture(autouse=True)
def _small_sizes(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(dispatcher_module, "LONG_LINE_BYTES", 1_000)
    monkeypatch.setattr(framing, "LONG_STRING_BYTES", 500)
    monkeypatch.setattr(framing, "DECODE_PIECE_BYTES", 300)
    monkeypatch.setattr(store_module, "DEFAULT_MAX_MESSAGE_CHARS", CAP)


def letters(size: int) -> str:
    return "".join(chr(ord("a") + n % 26) for n in range(size))


def chunk_update(version: int, value: str, kind: str = "agent_message_chunk") -> Any:
    update: dict[str, Any] = {
        "sessionUpdate": kind,
        "content": {"type": "text", "text": value},
    }
    if version == 2:
        update["messageId"] = "m1"
    return update


@pytest.mark.parametrize("version", [1, 2])
@pytest.mark.parametrize("size", [900, 3_000, 50_000])
async def test_a_long_chunk_leaves_the_store_as_the_whole_text_would(
    version: int, size: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    """900: a short line; 3,000: a long line the store keeps whole; 50,000: a
    long line past the cap, cut to its ends (never joined whole)."""
    body = letters(size)
    if size > CAP:

        def never(self: LongText) -> str:
            raise AssertionError("a text past the cap was joined whole")

        monkeypatch.setattr(LongText, "text", never)
    async with open_harness(v2_init({}) if version == 2 else v1_init()) as h:
        store = await h.new_session()
        await h.peer.update("s1", chunk_update(version, "Hello. "))
        await h.peer.update("s1", chunk_update(version, body))
        await h.peer.update("s1", chunk_update(version, " Bye."))
        await h.peer.sync()
    expected = SessionStore("s1")
    for part in ("Hello. ", body, " Bye."):
        key = store.messages()[0].message_id
        expected.apply(AppendMessageChunk(key, "agent", {"type": "text", "text": part}))
    assert store.to_json() == expected.to_json()
    (got,) = store.messages()
    (want,) = expected.messages()
    assert got == want
    assert (got.text_size, got.cut_chars, got.tail) == (
        want.text_size,
        want.cut_chars,
        want.tail,
    )
    assert got.text_size == len("Hello. ") + size + len(" Bye.")
    assert h.diagnostics == []


async def test_a_long_text_elsewhere_is_kept_whole() -> None:
    """A long `content.text` in an update that is not a message chunk (an unknown
    one here) is joined: the store keeps the payload as received."""
    body = letters(5_000)
    async with open_harness(v2_init({})) as h:
        store = await h.new_session()
        await h.peer.update("s1", chunk_update(2, body, kind="_vendor_update"))
        await h.peer.sync()
    (unknown,) = store.unknown_updates
    assert unknown["content"] == {"type": "text", "text": body}


def test_set_aside_and_put_back() -> None:
    text = LongText(["abc", "defgh", "ij"])
    params = {"sessionId": "s", "update": chunk_update(2, "")}
    params["update"]["content"]["text"] = text
    validated, aside = set_aside(params)
    assert aside is text
    assert validated["update"]["content"] == {"type": "text", "text": ""}
    assert params["update"]["content"]["text"] is text  # left alone
    op = AppendMessageChunk("m1", "agent", {"type": "text", "text": ""})
    assert put_back([op], text, 1_000) == [
        AppendMessageChunk("m1", "agent", {"type": "text", "text": "abcdefghij"})
    ]
    assert put_back([op], text, 4) == [
        AppendMessageChunk("m1", "agent", {"type": "text", "text": "ab"}),
        CutMessageText("m1", "agent", 6, "ij"),
    ]
    assert set_aside({"update": {"content": {"text": "short"}}})[1] is None
    assert set_aside("not an object") == ("not an object", None)


@pytest.mark.parametrize(
    "params",
    [
        {"sessionId": "s", "update": {"content": {"type": "text", "text": "short"}}},
        {"update": {"content": {"text": LongText(["x" * 3, "y"])}}},
        {"update": {"sessionUpdate": "x", "content": {"text": LongText(["z"])}}},
        {"update": {"content": [{"type": "text", "text": "a list"}]}},
        {"update": {"content": None}},
        {"update": {"content": "text"}},
        {"update": []},
        {"update": "none"},
        {"sessionId": "s"},
        "not an object",
        ["a", "list"],
        None,
    ],
)
def test_holds_long_text_says_whether_set_aside_has_work(params: Any) -> None:
    """The streaming fast path's test agrees with `set_aside` on any params."""
    expected = set_aside(params) != (params, None)
    assert holds_long_text(params) is expected
