"""`python -m acptrace`."""

from acptrace.cli import main

if __name__ == "__main__":  # worker processes started by spawn re-import this module
    main()
