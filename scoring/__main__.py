"""`python -m scoring …`: the offline command line (spec/cli.md)."""

from scoring.cli import main

raise SystemExit(main())
