"""`save_text`: the one way `/export` and the pager's save write a file and say so."""

from __future__ import annotations

from pathlib import Path

from textual.app import App

from acp_tui.ui.saved_files import save_text
from tests.ui.helpers import wait_for


async def test_a_written_file_is_announced_by_its_path(tmp_path: Path) -> None:
    app: App[None] = App()
    path = tmp_path / "new" / "dir" / "out.md"
    async with app.run_test() as pilot:
        assert save_text(app.screen, path, "text \ud800\n", saved="Saved", failed="No")
        assert path.read_bytes() == "text \ud800\n".encode("utf-8", "surrogatepass")
        await wait_for(pilot, lambda: bool(app._notifications))
        (note,) = app._notifications
        assert (note.title, note.message, note.severity) == (
            "Saved",
            str(path),
            "information",
        )
        assert not note.markup


async def test_a_failed_write_is_an_error_toast_with_the_reason(tmp_path: Path) -> None:
    app: App[None] = App()
    blocker = tmp_path / "[b]not-a-dir\x1b[31m"
    blocker.write_text("a file where a directory should be")
    path = blocker / "out.md"
    async with app.run_test() as pilot:
        assert not save_text(app.screen, path, "text", saved="Saved", failed="No")
        await wait_for(pilot, lambda: bool(app._notifications))
        (note,) = app._notifications
        assert (note.title, note.severity) == ("No", "error")
        assert note.message.startswith("cannot write ")
        assert "[b]not-a-dir\\x1b[31m" in note.message  # escaped, shown as is
        assert "\x1b" not in note.message
        assert not note.markup
    assert blocker.read_text() == "a file where a directory should be"
