"""A small ACP agent and client built on the published `agent-client-protocol` package.

They run the real SDK over stdio, and each side keeps a copy of every byte it wrote and read,
so a test can check that a proxy in between changed nothing.
"""
