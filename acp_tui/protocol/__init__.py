"""The ACP wire layer: framing, JSON-RPC dispatch, transports, versions and wire models.

Imports stdlib, anyio and pydantic only. It never imports the store, the client, the
render layer or the UI, and it knows nothing of what a message *means*: it moves,
correlates and validates messages.
"""
