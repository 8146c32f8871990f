"""The application core: sessions over a negotiated ACP connection.

The only layer that knows v1 and v2 shapes. Imports the protocol layer (and, later,
the store, terminal and diff layers) and anyio; never Textual or Rich.
"""
