"""Checkpoints kept before the state had its per-phase parts, upgraded as they are loaded: the
values (`state_upgrade.py`), the pending writes (`write_upgrade.py`), the saver doing it
(`upgrading_saver.py`)."""
