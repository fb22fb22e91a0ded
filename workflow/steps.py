"""A change's steps as the bot sees them — a gate waiting for a decision (exactly what it shows,
the hash of that, its expiry) or a finished change, each with the pushes its run made — read
from the graph's checkpoint, and `gate_problem`, the one rule a decision must pass."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Literal

from langgraph.types import StateSnapshot

from base.vocabulary import Choice, GateName, GateProblem, Status
from workflow.library.compose import proposal_parts
from workflow.model import (
    Device,
    DeviceFacts,
    Link,
    StandardResponse,
    TemplatePart,
    TokenUsage,
    Topology,
    sum_usage,
)
from workflow.phases.reviews import (
    GateInfo,
    ParamsReview,
    Review,
    RollbackReview,
    TargetsReview,
    TemplateReview,
)
from workflow.results.endings import Ending, RollbackEnding
from workflow.results.push_records import PushRecord
from workflow.results.targets import device_kinds, infer_kind
from workflow.state import ChangeState, state_of


@dataclass(frozen=True)
class LabLayout:
    """The lab as a change read it: every device's name, the links between them, each device's
    kind (router, switch, host, ...; "" unknown) and the interface addresses known (device ->
    interface -> "10.0.12.1/30", from the facts read: configuration merged with state)."""

    devices: tuple[str, ...]
    links: tuple[Link, ...]
    kinds: Mapping[str, str] = field(default_factory=dict)
    addresses: Mapping[str, Mapping[str, str]] = field(default_factory=dict)

    @classmethod
    def of(
        cls,
        devices: Iterable[Device],
        links: Iterable[Link],
        facts: Mapping[str, DeviceFacts] | None = None,
    ) -> LabLayout:
        """The layout of an inventory read (`DeviceGateway.devices`), with `facts` where read."""
        listed = list(devices)
        kinds = {name: kind for name, (kind, _, _) in device_kinds(listed).items()}
        return cls(
            tuple(device.name for device in listed), tuple(links), kinds, addresses_of(facts or {})
        )


def addresses_of(facts: Mapping[str, DeviceFacts]) -> dict[str, dict[str, str]]:
    """device -> interface -> address, for every interface with one."""
    return {
        name: {i["name"]: i["address"] for i in device["interfaces"] if i["address"]}
        for name, device in facts.items()
    }


@dataclass(frozen=True)
class Gate:
    """A review waiting for a decision. `payload` is exactly what `sha256` covers."""

    interrupt_id: str
    gate: GateName
    change_id: str
    payload: Review
    sha256: str
    expires_at: str  # ISO 8601, UTC
    lab: LabLayout | None = field(default=None, compare=False)  # the lab its change read
    pushes: tuple[PushRecord, ...] = field(default=(), compare=False)  # what its run pushed
    records_before: int = field(default=0, compare=False)  # the change's push records so far


@dataclass(frozen=True)
class TargetsGate(Gate):
    gate: Literal["targets"]
    payload: TargetsReview


@dataclass(frozen=True)
class TemplateGate(Gate):
    gate: Literal["template"]
    payload: TemplateReview


@dataclass(frozen=True)
class ParamsGate(Gate):
    gate: Literal["params"]
    payload: ParamsReview


@dataclass(frozen=True)
class RollbackGate(Gate):
    gate: Literal["rollback"]
    payload: RollbackReview


@dataclass(frozen=True)
class Finished:
    change_id: str
    status: Status
    message: str  # how it ended, from a checkpoint older than typed endings (else "")
    result: StandardResponse | None
    tokens: dict[str, TokenUsage]  # "template", "params" (when used) and "total"
    templates: list[TemplatePart] = field(default_factory=list)  # what the change used
    ending: Ending | None = None  # why it ended (None in checkpoints older than typed endings)
    rollback: RollbackEnding | None = None  # how the offer to roll back ended
    lab: LabLayout | None = field(default=None, compare=False)  # the lab the change read
    newer_versions: dict[str, int] = field(default_factory=dict)  # saved templates used -> newest
    pushes: tuple[PushRecord, ...] = field(default=(), compare=False)  # what its run pushed


PendingGate = TargetsGate | TemplateGate | ParamsGate | RollbackGate
Step = PendingGate | Finished


def gate_problem(pending: Gate | None, interrupt_id: str, sha256: str) -> GateProblem | None:
    """The one rule a decision must pass: it answers the pending gate ("stale": that gate was
    decided or replaced) and approves exactly what the gate shows ("changed": its hash differs).
    None when it may go on."""
    if pending is None or pending.interrupt_id != interrupt_id:
        return "stale"
    if pending.sha256 != sha256:
        return "changed"
    return None


def pushed_on(gate: PendingGate, choice: Choice) -> dict[str, list[str]]:
    """What answering `gate` with `choice` pushes, per device: the lines its payload shows, when
    it is an approved params or rollback gate; else nothing."""
    if choice != "approve" or not isinstance(gate, ParamsGate | RollbackGate):
        return {}
    devices = gate.payload["devices"]
    return {name: list(device["lines"]) for name, device in devices.items() if device["lines"]}


def pending_gate_of(snapshot: StateSnapshot) -> PendingGate | None:
    """The gate the checkpoint waits at, or None."""
    state = state_of(snapshot)
    for pending in snapshot.interrupts:
        info: GateInfo = pending.value
        change_id, sha256, expires_at = info["change_id"], info["sha256"], info["expires_at"]
        shown = (sha256, expires_at, _lab(state))
        before = len(state["push"]["records"]) if state else 0
        if info["gate"] == "targets":
            return TargetsGate(
                pending.id, "targets", change_id, info["payload"], *shown, records_before=before
            )
        if info["gate"] == "template":
            return TemplateGate(
                pending.id, "template", change_id, info["payload"], *shown, records_before=before
            )
        if info["gate"] == "params":
            return ParamsGate(
                pending.id, "params", change_id, info["payload"], *shown, records_before=before
            )
        return RollbackGate(
            pending.id, "rollback", change_id, info["payload"], *shown, records_before=before
        )
    return None


def _lab(state: ChangeState | None) -> LabLayout | None:
    """The lab the change read when it started (kept in its state), so a picture of it needs
    no second read of the inventory."""
    topology: Topology | None = state["lab"]["topology"] if state else None
    if topology is None:
        return None
    kinds = topology.get("kinds") or {
        name: infer_kind(family=facts["family"])[0] for name, facts in topology["devices"].items()
    }  # a checkpoint from before kinds were kept: each device's family's usual kind
    return LabLayout(
        tuple(topology["devices"]),
        tuple(topology["links"]),
        kinds,
        addresses_of(topology["devices"]),
    )


def finished_of(snapshot: StateSnapshot) -> Finished | None:
    """How the change ended, or None while it waits at a gate or has no outcome yet."""
    state = state_of(snapshot)
    if state is None or (outcome := state["outcome"]) is None or snapshot.interrupts:
        return None
    template = state["template"]["proposal"]
    return Finished(
        change_id=state["request"]["change_id"],
        status=outcome["status"],
        message=outcome["message"],
        result=outcome["result"],
        tokens=token_totals(state["planning"]["tokens"]),
        templates=proposal_parts(template) if template else [],
        newer_versions=outcome.get("newer_versions", {}),
        ending=outcome.get("ending"),
        rollback=outcome.get("rollback"),
        lab=_lab(state),
    )


def token_totals(per_stage: dict[str, TokenUsage]) -> dict[str, TokenUsage]:
    """The per-stage usage plus a "total" entry."""
    return {**per_stage, "total": sum_usage(per_stage.values())}
