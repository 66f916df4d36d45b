"""Presenters: each turns an `Analysis` (or the rule registry) into one output format."""
