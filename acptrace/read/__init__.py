"""Stage 1, read: bytes in, lines and transcript records out.

Sources (files, stdin, gzip), line cutting, multi-line arrays, input formats (recognising a
record's envelope: time, direction, payload), timestamps and clocks, command-line paths.
"""
