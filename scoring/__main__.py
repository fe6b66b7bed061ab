"""`python -m scoring …`: the offline command line (spec/cli.md)."""

from scoring.cli import main

if __name__ == "__main__":
    raise SystemExit(main())
