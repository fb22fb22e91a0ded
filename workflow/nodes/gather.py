"""The nodes that read the lab: `gather` (the devices a request selects, their read-only
facts, a rollback's lines) and `repreview` (the devices a push left alone because they changed
since their preview, read again and rendered anew for a fresh params gate)."""

from __future__ import annotations

from dataclasses import asdict

from langgraph.types import Command

from base.errors import LabbotError, TargetError
from workflow.chosen import Because, chosen
from workflow.model import Device, Topology
from workflow.nodes.gates import confirm_targets
from workflow.nodes.parts import NodeParts, template_of, topology_of
from workflow.results.endings import NothingToRollBack, error_ending, no_usable_device
from workflow.results.targets import (
    Selection,
    device_kinds,
    select_targets,
    target_words,
    unread_devices,
    usable_devices,
)
from workflow.state import ChangeState, LabState, finish
from workflow.templates.validation import refuse_unsafe_facts


class GatherNodes(NodeParts):
    """Reading the lab: what a change selects, and what changed under a push."""

    async def gather(self, state: ChangeState) -> Command[str]:
        """The devices the request selects (fail closed) and their read-only facts, nobody
        else's; for a rollback, the lines that undo a change and the devices they touch."""
        try:
            devices, links, unusable = await self.gateway.devices()
            rollback, rolled_back = None, state["request"]["rollback_of"]
            if rolled_back:
                rollback = await self.gateway.rollback_plan(rolled_back)
            selection = self._selection(state, devices, rollback)
            limit = self.options.max_targets if rollback is None else len(selection.reasons)
            ttl = self.options.gate_ttl_seconds
            confirm = confirm_targets(state, selection.reasons, limit, self.clock, ttl)
            if confirm is not None:  # nothing read from them before someone confirms
                return confirm
            facts = await self.gateway.facts(selection.names)
        except LabbotError as err:
            return finish(state, "failed", error_ending(err))
        topology = refuse_unsafe_facts(
            Topology(
                devices={**unread_devices(devices, facts), **facts},
                links=links,
                unusable=[asdict(node) for node in unusable],
                selection=dict[str, Because](selection.reasons),
                kinds={name: kind for name, (kind, _, _) in device_kinds(devices).items()},
            )
        )
        if not usable_devices(topology):
            return finish(state, "failed", no_usable_device(topology["unusable"], facts))
        if rollback is not None and not any(rollback.values()):
            ending = NothingToRollBack(kind="nothing_to_roll_back", change_id=rolled_back or "")
            return finish(state, "failed", ending)
        update = {
            "lab": LabState(topology=topology),
            "rollback": {**state["rollback"], "restore": rollback},
            "planning": {**state["planning"], "attempt": 0},
        }
        return Command(update=update, goto="propose_template")

    def _selection(
        self, state: ChangeState, devices: list[Device], rollback: dict[str, list[str]] | None
    ) -> Selection:
        if rollback is not None:
            changed = chosen("changed_by", state["request"]["rollback_of"] or "")
            return Selection({name: changed for name, lines in rollback.items() if lines})
        feedback, text = state["planning"]["feedback"], state["request"]["text"]
        words = target_words(feedback or "") or target_words(text)
        selection = select_targets(words, device_kinds(devices))
        if len(selection.reasons) > self.options.max_targets_confirmed:
            count, limit = len(selection.reasons), self.options.max_targets_confirmed
            raise TargetError("too_many", count=count, limit=limit)
        return selection

    async def repreview(self, state: ChangeState) -> Command[str]:
        """The devices the push left alone (changed since their preview), read again and
        rendered anew with the same parameters: a fresh params gate shows them with what
        changed (the other devices were pushed)."""
        drifted = sorted(state["push"]["drifted"])
        try:
            facts = await self.gateway.facts(drifted)
        except LabbotError as err:
            return finish(state, "failed", error_ending(err, again=True))
        topology = topology_of(state)
        topology = refuse_unsafe_facts(
            Topology(**{**topology, "devices": {**topology["devices"], **facts}})
        )
        params = state["params"]["device_params"] or {}
        update = {
            "lab": LabState(topology=topology),
            "template": {
                **state["template"],
                "proposal": {**template_of(state), "targets": drifted},
            },
            "params": {
                **state["params"],
                "device_params": {name: params[name] for name in drifted if name in params},
            },
            "planning": {**state["planning"], "attempt": 0},
        }
        return Command(update=update, goto="check_params")
