"""The change graph driven by the LLM planner: the real ChatOpenAI client against the local
OpenAI-compatible stand-in, the real SQLAlchemySaver on SQLite, a recording device gateway."""

from __future__ import annotations

import json
from typing import Any

import pytest
from langchain_openai import ChatOpenAI
from pydantic import SecretStr

from bot.views.ending import ending_line
from storage.checkpointer import SQLAlchemySaver
from tests.fakes.openai_server import OpenAIStandIn, count_tokens, structured
from tests.support.masks import MASK
from tests.workflow.gateways import RecordingGateway, ios_config, two_router_lab
from workflow.api import ChangeWorkflow, Finished, Gate, GateDecision, gate_problem
from workflow.hashing import content_sha256
from workflow.llm import LLMPlanner
from workflow.model import Link
from workflow.nodes.change import Nodes
from workflow.options import WorkflowOptions

OSPF_TEMPLATE: dict[str, Any] = {
    "name": "ospf-area0",
    "description": "OSPF area 0 on the given networks",
    "templates": {
        "cisco_ios": "router ospf {{ pid }}\n{% for n in networks %}"
        " network {{ n.address }} {{ n.wildcard }} area 0\n{% endfor %}"
    },
    "params_schema": {
        "pid": {"type": "int", "min": 1, "max": 65535},
        "networks": {
            "type": "list",
            "fields": {"address": {"type": "ipv4"}, "wildcard": {"type": "ipv4"}},
        },
    },
    "example_params": {"pid": 1, "networks": [{"address": "10.0.12.0", "wildcard": "0.0.0.255"}]},
    "targets": ["R1", "R2"],
    "sections": ["router ospf * / network *"],
}
OSPF_PARAMS = {
    "common": {"pid": 1, "networks": [{"address": "10.0.12.0", "wildcard": "0.0.0.255"}]},
    "devices": {},
}
OSPF_LINES = ["router ospf 1", " network 10.0.12.0 0.0.0.255 area 0"]


@pytest.fixture
def lab() -> RecordingGateway:
    return two_router_lab()


def workflow(
    saver: SQLAlchemySaver, llm: OpenAIStandIn, lab: RecordingGateway, attempts: int = 3
) -> ChangeWorkflow:
    """The graph with the LLM planner, which proposes each step up to `attempts` times."""
    model = ChatOpenAI(
        api_key=SecretStr("sk-test"), base_url=llm.base_url, model="m", max_retries=0
    )
    options = WorkflowOptions(plan_attempts=attempts)
    nodes = Nodes(planner=LLMPlanner(model), gateway=lab, options=options)
    return ChangeWorkflow(checkpointer=saver, nodes=nodes)


def decide(gate: Gate, choice: str = "approve", feedback: str | None = None) -> GateDecision:
    decision = GateDecision(choice=choice, sha256=gate.sha256, actor_id="U2", actor_name="bob")  # type: ignore[typeddict-item]
    if feedback is not None:
        decision["feedback"] = feedback
    return decision


def usage_of(llm: OpenAIStandIn, index: int, answer: dict[str, Any]) -> int:
    """Total tokens the stand-in billed for request `index` answered with `answer`."""
    return count_tokens(llm.requests[index].prompt_text()) + count_tokens(json.dumps(answer))


async def start(wf: ChangeWorkflow, text: str = "OSPF area 0 on R1 and R2") -> Gate | Finished:
    return await wf.start("slack:C1:1.0", change_id="chg-1", text=text, requester={"id": "U1"})


async def test_full_run_through_both_gates_pushes_exactly_the_approved_lines(
    saver: SQLAlchemySaver, llm: OpenAIStandIn, lab: RecordingGateway
) -> None:
    llm.script(structured(OSPF_TEMPLATE), structured(OSPF_PARAMS))
    wf = workflow(saver, llm, lab)

    template_gate = await start(wf)
    assert isinstance(template_gate, Gate) and template_gate.gate == "template"
    assert template_gate.payload["templates"] == OSPF_TEMPLATE["templates"]
    assert template_gate.payload["example_rendering"] == {"cisco_ios": OSPF_LINES}
    assert template_gate.sha256 == content_sha256(template_gate.payload)

    params_gate = await wf.resume("slack:C1:1.0", template_gate, decide(template_gate))
    assert isinstance(params_gate, Gate) and params_gate.gate == "params"
    r1 = params_gate.payload["devices"]["R1"]
    assert r1["lines"] == OSPF_LINES and r1["blocked"] == []
    assert "+ router ospf 1" in r1["diff"]
    assert params_gate.sha256 == content_sha256(params_gate.payload)
    assert lab.pushes == []

    done = await wf.resume("slack:C1:1.0", params_gate, decide(params_gate))
    assert isinstance(done, Finished)
    assert (done.status, ending_line(done, MASK)) == ("done", "pushed to 2 of 2 devices")
    assert [p.plan for p in lab.pushes] == [{"R1": OSPF_LINES, "R2": OSPF_LINES}]
    assert done.tokens["template"]["total_tokens"] == usage_of(llm, 0, OSPF_TEMPLATE)
    assert done.tokens["params"]["total_tokens"] == usage_of(llm, 1, OSPF_PARAMS)
    assert done.tokens["total"]["total_tokens"] == sum(
        done.tokens[s]["total_tokens"] for s in ("template", "params")
    )
    assert await wf.outcome("slack:C1:1.0") == done


