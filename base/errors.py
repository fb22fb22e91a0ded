"""labbot's exception tree. Per-device failures are data, not exceptions; these are for faults.

LabbotError
├── ConfigError            a setting is missing or wrong (one line naming it)
├── StorageError           the database cannot be reached, migrated or used
│   ├── DecisionConflict   a gate was already decided (first decision wins)
│   └── VersionConflict    a template name@version is already saved (versions are immutable)
├── PlanningError          the planner could not produce a valid proposal
├── TemplateError          a template does not compile, uses unknown variables, or fails to render
├── GateError              a decision does not fit the pending gate (stale, changed, expired)
└── InventoryError         the device inventory cannot be read (GNS3 down, bad YAML, ...)
"""

from __future__ import annotations


class LabbotError(Exception):
    """Root of labbot's own errors. `str(err)` is a message fit for a user."""


class ConfigError(LabbotError):
    pass


class StorageError(LabbotError):
    pass


class DecisionConflict(StorageError):
    """Raised when a gate already has a decision; `existing` describes the winner."""

    def __init__(self, message: str, existing: object = None) -> None:
        super().__init__(message)
        self.existing = existing


class VersionConflict(StorageError):
    """Raised when a save asks for a template version that another save already took."""


class PlanningError(LabbotError):
    pass


class TemplateError(LabbotError):
    pass


class GateError(LabbotError):
    pass


class InventoryError(LabbotError):
    pass
