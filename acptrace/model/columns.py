"""What every column of the terminal tables of `analyze` and `report` means, in one place.

The tables print the `legend` of the columns they show under themselves, `acptrace explain
COLUMN` prints the `meaning` and `unit`, and the "Columns" sections of docs/analyze.md and
docs/report.md are `columns_markdown` of their tables (a test holds them to it): the three can
never say different things.
"""

from __future__ import annotations

from collections.abc import Iterable

import msgspec

TABLES = {
    "resumes": "Resumes",
    "turns": "Turns",
    "idle": "Idle timers: replays cut short",
    "groups": "Resumes by group",
    "loads": "Loads",
    "latencies": "Latency and throughput",
    "findings": "Findings by rule",
    "slowest": "Slowest replays",
    "cut": "Cut replays",
    "turn-latencies": "Turns, tool calls and permission requests",
    "turn-not-counted": "Not counted in the turn latencies",
    "slowest-turns": "Slowest turns",
    "slowest-tool-calls": "Slowest tool calls",
    "longest-waits": "Longest permission waits",
    "comparison": "Compared with BASELINE",
    "across-rules": "Findings by rule (across all files)",
    "worst-files": "Files with most findings",
    "fidelity": "Replay fidelity",
}
"""Each table's key and its title as printed (`report --baseline` names the baseline)."""
TURN_TABLES = (
    "turn-latencies",
    "turn-not-counted",
    "slowest-turns",
    "slowest-tool-calls",
    "longest-waits",
)
"""The report's turn sections (`acptrace.report.turn_terminal`)."""
LISTINGS = TURN_TABLES[2:]
"""The turn tables that list single turns, tool calls and permission requests."""
PAGES = {
    "analyze": ("resumes", "turns", "idle", "across-rules", "worst-files"),
    "report": (
        "groups",
        "loads",
        "latencies",
        "idle",
        "findings",
        "slowest",
        "cut",
        *TURN_TABLES,
        "comparison",
    ),
    "fidelity": ("fidelity",),
}
"""The tables each command prints, in order: each docs page's "Columns" section."""


class ColumnMeaning(msgspec.Struct, frozen=True):
    """One column heading in the tables it appears in, with one meaning there."""

    heading: str
    tables: tuple[str, ...]
    """Keys of `TABLES`."""
    meaning: str
    """What a cell says (a sentence or two)."""
    unit: str
    """What its numbers count or measure."""
    legend: str | None = None
    """The words printed under the table for it; None for a heading that explains itself."""


# the units most columns share (`ColumnMeaning.unit`)
MS = "milliseconds (`ms`; `s` from 1 s on); `—`: not measured"
COUNT = "a count"
TEXT = "text"
SHARE = "complete/owed (percent); `—` where no replay owes a marker"
DISTRIBUTION = "as the metric: milliseconds, or updates per second for the throughput"