async def test_an_invalid_template_goes_back_to_the_llm_with_the_errors(
    saver: SQLAlchemySaver, llm: OpenAIStandIn, lab: RecordingGateway
) -> None:
    broken = {**OSPF_TEMPLATE, "templates": {"cisco_ios": "router ospf {{ process }}\n"}}
    llm.script(structured(broken), structured(OSPF_TEMPLATE))
    gate = await start(workflow(saver, llm, lab))
    assert isinstance(gate, Gate) and gate.payload["templates"] == OSPF_TEMPLATE["templates"]
    retry = llm.requests[1].messages[-1]["content"]
    assert "It was rejected:" in retry and "'process', which is not in params_schema" in retry
    assert '"router ospf {{ process }}\\n"' in retry  # the previous answer, to be corrected


async def test_retries_are_bounded_then_the_change_fails_saying_why(
    saver: SQLAlchemySaver, llm: OpenAIStandIn, lab: RecordingGateway
) -> None:
    broken = {**OSPF_TEMPLATE, "templates": {"cisco_ios": "router ospf {{ process }}\n"}}
    llm.script(structured(broken), structured(broken), structured(OSPF_TEMPLATE))
    finished = await start(workflow(saver, llm, lab, attempts=2))
    assert isinstance(finished, Finished) and finished.status == "failed"
    assert ending_line(finished, MASK).startswith(
        "the template proposal was still invalid after 2 attempt(s)"
    )
    assert "'process', which is not in params_schema" in ending_line(finished, MASK)
    assert len(llm.requests) == 2 and llm.pending_replies == 1
    billed = usage_of(llm, 0, broken) + usage_of(llm, 1, broken)  # rejected answers cost too
    assert finished.tokens["template"]["total_tokens"] == billed
    assert lab.pushes == []


async def test_modify_sends_the_feedback_to_the_llm_and_replaces_the_gate(
    saver: SQLAlchemySaver, llm: OpenAIStandIn, lab: RecordingGateway
) -> None:
    pid10 = {**OSPF_TEMPLATE, "example_params": {**OSPF_TEMPLATE["example_params"], "pid": 10}}
    llm.script(structured(OSPF_TEMPLATE), structured(pid10))
    wf = workflow(saver, llm, lab)
    first = await start(wf)
    assert isinstance(first, Gate)
    second = await wf.resume("slack:C1:1.0", first, decide(first, "modify", "use process id 10"))
    assert isinstance(second, Gate) and second.gate == "template"
    assert second.interrupt_id != first.interrupt_id
    assert second.payload["example_rendering"]["cisco_ios"][0] == "router ospf 10"
    request = llm.requests[1].messages[-1]["content"]
    assert "The reviewer asks: use process id 10" in request
    assert '"name":"ospf-area0"' in request  # the answer being modified
    pending = await wf.pending_gate("slack:C1:1.0")
    assert gate_problem(pending, first.interrupt_id, first.sha256) == "stale"


async def test_a_forbidden_command_in_the_template_never_reaches_a_device(
    saver: SQLAlchemySaver, llm: OpenAIStandIn, lab: RecordingGateway
) -> None:
    sneaky = {**OSPF_TEMPLATE, "templates": {"cisco_ios": "router ospf {{ pid }}\ndo wr er\n"}}
    sneaky["params_schema"] = {"pid": {"type": "int"}}
    sneaky["example_params"] = {"pid": 1}
    llm.script(structured(sneaky), structured(sneaky))
    finished = await start(workflow(saver, llm, lab, attempts=2))
    assert isinstance(finished, Finished) and finished.status == "blocked"
    assert "do wr er" in ending_line(
        finished, MASK
    ) and "erases the startup configuration" in ending_line(finished, MASK)
    assert "is refused" in llm.requests[1].messages[-1]["content"]  # the LLM was told why
    assert lab.pushes == []


