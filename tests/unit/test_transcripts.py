"""Transcripts: the JSON-lines journal of each session, its reader and its index."""

from __future__ import annotations

import base64
import json
import os
import stat
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from acp_tui.client.session import SessionOpening
from acp_tui.storage import paths, spool, transcripts
from acp_tui.storage.transcripts import (
    close_transcript,
    journaled_store,
    list_transcripts,
    read_transcript,
    slug,
    transcript_file,
    transcript_store_factory,
    transcripts_dir,
)
from acp_tui.store import (
    AddElicitation,
    AppendMessageChunk,
    AppendTerminalOutput,
    CompleteElicitation,
    PatchSessionInfo,
    PatchTerminal,
    ResolveElicitation,
    SessionStore,
    SetAvailableCommands,
    SetConfigOptions,
    SetState,
    UpsertMessage,
)
from acp_tui.store import store as store_module
from acp_tui.store.config import ANY_KEYS, ConfigOption, read_options
from acp_tui.store.journal import JournaledStore
from acp_tui.store.ops import (
    AddPermission,
    AppendMessageTexts,
    InSubagent,
    InterleavedTexts,
    PatchSubagent,
    SetMessageOrigin,
)


def neutral(options: list[Any]) -> list[ConfigOption]:
    """Wire-form config options as the store keeps them (either spelling)."""
    return read_options(options, ANY_KEYS)


@pytest.fixture(autouse=True)
def _home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ACP_TUI_HOME", str(tmp_path / "home"))
    # Summaries are rewritten for every change here (the throttle has its test).
    monkeypatch.setattr(transcripts, "SUMMARY_INTERVAL", 0.0)


def text(value: str) -> dict[str, Any]:
    return {"type": "text", "text": value}


def open_store(
    session_id: str = "s1", agent: str = "fake", how: Any = "new", **options: Any
) -> JournaledStore:
    return journaled_store(
        agent, session_id, cwd="/work", how=how, protocol_version=2, **options
    )


def converse(store: SessionStore, user: str = "hello", agent: str = "hi") -> None:
    store.apply_many(
        [
            UpsertMessage(f"u-{user}", "user", content=[text(user)]),
            SetState("running"),
        ]
    )
    for word in agent.split():
        store.apply(AppendMessageChunk(f"a-{user}", "agent", text(word + " ")))
    store.apply(SetState("idle", "end_turn"))


def lines(path: Path) -> list[Any]:
    return [json.loads(line) for line in path.read_bytes().splitlines()]


# --- names --------------------------------------------------------------------


def test_slug_keeps_safe_characters_and_escapes_the_rest() -> None:
    assert slug("sess_1-A.b") == "sess_1-A.b"
    assert slug("a/b c") == "a%2Fb%20c"
    assert slug("..") == "%2E."
    assert slug(".hidden") == "%2Ehidden"
    assert slug("é") == "%C3%A9"
    assert slug("") == "%"
    assert slug("%") == "%25"


def test_long_slugs_are_cut_with_a_hash() -> None:
    long_a, long_b = "x" * 300 + "a", "x" * 300 + "b"
    assert len(slug(long_a)) <= 150
    assert slug(long_a) != slug(long_b)
    assert "~" in slug(long_a)


@given(st.text(max_size=40), st.text(max_size=40))
def test_slugs_are_file_names_and_distinct(first: str, second: str) -> None:
    name = slug(first)
    assert "/" not in name
    assert "\0" not in name
    assert not name.startswith(".")
    if first != second:
        assert slug(second) != name


def test_the_file_lives_under_the_data_dir_per_agent(tmp_path: Path) -> None:
    path = transcript_file("python agent.py", "sess/1")
    assert (
        path
        == paths.data_dir() / "transcripts" / "python%20agent.py" / "sess%2F1.jsonl"
    )
    assert path.is_relative_to(tmp_path / "home")


def test_transcript_directories_and_files_are_private() -> None:
    old_umask = os.umask(0o022)
    try:
        store = open_store()
        converse(store)
        path = transcript_file("fake", "s1")
        summary = path.with_name("s1.summary.json")
        path.chmod(0o644)  # as an older version may have left it
        transcripts.close_transcript(store)
        converse(store, "again")  # reopens the file: tightened
    finally:
        os.umask(old_umask)
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert stat.S_IMODE(summary.stat().st_mode) == 0o600
    assert stat.S_IMODE(path.parent.stat().st_mode) == 0o700
    assert stat.S_IMODE(path.parent.parent.stat().st_mode) == 0o700


# --- writing and reading ------------------------------------------------------


