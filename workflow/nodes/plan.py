"""The nodes that plan: the template proposed and checked (its gate opened), the parameters
proposed (with the targets' link neighbours read when the template derives from them)."""

from __future__ import annotations

from langgraph.types import Command

from base.errors import LabbotError, PlanningError
from workflow.model import ParamsProposal, TemplateProposal, Topology
from workflow.nodes.gates import open_template_gate, template_review
from workflow.nodes.parts import NodeParts, proposed, template_of, topology_of
from workflow.phases.newer_versions import newer_versions
from workflow.phases.template_assessment import assess_template
from workflow.results.endings import error_ending
from workflow.results.rollbacks import rollback_template
from workflow.results.targets import chosen_because, neighbours
from workflow.state import ChangeState, LabState, TemplateState, finish, with_open_gate
from workflow.templates.check import for_lab_families
from workflow.templates.validation import refuse_unsafe_facts


class PlanNodes(NodeParts):
    """Planning: the template and the parameters, each proposed and checked."""

    async def propose_template(self, state: ChangeState) -> Command[str]:
        restore, topology = state["rollback"]["restore"], topology_of(state)
        try:
            if restore is not None:
                proposal = rollback_template(restore, topology, self.deny_list)
            else:
                previous = state["template"]["proposal"]
                request = self._request(state, previous, topology)
                proposal = await self.planner.propose_template(request)
        except PlanningError as err:
            return finish(state, "failed", error_ending(err, "template"))
        update = {
            "template": {**state["template"], "proposal": proposal},
            "planning": proposed(state["planning"], "template", proposal.get("tokens")),
        }
        return Command(update=update, goto="check_template")

    async def check_template(self, state: ChangeState) -> Command[str]:
        trial = self.trial if state["rollback"]["restore"] is None else None
        assessed = await assess_template(
            for_lab_families(template_of(state), topology_of(state)),
            topology_of(state),
            self.deny_list,
            trial,
            self.options.twin_seconds,
            self.renderer,
        )
        if assessed.errors or assessed.check is None:
            return self._retry_or_end(state, "template", assessed.errors, blocked=assessed.blocked)
        template, check = assessed.template, assessed.check
        newer = await newer_versions(self.saved, template)
        review = template_review(
            template,
            check.examples,
            check.example_facts,
            template_test=assessed.tests,
            newer_versions=newer,
            chosen=chosen_because(template["targets"], topology_of(state)),
            tokens=state["planning"]["tokens"].get("template"),
        )
        gate = open_template_gate(state, review, self.clock, self.options.gate_ttl_seconds)
        update = {
            "template": TemplateState(
                proposal=template, examples=check.examples, shown=review, newer_versions=newer
            ),
            "gates": with_open_gate(state, gate),
        }
        return Command(update=update, goto="template_gate")

    async def propose_params(self, state: ChangeState) -> Command[str]:
        template, restore, topology = template_of(state), state["rollback"]["restore"], None
        try:
            if restore is not None:
                proposal = ParamsProposal(
                    device_params={d: {"lines": lines} for d, lines in restore.items()}
                )
            else:
                topology = await self._with_neighbours(state, template)
                previous = state["params"]["device_params"]
                asked = {"device_params": previous} if previous else None
                request = self._request(state, asked, topology)
                proposal = await self.planner.propose_params(request, template)
        except LabbotError as err:
            return finish(state, "failed", error_ending(err, "parameters"))
        update = {
            "lab": LabState(topology=topology or topology_of(state)),
            "params": {**state["params"], "device_params": proposal["device_params"]},
            "planning": proposed(state["planning"], "params", proposal.get("tokens")),
        }
        return Command(update=update, goto="check_params")

    async def _with_neighbours(self, state: ChangeState, template: TemplateProposal) -> Topology:
        """The topology with the facts of the targets' link neighbours read, when the template
        derives from them (BGP peers, `facts.neighbors` addresses); else as it is."""
        topology = topology_of(state)
        sources = " ".join(template["templates"].values())
        derives = " ".join(part["derive"] for part in template.get("parts", []))
        if "neighbors" not in sources and "bgp" not in derives:
            return topology
        unread = set(neighbours(template["targets"], topology["links"]))
        unread = {n for n in unread if "error" in topology["devices"].get(n, {"error": ""})}
        if not unread:
            return topology
        facts = await self.gateway.facts(sorted(unread))
        return refuse_unsafe_facts(
            Topology(**{**topology, "devices": {**topology["devices"], **facts}})
        )
