"""The interfaces the workflow is given through its constructor (ports, in hexagonal terms)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Protocol

from workflow.model import (
    BackupStage,
    Device,
    DeviceFacts,
    DeviceLock,
    Link,
    ParamsProposal,
    PlanRequest,
    ProgressCallback,
    SavedTemplate,
    StandardResponse,
    TemplateProposal,
    UnusableNode,
)
from workflow.postchecks.evaluate import Expectation

__all__ = [
    "BackupStore",
    "ConfigTrial",
    "DeviceGateway",
    "DeviceLocks",
    "Inventory",
    "LabReader",
    "Planner",
    "SavedTemplates",
    "TwinRun",
]


class Planner(Protocol):
    """Proposes a template, then per-device parameters. Raises PlanningError it cannot."""

    async def propose_template(self, request: PlanRequest) -> TemplateProposal: ...

    async def propose_params(
        self, request: PlanRequest, template: TemplateProposal
    ) -> ParamsProposal: ...


class Inventory(Protocol):
    """Where devices come from (GNS3 project, static YAML, simulated lab)."""

    lab: str  # which lab, as people name it by its source; every change records it

    async def load(self) -> tuple[list[Device], list[Link], list[UnusableNode]]: ...


class DeviceGateway(Protocol):
    """Everything the workflow does to devices. Per-device failures are data, never exceptions."""

    async def devices(self) -> tuple[list[Device], list[Link], list[UnusableNode]]: ...

    async def facts(self, names: Sequence[str]) -> dict[str, DeviceFacts]: ...

    async def push(
        self,
        change_id: str,
        plan: Mapping[str, Sequence[str]],
        on_progress: ProgressCallback | None = None,
        previewed: Mapping[str, str] | None = None,
        hold_sessions: bool = False,
    ) -> StandardResponse:
        """Lock, back up, push, capture again, verify, unlock. One item per device. A device
        whose running config differs from `previewed` (the one its preview was computed from,
        volatile lines aside) is not pushed: `metadata["drifted"]` says what changed on it.
        `hold_sessions`: the post-checks that follow read on the push's sessions (kept open
        briefly, closed by them or when none come)."""
        ...

    async def rollback_plan(
        self, change_id: str, pushed: Mapping[str, Sequence[str]] | None = None
    ) -> dict[str, list[str]]:
        """Lines per device that bring each device back to its backup from `change_id` (a
        device unreadable now: as if all the lines `pushed` to it had taken)."""
        ...

    async def pushed_configs(self, change_id: str) -> dict[str, tuple[str, str]]:
        """Per device `change_id` pushed: its running config (before, after) the push, as
        backed up (devices without both backups are left out)."""
        ...

    async def post_check(
        self,
        expected: Mapping[str, Sequence[Expectation]],
        wait_seconds: float,
        on_progress: ProgressCallback | None = None,
    ) -> StandardResponse:
        """Wait (at most `wait_seconds`) until each device shows what it must; one item each,
        failed with the evidence when it does not."""
        ...

    async def read(self, commands: Mapping[str, str]) -> StandardResponse:
        """Send each device its allow-listed read; one item per device, output as result."""
        ...


class LabReader(Protocol):
    """What the read commands need of the gateway: the devices, and reads (no lock, no gate)."""

    async def devices(self) -> tuple[list[Device], list[Link], list[UnusableNode]]: ...

    async def read(self, commands: Mapping[str, str]) -> StandardResponse: ...

    async def facts(self, names: Sequence[str]) -> dict[str, DeviceFacts]:
        """Each device's interfaces and addresses (configuration merged with state)."""
        ...


class DeviceLocks(Protocol):
    """Per-device locks with expiry (implemented in storage)."""

    async def acquire(
        self, change_id: str, devices: Sequence[str], ttl_seconds: float
    ) -> list[DeviceLock]:
        """All or nothing. Returns [] on success, else the locks other changes hold."""
        ...

    async def release(self, change_id: str, devices: Sequence[str]) -> None: ...

    async def release_change(self, change_id: str) -> None:
        """Release every lock `change_id` holds (it ended)."""
        ...


class BackupStore(Protocol):
    """Running configs captured around a push (implemented in storage)."""

    async def save_configs(
        self, change_id: str, stage: BackupStage, configs: Mapping[str, str]
    ) -> None:
        """Save {device: running config} at `stage` of `change_id`, all or none."""
        ...

    async def configs(self, change_id: str, stage: BackupStage) -> dict[str, str]:
        """{device: running config} of the devices captured at `stage` of `change_id`."""
        ...


class SavedTemplates(Protocol):
    """The team's library of saved template versions (implemented in storage)."""

    async def resolve(self, name: str, version: int | None, scope: str) -> SavedTemplate | None:
        """`name@version`; with no version, the one pinned in `scope` (a channel), else the
        latest. None when there is no such name or version."""
        ...

    async def versions(self, name: str) -> list[int]:
        """Every version of `name`, oldest first ([] for an unknown name)."""
        ...

    async def latest_versions(self, names: Sequence[str]) -> dict[str, int]:
        """The newest version of each known name among `names`."""
        ...

    async def names(self) -> list[str]: ...


class TwinRun(Protocol):
    """What a twin did with the lines typed into it."""

    @property
    def refused(self) -> list[str]:
        """`line: reply` for each line it refused."""
        ...

    @property
    def before(self) -> str:
        """Its running config before the lines, as it prints it."""
        ...

    @property
    def after(self) -> str:
        """Its running config after them."""
        ...


class ConfigTrial(Protocol):
    """Tries configuration lines on a throwaway copy of a device (the template's twin: a
    simulated device, or a real router of its own; never a lab device)."""

    async def trial(
        self, device: str, platform: str, running_config: str, lines: Sequence[str]
    ) -> TwinRun | None:
        """What the copy did with `lines` (started from `running_config`); None when no twin
        exists for `platform`."""
        ...