def test_the_transcript_rebuilds_the_live_store() -> None:
    store = open_store()
    store.apply(
        SetConfigOptions(neutral([{"configId": "mode", "currentValue": "ask"}]))
    )
    converse(store, "hello", "hi there")
    store.apply(PatchSessionInfo(title="Greeting"))
    store.apply(PatchTerminal("t", command="ls", output=b"\x00\xff\r\n"))
    path = transcript_file("fake", "s1")
    header, *records = lines(path)
    assert header == {
        "open": {
            "version": 2,  # 1 kept config options in wire form (upgraded when read)
            "sessionId": "s1",
            "agent": "fake",
            "protocolVersion": 2,
            "cwd": "/work",
            "time": header["open"]["time"],
            "how": "new",
            "command": "fake",
        }
    }
    assert records[0]["op"] == "SetConfigOptions"  # held back until the message
    loaded = read_transcript(path)
    assert loaded is not None
    assert loaded.store.to_json() == store.to_json()
    assert loaded.header is not None
    assert loaded.header.session_id == "s1"
    assert (loaded.segments, loaded.skipped) == (1, 0)
    assert stat.S_IMODE(path.stat().st_mode) == 0o600


def test_the_transcript_keeps_elicitations_and_their_answers() -> None:
    """Questions asked (a form in a tool call, a URL completed) and how they
    were answered are rebuilt from the transcript as they were live."""
    store = open_store()
    converse(store, "set it up", "a few questions first")
    schema: dict[str, Any] = {
        "type": "object",
        "properties": {"name": {"type": "string"}},
        "required": ["name"],
    }
    store.apply_many(
        [
            AddElicitation("4", "form", "Name?", schema, tool_call_id="c1"),
            ResolveElicitation("4", {"action": "accept", "content": {"name": "x"}}),
            AddElicitation("5", "url", "Log in", url="https://a.test/", url_id="e"),
            ResolveElicitation("5", {"action": "accept"}),
            CompleteElicitation("5"),
        ]
    )
    loaded = read_transcript(transcript_file("fake", "s1"))
    assert loaded is not None
    assert loaded.store.to_json() == store.to_json()
    assert [e.answer_text() for e in loaded.store.elicitations()] == [
        "answered — name: x",
        "accepted, completed",
    ]


def test_the_transcript_replays_subagents_and_their_own_work() -> None:
    """A subagent's lane (its status, times and own messages, tool calls and
    permissions, asked through its own store) is rebuilt from the transcript."""
    store = open_store()
    converse(store, "delegate", "on it")
    store.apply(PatchSubagent("c1", title="Explore", can_cancel=True, at_ms=1_000))
    text = {"type": "text", "text": "looking"}
    store.apply(InSubagent("c1", AppendMessageChunk("m", "agent", text)))
    own = store.subagent_store("c1")
    assert own is not None
    own.apply(AddPermission("7", "Write?", tool_call_id="w1"))  # through the parent
    store.apply(PatchSubagent("c1", status="failed", error="boom", at_ms=4_000))
    loaded = read_transcript(transcript_file("fake", "s1"))
    assert loaded is not None
    assert loaded.store.to_json() == store.to_json()
    assert loaded.store.subagents() == store.subagents()
    rebuilt = loaded.store.subagent_store("c1")
    assert rebuilt is not None
    assert [p.permission_id for p in rebuilt.permissions()] == ["7"]


def test_a_thought_and_an_answer_sharing_an_id_stay_two_messages() -> None:
    """claude-agent-acp's shape: the transcript rebuilds both, in their order."""
    store = open_store()
    converse(store, "hello", "hi")
    store.apply(AppendMessageChunk("msg_1", "thought", text("Let me look.")))
    store.apply(AppendMessageChunk("msg_1", "agent", text("Here it is.")))
    loaded = read_transcript(transcript_file("fake", "s1"))
    assert loaded is not None
    assert loaded.store.to_json() == store.to_json()
    thought, answer = loaded.store.messages()[-2:]
    assert (thought.role, thought.text) == ("thought", "Let me look.")
    assert (answer.role, answer.text) == ("agent", "Here it is.")
    assert loaded.store.timeline()[-2:] == (
        ("message", "msg_1"),
        ("message", "msg_1#agent"),
    )


def test_each_apply_call_is_on_disk_at_once() -> None:
    """No buffering between calls: a crash right after an apply loses nothing."""
    store = open_store()
    converse(store)
    path = transcript_file("fake", "s1")
    before = len(lines(path))
    store.apply(AppendMessageChunk("late", "agent", text("x")))
    assert len(lines(path)) == before + 1
    store.apply_many([SetState("running"), SetState("idle")])
    assert len(lines(path)) == before + 3


