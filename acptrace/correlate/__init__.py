"""Stage 3, correlate: messages in order in, observations out.

Pairs requests with responses, follows sessions and their replay windows and children, and
reports what it sees as observations for the judge.
"""