COLUMNS: tuple[ColumnMeaning, ...] = (
    ColumnMeaning(
        "line",
        ("resumes", "turns", "fidelity"),
        "The line of the request in the file (the session/resume or session/load; the "
        "session/prompt); `*` before it in the turns table: a replay of the session was pending "
        "during the turn.",
        "a line number",
    ),
    ColumnMeaning(
        "session",
        ("resumes", "turns", "fidelity"),
        "The session the row is about, its id shortened in the middle; `└` a child session "
        "announced in the replay window.",
        TEXT,
    ),
    ColumnMeaning(
        "kind",
        ("resumes",),
        "The replaying request: `resume` (session/resume with replayFrom), `no-replay` (without), "
        "`load` (session/load), `child` (a child session announced in the window).",
        TEXT,
    ),
    ColumnMeaning(
        "outcome",
        ("resumes", "slowest", "cut"),
        "The outcome class of the replay: complete, complete_failed, truncated, refused, "
        "unmarked_success, no_replay, loaded, ambiguous, unknown (the spec's outcomes.md).",
        TEXT,
    ),
    ColumnMeaning(
        "end",
        ("resumes", "cut"),
        "How the replay window closed: `success` (a result), `error` with its code, "
        "`disconnect`, `trace_end`; `(cancelled)` when the Client cancelled the request.",
        TEXT,
    ),
    ColumnMeaning(
        "mk",
        ("resumes",),
        "Markers (replay_complete updates) for the session in the replay window: 1 is right; 0 is "
        "a replay left unmarked.",
        COUNT,
        "markers (replay_complete)",
    ),
    ColumnMeaning(
        "repl",
        ("resumes",),
        "Updates for the session in the window before the marker: the history replayed.",
        COUNT,
        "replayed updates",
    ),
    ColumnMeaning(
        "held",
        ("resumes",),
        "Updates for the session after the marker and before the response: held back until the "
        "replay was marked done.",
        COUNT,
        "updates after the marker",
    ),
    ColumnMeaning(
        "→marker",
        ("resumes",),
        "Request → marker: how long the replay took to be marked done.",
        MS,
        "request to marker",
    ),
    ColumnMeaning(
        "marker→resp",
        ("resumes", "slowest"),
        "Marker → response: how long the Agent took to answer once its replay was done (the RFD's "
        "headline figure).",
        MS,
        "marker to response",
    ),
    ColumnMeaning(
        "total",
        ("resumes", "slowest", "cut"),
        "Request → response: the whole replaying request.",
        MS,
        "request to response",
    ),
    ColumnMeaning(
        "max gap",
        ("resumes",),
        "The longest silence between two messages of the replay for the session: the wait an idle "
        "timer must outlast.",
        MS,
        "longest pause in the replay",
    ),
    ColumnMeaning(
        "end",
        ("turns",),
        "How the turn ended: `response` (v1), `idle` (a v2 state_update idle), `error`; `open "
        "(disconnect)` or `open (trace end)` when the recording lacks its end.",
        TEXT,
    ),
    ColumnMeaning(
        "end",
        ("slowest-turns",),
        "How the turn ended: `response` (v1), `idle` (v2), `error`, `disconnect` or `trace_end` "
        "(the recording lacks its end).",
        TEXT,
    ),
    ColumnMeaning(
        "first output",
        ("slowest-turns",),
        "Prompt → the first agent message or thought update: what the user first sees of the "
        "answer.",
        MS,
        "prompt to the first agent message",
    ),
    ColumnMeaning(
        "first out",
        ("turns",),
        "Prompt → the first agent message or thought update: what the user first sees of the "
        "answer.",
        MS,
        "prompt to the first agent message",
    ),
    ColumnMeaning(
        "duration",
        ("turns", "slowest-turns"),
        "Prompt → the turn's end; `—` when the recording lacks the end.",
        MS,
    ),
    ColumnMeaning(
        "duration",
        ("slowest-tool-calls",),
        "The tool call's first update → its final status (completed, failed or cancelled).",
        MS,
    ),
    ColumnMeaning(
        "upd",
        ("turns",),
        "Updates for the session from the Agent while the turn was open.",
        COUNT,
        "updates",
    ),
    ColumnMeaning(
        "tools",
        ("turns", "slowest-turns"),
        "Tool calls first seen while the turn was open.",
        COUNT,
        "tool calls",
    ),
    ColumnMeaning(
        "perm wait",
        ("turns",),
        "The time from each permission request to its answer, summed (their number in brackets "
        "when more than one).",
        MS,
        "summed wait for permission answers",
    ),
    ColumnMeaning(
        "stop",
        ("turns",),
        "The stop reason: the v1 response's stopReason, the v2 idle update's.",
        TEXT,
    ),
    ColumnMeaning(
        "group",
        ("idle", "groups", "loads", "latencies", "findings", "slowest", "cut", *TURN_TABLES),
        "The group (`report --by`): an Agent (or an Agent's version), a Client, a file, a folder.",
        TEXT,
    ),
    ColumnMeaning(
        "timeout",
        ("idle",),
        "The silence an idle timer waits for before it ends a replay (`--idle-timeouts`).",
        MS,
    ),
    ColumnMeaning(
        "cut short",
        ("idle",),
        "`K of N`: the replays a Client waiting for that much silence would have ended before "
        "their last replayed update, of N: the replays whose messages have times, each child "
        "session's replay counted on its own.",
        "replays",
        "replays the timer ends early, of N with times (children's replays included)",
    ),
    ColumnMeaning(
        "updates lost",
        ("idle",),
        "The replayed updates that came after such a timer fired, summed over those replays.",
        COUNT,
        "updates after it fired",
    ),
    ColumnMeaning(
        "conn",
        ("groups",),
        "Connections in the group (a file holds one or more).",
        COUNT,
        "connections",
    ),
    ColumnMeaning(
        "resumes",
        ("groups",),
        "Replaying requests and resumes of the sessions the Client asked for in the group (loads "
        "included); the child sessions they announce are counted apart (`child_outcomes` of "
        "report.json).",
        COUNT,
        "of the sessions asked for (children apart)",
    ),
    ColumnMeaning(
        "complete",
        ("groups",),
        "The share of the replays that owe a marker (v2 resumes with replayFrom, neither refused "
        "nor ambiguous) that were complete.",
        SHARE,
        "share of the replays that owe a marker (v2 resumes with replayFrom, neither "
        "refused nor ambiguous; — where none does)",
    ),
    ColumnMeaning(
        "unmarked",
        ("groups",),
        "Replays answered with success but without a marker (RC-MISSING).",
        COUNT,
        "answered without a marker",
    ),
    ColumnMeaning(
        "cut",
        ("groups",),
        "Replays truncated, failed or still pending at the end.",
        COUNT,
        "truncated, failed or pending at the end",
    ),
    ColumnMeaning(
        "refused",
        ("groups", "loads"),
        "Requests answered with an error before any update of the session: nothing was replayed "
        "(the error code says why).",
        COUNT,
    ),
    ColumnMeaning(
        "ambig",
        ("groups", "loads"),
        "Overlapping replays of one session (RC-CONCURRENT): an update in the overlap belongs to "
        "neither.",
        COUNT,
        "overlapping replays, updates of neither",
    ),
    ColumnMeaning(
        "loaded",
        ("groups", "loads"),
        "Loads (session/load) answered with success: they owe no marker.",
        COUNT,
        "loads answered with success",
    ),
    ColumnMeaning(
        "errors",
        ("groups",),
        "Error findings in the group.",
        COUNT,
    ),
    ColumnMeaning(
        "warn",
        ("groups",),
        "Warning findings in the group.",
        COUNT,
    ),
    ColumnMeaning(
        "latency",
        ("groups",),
        "Which latency the percentiles are of, when groups differ: marker→resp where the group's "
        "replays owe and sent a marker, else request→resp.",
        TEXT,
    ),
    ColumnMeaning(
        "p50",
        ("groups", "latencies"),
        "The median: half the replays took less.",
        DISTRIBUTION,
    ),
    ColumnMeaning(
        "p90",
        ("groups", "latencies"),
        "90% of the replays took less; `*` from fewer than 20 replays.",
        DISTRIBUTION,
    ),
    ColumnMeaning(
        "p99",
        ("groups", "latencies"),
        "99% of the replays took less; `*` from fewer than 20 replays.",
        DISTRIBUTION,
    ),
    ColumnMeaning(
        "loads",
        ("loads",),
        "session/load requests in the group.",
        COUNT,
    ),
    ColumnMeaning(
        "truncated",
        ("loads",),
        "Loads cut short: no end but an error after updates of the session, or the recorded "
        "connection end.",
        COUNT,
    ),
    ColumnMeaning(
        "unknown",
        ("loads",),
        "Loads still pending where the transcript ends, with no recorded connection end.",
        COUNT,
    ),
    ColumnMeaning(
        "metric",
        ("latencies",),
        "The measure: marker → response, request → marker, request → response, replay throughput "
        "(replayed updates per second).",
        TEXT,
    ),
    ColumnMeaning(
        "count",
        ("latencies",),
        "Replays with that measure.",
        COUNT,
    ),
    ColumnMeaning(
        "min",
        ("latencies",),
        "The least of the replays' values.",
        DISTRIBUTION,
    ),
    ColumnMeaning(
        "max",
        ("latencies",),
        "The most of the replays' values.",
        DISTRIBUTION,
    ),
    ColumnMeaning(
        "mean",
        ("latencies",),
        "The average of the replays' values.",
        DISTRIBUTION,
    ),
    ColumnMeaning(
        "rule",
        ("findings", "across-rules"),
        "The rule ID (`acptrace explain ID`).",
        TEXT,
    ),
    ColumnMeaning(
        "level",
        ("findings", "across-rules"),
        "The findings' level: error, warning or note.",
        TEXT,
    ),
    ColumnMeaning(
        "count",
        ("findings",),
        "Findings of that rule and level in the group.",
        COUNT,
    ),
    ColumnMeaning(
        "first at",
        ("findings",),
        "The file and line of the first of them.",
        "a path and a line number",
    ),
    ColumnMeaning(
        "file:line",
        ("slowest", "cut"),
        "The replaying request: its file and line.",
        "a path and a line number",
    ),
    ColumnMeaning(
        "replayed",
        ("slowest", "cut"),
        "Updates replayed before the marker (or before the end).",
        COUNT,
    ),
    ColumnMeaning(
        "measure",
        ("turn-latencies", "turn-not-counted"),
        "The turn measure: first output, turn duration, tool-call duration (a line per tool kind "
        "under it), permission wait.",
        TEXT,
    ),
    *(
        ColumnMeaning(stat, ("turn-latencies",), f"{words} of the measure's values.", MS)
        for stat, words in (
            ("count", "The number"),
            ("min", "The least"),
            ("p50", "The median"),
            ("p90", "The 90th percentile (`*` from fewer than 20 values)"),
            ("p99", "The 99th percentile (`*` from fewer than 20 values)"),
            ("max", "The most"),
            ("mean", "The average"),
        )
    ),
    ColumnMeaning(
        "count",
        ("turn-not-counted",),
        "Rows of that measure left out of its figures for that reason.",
        COUNT,
    ),
    ColumnMeaning(
        "why",
        ("turn-not-counted",),
        "Why: a replay overlapped the turn, its times are estimated, the Agent refused the "
        "prompt with an error before any update (rejected), it never ended, it had no output, "
        "or its messages have no times.",
        TEXT,
    ),
    ColumnMeaning(
        "file:line",
        LISTINGS,
        "The prompt, the tool call's first update, or the permission request: its file and line.",
        "a path and a line number",
    ),
    ColumnMeaning(
        "kind",
        ("slowest-tool-calls",),
        "The tool call's kind as the Agent gave it (read, edit, execute, …).",
        TEXT,
    ),
    ColumnMeaning(
        "status",
        ("slowest-tool-calls",),
        "The last status seen: completed, failed, cancelled, or pending / in_progress.",
        TEXT,
    ),
    ColumnMeaning(
        "title",
        ("slowest-tool-calls",),
        "The tool call's title, cut at 40 characters.",
        TEXT,
    ),
    ColumnMeaning(
        "outcome",
        ("longest-waits",),
        "How the Client answered: `selected`, `cancelled`, or `—` without an answer.",
        TEXT,
    ),
    ColumnMeaning(
        "option",
        ("longest-waits",),
        "The kind of the option chosen (allow_once, reject_always, …).",
        TEXT,
    ),
    ColumnMeaning(
        "wait",
        ("longest-waits",),
        "The permission request → the Client's answer.",
        MS,
        "request to answer",
    ),
    ColumnMeaning(
        "measure",
        ("comparison",),
        "A group (in bold), then each measure compared under it.",
        TEXT,
    ),
    ColumnMeaning(
        "baseline",
        ("comparison",),
        "The measure in the baseline report.",
        "as the measure",
    ),
    ColumnMeaning(
        "new",
        ("comparison",),
        "The measure in this report.",
        "as the measure",
    ),
    ColumnMeaning(
        "change",
        ("comparison",),
        "The new value minus the baseline.",
        "as the measure",
    ),
    ColumnMeaning(
        "in %",
        ("comparison",),
        "The change as a share of the baseline.",
        "percent",
    ),
    ColumnMeaning(
        "limit",
        ("comparison",),
        "The --max-regression limit that applies to the measure.",
        "as the limit",
    ),
    ColumnMeaning(
        "verdict",
        ("comparison",),
        "Whether the change is within the limit.",
        TEXT,
    ),
    ColumnMeaning(
        "findings",
        ("across-rules",),
        "Findings of that rule and level in all the files.",
        COUNT,
    ),
    ColumnMeaning(
        "files",
        ("across-rules",),
        "Files with at least one of them.",
        COUNT,
        "files with at least one",
    ),
    ColumnMeaning(
        "file",
        ("worst-files",),
        "The transcript's path, within the folder all the files share (said above the tables).",
        "a path",
    ),
    ColumnMeaning("errors", ("worst-files",), "Error findings in the file.", COUNT),
    ColumnMeaning("warnings", ("worst-files",), "Warning findings in the file.", COUNT),
    ColumnMeaning("notes", ("worst-files",), "Note findings in the file.", COUNT),
    ColumnMeaning(
        "issues",
        ("worst-files",),
        "Input issues in the file: lines that are not what their format says (not JSON, cut "
        "short, out of order, …).",
        COUNT,
        "input issues",
    ),
    ColumnMeaning(
        "outcome",
        ("fidelity",),
        "The outcome class of the replay (as in analyze's resumes table), with the error code of "
        "a request answered with one (`refused -32601`).",
        TEXT,
    ),
    ColumnMeaning(
        "live",
        ("fidelity",),
        "Items of the live history: the session's messages, thoughts, tool calls, plans and "
        "children as its live updates left them before the request (docs/fidelity.md, Items).",
        "items",
        "live history items",
    ),
    ColumnMeaning(
        "repl",
        ("fidelity",),
        "Items the replay carried (before the session's `replay_complete`, else its response).",
        "items",
        "replayed items",
    ),
    ColumnMeaning(
        "missing",
        ("fidelity",),
        "Live items the replay left out (listed under the table).",
        "items",
    ),
    ColumnMeaning(
        "extra",
        ("fidelity",),
        "Replayed items the live history does not have (listed under the table).",
        "items",
    ),
    ColumnMeaning(
        "changed",
        ("fidelity",),
        "Items replayed with other content than they had live (listed under the table, as a diff).",
        "items",
    ),
    ColumnMeaning(
        "moved",
        ("fidelity",),
        "Items the replay carried out of their live order (never lowers the ratio; "
        "`--fail-on-reorder` gates on them).",
        "items",
        "items replayed out of their live order",
    ),
    ColumnMeaning(
        "fidelity",
        ("fidelity",),
        "Items replayed unchanged over live items (0 to 1); `—` when there is no ratio: "
        "the replay is not judged (refused, ambiguous) or there is no live history.",
        "a ratio",
    ),
)
"""Every column of every table `analyze`, `report` and `fidelity` print on a terminal."""


