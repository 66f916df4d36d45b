"""The file formats `export` writes, apart from the exporter so the CLI need not load polars."""

from __future__ import annotations

from enum import StrEnum


class ExportFormat(StrEnum):
    """File formats of `export` (the file suffix is the same word)."""

    PARQUET = "parquet"
    CSV = "csv"
    NDJSON = "ndjson"
    JSON = "json"
