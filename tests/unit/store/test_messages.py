"""Messages: chunks versus whole-message upserts (CLIENT-CHECKLIST §4.6)."""

from __future__ import annotations

import pytest

from acp_tui.store import (
    UNSET,
    AppendMessageChunk,
    Change,
    JSONObject,
    Message,
    SessionStore,
    UpsertMessage,
)
from acp_tui.store.ops import SetMessageOrigin
from tests.unit.store.helpers import image, text


def _content(store: SessionStore, message_id: str = "m1") -> list[JSONObject]:
    message = store.message(message_id)
    assert message is not None
    return list(message.content)


def test_whole_message_then_chunk_appends(store: SessionStore) -> None:
    store.apply(UpsertMessage("m1", "agent", content=[text("A")]))
    store.apply(AppendMessageChunk("m1", "agent", text("B")))
    assert _content(store) == [text("A"), text("B")]


def test_whole_message_replaces_earlier_chunks_then_chunk_appends(
    store: SessionStore,
) -> None:
    store.apply(AppendMessageChunk("m1", "agent", text("A")))
    store.apply(AppendMessageChunk("m1", "agent", text("B")))
    store.apply(UpsertMessage("m1", "agent", content=[text("C")]))
    assert _content(store) == [text("C")]
    store.apply(AppendMessageChunk("m1", "agent", text("D")))
    assert _content(store) == [text("C"), text("D")]
    message = store.message("m1")
    assert message is not None
    assert message.text == "CD"


@pytest.mark.parametrize("cleared", [None, []], ids=["null", "empty"])
def test_null_or_empty_content_clears_but_keeps_the_message(
    store: SessionStore, cleared: list[JSONObject] | None
) -> None:
    store.apply(AppendMessageChunk("m1", "agent", text("A")))
    store.apply(UpsertMessage("m1", "agent", content=cleared))
    message = store.message("m1")
    assert message is not None
    assert list(message.content) == []
    assert message.text == ""
    assert store.timeline() == (("message", "m1"),)


def test_meta_only_update_leaves_content(store: SessionStore) -> None:
    store.apply(AppendMessageChunk("m1", "agent", text("A")))
    store.apply(UpsertMessage("m1", "agent", meta={"k": 1}))
    message = store.message("m1")
    assert message is not None
    assert list(message.content) == [text("A")]
    assert message.meta == {"k": 1}


def test_new_id_with_omitted_content_starts_empty(store: SessionStore) -> None:
    changes = store.apply(UpsertMessage("m1", "user", meta={"k": 1}))
    assert changes == (Change("message", "m1", "added"),)
    assert store.message("m1") == Message("m1", "user", [], {"k": 1})


def test_chunk_for_unknown_id_creates_the_message(store: SessionStore) -> None:
    changes = store.apply(AppendMessageChunk("m9", "thought", text("hm")))
    assert changes == (Change("message", "m9", "added", text("hm")),)
    assert store.message("m9") == Message("m9", "thought", [text("hm")], origin="agent")


def test_roles_stay_separate_when_chunks_interleave(store: SessionStore) -> None:
    store.apply(AppendMessageChunk("u1", "user", text("hi ")))
    store.apply(AppendMessageChunk("t1", "thought", text("think ")))
    store.apply(AppendMessageChunk("a1", "agent", text("hello ")))
    store.apply(AppendMessageChunk("t1", "thought", text("more")))
    store.apply(AppendMessageChunk("a1", "agent", text("there")))
    store.apply(AppendMessageChunk("u1", "user", text("you")))
    by_id = {m.message_id: (m.role, m.text) for m in store.messages()}
    assert by_id == {
        "u1": ("user", "hi you"),
        "t1": ("thought", "think more"),
        "a1": ("agent", "hello there"),
    }


def test_a_thought_and_an_answer_sharing_an_id_are_two_messages(
    store: SessionStore,
) -> None:
    """claude-agent-acp gives a thinking block and the text after it one id."""
    changes = [
        store.apply(AppendMessageChunk("m1", "thought", text("Let me look."))),
        store.apply(AppendMessageChunk("m1", "agent", text("Here "))),
        store.apply(AppendMessageChunk("m1", "agent", text("it is."))),
        store.apply(AppendMessageChunk("m1", "thought", text(" More."))),
    ]
    assert [c[0].id for c in changes] == ["m1", "m1#agent", "m1#agent", "m1"]
    assert [c[0].action for c in changes] == ["added", "added", "appended", "appended"]
    thought, answer = store.messages()
    assert (thought.role, thought.text) == ("thought", "Let me look. More.")
    assert (answer.role, answer.text) == ("agent", "Here it is.")
    assert thought.message_id == answer.message_id == "m1"  # the id the agent sent
    assert store.timeline() == (("message", "m1"), ("message", "m1#agent"))
    assert store.message("m1#agent") == answer
    assert store.message("m1", "agent") == answer
    assert store.message("m1", "thought") == thought
    assert store.message("m1", "user") is None
    assert store.message_key("m1", "agent") == "m1#agent"


