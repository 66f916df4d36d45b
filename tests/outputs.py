"""Output paths every command must refuse (the one `-o` rule, `acptrace/model/outputs.py`)."""

from __future__ import annotations

from pathlib import Path

REFUSED = ("missing folder", "onto a folder", "under a file", "read-only file")
"""The kinds of refused output, in the order the tests list them."""


def refused_outputs(tmp_path: Path, suffix: str) -> dict[str, tuple[Path, str]]:
    """Each refused `-o` (named with `suffix`, since some commands pick the kind of output by
    it), with what the error must say about it; made under `tmp_path`."""
    blocker = tmp_path / "a-file"
    blocker.write_text("mine")
    folder = tmp_path / f"a-folder{suffix}"
    folder.mkdir()
    read_only = tmp_path / f"read-only{suffix}"
    read_only.write_text("keep me")
    read_only.chmod(0o444)
    return {
        "missing folder": (
            tmp_path / "nope" / "deeper" / f"x{suffix}",
            f"the folder {tmp_path / 'nope' / 'deeper'} does not exist",
        ),
        "onto a folder": (folder, "it is a folder"),
        "under a file": (blocker / f"x{suffix}", f"{blocker} is not a folder"),
        "read-only file": (read_only, "it is a read-only file"),
    }
