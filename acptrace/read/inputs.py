"""Turning command-line arguments into transcript paths: files, `-`, directories and globs."""

from __future__ import annotations

import os
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


class Skipped(msgspec.Struct, frozen=True):
    """Something in a directory that was not read: a folder that cannot be listed, a link to
    a file or folder outside the directory. Commands say so on stderr and go on (`analyze
    --strict` exits 2)."""

    path: str
    """The folder or link, as found."""
    reason: str
    """Why it was not read."""


def expand(arguments: Iterable[str]) -> Iterator[str | Unmatched | Skipped]:
    """Each argument as transcript paths: a file as it is, a directory's transcripts (sorted,
    recursively; links are followed only to what lies inside it), a glob's matches (sorted;
    `**` recurses); `-` is stdin."""
    for argument in arguments:
        if argument == "-" or Path(argument).is_file():
            yield argument
        elif Path(argument).is_dir():
            found, skipped = _in_directory(argument)
            if not found:
                yield Unmatched(argument, "a directory with no transcript files")
            yield from skipped
            yield from found
        elif _GLOB_CHARS & set(argument):
            import glob  # (here: most runs name files)

            matches = sorted(p for p in glob.glob(argument, recursive=True) if Path(p).is_file())
            if not matches:
                yield Unmatched(argument, "no file matches this pattern")
            yield from matches
        else:
            yield argument  # let reading it say what is wrong


def _in_directory(directory: str) -> tuple[list[str], list[Skipped]]:
    """The transcripts in a directory, sorted, and what was not read. A link is read only
    when it leads to something inside the directory: a link to `/etc/shadow` or to a home
    folder is no transcript of this directory, and its content must not end up in a report."""
    root = os.path.realpath(directory)
    found: list[str] = []
    skipped: list[Skipped] = []

    def unreadable(error: OSError) -> None:
        why = error.strerror or str(error)
        skipped.append(Skipped(str(error.filename), f"a folder that cannot be read ({why})"))

    for folder, subfolders, files in os.walk(directory, onerror=unreadable):
        for name in subfolders:  # (a linked folder is never entered: said when it leads out)
            if _leads_out(Path(folder) / name, root):
                skipped.append(Skipped(str(Path(folder) / name), LINK_OUT))
        for name in files:
            path = Path(folder) / name
            if not _named_like_transcript(name):  # (the name first: a stat per file is slow)
                continue
            if _leads_out(path, root):
                skipped.append(Skipped(str(path), LINK_OUT))
            elif path.is_file():
                found.append(str(path))
    return sorted(found), sorted(skipped, key=lambda s: s.path)


LINK_OUT = "a link to outside the folder: not read"


def _leads_out(path: Path, root: str) -> bool:
    """Whether the path is a link to something that does not lie in `root` (a broken link
    leads nowhere: not read, as a file that is not there)."""
    if not path.is_symlink():
        return False
    target = os.path.realpath(path)
    return os.path.exists(target) and os.path.commonpath([root, target]) != root


def _named_like_transcript(name: str) -> bool:
    name = name.removesuffix(".gz")
    return name.endswith(TRANSCRIPT_SUFFIXES) and not name.startswith(".")


def names_one_file(arguments: Sequence[str]) -> bool:
    """The arguments are one file (or `-`): not several, not a directory or a glob, which may
    match one file today and several tomorrow. What `analyze --format json` writes depends on
    this alone, never on how many files a directory held (docs/json-output.md)."""
    if len(arguments) != 1:
        return False
    argument = arguments[0]
    return argument == "-" or not (Path(argument).is_dir() or _GLOB_CHARS & set(argument))
