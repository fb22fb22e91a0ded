"""The interfaces the workflow is given through its constructor (ports, in hexagonal terms)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Protocol

from workflow.model import (
    Device,
    DeviceFacts,
    Link,
    ParamsProposal,
    PlanRequest,
    ProgressCallback,
    StandardResponse,
    TemplateProposal,
    UnusableNode,
)


class Planner(Protocol):
    """Proposes a template, then per-device parameters. Raises PlanningError it cannot."""

    async def propose_template(self, request: PlanRequest) -> TemplateProposal: ...

    async def propose_params(
        self, request: PlanRequest, template: TemplateProposal
    ) -> ParamsProposal: ...


class Inventory(Protocol):
    """Where devices come from (GNS3 project, static YAML, simulated lab)."""

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
    ) -> StandardResponse:
        """Lock, back up, push, capture again, verify, unlock. One item per device."""
        ...

    async def rollback_plan(self, change_id: str) -> dict[str, list[str]]:
        """Lines per device that bring each device back to its backup from `change_id`."""
        ...


class DeviceLocks(Protocol):
    """Per-device locks with expiry (implemented in storage)."""

    async def acquire(
        self, change_id: str, devices: Sequence[str], ttl_seconds: float
    ) -> dict[str, str]:
        """All or nothing. Returns {} on success, else {device: change_id holding it}."""
        ...

    async def release(self, change_id: str, devices: Sequence[str]) -> None: ...


class BackupStore(Protocol):
    """Running configs captured around a push (implemented in storage)."""

    async def save_config(self, change_id: str, device: str, stage: str, config: str) -> None:
        """stage: "before" or "after"."""
        ...

    async def configs(self, change_id: str, stage: str) -> dict[str, str]: ...
