"""Export: the tables written as Parquet, CSV, NDJSON or JSON files (`exporter`); a transcript
as a Chrome Trace Event timeline (`trace_event`); the analysis as OpenTelemetry traces
(`otlp`, its spans in `otlp_spans`, their ids in `trace_context`, OTLP/HTTP in `otlp_http`).

>>> from acptrace.export import export_tables

`export_tables` is loaded on first use, so that importing `acptrace.export.file_formats` (the
CLI does, to list the formats) does not load polars.
"""

from __future__ import annotations

from typing import Any

__all__ = ["Exported", "export_tables"]


def __getattr__(name: str) -> Any:
    if name in __all__:
        from acptrace.export import exporter

        return getattr(exporter, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
