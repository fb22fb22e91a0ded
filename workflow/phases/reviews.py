"""What each gate shows its reviewer: the typed review payloads (JSON-shaped, hashed as shown).

A gate's payload is exactly what its sha256 covers and what the presenter renders, so both are
declared here once, as LangGraph declares its interrupt types: a renamed key is a mypy error in
every reader (presenter, decision service, template commands) rather than a silent `.get()`.
Optional keys are left out when empty, so the hash of a payload does not change with them.
"""

from __future__ import annotations

from typing import Any, Literal, NotRequired, TypedDict

from base.vocabulary import Choice
from workflow.chosen import Because
from workflow.model import ParamSpec, StandardResponse, TemplatePart, TokenUsage
from workflow.phases.lab_twin import LabTwinAnswer
from workflow.phases.previews import DevicePreview
from workflow.phases.template_assessment import TemplateTest
from workflow.postcheck_spec import PostChecks
from workflow.templates.facts import TemplateFacts

__all__ = [
    "GateDecision",
    "GateExpiry",
    "GateInfo",
    "ParamsGateInfo",
    "ParamsReview",
    "Review",
    "ReviewedTemplate",
    "RollbackGateInfo",
    "RollbackLines",
    "RollbackReview",
    "ShownGate",
    "TargetsGateInfo",
    "TargetsReview",
    "TemplateGateInfo",
    "TemplateReview",
]


class TargetsReview(TypedDict):
    """The targets gate: a request selecting more devices than LABBOT_MAX_TARGETS, confirmed
    before anything is read from them. Every device is listed (and hashed); a chat message
    shows a bounded part of the list."""

    limit: int  # LABBOT_MAX_TARGETS
    devices: dict[str, Because]  # every selected device -> why the request chose it


class TemplateReview(TypedDict):
    """The template gate: the templates, their schema and an example rendering."""

    name: str
    description: str
    source: Literal["library", "llm", "rollback", "saved"]
    targets: list[str]
    templates: dict[str, str]  # platform family -> Jinja2 source
    params_schema: dict[str, ParamSpec]
    requested: NotRequired[dict[str, Any]]  # param -> the value the request gave (library)
    example_params: dict[str, Any]
    example_rendering: dict[str, list[str]]  # platform family -> rendered lines
    example_facts: NotRequired[dict[str, TemplateFacts]]  # family -> facts the example read
    parts: NotRequired[list[TemplatePart]]  # the templates combined, in order
    post_checks: NotRequired[PostChecks]  # what the push must prove afterwards
    template_test: NotRequired[dict[str, TemplateTest]]  # family -> test on a simulated copy
    newer_versions: NotRequired[dict[str, int]]  # saved template used in an older version -> newest
    chosen: NotRequired[dict[str, Because]]  # target -> why the request chose it
    sections: NotRequired[list[str]]  # the configuration sections it may touch
    allow: NotRequired[list[str]]  # what it may do that the deny-list refuses, described
    tokens: NotRequired[TokenUsage]  # the LLM's proposals so far (measured or estimated)


class ReviewedTemplate(TypedDict):
    """The approved template a params review renders (its hash ties the two gates together)."""

    name: str
    description: str
    sha256: str


class ParamsReview(TypedDict):
    """The params gate: per device, the parameters, rendered lines, diff and blocked lines."""

    template: ReviewedTemplate
    devices: dict[str, DevicePreview]
    newer_versions: NotRequired[dict[str, int]]
    # a fresh preview after a push left these devices alone: device -> what changed on it
    # since the preview approved before (a unified diff of its running config)
    drifted: NotRequired[dict[str, str]]
    pushed: NotRequired[StandardResponse]  # that push, for the drift note (its step books it)
    lab_twin: NotRequired[LabTwinAnswer]  # the lines tried on a twin of the whole lab


class RollbackLines(TypedDict):
    lines: list[str]  # what undoes the change on this device, sent exactly as shown


class RollbackReview(TypedDict):
    """The rollback gate: the push with its post-checks, the post-checks, per device the lines
    that bring it back to its running config from before the change."""

    push: StandardResponse
    post_checks: StandardResponse  # none run (total 0) when lines landed outside the sections
    devices: dict[str, RollbackLines]
    allow: NotRequired[list[str]]  # deny-list rules the lines break, described (allowed)
    # per device, the lines the push left outside the template's sections, at their place
    outside: NotRequired[dict[str, list[str]]]


class ShownGate(TypedDict):
    """A gate on show, prepared by the node before it (which so has no side effect)."""

    change_id: str
    sha256: str  # content_sha256(payload)
    expires_at: str  # ISO 8601, UTC


class TargetsGateInfo(ShownGate):
    gate: Literal["targets"]
    payload: TargetsReview


class TemplateGateInfo(ShownGate):
    gate: Literal["template"]
    payload: TemplateReview  # exactly what the reviewer sees


class ParamsGateInfo(ShownGate):
    gate: Literal["params"]
    payload: ParamsReview


class RollbackGateInfo(ShownGate):
    gate: Literal["rollback"]
    payload: RollbackReview


GateInfo = TargetsGateInfo | TemplateGateInfo | ParamsGateInfo | RollbackGateInfo


class GateDecision(TypedDict):
    """What a gate is resumed with: the choice, on which content (sha256), by whom."""

    choice: Choice
    sha256: str
    actor_id: str
    actor_name: str
    feedback: NotRequired[str | None]


class GateExpiry(TypedDict):
    """What an expired gate is resumed with: no choice, nobody's name (the graph checks the
    expiry against its own clock)."""

    expired: bool


Review = TargetsReview | TemplateReview | ParamsReview | RollbackReview
