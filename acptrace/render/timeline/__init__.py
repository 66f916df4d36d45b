"""The timeline as a rich view: relative time, direction, method or update tag, ids and links.

Replay windows are drawn as blocks in a gutter (request ┌, its marker ├, response └, one lane
per overlapping window), child sessions are indented under their parent, findings sit under the
line they concern, and requests and responses point at each other (⇢ answered at, ⇠ answers,
with the duration). Transcript text goes through `inert`: never markup, never control codes.

From the driver down: `stream` holds entries in a look-ahead and writes them in batches;
`entry_rows` makes their rows from the cells (`row_cells`: time, direction, link;
`event_cell`: indent, label, payload), the gutter (`gutters`) and what the analysis tells
(`known`, `findings`); `rows` lays rows out in columns, `fitting` cuts and wraps their text, and
`frame` says what stands above and below them.
"""

from acptrace.render.timeline.frame import timeline_heading
from acptrace.render.timeline.rows import Rows
from acptrace.render.timeline.stream import BATCH_ROWS, TimelineStream

__all__ = ["BATCH_ROWS", "Rows", "TimelineStream", "timeline_heading"]
