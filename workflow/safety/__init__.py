"""What may never reach a device: the deny-list (`deny.py`, its tables in workflow/denylist/), the
sections a template may touch (`sections.py`), what a template may allow, masked lines."""
