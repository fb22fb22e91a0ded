"""Alembic migrations of labbot's schema (run by storage.db, configured in code)."""
