"""Tables: polars frames with fixed schemas, built from analyses and walks. The only place that
builds frames.

>>> from acptrace.tables import frames
>>> frames(["session.jsonl"])["resumes"]
"""

from acptrace.tables.builder import TABLES, frames, walk_frames

__all__ = ["TABLES", "frames", "walk_frames"]
