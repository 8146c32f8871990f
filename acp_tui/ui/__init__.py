"""The Textual layer: screens and widgets that render the store.

May import every layer below it. No protocol work happens here: the UI talks to the
client through ports and workers.
"""
