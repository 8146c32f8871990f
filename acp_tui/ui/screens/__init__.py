"""Screens of the Textual app (modals and full screens)."""
