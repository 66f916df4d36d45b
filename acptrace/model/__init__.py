"""The vocabulary every stage shares: domain records and enums, options, tags, errors, the version.

Nothing here imports another acptrace package.
"""
