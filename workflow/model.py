"""Plain data shared by the workflow, the device side and the planners.

Everything that travels through the LangGraph state is JSON-shaped (TypedDicts of str, int,
lists and dicts), so the checkpointer stores it without custom serializers.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, Literal, NotRequired, TypedDict

from workflow.chosen import Because, KindSource
from workflow.postcheck_outcome import DeviceChecks
from workflow.postcheck_spec import PostChecks

__all__ = [
    "BackupStage",
    "Device",
    "DeviceFacts",
    "DeviceLock",
    "InterfaceFacts",
    "ItemStatus",
    "LLMProgress",
    "Landed",
    "Link",
    "ParamSpec",
    "ParamsProposal",
    "PlanRequest",
    "ProgressCallback",
    "PushProgress",
    "ResponseItem",
    "SavedTemplate",
    "StandardResponse",
    "StepProgress",
    "TemplatePart",
    "TemplateProposal",
    "TokenUsage",
    "Topology",
    "UnusableNode",
    "add_tokens",
    "link_ends",
    "platform_family",
    "sum_usage",
]

# --- devices -----------------------------------------------------------------------------------


@dataclass(frozen=True)
class Device:
    """One device labbot can reach. `platform` is a netmiko device_type (cisco_ios_telnet, ...)."""

    name: str
    platform: str
    host: str
    port: int
    node_id: str = ""  # GNS3 node id, when the device comes from GNS3
    # Login given by the inventory file (host, group or defaults); settings fill what it lacks.
    username: str | None = None
    password: str | None = field(default=None, repr=False)
    secret: str | None = field(default=None, repr=False)
    kind: str = ""  # router, switch, firewall: from the inventory ("" = tell by family)
    kind_source: KindSource = "unknown"  # where `kind` comes from, shown when "all routers"
    kind_detail: str = ""  # selects it: the group, symbol or family the source names
    simulator: str = ""  # set for a simulated device (labsim): it runs no routing protocols

    @property
    def family(self) -> str:
        """The vendor family templates are written for: cisco_ios, arista_eos, juniper_junos, ..."""
        return platform_family(self.platform)

    @property
    def transport(self) -> str:
        """How netmiko reaches it: `telnet` (a console), `serial`, else `ssh`."""
        suffix = self.platform.rpartition("_")[2]
        return suffix if suffix in ("telnet", "serial") else "ssh"


def platform_family(platform: str) -> str:
    for suffix in ("_telnet", "_ssh", "_serial"):
        if platform.endswith(suffix):
            return platform[: -len(suffix)]
    return platform


@dataclass(frozen=True)
class UnusableNode:
    """An inventory node labbot will not touch, with the reason shown to the user."""

    name: str
    reason: str


@dataclass(frozen=True)
class DeviceLock:
    """A device another change holds until `expires_at` (what `DeviceLocks.acquire` refuses)."""

    device: str
    change_id: str
    expires_at: datetime


BackupStage = Literal["before", "after"]  # running config captured before or after a push


class Link(TypedDict):
    """A cable between two devices' interfaces (JSON-shaped: it travels in the graph's state)."""

    a_device: str
    a_interface: str
    b_device: str
    b_interface: str


def link_ends(link: Link) -> tuple[tuple[str, str], tuple[str, str]]:
    """The link's two ends as (device, interface) pairs: a side, then b side."""
    return (link["a_device"], link["a_interface"]), (link["b_device"], link["b_interface"])


class InterfaceFacts(TypedDict):
    name: str
    address: str | None  # "10.0.12.1/24" (ip_interface form) or None
    enabled: bool
    vrf: NotRequired[str]  # the VRF (routing instance) it belongs to; absent: the global table


class DeviceFacts(TypedDict):
    """Read-only facts the planners derive parameters from."""

    name: str
    platform: str
    family: str
    interfaces: list[InterfaceFacts]
    running_config: str
    error: NotRequired[str]  # set when facts could not be read; the device is then not offered
    # set when its interfaces come from its configuration alone: why its state was not used
    state_unread: NotRequired[str]
    # the interface holding the address labbot reaches the device at (a management interface)
    management: NotRequired[str]


