"""The key bar: Textual's `Footer`, rebuilt only when what it shows changed.

Textual's footer removes and mounts all its keys again whenever the screen's
bindings may have changed (each focus change, each screen pushed or popped),
about 14 ms of CPU for the app's dozen keys. Most of those times nothing it
shows changed: of the 5 rebuilds while the app opens a session and the user
types two characters, 4 showed the same keys (issue 28; every Pilot test
pays for them). This footer keeps what it showed and skips a rebuild that
would show the same.

What a rebuild shows is a function of what `Footer.compose` reads: the screen's
active bindings (each binding, whether it is enabled, its tooltip; the node
that owns a binding is not shown), whether the command palette's key is shown,
and whether bindings are ready (before, it shows nothing). A rebuild that
showed nothing is never skipped.

Each key Textual's compose makes has a `compact` reactive (True by default),
bound to the footer's (False here): as a key was mounted its watcher added the
`-compact` class, restyling the key, and the binding then set it back, removing
the class and restyling it again (two restyles a key a rebuild, about 12% of the
footer's CPU as the app opens). `compose` gives each key bound to it that value and
the class that goes with it before it is mounted, so neither watcher call
changes a class: same keys, same classes, same styles, no restyle. (The command
palette's key is not bound; it keeps its one restyle.)
"""

from __future__ import annotations

from textual.app import ComposeResult
from textual.widgets import Footer as TextualFooter
from textual.widgets._footer import FooterKey

__all__ = ["Footer"]


class Footer(TextualFooter):
    """Textual's footer, skipping rebuilds that would show the same keys."""

    def __init__(self) -> None:
        super().__init__()
        self._shown: tuple[object, ...] | None = None
        """What the last compose showed (`_showing`); None: nothing, or not yet."""

    def _showing(self) -> tuple[object, ...]:
        """What a compose now would show (see the module's docstring)."""
        bindings = tuple(
            (key, binding, enabled, tooltip)
            for key, (_, binding, enabled, tooltip) in (
                self.screen.active_bindings.items()
            )
        )
        return (bindings, self.show_command_palette, self.compact)

    def compose(self) -> ComposeResult:
        """Textual's keys, noting what they show."""
        showing = self._showing() if self.is_attached else None
        shown_any = False
        for child in super().compose():
            shown_any = True
            if isinstance(child, FooterKey):
                self._settle_compact(child)
            yield child
        self._shown = showing if shown_any else None

    def _settle_compact(self, key: FooterKey) -> None:
        """Give a key bound to `compact`, not yet mounted, its value and class.

        See the module's docstring; other keys are left as they are.
        """
        if "compact" in (key._reactive_connect or {}):
            key.set_reactive(FooterKey.compact, self.compact)
            key.set_class(self.compact, "-compact", update=False)

    async def recompose(self) -> None:
        """Rebuild the keys, unless they would show what they show now."""
        shown = self._shown
        if shown is not None and self.is_attached and self._showing() == shown:
            return
        await super().recompose()
