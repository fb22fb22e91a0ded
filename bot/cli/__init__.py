"""The `labbot` command line: one module per command group."""
