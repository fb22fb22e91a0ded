"""The node that checks the parameters: previews rendered, where the lines land on the
template's twin, the targets held (LABBOT_LOCK_FROM_PREVIEW), the lab's twin's answer, and the
params gate opened with all of it."""

from __future__ import annotations

from langgraph.types import Command

from base.errors import TemplateError
from workflow.nodes.gates import open_params_gate
from workflow.nodes.parts import NodeParts, params_review_of, template_of, topology_of
from workflow.phases.lab_twin_run import twin_answer
from workflow.phases.landing import twin_landings, twin_problems
from workflow.phases.newer_versions import newer_versions
from workflow.phases.previews import DevicePreview, preview_devices, with_changes
from workflow.results.endings import DevicesHeld, HeldDevice
from workflow.safety.sections import is_restore
from workflow.state import ChangeState, finish, with_open_gate
from workflow.templates.render_pool import run_capped


class ParamsNodes(NodeParts):
    """The previews and everything the params gate shows with them."""

    async def check_params(self, state: ChangeState) -> Command[str]:
        template = template_of(state)
        params = state["params"]["device_params"] or {}
        try:
            previews, errors = await run_capped(
                self.renderer, preview_devices, template, params, topology_of(state), self.deny_list
            )
        except TemplateError as err:
            previews, errors = {}, [str(err)]
        if errors:
            return self._retry_or_end(state, "parameters", errors, blocked=False)
        if self.trial is not None and not is_restore(template):  # where the lines land
            plan = {n: p["lines"] for n, p in previews.items()}
            devices, sections = topology_of(state)["devices"], template.get("sections")
            landings = await twin_landings(
                self.trial, plan, devices, sections, self.options.twin_seconds
            )
            families = {name: devices[name]["family"] for name in landings}
            if problems := twin_problems(self.deny_list, landings, families, template):
                return self._retry_or_end(state, "parameters", problems, blocked=True)
            previews = {n: DevicePreview(**p, landing=landings[n]) for n, p in previews.items()}
        previews = with_changes(state["params"]["previews"] or {}, previews)
        held = await self._hold(state["request"]["change_id"], sorted(previews))
        if held:
            return finish(state, "blocked", DevicesHeld(kind="devices_held", held=held))
        lab_twin = await twin_answer(
            self.lab_twin, self.gateway, template, previews, topology_of(state), self.options
        )
        newer = await newer_versions(self.saved, template)
        review = params_review_of(state, previews, newer, lab_twin)
        gate = open_params_gate(state, review, self.clock, self.options.gate_ttl_seconds)
        update = {
            "params": {**state["params"], "previews": previews, "lab_twin": lab_twin},
            "gates": with_open_gate(state, gate),
            "template": {**state["template"], "newer_versions": newer},
        }
        return Command(update=update, goto="params_gate")

    async def _hold(self, change_id: str, devices: list[str]) -> list[HeldDevice]:
        """With `preview_locks`: lock the devices previewed until the push (or the gate's
        expiry); [] when they are this change's now, else who holds which."""
        if self.preview_locks is None:
            return []
        held = await self.preview_locks.acquire(change_id, devices, self.options.gate_ttl_seconds)
        return [HeldDevice(device=lock.device, change_id=lock.change_id) for lock in held]
