"""Golden text: compare a generated block with the one in a file, or rewrite it with --regen."""

from __future__ import annotations

from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def check_block(path: Path, name: str, generated: str, regen: bool) -> None:
    """The text between `<!-- NAME:start -->` and `<!-- NAME:end -->` in `path` is `generated`."""
    text = path.read_text(encoding="utf-8")
    start, end = f"<!-- {name}:start -->\n", f"<!-- {name}:end -->"
    head, rest = text.split(start, 1)
    current, tail = rest.split(end, 1)
    if regen:
        path.write_text(head + start + generated + end + tail, encoding="utf-8")
        return
    assert current == generated, f"{path.name} section {name!r} is stale: run pytest --regen"
