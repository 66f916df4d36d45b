"""The folder beside the repository that CI provides: `../shared`, with third-party recordings
(`real-world/`) and the spec (`spec/`). Tests that read it carry the `shared` marker; without the
folder that group is deselected with one summary line (see `conftest.py`)."""

from __future__ import annotations

from tests.golden import ROOT

SHARED = ROOT.parent / "shared"
REAL_WORLD = SHARED / "real-world"
SPEC = SHARED / "spec"

NEED_SHARED = "ACPTRACE_TESTS_NEED_SHARED"
"""Set (to anything but an empty string) where the folder must be there, as in CI: its absence
is then an error instead of a deselected group."""


def present() -> bool:
    """Whether `SHARED` is the shared folder: a folder of that name holding neither `real-world/`
    nor `spec/` is someone else's, and counts as absent."""
    return (SHARED / "real-world").is_dir() or (SHARED / "spec").is_dir()
