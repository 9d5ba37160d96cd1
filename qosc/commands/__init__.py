"""CLI subcommands: each module defines register(subparsers) and run(args) -> exit status."""
