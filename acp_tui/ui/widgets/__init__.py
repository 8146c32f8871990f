"""Widgets that render the session store."""
