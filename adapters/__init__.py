"""Chat platform adapters: translate platform events to neutral types and back, nothing else."""
