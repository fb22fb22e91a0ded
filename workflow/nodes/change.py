"""The graph's working nodes: gather, propose, check, push, report (the gates: nodes/gates.py).

Each node returns a `Command` naming the next node, so the routing reads top to bottom here
rather than in a table of conditional edges.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any

from langgraph.types import Command

from base.errors import LabbotError, PlanningError, TargetError, TemplateError
from base.vocabulary import Status, utc_now
from workflow.chosen import Because, chosen
from workflow.hashing import content_sha256
from workflow.model import (
    Device,
    ParamsProposal,
    PlanRequest,
    TemplateProposal,
    TokenUsage,
    Topology,
    add_tokens,
)
from workflow.nodes.gates import (
    Clock,
    confirm_targets,
    open_params_gate,
    open_template_gate,
    params_review,
    template_review,
)
from workflow.options import WorkflowOptions
from workflow.phases.lab_twin import LabTwinAnswer
from workflow.phases.lab_twin_run import LabRehearsal, twin_answer
from workflow.phases.landing import twin_landings, twin_problems
from workflow.phases.newer_versions import newer_versions
from workflow.phases.previews import DevicePreview, preview_devices, with_changes
from workflow.phases.push_refusals import blocked_now
from workflow.phases.reviews import ParamsReview
from workflow.phases.template_assessment import assess_template
from workflow.ports import ConfigTrial, DeviceGateway, DeviceLocks, Planner, SavedTemplates
from workflow.results.endings import (
    DevicesHeld,
    HashMismatch,
    HeldDevice,
    NothingToRollBack,
    Pushed,
    PushNotStarted,
    PushRefused,
    Stage,
    StillInvalid,
    error_ending,
    no_usable_device,
)
from workflow.results.push_records import push_records
from workflow.results.rollbacks import rollback_template
from workflow.results.targets import (
    Selection,
    chosen_because,
    device_kinds,
    neighbours,
    select_targets,
    target_words,
    unread_devices,
    usable_devices,
)
from workflow.safety.deny import DenyList
from workflow.safety.sections import is_restore
from workflow.state import (
    ChangeState,
    LabState,
    PlanningState,
    PushState,
    TemplateState,
    finish,
    with_open_gate,
)
from workflow.step_progress import step_progress
from workflow.templates.check import for_lab_families
from workflow.templates.render_pool import RenderPool, run_capped
from workflow.templates.validation import refuse_unsafe_facts


@dataclass(frozen=True)
class Nodes:
    """The nodes' collaborators (built by bot/wiring) and the workflow's settings (`options`)."""

    planner: Planner
    gateway: DeviceGateway
    deny_list: DenyList = field(default_factory=DenyList)
    clock: Clock = utc_now
    options: WorkflowOptions = field(default_factory=WorkflowOptions)
    saved: SavedTemplates | None = None  # the team's library, for "a newer version exists"
    trial: ConfigTrial | None = None  # the template's twin: where its lines land, before a gate
    renderer: RenderPool | None = None  # worker processes with caps (None: render in-process)
    # hold the targets from the params gate to the push (LABBOT_LOCK_FROM_PREVIEW); a change
    # that ends releases them (ChangeWorkflow)
    preview_locks: DeviceLocks | None = None
    lab_twin: LabRehearsal | None = None  # a twin of the whole lab tries the previewed lines

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

    async def propose_template(self, state: ChangeState) -> Command[str]:
        restore, topology = state["rollback"]["restore"], _topology(state)
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
            "planning": _proposed(state["planning"], "template", proposal.get("tokens")),
        }
        return Command(update=update, goto="check_template")

    async def check_template(self, state: ChangeState) -> Command[str]:
        trial = self.trial if state["rollback"]["restore"] is None else None
        assessed = await assess_template(
            for_lab_families(_template(state), _topology(state)),
            _topology(state),
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
            chosen=chosen_because(template["targets"], _topology(state)),
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
        template, restore, topology = _template(state), state["rollback"]["restore"], None
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
            "lab": LabState(topology=topology or _topology(state)),
            "params": {**state["params"], "device_params": proposal["device_params"]},
            "planning": _proposed(state["planning"], "params", proposal.get("tokens")),
        }
        return Command(update=update, goto="check_params")

    async def check_params(self, state: ChangeState) -> Command[str]:
        template = _template(state)
        params = state["params"]["device_params"] or {}
        try:
            previews, errors = await run_capped(
                self.renderer, preview_devices, template, params, _topology(state), self.deny_list
            )
        except TemplateError as err:
            previews, errors = {}, [str(err)]
        if errors:
            return self._retry_or_end(state, "parameters", errors, blocked=False)
        if self.trial is not None and not is_restore(template):  # where the lines land
            plan = {n: p["lines"] for n, p in previews.items()}
            devices, sections = _topology(state)["devices"], template.get("sections")
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
            self.lab_twin, self.gateway, template, previews, _topology(state), self.options
        )
        newer = await newer_versions(self.saved, template)
        review = _params_review(state, previews, newer, lab_twin)
        gate = open_params_gate(state, review, self.clock, self.options.gate_ttl_seconds)
        update = {
            "params": {**state["params"], "previews": previews, "lab_twin": lab_twin},
            "gates": with_open_gate(state, gate),
            "template": {**state["template"], "newer_versions": newer},
        }
        return Command(update=update, goto="params_gate")

    async def push(self, state: ChangeState) -> Command[str]:
        """Push only what was approved, byte for byte, and only if the deny-list still agrees."""
        template, previews = _template(state), state["params"]["previews"]
        newer = state["template"]["newer_versions"]
        lab_twin = state["params"].get("lab_twin")
        planned = content_sha256(_params_review(state, previews, newer, lab_twin))
        approved = state["gates"]["approved"].get("params", "")
        if approved != planned:
            mismatch = HashMismatch(kind="hash_mismatch", planned=planned, approved=approved)
            return finish(state, "blocked", mismatch)
        restore = state["rollback"]["restore"]
        refusals = blocked_now(self.deny_list, template, previews, _topology(state), restore)
        if refusals:
            refused = PushRefused(kind="push_refused", rollback=False, refusals=refusals)
            return finish(state, "blocked", refused)
        plan = {name: p["lines"] for name, p in previews.items() if p["lines"]}
        change_id = state["request"]["change_id"]
        devices = _topology(state)["devices"]
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

    async def repreview(self, state: ChangeState) -> Command[str]:
        """The devices the push left alone (changed since their preview), read again and
        rendered anew with the same parameters: a fresh params gate shows them with what
        changed (the other devices were pushed)."""
        drifted = sorted(state["push"]["drifted"])
        try:
            facts = await self.gateway.facts(drifted)
        except LabbotError as err:
            return finish(state, "failed", error_ending(err, again=True))
        topology = _topology(state)
        topology = refuse_unsafe_facts(
            Topology(**{**topology, "devices": {**topology["devices"], **facts}})
        )
        params = state["params"]["device_params"] or {}
        update = {
            "lab": LabState(topology=topology),
            "template": {**state["template"], "proposal": {**_template(state), "targets": drifted}},
            "params": {
                **state["params"],
                "device_params": {name: params[name] for name in drifted if name in params},
            },
            "planning": {**state["planning"], "attempt": 0},
        }
        return Command(update=update, goto="check_params")

    async def report(self, state: ChangeState) -> Command[str]:
        result = state["push"]["result"]
        assert result is not None, "report reached without a push result"
        if state["push"]["drifted"]:
            return Command(goto="repreview")
        newer = await newer_versions(self.saved, _template(state))
        status: Status = "done" if result["success"] else "failed"
        pushed = Pushed(kind="pushed", rollback=False)
        return finish(state, status, pushed, result, newer_versions=newer)

    async def _with_neighbours(self, state: ChangeState, template: TemplateProposal) -> Topology:
        """The topology with the facts of the targets' link neighbours read, when the template
        derives from them (BGP peers, `facts.neighbors` addresses); else as it is."""
        topology = _topology(state)
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

    async def _hold(self, change_id: str, devices: list[str]) -> list[HeldDevice]:
        """With `preview_locks`: lock the devices previewed until the push (or the gate's
        expiry); [] when they are this change's now, else who holds which."""
        if self.preview_locks is None:
            return []
        held = await self.preview_locks.acquire(change_id, devices, self.options.gate_ttl_seconds)
        return [HeldDevice(device=lock.device, change_id=lock.change_id) for lock in held]

    def _request(self, state: ChangeState, previous: Any, topology: Topology) -> PlanRequest:
        planning, request = state["planning"], state["request"]
        return PlanRequest(
            text=request["text"],
            topology=topology,
            feedback=planning["feedback"],
            errors=tuple(planning["errors"]),
            previous=previous if (planning["errors"] or planning["feedback"]) else None,
            scope=request["scope"],
        )

    def _retry_or_end(
        self, state: ChangeState, stage: Stage, errors: list[str], *, blocked: bool
    ) -> Command[str]:
        """Errors go back to the planner until max_attempts; then the change ends, saying why."""
        planning: PlanningState = {**state["planning"], "errors": errors}
        restore, attempt = state["rollback"]["restore"], planning["attempt"]
        if restore is None and attempt < self.options.plan_attempts:
            back_to = "propose_template" if stage == "template" else "propose_params"
            return Command(update={"planning": planning}, goto=back_to)
        ending = StillInvalid(kind="still_invalid", stage=stage, attempts=attempt, errors=errors)
        status: Status = "blocked" if blocked else "failed"
        return finish(state, status, ending, also={"planning": planning})


def _topology(state: ChangeState) -> Topology:
    topology = state["lab"]["topology"]
    assert topology is not None, "node reached before the lab was gathered"
    return topology


def _template(state: ChangeState) -> TemplateProposal:
    template = state["template"]["proposal"]
    assert template is not None, "node reached before a template was proposed"
    return template


def _proposed(planning: PlanningState, stage: str, tokens: TokenUsage | None) -> PlanningState:
    """The round after one more proposal of `stage`, and what it cost."""
    used = add_tokens(planning["tokens"], stage, tokens)
    return {**planning, "attempt": planning["attempt"] + 1, "tokens": used}


def _params_review(
    state: ChangeState,
    previews: dict[str, DevicePreview],
    newer: dict[str, int],
    lab_twin: LabTwinAnswer | None,
) -> ParamsReview:
    """What the params gate shows (and the push checks it approved) for these previews and
    the lab twin's answer."""
    approved, push = state["gates"]["approved"]["template"], state["push"]
    return params_review(
        _template(state), previews, approved, newer, push["drifted"], push["result"], lab_twin
    )
