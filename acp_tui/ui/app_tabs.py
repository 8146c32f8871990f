"""The app's tabs: which session is on screen, and opening, closing and stepping.

`AppTabs` is a part of `acp_tui.ui.app.AcpTuiApp` (a mixin). Every tab is a
`SessionPane`; the app keeps them in tab order (`_panes`) and knows the one on
screen (`_active`). The tab bar (a `Tabs`, id `tab-bar`) shows only with two tabs
or more, its labels numbered then; only the active pane is displayed, and each
pane is told whether it is shown (`SessionPane.set_shown`), so a hidden tab
holds its dialogs back and marks a turn that ended unseen. This part:

* keeps the tab labels up to date with what each pane reports
  (`SessionPane.Changed`);
* tells the user when a hidden tab holds a dialog back
  (`SessionPane.WantsAttention`), naming the keys that show it;
* opens a tab (a new session with its own agent), closes one (its session
  closed and its agent stopped, bounded; the last tab stays), and steps or
  jumps between tabs, never while a dialog is up (it would then sit over
  another session).

At run time the part is a plain class, listed before `App` so it does not hide
the app's CSS base chain (see `acp_tui.ui.textual_private`); its handlers are
found by name, as Textual collects `@on` handlers only from its own classes.
The type checker sees an `App` with what the app provides, declared below.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from textual.app import App
from textual.content import Content
from textual.widgets import Footer, Tab, Tabs

from acp_tui.ui.agent_runner import SessionRequest
from acp_tui.ui.pane_fork import OpenTab
from acp_tui.ui.session_pane import SessionPane

if TYPE_CHECKING:
    from acp_tui.storage.drafts import DraftStore

    _App = App[None]
else:
    _App = object

__all__ = ["AppTabs"]


class AppTabs(_App):
    """The tabs of `AcpTuiApp` (see the module docstring)."""

    if TYPE_CHECKING:  # what the app provides
        _panes: list[SessionPane]
        _active: SessionPane
        _exiting: bool

        def _new_pane(
            self, request: SessionRequest | None, drafts: DraftStore | None = None
        ) -> SessionPane: ...

    def _tab_for(self, pane: SessionPane) -> Tab:
        return Tab(self._label_of(pane), id=self._tab_id(pane))

    def _label_of(self, pane: SessionPane) -> Content:
        """The pane's tab label, numbered when there are two tabs or more."""
        number = self._panes.index(pane) + 1 if len(self._panes) > 1 else None
        return pane.label.render(number)

    @staticmethod
    def _tab_id(pane: SessionPane) -> str:
        assert pane.id is not None
        return f"tab-{pane.id}"

    @property
    def _tabs(self) -> Tabs:
        return self.query_one("#tab-bar", Tabs)

    def _pane_of(self, tab: Tab | None) -> SessionPane | None:
        if tab is None:
            return None
        return next((p for p in self._panes if self._tab_id(p) == tab.id), None)

    def on_tabs_tab_activated(self, message: Tabs.TabActivated) -> None:
        """A tab of the tab bar was activated: show its pane, hide the others."""
        if message.control.id != "tab-bar":
            return
        message.stop()
        pane = self._pane_of(message.tab)
        if pane is None:
            return
        self._active = pane
        for other in self._panes:
            if other is not pane:
                other.display = False
                other.set_shown(False)
        pane.display = True
        pane.set_shown(True)
        self.refresh_bindings()

    def _show_tab_bar(self) -> None:
        """The tab bar shows with two tabs or more; labels are numbered then."""
        many = len(self._panes) > 1
        self._tabs.set_class(many, "-many")
        for pane in self._panes:
            self._relabel(pane)

    def _relabel(self, pane: SessionPane) -> None:
        # No tab bar while the app closes: a pane's late `Changed` (an agent that
        # answered as the app quit) relabels nothing rather than raise.
        for tabs in self.query("#tab-bar").results(Tabs):
            for tab in tabs.query(f"#{self._tab_id(pane)}").results(Tab):
                tab.label = self._label_of(pane)

    def on_session_pane_changed(self, message: SessionPane.Changed) -> None:
        """What a pane's tab label shows may have changed: relabel its tab."""
        message.stop()
        if message.pane in self._panes:
            self._relabel(message.pane)

    def on_session_pane_wants_attention(
        self, message: SessionPane.WantsAttention
    ) -> None:
        """A tab not on screen holds a dialog back until it is shown: say so."""
        message.stop()
        pane = message.pane
        if pane not in self._panes:
            return
        number = self._panes.index(pane) + 1
        # Without the label's "! needs you" marker: the text says it.
        name = pane.label.name(number if len(self._panes) > 1 else None)
        # alt+N where the terminal reports it (the kitty keyboard protocol); xterm
        # and tmux send ESC N, which Textual reads as a macOS option character.
        jump = f" (tab {number}: alt+{number}, or ctrl+PageDown / ctrl+PageUp)"
        self.notify(
            f"{name} needs your {message.what}{jump}",
            title="Another tab asks",
            severity="warning",
            markup=False,
        )

    def _dialog_open(self) -> bool:
        """A dialog is up: switching tabs under it would show another session."""
        if len(self.screen_stack) > 1:
            self.notify("close the dialog first", severity="warning")
            return True
        return False

    async def action_new_tab(self) -> None:
        """Open a tab with a new session of its own agent (others keep running)."""
        if self._dialog_open() or self._exiting:
            return
        await self._open_tab(SessionRequest("new"))

    async def on_open_tab(self, message: OpenTab) -> None:
        """A pane asks for a tab of its own (a fork): open it beside the others."""
        message.stop()
        if not self._exiting:
            await self._open_tab(message.request)

    async def _open_tab(self, request: SessionRequest) -> None:
        pane = self._new_pane(request)
        self._panes.append(pane)
        pane.display = False  # until its tab is activated
        await self.mount(pane, before=self.query_one(Footer))
        await self._tabs.add_tab(self._tab_for(pane))
        self._show_tab_bar()
        self._tabs.active = self._tab_id(pane)
        pane.start()

    async def action_close_tab(self) -> None:
        """Stop the tab's agent (bounded) and close it; the last tab stays."""
        await self.close_tab(self._active)

    async def close_tab(self, pane: SessionPane) -> None:
        """Close `pane`'s session and stop its agent (bounded); remove its tab."""
        if pane not in self._panes or pane.closing:
            return
        if len(self._panes) == 1:
            self.notify(
                "this is the last tab (ctrl+q quits)",
                severity="warning",
            )
            return
        if pane is self._active and self._dialog_open():
            return
        index = self._panes.index(pane)
        if pane is self._active:  # show a neighbour while the agent stops
            neighbour = self._panes[index + 1 if index + 1 < len(self._panes) else -2]
            self._activate(neighbour)
        await pane.close()
        self._panes.remove(pane)
        await self._tabs.remove_tab(self._tab_id(pane))
        await pane.remove()
        self._show_tab_bar()

    def _activate(self, pane: SessionPane) -> None:
        self._tabs.active = self._tab_id(pane)

    def action_next_tab(self) -> None:
        """Show the next tab (the first after the last)."""
        self._step_tab(1)

    def action_previous_tab(self) -> None:
        """Show the previous tab (the last before the first)."""
        self._step_tab(-1)

    def _step_tab(self, step: int) -> None:
        if len(self._panes) < 2 or self._dialog_open():
            return
        index = self._panes.index(self._active)
        self._activate(self._panes[(index + step) % len(self._panes)])

    def action_jump_tab(self, number: int) -> None:
        """Show tab `number` (1 is the first)."""
        if not 1 <= number <= len(self._panes):
            return
        pane = self._panes[number - 1]
        if pane is not self._active and not self._dialog_open():
            self._activate(pane)