class Topology(TypedDict):
    devices: dict[str, DeviceFacts]
    links: list[Link]
    unusable: list[dict[str, str]]  # {"name","reason"}
    selection: NotRequired[dict[str, Because]]  # the request's devices -> why each was chosen
    kinds: NotRequired[dict[str, str]]  # device -> its kind (router, switch, host; "" unknown)


# --- the standard response format ----------------------------------------------------------------

ItemStatus = Literal["success", "failed"]
# What a push that failed left on a device, read back from it (workflow/devices/landed.py):
# none, some or all of the pushed lines; unknown when the read back failed too.
LandedKind = Literal["none", "some", "all", "unknown"]


class Landed(TypedDict):
    kind: LandedKind
    lines: list[str]  # the pushed lines the device holds now (parents > line); some: which
    total: int  # how many lines were pushed (as the device holds them, mode changes aside)
    unread: NotRequired[str]  # unknown: why the read back failed (the bot's words)


class ResponseItem(TypedDict):
    id: str
    name: str
    status: ItemStatus
    result: NotRequired[str]
    error: NotRequired[str]
    checks: NotRequired[DeviceChecks]  # its post-checks' outcome (bot/views/postcheck.py words it)
    landed: NotRequired[Landed]  # a failed push: what it left on the device, read back


class StandardResponse(TypedDict):
    success: bool
    total: int
    successful: int
    failed: int
    data: list[ResponseItem]
    error: NotRequired[str]
    metadata: NotRequired[dict[str, Any]]


# --- push progress -------------------------------------------------------------------------------


@dataclass(frozen=True)
class PushProgress:
    """One device's progress during a push; delivered on the event loop thread."""

    device: str
    stage: Literal["started", "done", "failed"]
    detail: str = ""
    done: int = 0  # devices finished so far (done + failed)
    total: int = 0
    check: DeviceChecks | None = None  # a post-check's outcome so far (instead of `detail`)


@dataclass(frozen=True)
class LLMProgress:
    """The model is still writing: seconds since the request, and what it wrote so far."""

    elapsed_seconds: float
    output_tokens: int = 0  # 0: not known (nothing streamed yet)
    estimated: bool = True  # counted from the streamed text, not reported by the endpoint


# A progress sink updates its state when called; the awaitable it may return shows the latest
# state (a chat edit) and may be dropped for a newer one before it starts (progress_edits.py).
ProgressCallback = Callable[[PushProgress], Awaitable[None] | None]
StepProgress = Callable[[PushProgress | LLMProgress], Awaitable[None] | None]  # a whole step's


# --- planner output ------------------------------------------------------------------------------


class ParamSpec(TypedDict):
    """One parameter of a template's schema.

    type: str, int, bool, ipv4, ipv6, ip, ip_interface (10.0.0.1/24), ipv4_network, mask,
    vlan (1-4094), asn (1-4294967295), interface, list (with `items`: a ParamSpec or
    `fields`: a mapping of ParamSpecs for lists of objects).
    """

    type: str
    description: NotRequired[str]
    required: NotRequired[bool]  # default True
    default: NotRequired[Any]
    items: NotRequired[ParamSpec]
    fields: NotRequired[dict[str, ParamSpec]]
    min: NotRequired[int]
    max: NotRequired[int]


class TokenUsage(TypedDict):
    input_tokens: int
    output_tokens: int
    total_tokens: int
    estimated: NotRequired[bool]  # True: the endpoint sent no usage; counted from the text


