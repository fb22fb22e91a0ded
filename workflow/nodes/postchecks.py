"""The graph's nodes after a push: post-checks, the rollback gate they may lead to, and the
rollback push it approves.

```
push ─► post_check ─► report                       (no checks, or all passed)
            │ failed, a line landed outside the template's sections, or a device's push
            │ failed after lines landed there (read back; or unknown: the read back failed)
            ▼
       rollback_gate ─► undo ─► END                (approve: the lines shown, exactly)
            └─────────► END                        (keep: the change stays as pushed)
```
The post_check node first reads where the push's lines landed on each device (its "before"
and "after" backups, `workflow.phases.landing`): a line outside the template's sections offers the
rollback gate at once, before any post-check. Otherwise it prepares the gate for failed
post-checks (the failed checks and, per device, the lines that bring it back to its "before"
backup); the gate node has no side effect before `interrupt()` and is
resumed by interrupt id like the other gates; its decision is recorded with who and when.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal

from langgraph.types import Command, interrupt

from base.errors import LabbotError
from workflow.denylist.platform_rules import describe_allowance
from workflow.devices.landed import anything_landed
from workflow.model import ResponseItem, StandardResponse
from workflow.nodes.gates import (
    Clock,
    decided,
    decision_record,
    is_decision,
    is_expired,
    open_rollback_gate,
)
from workflow.options import WorkflowOptions
from workflow.phases.lab_twin import with_disagreements
from workflow.phases.landing import pushed_outside
from workflow.phases.postcheck_report import (
    check_failures,
    not_pushed,
    planned_expectations,
    with_post_checks,
)
from workflow.phases.reviews import RollbackLines, RollbackReview
from workflow.ports import DeviceGateway
from workflow.postchecks.convergence import post_check_seconds
from workflow.results.endings import (
    PostChecksNotRun,
    Pushed,
    PushRefused,
    RollbackEnding,
    RollbackNotStarted,
    push_refusals,
)
from workflow.results.push_records import push_records, with_checks
from workflow.results.responses import build_response
from workflow.safety.allowances import restoring_allowances
from workflow.safety.deny import DenyList
from workflow.safety.sections import declared_sections, is_restore
from workflow.state import (
    ChangeState,
    ChecksState,
    GatesState,
    RollbackState,
    finish,
    with_open_gate,
)
from workflow.step_progress import step_progress

__all__ = ["PostCheckNodes"]

UNDO_SUFFIX = ":rollback"  # the rollback push's own change id (locks and backups of its own)


def rollback_review(
    push: StandardResponse,
    checks: StandardResponse,
    plan: dict[str, list[str]],
    allow: list[str],
    outside: dict[str, list[str]] | None = None,
) -> RollbackReview:
    """What the rollback reviewer sees: the push with its post-checks, the failed post-checks
    (or the lines that landed outside the sections), per device the lines that undo the change,
    and the deny-list rules they break."""
    review = RollbackReview(
        push=push,
        post_checks=checks,
        devices={name: RollbackLines(lines=lines) for name, lines in sorted(plan.items())},
    )
    if allow:
        review["allow"] = [describe_allowance(entry) for entry in allow]
    if outside:
        review["outside"] = outside
    return review


@dataclass(frozen=True)
class PostCheckNodes:
    gateway: DeviceGateway
    deny_list: DenyList
    clock: Clock
    options: WorkflowOptions  # the workflow's settings (its gates' time to live)

    async def post_check(self, state: ChangeState) -> Command[str]:
        """Run the template's post-checks on every device the push reached; failed: offer a
        rollback of exactly what the change did."""
        template, push = state["template"]["proposal"], state["push"]["result"]
        assert template is not None and push is not None, "post_check before a push"
        checks = template.get("post_checks")
        pushed = [item["name"] for item in push["data"] if item["status"] == "success"]
        if state["rollback"]["restore"] is not None or is_restore(template):
            return Command(goto="report")
        try:  # every device the push changed, whether its verification passed or not
            landed = await self._landed_outside(state)
        except LabbotError as err:
            not_run = PostChecksNotRun(kind="post_checks_not_run", error=str(err))
            return finish(state, "failed", not_run, push)
        if landed is not None:
            return landed
        try:  # a device whose push failed after lines may have landed: undo them, or keep
            broke_off = await self._broke_off(state)
        except LabbotError as err:
            not_run = PostChecksNotRun(kind="post_checks_not_run", error=str(err))
            return finish(state, "failed", not_run, push)
        if broke_off is not None:
            return broke_off
        if not checks or not pushed:
            return Command(goto="report")
        topology, previews = state["lab"]["topology"], state["params"]["previews"]
        assert topology is not None
        expected = planned_expectations(checks, previews, pushed, topology)
        change_id = state["request"]["change_id"]
        lines = {name: previews[name]["lines"] for name in pushed if name in previews}
        configs = {name: d["running_config"] for name, d in topology["devices"].items()}
        try:
            result = await self.gateway.post_check(
                expected, post_check_seconds(checks, lines, configs), on_progress=step_progress()
            )
            plan = await self.gateway.rollback_plan(change_id) if not result["success"] else {}
        except LabbotError as err:
            not_run = PostChecksNotRun(kind="post_checks_not_run", error=str(err))
            return finish(state, "failed", not_run, push)
        result = with_disagreements(result, state["params"].get("lab_twin"))
        merged = with_post_checks(push, result)
        records = with_checks(state["push"]["records"], len(push["data"]), result)
        update: dict[str, Any] = {
            "push": {**state["push"], "result": merged, "records": records},
            "checks": {**state["checks"], "result": result},
        }
        if result["success"] or not plan:
            return Command(update=update, goto="report")
        review = rollback_review(merged, result, plan, self._restoring(state, plan))
        gate = open_rollback_gate(state, review, self.clock, self.options.gate_ttl_seconds)
        offer: RollbackState = {**state["rollback"], "undo_plan": plan}
        update |= {"gates": with_open_gate(state, gate), "rollback": offer}
        return Command(update=update, goto="rollback_gate")

    async def _landed_outside(self, state: ChangeState) -> Command[str] | None:
        """The rollback gate at once when the push left a line outside the template's sections
        on some device (its own before/after diff); None when every line is inside."""
        template, push = state["template"]["proposal"], state["push"]["result"]
        topology, change_id = state["lab"]["topology"], state["request"]["change_id"]
        assert template is not None and push is not None and topology is not None
        configs = await self.gateway.pushed_configs(change_id)
        platforms = {name: topology["devices"][name]["platform"] for name in configs}
        outside = pushed_outside(configs, platforms, declared_sections(template))
        if not outside:
            return None
        plan = await self.gateway.rollback_plan(change_id)
        allow = self._restoring(state, plan)
        review = rollback_review(push, build_response([]), plan, allow, outside)
        gate = open_rollback_gate(state, review, self.clock, self.options.gate_ttl_seconds)
        update = {
            "gates": with_open_gate(state, gate),
            "rollback": RollbackState(restore=state["rollback"]["restore"], undo_plan=plan),
            "checks": ChecksState(result=state["checks"]["result"], landed_outside=outside),
        }
        return Command(update=update, goto="rollback_gate")

    async def _broke_off(self, state: ChangeState) -> Command[str] | None:
        """The rollback gate at once when the push failed on a device after some of its lines
        may have landed there (read back: some or all; unknown when the read back failed
        too), before any post-check; None when none did or there is nothing to undo."""
        push, previews = state["push"]["result"], state["params"]["previews"]
        assert push is not None
        failed = [item for item in push["data"] if item["status"] != "success"]
        if not any(anything_landed(item.get("landed")) for item in failed):
            return None
        pushed = {name: preview["lines"] for name, preview in previews.items()}
        plan = await self.gateway.rollback_plan(state["request"]["change_id"], pushed)
        if not plan:
            return None
        review = rollback_review(push, build_response([]), plan, self._restoring(state, plan))
        gate = open_rollback_gate(state, review, self.clock, self.options.gate_ttl_seconds)
        offer = RollbackState(restore=state["rollback"]["restore"], undo_plan=plan)
        return Command(
            update={"gates": with_open_gate(state, gate), "rollback": offer}, goto="rollback_gate"
        )

    async def rollback_gate(self, state: ChangeState) -> Command[str]:
        """Approve: push the rollback shown. Cancel (keep): the change stays as pushed (a device
        the push left alone stays as it was: its ending says so)."""
        info = state["gates"]["open"]
        assert info is not None and info["gate"] == "rollback", "rollback_gate without its gate"
        decision = interrupt(info)
        now = self.clock()
        if is_expired(info, now):
            return _ended(state, _rollback_ending(state, "expired", info["expires_at"], ""))
        if not is_decision(decision):
            return Command(goto="rollback_gate")
        record = decision_record("rollback", decision, now)
        gates = decided(state, record)
        if record["choice"] != "approve":
            ending = _rollback_ending(state, "kept", record["at"], record["actor_name"])
            return _ended(state, ending, gates)
        gates["approved"] = {**gates["approved"], "rollback": info["sha256"]}
        return Command(update={"gates": gates}, goto="undo")

    def _restoring(self, state: ChangeState, plan: dict[str, list[str]]) -> list[str]:
        """The deny-list rules the lines undoing the change break (workflow.safety.allowances)."""
        return restoring_allowances(self.deny_list, plan, _families(state, plan))

    async def undo(self, state: ChangeState) -> Command[str]:
        """Push the approved rollback lines, refused again by the deny-list if need be."""
        plan = state["rollback"]["undo_plan"] or {}
        topology = state["lab"]["topology"]
        assert topology is not None
        allow = self._restoring(state, plan)  # shown at the rollback gate
        refusals = [
            refusal
            for name, lines in sorted(plan.items())
            for refusal in push_refusals(
                self.deny_list, name, lines, topology["devices"][name]["family"], allow
            )
        ]
        failures = _failures(state)
        if refusals:
            refused = PushRefused(kind="push_refused", rollback=True, refusals=refusals)
            return finish(state, "blocked", refused)
        undo_id = state["request"]["change_id"] + UNDO_SUFFIX
        try:
            result = await self.gateway.push(undo_id, plan, on_progress=step_progress())
        except LabbotError as err:
            not_started = RollbackNotStarted(
                kind="rollback_not_started", failures=failures, error=str(err)
            )
            return finish(state, "failed", not_started)
        approval = state["gates"]["decisions"][-1]
        ending = _rollback_ending(state, "rolled_back", approval["at"], approval["actor_name"])
        # a device that holds every rollback line (read back after its session failed) is
        # rolled back: the device's truth, not the session's
        if failed := [item for item in result["data"] if not _took(item)]:
            ending["not_rolled_back"] = failed
            ending["rolled_back_on"] = [item["name"] for item in result["data"] if _took(item)]
        records = [*state["push"]["records"], *push_records(undo_id, plan, result)]
        pushed = Pushed(kind="pushed", rollback=True)
        also = {"push": {**state["push"], "records": records}}
        return finish(state, "failed", pushed, result, rollback=ending, also=also)


def _took(item: ResponseItem) -> bool:
    landed = item.get("landed")
    return item["status"] == "success" or (landed is not None and landed["kind"] == "all")


def _families(state: ChangeState, plan: dict[str, list[str]]) -> dict[str, str]:
    topology = state["lab"]["topology"]
    assert topology is not None
    return {name: topology["devices"][name]["family"] for name in plan}


def _rollback_ending(
    state: ChangeState, kind: Literal["expired", "kept", "rolled_back"], at: str, actor: str
) -> RollbackEnding:
    """How the rollback offer ended, with what led to it: failed post-checks, or lines that
    landed outside the template's sections."""
    ending = RollbackEnding(kind=kind, failures=_failures(state), at=at, actor=actor)
    if outside := state["checks"]["landed_outside"]:
        ending["outside"] = outside
    push, checks = state["push"]["result"], state["checks"]["result"]
    if push is not None and (left := not_pushed(push, checks or build_response([]))):
        ending["not_pushed"] = left
    return ending


def _ended(
    state: ChangeState, ending: RollbackEnding, gates: GatesState | None = None
) -> Command[str]:
    """The change ends failed and kept as pushed: its push summary, then what happened."""
    push = state["push"]["result"]
    assert push is not None
    also = {"gates": gates} if gates is not None else None
    pushed = Pushed(kind="pushed", rollback=False)
    return finish(state, "failed", pushed, push, rollback=ending, also=also)


def _failures(state: ChangeState) -> list[ResponseItem]:
    checks = state["checks"]["result"]
    return check_failures(checks) if checks else []
