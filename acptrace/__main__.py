"""`python -m acptrace`."""

from acptrace.cli import main

main()