def test_a_key_another_message_took_is_not_reused(store: SessionStore) -> None:
    store.apply(AppendMessageChunk("m1#agent", "agent", text("an odd id")))
    store.apply(AppendMessageChunk("m1", "thought", text("thinking")))
    store.apply(AppendMessageChunk("m1", "agent", text("answer")))
    keys = [store.message_key("m1#agent", "agent"), store.message_key("m1", "agent")]
    assert keys == ["m1#agent", "m1#agent2"]
    assert [m.text for m in store.messages()] == ["an odd id", "thinking", "answer"]


def test_an_upsert_names_its_role_too(store: SessionStore) -> None:
    store.apply(AppendMessageChunk("m1", "thought", text("thinking")))
    changes = store.apply(UpsertMessage("m1", "agent", content=[text("whole")]))
    assert changes == (Change("message", "m1#agent", "added"),)
    assert [m.text for m in store.messages()] == ["thinking", "whole"]


def test_redaction_shortens_content_and_reports_replaced(store: SessionStore) -> None:
    store.apply(AppendMessageChunk("m1", "agent", text("secret ")))
    store.apply(AppendMessageChunk("m1", "agent", text("stuff")))
    changes = store.apply(UpsertMessage("m1", "agent", content=[text("[redacted]")]))
    assert changes == (Change("message", "m1", "replaced"),)
    message = store.message("m1")
    assert message is not None
    assert message.text == "[redacted]"
    assert list(message.content) == [text("[redacted]")]


def test_chunk_meta_is_not_the_message_meta(store: SessionStore) -> None:
    block: JSONObject = {"type": "text", "text": "A", "_meta": {"block": True}}
    store.apply(AppendMessageChunk("m1", "agent", block))
    message = store.message("m1")
    assert message is not None
    assert message.meta is None
    assert message.content[0] == block  # the block's own _meta is kept


def test_text_joins_text_blocks_and_runs_keep_non_text_separate(
    store: SessionStore,
) -> None:
    resource: JSONObject = {"type": "resource_link", "uri": "file:///a", "name": "a"}
    unknown: JSONObject = {"type": "_vendor_block", "x": 1}
    for block in [text("a"), text("b"), image(), text("c"), resource, unknown]:
        store.apply(AppendMessageChunk("m1", "agent", block))
    store.apply(AppendMessageChunk("m1", "agent", text("d")))
    store.apply(AppendMessageChunk("m1", "agent", text("e")))
    message = store.message("m1")
    assert message is not None
    assert message.text == "abcde"
    assert message.runs() == ("ab", image(), "c", resource, unknown, "de")
    assert len(message.content) == 8


def test_text_is_incremental_and_snapshots_keep_their_text(
    store: SessionStore,
) -> None:
    store.apply(AppendMessageChunk("m1", "agent", text("a")))
    first = store.message("m1")
    store.apply(AppendMessageChunk("m1", "agent", text("b")))
    second = store.message("m1")
    store.apply(AppendMessageChunk("m1", "agent", text("c")))
    third = store.message("m1")
    assert first is not None
    assert second is not None
    assert third is not None
    assert (third.text, second.text, first.text) == ("abc", "ab", "a")
    assert [len(m.content) for m in (first, second, third)] == [1, 2, 3]
    store.apply(UpsertMessage("m1", "agent", content=[text("z")]))
    assert (third.text, list(third.content)) == ("abc", [text(c) for c in "abc"])


def test_hand_built_message_text_and_runs() -> None:
    message = Message("m", "agent", [text("a"), image(), text("b"), text("c")])
    assert message.text == "abc"
    assert message.runs() == ("a", image(), "bc")


# --- _meta: alpha.3 three states and the newer draft's merge ----------------


def test_meta_replace_null_clears_omitted_keeps(store: SessionStore) -> None:
    store.apply(UpsertMessage("m1", "agent", meta={"a": 1, "b": 2}))
    store.apply(UpsertMessage("m1", "agent", meta={"c": 3}))
    assert _meta(store) == {"c": 3}
    store.apply(UpsertMessage("m1", "agent", content=[text("x")]))
    assert _meta(store) == {"c": 3}
    store.apply(UpsertMessage("m1", "agent", meta=None))
    assert _meta(store) is None


def test_meta_merge_by_top_level_key(store: SessionStore) -> None:
    store.apply(UpsertMessage("m1", "agent", meta={"a": 1, "b": {"deep": 1}}))
    store.apply(
        UpsertMessage(
            "m1", "agent", meta={"a": None, "b": {"other": 2}, "c": 3}, meta_merge=True
        )
    )
    assert _meta(store) == {"b": {"other": 2}, "c": 3}  # no deep merge
    store.apply(UpsertMessage("m1", "agent", meta={}, meta_merge=True))
    assert _meta(store) == {"b": {"other": 2}, "c": 3}
    store.apply(UpsertMessage("m1", "agent", meta=None, meta_merge=True))
    assert _meta(store) is None


