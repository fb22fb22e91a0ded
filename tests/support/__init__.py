"""Plain helpers shared by tests and benchmarks (no pytest here: bench/ imports them)."""
