"""Storage: the SQLAlchemy checkpointer, audit and approval records, locks, migrations."""
