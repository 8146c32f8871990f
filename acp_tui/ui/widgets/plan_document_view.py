"""A plan that is a document: markdown text, or a file (its path and its text).

Markdown plans are drawn by the conversation's markdown renderer
(`MarkdownView`); a file plan names its file (relative to the session's
directory) and shows what it holds, as markdown by its suffix, plain otherwise
(read once per snapshot, bounded: `client.plan_documents.read_plan_file`). A
snapshot of another type (a plan that changed type) is shown as `PlanView`
would show it. Agent text is data: made printable, never markup.
"""

from __future__ import annotations

from textual.app import ComposeResult
from textual.containers import Vertical
from textual.content import Content
from textual.widgets import Static

from acp_tui.client.plan_documents import PlanDocument, plan_document, read_plan_file
from acp_tui.display_paths import PathDisplay
from acp_tui.safe_text import printable
from acp_tui.store.model import Plan
from acp_tui.ui.widgets.markdown_view import MarkdownView
from acp_tui.ui.widgets.plan_view import PlanView, plan_content
from acp_tui.ui.widgets.terminal_view import static_plain

__all__ = ["PlanDocumentView", "plan_card"]


def _text(text: str) -> str:
    return printable(text, keep="\n\t")


class PlanDocumentView(Vertical):
    """Renders a markdown or file plan; `update_plan` re-renders a new snapshot.

    Args:
        plan: The plan snapshot to show first.
        show_id: Name an untitled plan by its `planId`.
        paths: How a file plan's path is shown (as sent if not given).
    """

    DEFAULT_CSS = """
    PlanDocumentView {
        height: auto;
        border: round $secondary;
        padding: 0 1;
        margin: 0 0 1 0;
        & > Static { height: auto; }
        & > .plan-document-note { color: $text-muted; }
        & > MarkdownView { padding: 0; }
    }
    """

    def __init__(
        self, plan: Plan, *, show_id: bool = False, paths: PathDisplay | None = None
    ) -> None:
        super().__init__()
        self.plan = plan
        """The snapshot shown."""
        self.show_id = show_id
        self.paths = paths
        self._heading = Static()
        self._note = Static(classes="plan-document-note")
        self._markdown = MarkdownView()
        self._plain = Static()
        self._draw_plan(plan)

    def compose(self) -> ComposeResult:
        """The heading, a note (a file's path or a problem), then the text."""
        yield self._heading
        yield self._note
        yield self._markdown
        yield self._plain

    @property
    def plan_id(self) -> str:
        """The id of the plan shown."""
        return self.plan.plan_id

    @property
    def text(self) -> str:
        """What is shown, as plain text (the markdown as its source)."""
        parts = [static_plain(self._heading)]
        if self._note.display:
            parts.append(static_plain(self._note))
        if self._markdown.display:
            parts.append(self._markdown.source)
        if self._plain.display:
            parts.append(static_plain(self._plain))
        return "\n".join(parts)

    def update_plan(self, plan: Plan) -> None:
        """Show a newer snapshot (nothing happens if it is the one shown)."""
        if plan is self.plan:
            return
        self.plan = plan
        self._draw_plan(plan)

    def _show(self, note: str | None, markdown: str | None, plain: str | None) -> None:
        self._note.display = note is not None
        self._note.update(Content(_text(note or "")))
        self._markdown.display = markdown is not None
        self._markdown.update(_text(markdown or ""))
        self._plain.display = plain is not None
        self._plain.update(Content(_text(plain or "")))

    def _draw_plan(self, plan: Plan) -> None:
        document = plan_document(plan)
        if document is None:
            self._heading.update(plan_content(plan, show_id=self.show_id))
            self._show(None, None, None)
            return
        title = printable(plan.plan_id) if self.show_id else None
        heading: list[str | tuple[str, str]] = [("Plan", "bold")]
        if title:
            heading += [" · ", (title, "bold")]
        heading.append((f" ({document.kind})", "italic"))
        self._heading.update(Content.assemble(*heading))
        if document.kind == "markdown":
            self._show(None, document.text or "", None)
        else:
            self._show_file(document)

    def _show_file(self, document: PlanDocument) -> None:
        if document.path is not None:
            shown = self.paths.show(document.path) if self.paths else document.path
            where = f"file: {shown}"
        else:
            where = f"file: {document.uri or '(no file named)'}"
        read = read_plan_file(document)
        note = where if read.problem is None else f"{where} ({read.problem})"
        if read.text is None:
            self._show(note, None, None)
        elif read.markdown:
            self._show(note, read.text, None)
        else:
            self._show(note, None, read.text)


def plan_card(
    plan: Plan, *, show_id: bool = False, paths: PathDisplay | None = None
) -> PlanView | PlanDocumentView:
    """The view for a plan: a document view for markdown and file plans."""
    if plan_document(plan) is not None:
        return PlanDocumentView(plan, show_id=show_id, paths=paths)
    return PlanView(plan, show_id=show_id)