def test_meta_merge_into_missing_meta(store: SessionStore) -> None:
    store.apply(UpsertMessage("m1", "agent", meta={}, meta_merge=True))
    assert _meta(store) is None
    store.apply(UpsertMessage("m1", "agent", meta={"a": 1}, meta_merge=True))
    assert _meta(store) == {"a": 1}


def test_meta_replace_keeps_null_valued_keys(store: SessionStore) -> None:
    store.apply(UpsertMessage("m1", "agent", meta={"a": None}))
    assert _meta(store) == {"a": None}


def _meta(store: SessionStore) -> object:
    message = store.message("m1")
    assert message is not None
    return None if message.meta is None else dict(message.meta)


# --- snapshots are read-only and cheap to compare -----------------------------


def test_query_returns_the_same_snapshot_until_a_change(store: SessionStore) -> None:
    store.apply(AppendMessageChunk("m1", "agent", text("a")))
    first = store.message("m1")
    assert store.message("m1") is first
    store.apply(AppendMessageChunk("m1", "agent", text("b")))
    second = store.message("m1")
    assert second is not first
    assert first is not None
    assert second is not None
    assert second.revision > first.revision


def test_returned_content_cannot_corrupt_the_store(store: SessionStore) -> None:
    store.apply(UpsertMessage("m1", "agent", content=[text("a")]))
    message = store.message("m1")
    assert message is not None
    copied = list(message.content)
    copied.append(text("evil"))
    with pytest.raises(AttributeError):
        message.content.append(text("evil"))  # type: ignore[attr-defined]
    assert _content(store) == [text("a")]


def test_the_callers_list_is_copied(store: SessionStore) -> None:
    mine = [text("a")]
    store.apply(UpsertMessage("m1", "agent", content=mine))
    mine.append(text("b"))
    store.apply(AppendMessageChunk("m1", "agent", text("c")))
    assert mine == [text("a"), text("b")]
    assert _content(store) == [text("a"), text("c")]


def test_unknown_message_is_none(store: SessionStore) -> None:
    assert store.message("nope") is None
    assert store.messages() == ()


def test_upsert_with_unset_content_is_the_default() -> None:
    assert UpsertMessage("m", "agent").content is UNSET


# --- who wrote a user message -------------------------------------------------


def test_user_messages_are_the_users_until_marked_as_the_agents(
    store: SessionStore,
) -> None:
    store.apply(UpsertMessage("u1", "user", content=[text("mine")]))
    store.apply(AppendMessageChunk("a1", "agent", text("reply")))
    user, agent = store.messages()
    assert (user.origin, agent.origin) == ("user", "agent")
    assert not user.from_agent
    assert not agent.from_agent

    changes = store.apply(SetMessageOrigin("u1", "agent"))
    assert changes == (Change("message", "u1", "updated"),)
    marked = store.message("u1")
    assert marked is not None
    assert marked.origin == "agent"
    assert marked.from_agent
    assert marked.revision > user.revision
    assert user.origin == "user"  # the earlier snapshot is unchanged
    assert store.to_json()["messages"] == [
        {
            "messageId": "u1",
            "role": "user",
            "content": [text("mine")],
            "origin": "agent",
        },
        {"messageId": "a1", "role": "agent", "content": [text("reply")]},
    ]

    # Unmarked again (the agent's prompt response named it as the prompt's).
    store.apply(SetMessageOrigin("u1", "user"))
    again = store.message("u1")
    assert again is not None
    assert not again.from_agent
    assert "origin" not in store.to_json()["messages"][0]  # type: ignore[index,operator]


def test_origin_marks_change_nothing_else(store: SessionStore) -> None:
    store.apply(AppendMessageChunk("a1", "agent", text("reply")))
    assert store.apply(SetMessageOrigin("a1", "user")) == ()  # an agent message
    assert store.apply(SetMessageOrigin("nope", "agent")) == ()  # unknown id
    assert store.apply(SetMessageOrigin("a1", "agent")) == ()
    message = store.message("a1")
    assert message is not None
    assert message.origin == "agent"
    store.apply(UpsertMessage("u1", "user", content=[text("x")]))
    store.apply(SetMessageOrigin("u1", "agent"))
    assert store.apply(SetMessageOrigin("u1", "agent")) == ()  # already marked
    # Later content keeps the mark: the message stays the agent's.
    store.apply(AppendMessageChunk("u1", "user", text("y")))
    later = store.message("u1")
    assert later is not None
    assert later.from_agent
    assert later.text == "xy"
