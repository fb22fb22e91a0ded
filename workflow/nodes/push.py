"""The nodes after the Execute click: `push` (only what was approved, byte for byte, and only
if the deny-list still agrees) and `report` (the change's end, or a re-preview of what drifted)."""

from __future__ import annotations

from langgraph.types import Command

from base.errors import LabbotError
from base.vocabulary import Status
from workflow.hashing import content_sha256
from workflow.nodes.parts import NodeParts, params_review_of, template_of, topology_of
from workflow.phases.newer_versions import newer_versions
from workflow.phases.push_refusals import blocked_now
from workflow.results.endings import HashMismatch, Pushed, PushNotStarted, PushRefused
from workflow.results.push_records import push_records
from workflow.state import ChangeState, PushState, finish
from workflow.step_progress import step_progress


class PushNodes(NodeParts):
    """Pushing what was approved, and saying how it ended."""

    async def push(self, state: ChangeState) -> Command[str]:
        """Push only what was approved, byte for byte, and only if the deny-list still agrees."""
        template, previews = template_of(state), state["params"]["previews"]
        newer = state["template"]["newer_versions"]
        lab_twin = state["params"].get("lab_twin")
        planned = content_sha256(params_review_of(state, previews, newer, lab_twin))
        approved = state["gates"]["approved"].get("params", "")
        if approved != planned:
            mismatch = HashMismatch(kind="hash_mismatch", planned=planned, approved=approved)
            return finish(state, "blocked", mismatch)
        restore = state["rollback"]["restore"]
        refusals = blocked_now(self.deny_list, template, previews, topology_of(state), restore)
        if refusals:
            refused = PushRefused(kind="push_refused", rollback=False, refusals=refusals)
            return finish(state, "blocked", refused)
        plan = {name: p["lines"] for name, p in previews.items() if p["lines"]}
        change_id = state["request"]["change_id"]
        devices = topology_of(state)["devices"]
        previewed = {name: devices[name]["running_config"] for name in plan}
        try:
            result = await self.gateway.push(
                change_id,
                plan,
                on_progress=step_progress(),
                previewed=previewed,
                hold_sessions=bool(template.get("post_checks")),  # the checks read on them
            )
        except LabbotError as err:
            not_started = PushNotStarted(kind="push_not_started", error=str(err))
            return finish(state, "failed", not_started)
        drifted = result.get("metadata", {}).get("drifted", {})
        records = [*state["push"]["records"], *push_records(change_id, plan, result)]
        update = {"push": PushState(result=result, drifted=drifted, records=records)}
        return Command(update=update, goto="post_check")

    async def report(self, state: ChangeState) -> Command[str]:
        result = state["push"]["result"]
        assert result is not None, "report reached without a push result"
        if state["push"]["drifted"]:
            return Command(goto="repreview")
        newer = await newer_versions(self.saved, template_of(state))
        status: Status = "done" if result["success"] else "failed"
        pushed = Pushed(kind="pushed", rollback=False)
        return finish(state, status, pushed, result, newer_versions=newer)
