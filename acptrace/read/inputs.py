"""Turning command-line arguments into transcript paths: files, `-`, directories and globs."""

from __future__ import annotations

import glob
from collections.abc import Iterable, Iterator, Sequence
from pathlib import Path

import msgspec

TRANSCRIPT_SUFFIXES = (".jsonl", ".ndjson", ".jsons", ".json", ".log", ".txt", ".traffic")
"""What a file inside a directory must end with (before an optional `.gz`) to be read."""

_GLOB_CHARS = frozenset("*?[")


class Unmatched(msgspec.Struct, frozen=True):
    """An argument that names no transcript."""

    argument: str
    """The argument as given."""
    reason: str
    """Why nothing was found."""


def expand(arguments: Iterable[str]) -> Iterator[str | Unmatched]:
    """Each argument as transcript paths: a file as it is, a directory's transcripts (sorted,
    recursively), a glob's matches (sorted; `**` recurses); `-` is stdin."""
    for argument in arguments:
        if argument == "-" or Path(argument).is_file():
            yield argument
        elif Path(argument).is_dir():
            found = sorted(str(p) for p in Path(argument).rglob("*") if _is_transcript(p))
            if not found:
                yield Unmatched(argument, "a directory with no transcript files")
            yield from found
        elif _GLOB_CHARS & set(argument):
            matches = sorted(p for p in glob.glob(argument, recursive=True) if Path(p).is_file())
            if not matches:
                yield Unmatched(argument, "no file matches this pattern")
            yield from matches
        else:
            yield argument  # let reading it say what is wrong


def _is_transcript(path: Path) -> bool:
    name = path.name.removesuffix(".gz")  # the name first: a stat per file is slow in a big tree
    return name.endswith(TRANSCRIPT_SUFFIXES) and not name.startswith(".") and path.is_file()


def names_one_file(arguments: Sequence[str]) -> bool:
    """The arguments are one file (or `-`): not several, not a directory or a glob, which may
    match one file today and several tomorrow. What `analyze --format json` writes depends on
    this alone, never on how many files a directory held (docs/json-output.md)."""
    if len(arguments) != 1:
        return False
    argument = arguments[0]
    return argument == "-" or not (Path(argument).is_dir() or _GLOB_CHARS & set(argument))