def meaning(table: str, heading: str) -> ColumnMeaning | None:
    """The column of this heading in this table (None: not one of its columns)."""
    return next((c for c in COLUMNS if c.heading == heading and table in c.tables), None)


def legend_items(table: str, headings: Iterable[str]) -> list[str]:
    """`heading: words` for each column shown (these headings, in order) of a table that
    does not explain itself."""
    found = (meaning(table, heading) for heading in headings)
    return [f"{c.heading}: {c.legend}" for c in found if c is not None and c.legend]


def named(heading: str) -> list[ColumnMeaning]:
    """The columns with this heading, as it may be typed (`max gap`, `MAX-GAP`, `->marker`)."""
    wanted = _folded(heading)
    return [c for c in COLUMNS if _folded(c.heading) == wanted]


def _folded(heading: str) -> str:
    """A heading as it may be typed: `->` for `→`, `-` or `_` for a space, in any case."""
    typed = heading.casefold().replace("->", "→")
    return " ".join(typed.replace("-", " ").replace("_", " ").split())


def columns_markdown(page: str) -> str:
    """The "Columns" section body of docs/<page>.md: a table per table the command prints."""
    parts = []
    for table in PAGES[page]:
        rows = [c for c in COLUMNS if table in c.tables]
        lines = [f"**{TABLES[table]}**", "", "| column | meaning | unit |", "|---|---|---|"]
        lines += [f"| `{c.heading}` | {c.meaning} | {c.unit} |" for c in rows]
        parts.append("\n".join(lines) + "\n")
    return "\n".join(parts)
