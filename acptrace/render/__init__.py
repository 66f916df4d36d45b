"""Render: analyses and timelines as terminal views, JSON, Markdown, JUnit, SARIF, annotations."""
