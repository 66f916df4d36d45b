"""The closing summary of `acptrace analyze` over several files (or connections): how many,
the resumes by outcome, the findings by level and by rule, and the files with most findings.

After hundreds of lines of per-file sections, the last line used to be the last file's own
verdict; this says what the run found as a whole (`--summary` prints it alone, as ruff's
`--statistics` does).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator, Sequence

from rich.console import Group, RenderableType
from rich.text import Text

from acptrace.model.domain import Analysis, Outcome, Severity
from acptrace.render.facts import Facts
from acptrace.render.fitted import Column, FittedTable
from acptrace.render.summary import OUTCOME_STYLE, SEVERITY_STYLE
from acptrace.render.text import cut_names, inert, plural, shared_folders

WORST_SHOWN = 5
"""Files listed in the table of the files with most findings."""
TITLE = "Across all files"


def across_files(analyses: Sequence[Analysis]) -> Group:
    """The closing summary over these analyses (one per connection)."""
    return Group(*_sections(analyses))


def _sections(analyses: Sequence[Analysis]) -> Iterator[RenderableType]:
    paths = sorted({a.source.path for a in analyses})
    files, folder = len(paths), shared_folders(paths) if len(paths) > 1 else ""
    yield Text(TITLE, "bold underline")
    named = inert(plural(files, "file")).append_text(inert(f" in {folder}" if folder else ""))
    resumes = sum(len(a.resumes) for a in analyses)
    issues = sum(len(a.issues) for a in analyses)
    counts = [plural(len(analyses), "connection"), plural(resumes, "resume")]
    yield Facts([named, *counts, plural(issues, "input issue")])
    outcomes = Counter(row.outcome for a in analyses for row in a.resumes)
    if outcomes:
        shown = [Text(f"{o.value} {outcomes[o]}", OUTCOME_STYLE[o]) for o in Outcome if outcomes[o]]
        yield Facts([Text("outcomes: ").append_text(shown[0]), *shown[1:]], hang=2)
    levels = Counter(f.severity for a in analyses for f in a.findings)
    if not levels:
        yield Text("No findings in any file.", "green")
        return
    yield Text("")
    yield _by_rule(analyses)
    yield _worst(analyses, folder)
    found = ", ".join(plural(levels[s], s.value) for s in Severity if levels[s])
    with_findings = len({a.source.path for a in analyses if a.findings})
    yield Text(f"Findings: {found} in {plural(with_findings, 'file')} of {files}.")


def _by_rule(analyses: Sequence[Analysis]) -> FittedTable:
    """One row per rule and level, most findings first: how many, in how many files."""
    findings: Counter[tuple[str, Severity]] = Counter()
    files: dict[tuple[str, Severity], set[str]] = {}
    for analysis in analyses:
        for finding in analysis.findings:
            key = (finding.rule, finding.severity)
            findings[key] += 1
            files.setdefault(key, set()).add(analysis.source.path)
    columns = [
        Column("rule"),
        Column("level"),
        Column("findings", "right"),
        Column("files", "right", drop=1),
    ]
    table = FittedTable(
        columns, legend="across-rules", title="Findings by rule", title_justify="left"
    )
    order = sorted(findings, key=lambda key: (list(Severity).index(key[1]), -findings[key], key))
    for rule, severity in order:
        table.add_row(
            rule,
            Text(severity.value, SEVERITY_STYLE[severity]),
            f"{findings[rule, severity]:,}",
            str(len(files[rule, severity])),
        )
    return table


def _worst(analyses: Sequence[Analysis], folder: str) -> FittedTable:
    """The files with most findings, the most severe first (errors, then warnings, notes),
    named within the `folder` they all share (said once, above)."""
    per_file: dict[str, Counter[Severity]] = {}
    issues: Counter[str] = Counter()
    for analysis in analyses:
        path = analysis.source.path
        per_file.setdefault(path, Counter()).update(f.severity for f in analysis.findings)
        issues[path] += len(analysis.issues)
    ranked = sorted(
        (path for path, counts in per_file.items() if counts),
        key=lambda path: (*(-per_file[path][s] for s in Severity), path),
    )[:WORST_SHOWN]
    columns = [
        Column("file", shorten=cut_names),
        *(Column(_LEVEL_HEADINGS[s], "right", drop=_LEVEL_DROPS[s]) for s in Severity),
        Column("issues", "right", drop=1),
    ]
    more = len([counts for counts in per_file.values() if counts]) - len(ranked)
    title = "Files with most findings" + (f" (and {more} more)" if more else "")
    table = FittedTable(columns, 2, "worst-files", title=title, title_justify="left")
    for path in ranked:
        counts = per_file[path]
        table.add_row(
            inert(path.removeprefix(folder)),
            *(Text(f"{counts[s]:,}", SEVERITY_STYLE[s] if counts[s] else "dim") for s in Severity),
            str(issues[path]),
        )
    return table


_LEVEL_HEADINGS = {Severity.ERROR: "errors", Severity.WARNING: "warnings", Severity.NOTE: "notes"}
_LEVEL_DROPS = {Severity.ERROR: None, Severity.WARNING: 3, Severity.NOTE: 2}
"""At narrow widths the input issues, then the notes go before a file name is shortened;
then the warnings; never the errors."""
