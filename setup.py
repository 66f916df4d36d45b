"""The compiled run loop, `acptrace._runloop` (the rest of the build is in pyproject.toml).

It is optional: where it cannot be compiled, the install goes on and acptrace runs the same
loop in Python (`acptrace.runs.grow_in_python`), only slower.
"""

from setuptools import Extension, setup

setup(ext_modules=[Extension("acptrace._runloop", ["acptrace/_runloop.c"], optional=True)])