def test_a_store_without_messages_writes_nothing() -> None:
    store = open_store()
    store.apply(SetConfigOptions(neutral([{"configId": "m"}])))
    store.apply(SetAvailableCommands([{"name": "x"}]))
    assert not transcript_file("fake", "s1").exists()
    assert list_transcripts() == []


def test_many_lines_without_messages_start_the_file_anyway() -> None:
    store = open_store()
    for _ in range(transcripts.PENDING_LINES):
        store.apply(SetState("running"))
    assert len(lines(transcript_file("fake", "s1"))) == transcripts.PENDING_LINES + 1


def test_the_last_segment_with_messages_is_rebuilt() -> None:
    first = open_store()
    converse(first, "one", "first answer")
    replayed = open_store(how="load")
    converse(replayed, "one", "first answer")
    converse(replayed, "two", "second answer")
    # A third store that got no message: a segment with other ops only.
    empty = open_store(how="resume")
    for _ in range(transcripts.PENDING_LINES):
        empty.apply(SetState("running"))

    path = transcript_file("fake", "s1")
    assert [r["open"]["how"] for r in lines(path) if "open" in r] == [
        "new",
        "load",
        "resume",
    ]
    loaded = read_transcript(path, session_id="s1")
    assert loaded is not None
    assert loaded.segments == 3
    assert loaded.header is not None
    assert loaded.header.how == "load"
    assert loaded.store.to_json() == replayed.to_json()


def test_segments_of_another_session_are_ignored() -> None:
    path = transcript_file("fake", "s1")
    mine = open_store("s1")
    converse(mine, "mine")
    # Another id whose file name collides (say, on a case-insensitive disk).
    other = journaled_store("fake", "S1", cwd="/", how="new", protocol_version=1)
    other._sink._path = path  # type: ignore[attr-defined]
    converse(other, "theirs")
    loaded = read_transcript(path, session_id="s1")
    assert loaded is not None
    assert loaded.segments == 1
    assert [m.text for m in loaded.store.messages() if m.role == "user"] == ["mine"]
    assert read_transcript(path, session_id="nobody") is None


def test_corrupt_lines_are_skipped_and_counted() -> None:
    store = open_store()
    converse(store, "hello", "a b c")
    path = transcript_file("fake", "s1")
    good = path.read_bytes().splitlines(keepends=True)
    path.write_bytes(
        good[0]
        + b"{not json\n"
        + b"\xff\xfe binary\n"
        + b'{"op": "Explode"}\n'
        + b'{"op": "SetState", "state": 3}\n'
        + b"[1, 2]\n"
        + b"\n"
        + b"".join(good[1:])
        + b'{"op": "AppendMessageChunk", "message_id": "a-hel'  # cut by a crash
    )
    loaded = read_transcript(path)
    assert loaded is not None
    assert loaded.skipped == 6
    assert loaded.store.to_json() == store.to_json()

    # A new writer appends after the cut line without gluing onto it.
    store._sink._tail_checked = False  # type: ignore[attr-defined]
    store.apply(AppendMessageChunk("a-hello", "agent", text("d")))
    loaded = read_transcript(path)
    assert loaded is not None
    assert loaded.skipped == 6
    assert loaded.store.to_json() == store.to_json()


def test_unreadable_or_missing_files_give_none(tmp_path: Path) -> None:
    assert read_transcript(tmp_path / "missing.jsonl") is None
    directory = tmp_path / "dir.jsonl"
    directory.mkdir()
    assert read_transcript(directory) is None
    empty = tmp_path / "empty.jsonl"
    empty.write_text("garbage\n")
    assert read_transcript(empty) is None


