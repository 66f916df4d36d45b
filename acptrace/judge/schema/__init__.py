"""Schema conformance (rules.md §12): each message against the ACP JSON Schema of its version.

`catalogue` ships the schemas (`schema-v1.json`, `schema-v2.json`: `@agentclientprotocol/sdk`
2.4.0, Apache-2.0, `LICENSE` beside them) and says which definition checks which message;
`index` says where each definition lies in its schema (`schema-v2.index.json`, made from the
schema and shipped beside it, so that a run does not decode the whole schema to find one);
`compiler` turns a definition into Python checks, once; `conformance` checks a connection's
messages and tallies their breaks once per (rule, method or tag, JSON path), which the rules
of `acptrace.judge.rules.schema` turn into findings.
"""
