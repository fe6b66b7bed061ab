"""`python -m scoring …`: the offline command line (spec/cli.md)."""

import sys

from scoring.cli import main

if __name__ == "__main__":
    sys.exit(main())
