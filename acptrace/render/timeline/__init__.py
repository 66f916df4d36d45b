"""The timeline as a rich view: relative time, direction, method or update tag, ids and links.

Replay windows are drawn as blocks in a gutter (request ┌, its marker ├, response └, one lane
per overlapping window), child sessions are indented under their parent, findings sit under the
line they concern, and requests and responses point at each other (⇢ answered at, ⇠ answers,
with the duration). Transcript text goes through `inert`: never markup, never control codes.
"""

from acptrace.render.timeline.frame import timeline_heading
from acptrace.render.timeline.rows import Rows
from acptrace.render.timeline.stream import BATCH_ROWS, TimelineStream

__all__ = ["BATCH_ROWS", "Rows", "TimelineStream", "timeline_heading"]
