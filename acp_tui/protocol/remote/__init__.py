"""Remote agents: the WebSocket and Streamable HTTP transports (see `open`).

Nothing is imported here: `websockets` and `httpx` load only when a remote
connection opens.
"""