def test_io_errors_never_raise(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    blocker = tmp_path / "home" / "data"
    blocker.parent.mkdir(parents=True)
    blocker.write_text("a file where the data directory should be")
    store = open_store()
    converse(store, "hello", "still works")
    message = store.message("a-hello")
    assert message is not None
    assert message.text == "still works "
    assert "cannot write transcript" in caplog.text
    assert list_transcripts() == []


def test_the_factory_takes_what_the_client_tells_it() -> None:
    opening = SessionOpening("s9", Path("/project"), "load", 1)
    store = transcript_store_factory("agent x")(opening)
    converse(store)
    (header, *_) = lines(transcript_file("agent x", "s9"))
    assert header["open"]["cwd"] == "/project"
    assert header["open"]["how"] == "load"
    assert header["open"]["protocolVersion"] == 1
    assert store.cwd == "/project"


def test_a_reopened_transcript_knows_the_sessions_directory() -> None:
    converse(open_store())
    loaded = read_transcript(transcript_file("fake", "s1"))
    assert loaded is not None
    assert loaded.store.cwd == "/work"


# --- filed by the agent's identity ----------------------------------------------


def test_transcripts_are_filed_by_the_agents_reported_name() -> None:
    """Every Python agent is run as `python3 ...`: the command says nothing."""
    factory = transcript_store_factory("python3")
    mine = factory(SessionOpening("s1", Path("/w"), "new", 2, agent_name="my-agent"))
    converse(mine, "for my agent")
    other = factory(SessionOpening("s2", Path("/w"), "new", 2, agent_name="other"))
    converse(other, "for the other agent")

    path = transcript_file("my-agent", "s1")
    (header, *_) = lines(path)
    assert header["open"]["agent"] == "my-agent"
    assert header["open"]["command"] == "python3"
    assert transcript_file("other", "s2").exists()
    assert not transcripts_dir("python3").exists()
    assert [i.session_id for i in list_transcripts("my-agent")] == ["s1"]
    assert [i.session_id for i in list_transcripts("other")] == ["s2"]
    (info,) = list_transcripts("my-agent")
    assert (info.agent, info.command) == ("my-agent", "python3")


def test_an_agent_without_a_name_is_filed_by_its_command() -> None:
    store = transcript_store_factory("python3")(
        SessionOpening("s1", Path("/w"), "new", 1)
    )
    converse(store)
    assert transcript_file("python3", "s1").exists()
    assert [i.session_id for i in list_transcripts("python3")] == ["s1"]


@pytest.mark.parametrize(
    ("reported", "filed"),
    [
        ("../../etc", "../../etc"),
        ("evil\x1b[31m name\n", "evil[31m name"),
        ("  ", "python3"),
        ("x" * 500, "x" * transcripts.AGENT_NAME_CHARS),
    ],
)
def test_a_reported_name_is_made_safe(reported: str, filed: str) -> None:
    assert transcripts.agent_identity(reported, "python3") == filed
    store = transcript_store_factory("python3")(
        SessionOpening("s1", Path("/w"), "new", 2, agent_name=reported)
    )
    converse(store)
    path = transcript_file(filed, "s1")
    assert path.exists()
    assert path.resolve().is_relative_to(transcripts_dir().resolve())


def legacy_transcript(command: str, session_id: str, question: str) -> Path:
    """A transcript as versions before identities wrote it: filed by command."""
    store = open_store(session_id, agent=command)
    converse(store, question)
    transcripts.close_transcript(store)
    path = transcript_file(command, session_id)
    records = lines(path)
    del records[0]["open"]["command"]  # the old header had no command
    path.write_text("".join(json.dumps(r) + "\n" for r in records))
    path.with_name(f"{session_id}.summary.json").unlink()
    return path


def test_transcripts_filed_by_command_are_still_found_and_adopted() -> None:
    old = legacy_transcript("python3", "s-old", "an old question")
    legacy_transcript("python3", "s-unknown", "whose is this?")
    newer = transcript_store_factory("python3")(
        SessionOpening("s-new", Path("/w"), "new", 2, agent_name="my-agent")
    )
    converse(newer, "a new question")

    listed = list_transcripts("my-agent", legacy="python3")
    assert {i.session_id for i in listed} == {"s-new", "s-old", "s-unknown"}
    assert list_transcripts("my-agent") == [
        i for i in listed if i.session_id == "s-new"
    ]

    # Reopened by the agent: the old file moves under its name, history and all.
    reopened = transcript_store_factory("python3")(
        SessionOpening("s-old", Path("/w"), "resume", 2, agent_name="my-agent")
    )
    converse(reopened, "a follow-up")
    assert not old.exists()
    moved = transcript_file("my-agent", "s-old")
    headers = [r["open"]["agent"] for r in lines(moved) if "open" in r]
    assert headers == ["python3", "my-agent"]
    listed = list_transcripts("my-agent", legacy="python3")
    assert sorted(i.session_id for i in listed) == ["s-new", "s-old", "s-unknown"]
    (adopted,) = [i for i in listed if i.session_id == "s-old"]
    assert adopted.path == moved
    assert adopted.agent == "my-agent"


def test_another_agents_transcripts_filed_by_command_are_not_adopted() -> None:
    """Only a file without the new header's `command` is of unknown owner."""
    store = transcript_store_factory("python3")(
        SessionOpening("s1", Path("/w"), "new", 2)  # an agent with no name
    )
    converse(store)
    assert list_transcripts("my-agent", legacy="python3") == []
    reopened = transcript_store_factory("python3")(
        SessionOpening("s1", Path("/w"), "resume", 2, agent_name="my-agent")
    )
    converse(reopened)
    assert transcript_file("python3", "s1").exists()  # not moved


# --- terminal cap -------------------------------------------------------------


def journaled_output(path: Path, terminal_id: str) -> int:
    total = 0
    for record in lines(path):
        if record.get("terminal_id") == terminal_id:
            value = record.get("data") or record.get("output") or ""
            total += len(base64.b64decode(value))
    return total


def test_terminal_output_is_capped_and_the_tail_saved_at_exit() -> None:
    store = open_store(max_terminal_bytes=100)
    converse(store)
    for n in range(1000):  # 10 KB of output into a 100-byte cap
        store.apply(AppendTerminalOutput("t", b"line %04d\n" % n))
    path = transcript_file("fake", "s1")
    assert journaled_output(path, "t") <= 100
    store.apply(PatchTerminal("t", exit_status={"exitCode": 0}))
    assert journaled_output(path, "t") <= 200
    loaded = read_transcript(path, max_terminal_bytes=100)
    assert loaded is not None
    rebuilt, live = loaded.store.terminal("t"), store.terminal("t")
    assert rebuilt is not None
    assert live is not None
    assert rebuilt.output == live.output
    assert rebuilt.output.endswith(b"line 0999\n")
    assert rebuilt.exit_status == {"exitCode": 0}
    assert live.dropped_bytes > 0  # the rebuilt count restarts at the snapshot


def test_the_journal_keeps_less_terminal_output_than_the_store(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(transcripts, "JOURNAL_TERMINAL_BYTES", 50)
    store = open_store()  # the store keeps its default cap (megabytes)
    converse(store)
    for n in range(100):
        store.apply(AppendTerminalOutput("t", b"line %04d\n" % n))
    path = transcript_file("fake", "s1")
    assert journaled_output(path, "t") <= 50
    store.apply(PatchTerminal("t", exit_status={"exitCode": 0}))
    loaded = read_transcript(path)
    assert loaded is not None
    rebuilt = loaded.store.terminal("t")
    assert rebuilt is not None
    assert rebuilt.output == b"line 0095\nline 0096\nline 0097\nline 0098\nline 0099\n"


def test_a_chunk_longer_than_a_message_keeps_is_journaled_as_what_it_keeps(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A 50,000-character chunk into stores keeping 2,000: the journal writes
    its ends and the count left out, and rebuilds the same store."""
    monkeypatch.setattr(store_module, "DEFAULT_MAX_MESSAGE_CHARS", 2_000)
    store = open_store()
    converse(store)
    body = "".join(chr(ord("a") + n % 26) for n in range(50_000))
    store.apply(AppendMessageChunk("a2", "agent", text(body)))
    path = transcript_file("fake", "s1")
    assert path.stat().st_size < 10_000
    records = [r for r in lines(path) if r.get("message_id") == "a2"]
    assert [r["op"] for r in records] == ["AppendMessageChunk", "CutMessageText"]
    assert records[1]["omitted"] == 50_000 - 2_000
    loaded = read_transcript(path)
    assert loaded is not None
    assert loaded.store.to_json() == store.to_json()
    rebuilt, live = loaded.store.message("a2"), store.message("a2")
    assert rebuilt is not None
    assert live is not None
    assert (rebuilt.text_size, rebuilt.cut_chars) == (50_000, live.cut_chars)
    assert rebuilt.tail == body[-1_000:]


def test_a_huge_chunks_kept_text_is_journaled_off_the_event_loop(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """What a store keeps of a huge chunk (megabytes: its head, then its tail)
    is encoded on the spool's thread, not the caller's, and the lines after it
    keep their order; once the transcript is closed the file rebuilds the same
    store, the text's quotes, escapes and lone surrogates included."""
    monkeypatch.setattr(store_module, "DEFAULT_MAX_MESSAGE_CHARS", 2_000_000)
    monkeypatch.setattr(transcripts, "LONG_LINE_CHARS", 1_000)
    encoded_on: set[str] = set()
    real = spool.json_string_pieces

    def noting(text: str, piece_chars: int = spool.PIECE_CHARS) -> Iterator[bytes]:
        encoded_on.add(threading.current_thread().name)
        return real(text, piece_chars)

    store = open_store()
    converse(store)
    assert isinstance(store.sink, transcripts.TranscriptWriter)
    store.sink._spool._encode = noting
    body = "".join(f'{n} "q" \\ \x01 \ud800 é ' for n in range(400_000))
    store.apply(AppendMessageChunk("a2", "agent", text(body)))
    converse(store, user="after", agent="more words")
    close_transcript(store)
    assert encoded_on
    assert threading.current_thread().name not in encoded_on
    path = transcript_file("fake", "s1")
    ids = [r.get("message_id") for r in lines(path) if "message_id" in r]
    assert ids.index("a2") < ids.index("u-after") < ids.index("a-after")
    loaded = read_transcript(path)
    assert loaded is not None
    assert loaded.store.to_json() == store.to_json()
    rebuilt = loaded.store.message("a2")
    assert rebuilt is not None
    assert rebuilt.text_size == len(body)
    assert rebuilt.tail == body[-1_000_000:]


def test_terminal_cap_restarts_at_a_reset_and_trims_big_snapshots() -> None:
    store = open_store(max_terminal_bytes=10)
    converse(store)
    store.apply(AppendTerminalOutput("t", b"0123456789abc"))
    store.apply(PatchTerminal("t", output=b"x" * 50 + b"0123456789"))
    store.apply(AppendTerminalOutput("t", b"AB"))
    path = transcript_file("fake", "s1")
    records = [r for r in lines(path) if r.get("terminal_id") == "t"]
    assert [r["op"] for r in records] == ["AppendTerminalOutput", "PatchTerminal"]
    assert records[0]["data"] == "MDEyMzQ1Njc4OQ=="  # the first 10 bytes
    assert records[1]["output"] == "MDEyMzQ1Njc4OQ=="  # the last 10 bytes
    # "AB" is past the cap again: not saved (until the terminal exits).
    loaded = read_transcript(path, max_terminal_bytes=10)
    assert loaded is not None
    terminal = loaded.store.terminal("t")
    assert terminal is not None
    assert terminal.output == b"0123456789"


# --- index --------------------------------------------------------------------


def test_index_lists_transcripts_newest_first_with_titles() -> None:
    titled = open_store("s-old")
    converse(titled, "first question", "answer")
    titled.apply(PatchSessionInfo(title="A title"))
    untitled = open_store("s-new")
    converse(untitled, "what is up\nsecond line", "answer")
    converse(untitled, "more", "answer")
    elsewhere = open_store("s-other", agent="other agent")
    converse(elsewhere)
    empty = open_store("s-empty")
    empty.apply(SetState("running"))
    os.utime(transcript_file("fake", "s-old"), (1_000_000_000, 1_000_000_000))

    found = list_transcripts("fake")
    assert [i.session_id for i in found] == ["s-new", "s-old"]
    new, old = found
    assert new.title == "what is up\nsecond line"
    assert new.messages == 4
    assert (new.agent, new.cwd) == ("fake", "/work")
    assert old.title == "A title"
    assert old.messages == 2
    assert old.updated_at == "2001-09-09T01:46:40+00:00"
    assert old.path == transcript_file("fake", "s-old")
    everyone = {i.session_id for i in list_transcripts()}
    assert everyone == {"s-new", "s-old", "s-other"}


def test_summary_counts_wait_for_the_interval_but_titles_do_not(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(transcripts, "SUMMARY_INTERVAL", 3600.0)
    store = open_store()
    converse(store, "first question", "answer")  # the first message: at once
    converse(store, "second", "answer")  # only the count changed: held back
    (info,) = list_transcripts("fake")
    assert (info.title, info.messages) == ("first question", 1)
    store.apply(PatchSessionInfo(title="Named"))  # a title: at once
    (info,) = list_transcripts("fake")
    assert (info.title, info.messages) == ("Named", 4)
    converse(store, "third", "answer")
    writer = store.sink
    assert isinstance(writer, transcripts.TranscriptWriter)
    writer.close()  # closing writes what was held back
    (info,) = list_transcripts("fake")
    assert info.messages == 6


@pytest.mark.parametrize("summary", [True, False], ids=["summary", "scan"])
def test_a_user_message_the_agent_wrote_keeps_its_mark_and_is_no_title(
    summary: bool,
) -> None:
    store = open_store()
    store.apply_many(
        [
            UpsertMessage("f1", "user", content=[text("forged first")]),
            SetMessageOrigin("f1", "agent"),
        ]
    )
    converse(store, "the real question", "answer")
    path = transcript_file("fake", "s1")
    loaded = read_transcript(path)
    assert loaded is not None
    assert loaded.store.to_json() == store.to_json()
    forged = loaded.store.message("f1")
    assert forged is not None
    assert forged.from_agent
    if not summary:
        transcripts.close_transcript(store)
        path.with_name("s1.summary.json").unlink()
    (info,) = list_transcripts("fake")
    assert info.title == "the real question"


def test_index_reads_only_the_summaries(monkeypatch: pytest.MonkeyPatch) -> None:
    store = open_store()
    converse(store)

    def no_reading(*args: object, **kwargs: object) -> None:
        raise AssertionError("the index read a whole transcript")

    monkeypatch.setattr(transcripts, "read_transcript", no_reading)
    (info,) = list_transcripts("fake")
    assert (info.session_id, info.title, info.messages) == ("s1", "hello", 2)


@pytest.mark.parametrize("damage", ["missing", "corrupt"])
def test_index_falls_back_to_reading_the_transcript(damage: str) -> None:
    store = open_store()
    converse(store, "question", "answer")
    store.apply(PatchSessionInfo(title="Named"))
    summary = transcript_file("fake", "s1").with_name("s1.summary.json")
    assert summary.exists()
    if damage == "missing":
        summary.unlink()
    else:
        summary.write_text("{broken")
    (info,) = list_transcripts("fake")
    assert (info.session_id, info.title, info.messages) == ("s1", "Named", 2)


def test_lines_cut_short_by_the_kernel_are_finished_in_order(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Lines go out with `os.writev` (no joined copy of a megabyte head): a
    write the kernel cuts short, and more lines than one call takes, still
    leave every line whole and in order."""
    real = os.writev
    calls: list[int] = []

    def short_writev(fd: int, buffers: list[bytes]) -> int:
        calls.append(len(buffers))
        first = bytes(buffers[0])
        return real(fd, [first[: max(len(first) // 2, 1)]])

    monkeypatch.setattr(os, "writev", short_writev)
    store = open_store()
    converse(store)
    store.apply_many(
        [AppendMessageChunk("many", "agent", text(f"{n} ")) for n in range(1_500)]
    )
    path = transcript_file("fake", "s1")
    records = [r for r in lines(path) if r.get("message_id") == "many"]
    assert [r["block"]["text"] for r in records] == [f"{n} " for n in range(1_500)]
    assert calls
    assert max(calls) <= spool._IOV_MAX


RUN_TEXTS = st.text(alphabet='ab"\\\u00e9\n\ud800', max_size=12)
RUN_OPS = st.one_of(
    st.builds(
        AppendMessageTexts,
        st.sampled_from(["m1", "m2"]),
        st.sampled_from(["user", "agent", "thought"]),
        st.lists(RUN_TEXTS, max_size=5),
    ),
    st.builds(
        AppendMessageChunk,
        st.sampled_from(["m1", "m2"]),
        st.sampled_from(["user", "agent"]),
        RUN_TEXTS.map(text),
    ),
    st.just(SetState("running")),
)
_stores = iter(range(1_000_000))


@settings(max_examples=60, deadline=None)
@given(st.lists(st.lists(RUN_OPS, max_size=4), max_size=6), st.sampled_from([8, None]))
def test_a_run_of_chunks_is_journaled_as_its_chunks(
    batches: list[list[Any]], cap: int | None
) -> None:
    """The same lines (after the header) and summary as its chunks one by one,
    with chunks longer than the store keeps (cut) and user messages (titles);
    the file rebuilds the live store (of the default cap: the rebuilt one's)."""
    n = next(_stores)
    runs = open_store(f"r{n}", max_message_chars=cap)
    chunks = open_store(f"c{n}", max_message_chars=cap)
    for batch in batches:
        runs.apply_many(batch)
        chunks.apply_many(
            [
                c
                for op in batch
                for c in (op.chunks() if isinstance(op, AppendMessageTexts) else [op])
            ]
        )
    close_transcript(runs)
    close_transcript(chunks)
    paths = transcript_file("fake", f"r{n}"), transcript_file("fake", f"c{n}")
    if not paths[1].exists():
        assert not paths[0].exists()
        return
    written = [p.read_bytes().splitlines()[1:] for p in paths]
    assert written[0] == written[1]
    summaries = [json.loads(transcripts._summary_file(p).read_bytes()) for p in paths]
    for summary in summaries:
        del summary["sessionId"], summary["time"]
    assert summaries[0] == summaries[1]
    loaded = read_transcript(paths[0])  # (into a store of the default cap)
    assert loaded is not None
    if cap is None:
        assert loaded.store.to_json() == runs.to_json()


def in_subagent(path: tuple[str, ...], op: Any) -> Any:
    for subagent_id in reversed(path):
        op = InSubagent(subagent_id, op)
    return op


LANE_PATHS = st.sampled_from([("a",), ("b",), ("a", "c"), ('q"\u00e9',)])
LANE_RUNS = st.builds(
    in_subagent,
    st.one_of(LANE_PATHS, st.just(())),
    st.builds(
        AppendMessageTexts,
        st.sampled_from(["m1", "m2"]),
        st.sampled_from(["user", "agent", "thought"]),
        st.lists(RUN_TEXTS, max_size=4),
    ),
)


@st.composite
def interleaved_runs(draw: st.DrawFn) -> InterleavedTexts:
    """Subagents' runs (the session's own too), their chunks shuffled; or any
    order at all."""
    runs = draw(st.lists(LANE_RUNS, max_size=4))
    order = [i for i, run in enumerate(runs) for _ in chunk_at_a_time(run)]
    order = draw(st.permutations(order))
    if draw(st.integers(0, 4)) == 0:
        order = draw(st.lists(st.integers(-1, len(runs)), max_size=8))
    return InterleavedTexts(runs, order)


LANE_OPS = st.one_of(
    st.builds(in_subagent, LANE_PATHS, RUN_OPS),
    st.builds(in_subagent, LANE_PATHS, RUN_OPS),
    interleaved_runs(),
    interleaved_runs(),
    RUN_OPS,
    st.builds(
        in_subagent,
        LANE_PATHS,
        st.builds(  # long enough for a line of its own (`LONG_LINE_CHARS`)
            AppendMessageTexts,
            st.just("m1"),
            st.just("agent"),
            st.lists(st.sampled_from(["x", "y" * transcripts.LONG_LINE_CHARS])),
        ),
    ),
)


def chunk_at_a_time(op: Any) -> list[Any]:
    """`op`'s runs, if any, as their chunks (each in its subagent)."""
    if isinstance(op, InterleavedTexts):
        return op.chunks()
    path: list[str] = []
    inner = op
    while isinstance(inner, InSubagent):
        path.append(inner.subagent_id)
        inner = inner.inner
    if not isinstance(inner, AppendMessageTexts):
        return [op]
    return [in_subagent(tuple(path), chunk) for chunk in inner.chunks()]


@settings(max_examples=60, deadline=None)
@given(st.lists(st.lists(LANE_OPS, max_size=5), max_size=6), st.sampled_from([8, None]))
def test_a_subagents_run_of_chunks_is_journaled_as_its_chunks(
    batches: list[list[Any]], cap: int | None
) -> None:
    """A subagent's run (`InSubagent` of `AppendMessageTexts`, nested too, long
    texts too), and runs interleaved (`InterleavedTexts`, the session's own
    too), write the same lines as their chunks one by one, each in its
    subagent, in order; the summary is the same, and the file rebuilds the
    live store."""
    n = next(_stores)
    runs = open_store(f"lr{n}", max_message_chars=cap)
    chunks = open_store(f"lc{n}", max_message_chars=cap)
    for batch in batches:
        runs.apply_many(batch)
        chunks.apply_many([c for op in batch for c in chunk_at_a_time(op)])
    close_transcript(runs)
    close_transcript(chunks)
    paths = transcript_file("fake", f"lr{n}"), transcript_file("fake", f"lc{n}")
    if not paths[1].exists():
        assert not paths[0].exists()
        return
    written = [p.read_bytes().splitlines()[1:] for p in paths]
    assert written[0] == written[1]
    assert not any(b"Texts" in line for line in written[0])
    summaries = [json.loads(transcripts._summary_file(p).read_bytes()) for p in paths]
    for summary in summaries:
        del summary["sessionId"], summary["time"]
    assert summaries[0] == summaries[1]
    loaded = read_transcript(paths[0])
    assert loaded is not None
    if cap is None:
        assert loaded.store.to_json() == runs.to_json()


def test_interleaved_runs_whose_order_miscounts_are_journaled_as_their_chunks() -> None:
    """An order that names a run more times than it has texts (and another
    fewer) is its chunks as `InterleavedTexts.chunks` says: no more, no less."""
    op = InterleavedTexts(
        [
            InSubagent("a", AppendMessageTexts("m1", "agent", ["a1"])),
            InSubagent("b", AppendMessageTexts("m1", "agent", ["b1", "b2"])),
        ],
        [0, 0, 1],
    )
    runs, chunks = open_store("miscount-r"), open_store("miscount-c")
    for store in (runs, chunks):
        converse(store)  # (a transcript is written once it has a message)
        store.apply_many([PatchSubagent("a"), PatchSubagent("b")])
    runs.apply_many([op])
    chunks.apply_many(op.chunks())
    assert len(op.chunks()) == 2
    close_transcript(runs)
    close_transcript(chunks)
    written = [
        transcript_file("fake", name).read_bytes().splitlines()[1:]
        for name in ("miscount-r", "miscount-c")
    ]
    assert written[0] == written[1]
    assert runs.to_json()["subagents"] == chunks.to_json()["subagents"]
