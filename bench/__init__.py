"""Benchmark scripts: each runs as `python -m bench.NAME` and prints what it measures."""
