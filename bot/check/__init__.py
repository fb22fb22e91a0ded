"""`labbot check`, the doctor: each part of labbot's set-up checked, one finding per item with the
fix (`findings.py`); `serve` runs the inventory, database and chat parts before it listens."""
