"""One module per schema revision, append-only."""
