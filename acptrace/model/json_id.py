"""The type of a JSON-RPC id, apart from the records that carry one (so that any of them can
name it without importing the others)."""

JsonId = int | str | float | None
"""A JSON-RPC id as it appeared on the wire (int and str ids never compare equal)."""