async def test_a_command_injected_through_params_never_reaches_a_device(
    saver: SQLAlchemySaver, llm: OpenAIStandIn, lab: RecordingGateway
) -> None:
    described = {
        **OSPF_TEMPLATE,
        "templates": {"cisco_ios": "interface {{ ifname }}\n description {{ text }}\n"},
        "params_schema": {"ifname": {"type": "interface"}, "text": {"type": "str"}},
        "example_params": {"ifname": "GigabitEthernet0/0", "text": "uplink"},
        "sections": ["interface * / description *"],
    }
    injected = {"ifname": "GigabitEthernet0/0", "text": "uplink\nreload"}
    llm.script(
        structured(described),
        structured({"common": injected}),
        structured({"devices": {"R1": injected, "R2": injected}}),
    )
    wf = workflow(saver, llm, lab, attempts=2)
    gate = await start(wf)
    assert isinstance(gate, Gate)
    finished = await wf.resume("slack:C1:1.0", gate, decide(gate))
    assert isinstance(finished, Finished) and finished.status == "failed"
    assert "R1: param 'text'" in ending_line(finished, MASK) and "line break" in ending_line(
        finished, MASK
    )
    assert lab.pushes == []


async def test_a_blocked_line_is_shown_at_the_params_gate_and_refused_at_the_push(
    saver: SQLAlchemySaver, llm: OpenAIStandIn, lab: RecordingGateway
) -> None:
    raw = {
        **OSPF_TEMPLATE,
        "templates": {"cisco_ios": "interface {{ ifname }}\n {{ command }}\n"},
        "params_schema": {"ifname": {"type": "interface"}, "command": {"type": "str"}},
        "example_params": {"ifname": "GigabitEthernet0/0", "command": "ip address 10.9.9.1/24"},
        "sections": ["interface * / ip address *"],
    }
    params = {"ifname": "Management1", "command": "ip address 10.9.9.1/24"}
    llm.script(structured(raw), structured({"common": params}))
    wf = workflow(saver, llm, lab)
    gate = await start(wf)
    assert isinstance(gate, Gate)
    params_gate = await wf.resume("slack:C1:1.0", gate, decide(gate))
    assert isinstance(params_gate, Gate)
    [hit] = params_gate.payload["devices"]["R1"]["blocked"]
    reason = (
        "management-plane access, rule mgmt-interface: "
        "would cut off management access to the device"
    )
    line = " ip address 10.9.9.1/24"
    assert (hit["line"], hit["reason"], hit["family"]) == (line, reason, "management")
    finished = await wf.resume("slack:C1:1.0", params_gate, decide(params_gate))
    assert isinstance(finished, Finished) and finished.status == "blocked"
    assert f"R1: '{line}' is not allowed ({reason})" in ending_line(finished, MASK)
    assert lab.pushes == []


FACTS_TEMPLATE: dict[str, Any] = {
    "name": "ospf-facts",
    "description": "OSPF on every addressed interface, link costs",
    "templates": {
        "cisco_ios": "router ospf {{ pid }}\n router-id {{ facts.router_id }}\n"
        "{% for i in facts.interfaces if i.address %}"
        " network {{ i.address|network }} {{ i.address|wildcard }} area 0\n{% endfor %}"
        "{% for n in facts.neighbors %}interface {{ n.interface }}\n"
        " description to {{ n.device }} {{ n.device_interface }}\n"
        " ip ospf cost {{ cost }}\n{% endfor %}"
    },
    "params_schema": {"pid": "int", "cost": "int=10"},
    "example_params": {"pid": 1},
    "targets": ["*"],
    "sections": [
        "router ospf * / router-id *",
        "router ospf * / network *",
        "interface * / description *",
        "interface * / ip ospf *",
    ],
}


def facts_lines(router_id: str, cost: int) -> list[str]:
    return [
        "router ospf 1",
        f" router-id {router_id}",
        " network 10.0.12.0 0.0.0.255 area 0",
        f" network {router_id} 0.0.0.0 area 0",
        "interface GigabitEthernet0/0",
        " description to {} GigabitEthernet0/0".format("R2" if router_id == "1.1.1.1" else "R1"),
        f" ip ospf cost {cost}",
    ]


