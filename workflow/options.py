"""The workflow's settings as its nodes read them: one frozen object, built from settings in one
place (bot/wiring.workflow_options, which fills each field from the setting of the same name).

A setting that reaches the nodes is declared twice, in bot/settings.py (its variable, bounds and
default) and here (its field, with the same default); a node reads it as `self.options.<name>`.
"""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict

__all__ = ["WorkflowOptions"]


class WorkflowOptions(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    gate_ttl_seconds: float = 86400.0  # how long a gate waits for a decision
    plan_attempts: int = 3  # proposals per step before a change ends on the planner's errors
    twin_seconds: float = 20.0  # a device's lines tried on its twin, at most this long
    lab_twin_seconds: float = 60.0  # the lab's twin: built, lines typed, post-checks polled
    max_targets: int = 50  # more devices than this need an explicit confirmation (targets gate)
    max_targets_confirmed: int = 500  # more than this are refused, confirmed or not
