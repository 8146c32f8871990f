"""The review of a pane's last turn: the f6 key, the palette entry, the screen.

`PaneReview` is a part of `acp_tui.ui.session_pane.SessionPane` (see
`acp_tui.ui.pane_part.PanePart`). The runner's `TurnChanges` diffs each turn
as it ends; the pane listens, and the key that opens the review
(`ReviewScreen`) shows in the footer once a turn changed files. The review's
"Send review" goes out like a typed prompt (`PromptInput.Submitted`).
"""

from __future__ import annotations

from acp_tui.client.turn_changes import TurnReview
from acp_tui.ui.pane_part import PanePart
from acp_tui.ui.widgets.prompt_input import PromptInput

__all__ = ["REVIEW_KEY", "PaneReview"]

REVIEW_KEY = "f6"
"""The key that opens the review (shown in the footer once a turn changed files)."""


class PaneReview(PanePart):
    """The review of the pane's turns (see the module)."""

    _review_files = 0
    """Files the last diffed turn changed (the footer's key shows when some)."""

    def watch_turn_changes(self) -> None:
        """Listen to the runner's diffs (called once, when the pane mounts)."""
        self.runner.turn_changes.subscribe(self._turn_diffed)

    def _turn_diffed(self, review: TurnReview) -> None:
        count = len(review.changes.files)
        if count != self._review_files:
            self._review_files = count
            if self.is_attached:
                self.refresh_bindings()

    def review_key_shown(self) -> bool:
        """Whether the footer offers the review (a turn changed files)."""
        return self._review_files > 0

    def action_review_changes(self) -> None:
        """Open the review of the last turn's changes."""
        changes = self.runner.turn_changes
        if not changes.enabled:
            self.notify(
                "reviewing changes is off ([review] enabled = false in the config)",
                severity="warning",
            )
            return
        if changes.review is None and not changes.running:
            self.notify("no turn has run yet: nothing to review", severity="warning")
            return
        # Imported here: the review (and the changes' modules it reads) is not
        # needed until it is opened (an idle app's memory; issue 28).
        from acp_tui.ui.screens.review import ReviewScreen

        cwd = self.runner.session_cwd
        self.app.push_screen(ReviewScreen(changes, cwd, self._send_review))

    def _send_review(self, text: str) -> None:
        prompt = self.query_one(PromptInput)
        self.post_message(PromptInput.Submitted(prompt, text))