async def test_a_facts_template_renders_each_device_from_its_own_facts(
    saver: SQLAlchemySaver, llm: OpenAIStandIn, lab: RecordingGateway
) -> None:
    params = {"common": {"pid": 1}, "devices": {"R2": {"cost": 100}}}
    llm.script(structured(FACTS_TEMPLATE), structured(params))
    wf = workflow(saver, llm, lab)

    template_gate = await start(wf)
    assert isinstance(template_gate, Gate) and template_gate.payload["targets"] == ["R1", "R2"]
    example_facts = template_gate.payload["example_facts"]["cisco_ios"]
    assert (example_facts["name"], example_facts["router_id"]) == ("R1", "1.1.1.1")
    assert template_gate.payload["example_rendering"] == {"cisco_ios": facts_lines("1.1.1.1", 10)}
    assert template_gate.payload["params_schema"]["cost"] == {"type": "int", "default": 10}

    params_gate = await wf.resume("slack:C1:1.0", template_gate, decide(template_gate))
    assert isinstance(params_gate, Gate)
    r1, r2 = (params_gate.payload["devices"][name] for name in ("R1", "R2"))
    assert (r1["params"], r2["params"]) == ({"pid": 1, "cost": 10}, {"pid": 1, "cost": 100})
    assert r1["lines"] == facts_lines("1.1.1.1", 10)
    assert r2["lines"] == facts_lines("2.2.2.2", 100)
    assert r2["facts"]["neighbors"] == [
        {
            "interface": "GigabitEthernet0/0",
            "device": "R1",
            "device_interface": "GigabitEthernet0/0",
            "address": "10.0.12.1",
        }
    ]  # the facts rendered are part of what is approved (and hashed)
    assert params_gate.sha256 == content_sha256(params_gate.payload)
    params_request = llm.requests[1].messages[-1]["content"]
    assert "10.0.12.1" not in params_request  # per-device values never went through the LLM

    done = await wf.resume("slack:C1:1.0", params_gate, decide(params_gate))
    assert isinstance(done, Finished) and done.status == "done"
    assert [p.plan for p in lab.pushes] == [
        {"R1": facts_lines("1.1.1.1", 10), "R2": facts_lines("2.2.2.2", 100)}
    ]


async def test_params_for_a_device_that_is_no_target_go_back_to_the_llm(
    saver: SQLAlchemySaver, llm: OpenAIStandIn, lab: RecordingGateway
) -> None:
    stray = {"common": OSPF_PARAMS["common"], "devices": {"R9": {"pid": 2}}}
    llm.script(structured(OSPF_TEMPLATE), structured(stray), structured(OSPF_PARAMS))
    wf = workflow(saver, llm, lab)
    gate = await start(wf)
    assert isinstance(gate, Gate)
    params_gate = await wf.resume("slack:C1:1.0", gate, decide(gate))
    assert isinstance(params_gate, Gate) and set(params_gate.payload["devices"]) == {"R1", "R2"}
    retry = llm.requests[2].messages[-1]["content"]
    assert "- parameters for R9, which is not a target (R1, R2)" in retry
    assert '"R9":{"pid":2}' in retry  # its previous answer, to be corrected


async def test_lab_facts_holding_a_line_break_never_reach_a_device(
    saver: SQLAlchemySaver, llm: OpenAIStandIn, lab: RecordingGateway
) -> None:
    """A GNS3 port name is the lab's data: with a line break it would print as a command of
    its own, so the devices whose facts hold it are refused, with the reason."""
    lab.configs["R3"] = ios_config("R3", ("GigabitEthernet0/0", "10.0.23.3/24"))
    lab.links.append(
        Link(
            a_device="R2",
            a_interface="GigabitEthernet0/1",
            b_device="R3",
            b_interface="GigabitEthernet0/0\nreload",
        )
    )
    named = {**FACTS_TEMPLATE, "targets": ["R1", "R2", "R3"]}
    llm.script(structured(named))
    finished = await start(workflow(saver, llm, lab, attempts=1), "OSPF on R1, R2 and R3")
    assert isinstance(finished, Finished) and finished.status == "failed"
    assert "device R3 cannot be targeted (its lab facts cannot be used" in ending_line(
        finished, MASK
    )
    assert "facts.interfaces" not in ending_line(finished, MASK)  # R3's own interfaces are fine...
    assert "neighbors[0].interface: 'GigabitEthernet0/0\\nreload' contains a line break" in (
        ending_line(finished, MASK)
    )  # ...the link's port name is not
    assert "device R2 cannot be targeted" in ending_line(finished, MASK)  # R2 would print it too
    assert "device R1" not in ending_line(finished, MASK) and lab.pushes == []
