"""The graph's nodes: the working nodes of a change (`change.py`), the gates (`gates.py`), the
post-checks and the rollback gate (`postchecks.py`)."""
