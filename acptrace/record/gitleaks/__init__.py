"""gitleaks' default rule set, vendored as data (`gitleaks.toml`, MIT: `LICENSE` beside it).

`rules.RULES` are the rules redaction applies after its own shapes; `rules.DROPPED` those it
leaves out, and why (docs/redaction.md lists both). `translate` turns each rule's RE2
pattern into Python's `re` where the two mean the same.
"""
