"""Stage 2, decode: records in, `Message`s out. The only place a JSON-RPC message is decoded.

The wire shapes are declared once (`decode.shapes`); `decode.message` turns one into a
`Message`; the hot path for plain lines (`decode.fastpath`, `decode.runs`) decodes with the
same shapes; `decode.stream` drives it over an input.
"""
