"""labbot's exception tree. Per-device failures are data, not exceptions; these are for faults.

LabbotError
├── ConfigError            a setting is missing or wrong (one line naming it)
├── StorageError           the database cannot be reached, migrated or used
│   ├── DecisionConflict   a gate was already decided (first decision wins)
│   └── VersionConflict    a template name@version is already saved (versions are immutable)
├── PlanningError          the planner could not produce a valid proposal
│   └── TargetError        the request's devices cannot be told exactly (`problem`, `word`)
├── TemplateError          a template does not compile, uses unknown variables, or fails to render
├── GateError              a decision or start does not fit the thread's change
├── ReadRefused            a read is not an allowed read command (nothing was sent to a device)
└── InventoryError         the device inventory cannot be read (GNS3 down, bad YAML, ...)
"""

from __future__ import annotations

from base.vocabulary import ReadProblem, TargetProblem

__all__ = [
    "ConfigError",
    "DecisionConflict",
    "GateError",
    "InventoryError",
    "LabbotError",
    "PlanningError",
    "ReadRefused",
    "StorageError",
    "TargetError",
    "TemplateError",
    "VersionConflict",
]


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
    """Raised when a save asks for a template version it cannot have: `version` is taken (by
    `saved_by` at `saved_at`, when known), skips ahead of `next_version`, or another save took
    it at the same moment (`version` None). The bot says which in words of its own."""

    def __init__(
        self,
        name: str,
        version: int | None,
        next_version: int,
        saved_by: str = "",
        saved_at: str = "",
    ) -> None:
        super().__init__(f"{name}@{version}: version not free (next is {next_version})")
        self.name, self.version, self.next_version = name, version, next_version
        self.saved_by, self.saved_at = saved_by, saved_at


class PlanningError(LabbotError):
    pass


class TargetError(PlanningError):
    """The request's devices cannot be told exactly: `problem` says how, `word` is the word at
    fault ("" when none), `known` the lab's devices; for "too_many", `count` devices were
    selected and the limit is `limit`. The bot words it (bot/messages/)."""

    def __init__(
        self,
        problem: TargetProblem,
        word: str = "",
        known: tuple[str, ...] = (),
        *,
        count: int = 0,
        limit: int = 0,
    ) -> None:
        # the wording is the bot's; this text is for logs and an LLM planner retrying
        super().__init__(f"targets {problem}: {word!r} (lab devices: {', '.join(known)})")
        self.problem: TargetProblem = problem
        self.word, self.known, self.count, self.limit = word, known, count, limit


class TemplateError(LabbotError):
    pass


class GateError(LabbotError):
    pass


class ReadRefused(LabbotError):
    """A read command outside the platform's allow-list; nothing was sent to any device.
    `problem` says why; `word` is the verb, filter, topic or family at fault, `option` and
    `value` a probe's option and value (`value`: a question's family), `words` what is allowed
    (or the characters refused), `limit` a bound or the device cap, `count` the devices asked,
    `device` the device it was refused for ("" when all). The bot words it (bot/messages/)."""

    def __init__(
        self,
        problem: ReadProblem,
        word: str = "",
        *,
        option: str = "",
        value: str = "",
        words: tuple[str, ...] = (),
        limit: int = 0,
        count: int = 0,
        device: str = "",
    ) -> None:
        # the wording is the bot's; this text is for logs and the diagnosing model
        given = {"word": word, "option": option, "value": value, "device": device}
        shown = ", ".join(f"{k}={v!r}" for k, v in given.items() if v)
        allowed = f"; allowed: {', '.join(words)}" if words else ""
        bound = f"; limit {limit}" if limit else ""
        super().__init__(f"read refused, {problem.replace('_', ' ')}: {shown}{allowed}{bound}")
        self.problem: ReadProblem = problem
        self.word, self.option, self.value, self.words = word, option, value, words
        self.limit, self.count, self.device = limit, count, device

    def on(self, device: str) -> ReadRefused:
        """The same refusal, said of `device`."""
        return ReadRefused(
            self.problem,
            self.word,
            option=self.option,
            value=self.value,
            words=self.words,
            limit=self.limit,
            count=self.count,
            device=device,
        )


class InventoryError(LabbotError):
    pass
