"""A latency as the terminal views write it: milliseconds, seconds from a second on, `—` for
none, `~` before an estimated one."""

from __future__ import annotations

from rich.text import Text


def latency(value: float | None, approximate: bool = False) -> Text:
    """A latency in milliseconds as text; `~` before an approximate one (`APPROXIMATE_LEGEND`
    in `acptrace.render.summary` says what it means)."""
    if value is None:
        return Text("—", "dim")
    mark = "~" if approximate else ""
    if value >= 1000:
        return Text(f"{mark}{value / 1000:.2f} s")
    return Text(f"{mark}{value:.1f} ms")