class TemplatePart(TypedDict):
    """One template a proposal is made of: which one, which version, exactly which content.

    source: "builtin" (shipped in workflow/library), "saved" (the team's library, versioned) or
    "llm" (written for this change). `version` is None unless saved. `sha256` covers the
    template's content (`workflow.library.compose.template_sha256`). `derive` names the
    deriver(s) that set its parameters from the lab ("routing", "none", "routing+none").
    """

    name: str
    version: int | None
    sha256: str
    source: Literal["builtin", "saved", "llm"]
    derive: str
    allow: NotRequired[list[str]]  # deny-list rules its YAML allows (workflow.safety.allowances)


class TemplateProposal(TypedDict):
    name: str  # library name, or "custom" when the LLM wrote it
    description: str
    templates: dict[str, str]  # platform family -> Jinja2 source
    params_schema: dict[str, ParamSpec]
    example_params: dict[str, Any]
    targets: list[str]  # device names the request is about
    source: Literal["library", "llm", "rollback", "saved"]
    tokens: NotRequired[TokenUsage]
    parts: NotRequired[list[TemplatePart]]  # the templates combined, in order (library, saved)
    post_checks: NotRequired[PostChecks]  # what must hold after the push (workflow.postchecks)
    sections: NotRequired[
        list[str]
    ]  # configuration sections it may touch (workflow.safety.sections)
    allow: NotRequired[list[str]]  # deny-list rules it may break (workflow.safety.allowances)
    requested: NotRequired[dict[str, Any]]  # param -> the value the request gave (library)


@dataclass(frozen=True)
class SavedTemplate:
    """One immutable version of a template in the team's library (`name@version`)."""

    name: str
    version: int
    sha256: str
    description: str
    templates: Mapping[str, str]  # vendor family -> Jinja2 source
    params_schema: Mapping[str, ParamSpec]
    example_params: Mapping[str, Any]
    derive: str  # deriver(s) of its parameters ("none" when only the requester knows them)
    phrases: Mapping[str, str]  # request word -> parameter it sets
    saved_by_id: str
    saved_by_name: str
    saved_at: str  # ISO 8601, UTC
    source_change_id: str | None  # the change whose approved template was saved, if any
    origin_tokens: int  # template tokens the original proposal cost (what reuse saves)
    pinned: bool = False  # resolved through the channel's pin rather than as the latest
    post_checks: PostChecks | None = None  # what must hold after its push
    # the configuration sections it may touch; () only for versions saved before they were
    # declared, which are refused until saved again with them (workflow.library.saved)
    sections: tuple[str, ...] = ()
    allow: tuple[str, ...] = ()  # deny-list rules it may break (workflow.safety.allowances)


class ParamsProposal(TypedDict):
    device_params: dict[str, dict[str, Any]]  # device name -> params
    tokens: NotRequired[TokenUsage]


@dataclass(frozen=True)
class PlanRequest:
    """What a planner gets: the user's words, the lab, and what went wrong last time."""

    text: str
    topology: Topology
    feedback: str | None = None  # reviewer's Modify text
    errors: Sequence[str] = field(default_factory=tuple)  # validation errors of the last attempt
    previous: Mapping[str, Any] | None = None  # the previous proposal, for Modify and retries
    scope: str = ""  # the channel/room asking ("slack:C123"): where template pins apply


def add_tokens(
    totals: dict[str, TokenUsage], stage: str, usage: TokenUsage | None
) -> dict[str, TokenUsage]:
    """Usage summed per stage over every attempt (a rejected answer cost tokens too)."""
    if usage is None:
        return totals
    return {**totals, stage: sum_usage([totals[stage], usage] if stage in totals else [usage])}


def sum_usage(usages: Iterable[TokenUsage]) -> TokenUsage:
    """Usage of several calls together; `estimated` when any of them was."""
    summed = TokenUsage(input_tokens=0, output_tokens=0, total_tokens=0)
    for usage in usages:
        summed["input_tokens"] += usage["input_tokens"]
        summed["output_tokens"] += usage["output_tokens"]
        summed["total_tokens"] += usage["total_tokens"]
        if usage.get("estimated"):
            summed["estimated"] = True
    return summed
