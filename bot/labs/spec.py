"""What the labs file says of each lab: where its devices come from, where it answers, who may
do what in it and its limits. Plain data (bot.labs.labs_file reads it, bot.labs.pods expands a
pod group into labs, bot.labs.lab_settings turns a lab into the settings it runs on)."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

__all__ = ["GNS3Pods", "Lab", "PodGroup"]


@dataclass(frozen=True)
class InventorySource:
    """A Nornir hosts file, or a deployed containerlab lab (its `clab-NAME/` directory or its
    topology file): what LABBOT_INVENTORY may name."""

    path: Path


@dataclass(frozen=True)
class GNS3Source:
    url: str
    project: str  # a name or an id
    user: str | None = None
    password_ref: str | None = None  # the environment variable (or setting) holding it


Source = InventorySource | GNS3Source


@dataclass(frozen=True)
class Credentials:
    """The device login, by reference: the names of the environment variables (or settings)
    holding each value; a username may be written as it is (it is no secret)."""

    username: str | None = None
    password_ref: str | None = None
    secret_ref: str | None = None


@dataclass(frozen=True)
class Lab:
    name: str
    source: Source
    line: int  # where the labs file declares it (its group's line for a pod)
    slack: tuple[str, ...] = ()  # channel ids (C…) or names (#name)
    matrix: tuple[str, ...] = ()  # room ids (!…:hs) or aliases (#…:hs)
    approvers: tuple[str, ...] = ()
    requesters: tuple[str, ...] = ()  # empty: anyone may ask
    owners: Path | None = None  # an owners file (LABBOT_OWNERS' format)
    credentials: Credentials = field(default_factory=Credentials)
    limits: tuple[tuple[str, int], ...] = ()  # setting name -> value (LIMITS)
    device_types: tuple[tuple[str, str], ...] = ()  # glob -> netmiko device type
    group: str = ""  # the pod group it belongs to ("": a lab of its own)
    instructors: tuple[str, ...] = ()  # the group's: may approve in any of its labs
    students: tuple[str, ...] = ()  # this pod's: may ask and approve only here
    # the agents of LABBOT_MCP_AGENTS that may work in it (None: not said, so none, unless it is
    # the lab of LABBOT_MCP_CHANNEL: bot.agents.scope)
    agents: tuple[str, ...] | None = None


@dataclass(frozen=True)
class GNS3Pods:
    url: str
    projects: str  # a pattern with one `*` (`pod-*`)
    user: str | None = None
    password_ref: str | None = None


@dataclass(frozen=True)
class ContainerlabPods:
    under: Path  # the folder holding the deployed labs (`clab-NAME/`)
    labs: str  # a pattern with one `*` for NAME (`pod-*`)


@dataclass(frozen=True)
class PodGroup:
    """Labs found by pattern, each answering in the channels its name gives (`#pod-*`: the
    `*` is what the lab's name matched)."""

    name: str
    source: GNS3Pods | ContainerlabPods
    line: int
    slack: tuple[str, ...] = ()  # patterns: `#pod-*`
    matrix: tuple[str, ...] = ()  # patterns: `#pod-*:example.org`
    instructors: tuple[str, ...] = ()
    students: tuple[tuple[str, tuple[str, ...]], ...] = ()  # pod name -> its students
    requesters: tuple[str, ...] = ()  # besides instructors and students
    owners: Path | None = None
    credentials: Credentials = field(default_factory=Credentials)
    limits: tuple[tuple[str, int], ...] = ()
    device_types: tuple[tuple[str, str], ...] = ()
    agents: tuple[str, ...] | None = None  # each of its pods': Lab.agents

    @property
    def pattern(self) -> str:
        return self.source.projects if isinstance(self.source, GNS3Pods) else self.source.labs


@dataclass(frozen=True)
class LabsFile:
    path: Path
    labs: tuple[Lab, ...]
    groups: tuple[PodGroup, ...]


def matched(pattern: str, name: str) -> str | None:
    """What the `*` of `pattern` stands for in `name` (`pod-*`, `pod-3` -> `3`), or None."""
    head, star, tail = pattern.partition("*")
    if not star:
        return "" if name == pattern else None
    if len(name) < len(head) + len(tail) or not name.startswith(head) or not name.endswith(tail):
        return None
    return name[len(head) : len(name) - len(tail)]


def filled(pattern: str, part: str) -> str:
    """`pattern` with its `*` replaced by `part` (`#pod-*`, `3` -> `#pod-3`)."""
    return pattern.replace("*", part, 1)
