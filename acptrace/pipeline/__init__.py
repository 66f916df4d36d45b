"""The library's drivers: one transcript through read -> decode -> correlate -> judge
(`pipeline.analysis`), one big file in pieces (`pipeline.pieces`), many files in a pool
(`pipeline.pool`).
"""
