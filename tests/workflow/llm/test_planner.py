"""The LLM planner over the real ChatOpenAI client, against the local OpenAI-compatible stand-in."""

from __future__ import annotations

import json
import socket
from typing import Any, cast

import pytest
from langchain_openai import ChatOpenAI
from pydantic import SecretStr

from base.errors import PlanningError
from base.masking import SecretMask
from tests.fakes.openai_server import OpenAIStandIn, count_tokens, error, structured, text
from workflow.library.catalog import load_catalog
from workflow.library.planner import NO_TOKENS
from workflow.llm import LLMPlanner, LLMSecrets, make_llm_planner
from workflow.llm.prompts import name_ranges
from workflow.llm.schemas import ParamsAnswer, tool_definition
from workflow.model import PlanRequest, TemplateProposal, Topology
from workflow.templates.check import validate_template

OSPF_ANSWER: dict[str, Any] = {
    "name": "ospf-area0",
    "description": "OSPF area 0 on every addressed interface",
    "templates": {
        "cisco_ios": "router ospf {{ pid }}\n{% for n in networks %}"
        " network {{ n }} area 0\n{% endfor %}"
    },
    "params_schema": {
        "pid": {"type": "int"},
        "networks": {"type": "list", "items": {"type": "str"}},
    },
    "example_params": {"pid": 1, "networks": ["10.0.12.0 0.0.0.255"]},
    "targets": ["R1", "R2"],
    "sections": ["router ospf * / network *"],
}

TOPOLOGY = Topology(
    devices={
        name: {
            "name": name,
            "platform": "cisco_ios_telnet",
            "family": "cisco_ios",
            "interfaces": [{"name": "Gi0/0", "address": f"10.0.12.{i}/24", "enabled": True}],
            "running_config": f"hostname {name}\n",
        }
        for i, name in enumerate(("R1", "R2"), start=1)
    },
    links=[{"a_device": "R1", "a_interface": "Gi0/0", "b_device": "R2", "b_interface": "Gi0/0"}],
    unusable=[],
)


def llm_template(**changes: Any) -> TemplateProposal:
    """OSPF_ANSWER as the LLM's proposal, with `changes`."""
    return cast(TemplateProposal, {**OSPF_ANSWER, **changes, "source": "llm"})


def chat(server: OpenAIStandIn, timeout: float = 10) -> ChatOpenAI:
    return ChatOpenAI(
        api_key=SecretStr("sk-test"),
        base_url=server.base_url,
        model="m",
        timeout=timeout,
        max_retries=0,
    )


async def test_template_comes_back_as_a_proposal_with_the_endpoints_usage(
    llm: OpenAIStandIn,
) -> None:
    llm.script(structured(OSPF_ANSWER))
    proposal = await LLMPlanner(chat(llm)).propose_template(
        PlanRequest(text="OSPF area 0 on all routers", topology=TOPOLOGY)
    )
    assert proposal["source"] == "llm"
    assert proposal["templates"] == OSPF_ANSWER["templates"]
    assert proposal["targets"] == ["R1", "R2"]
    [request] = llm.requests
    assert request.body["tool_choice"]["function"]["name"] == "TemplateAnswer"
    human = request.messages[-1]["content"]
    assert "Request: OSPF area 0 on all routers" in human
    assert "Devices: cisco_ios: R1, R2" in human  # names per family: all a template needs
    prompt_tokens = count_tokens(request.prompt_text())
    completion_tokens = count_tokens(json.dumps(OSPF_ANSWER))
    assert proposal["tokens"] == {
        "input_tokens": prompt_tokens,
        "output_tokens": completion_tokens,
        "total_tokens": prompt_tokens + completion_tokens,
    }


async def test_errors_feedback_and_previous_answer_reach_the_llm(llm: OpenAIStandIn) -> None:
    llm.script(structured(OSPF_ANSWER))
    previous = TemplateProposal(**OSPF_ANSWER, source="llm")  # type: ignore[typeddict-item]
    await LLMPlanner(chat(llm)).propose_template(
        PlanRequest(
            text="OSPF",
            topology=TOPOLOGY,
            feedback="use process id 10",
            errors=("line 2: 'area' is undefined",),
            previous=previous,
        )
    )
    human = llm.requests[0].messages[-1]["content"]
    assert "The reviewer asks: use process id 10" in human
    assert "- line 2: 'area' is undefined" in human
    assert '"name":"ospf-area0"' in human


async def test_params_answer_common_values_and_per_device_overrides_merged(
    llm: OpenAIStandIn,
) -> None:
    answer = {
        "common": {"pid": 1, "networks": ["10.0.12.0 0.0.0.255"]},
        "devices": {"R2": {"pid": 2}},
    }
    llm.script(structured(answer))
    template = TemplateProposal(**OSPF_ANSWER, source="llm")  # type: ignore[typeddict-item]
    proposal = await LLMPlanner(chat(llm)).propose_params(
        PlanRequest(text="OSPF", topology=TOPOLOGY), template
    )
    assert proposal["device_params"] == {
        "R1": {"pid": 1, "networks": ["10.0.12.0 0.0.0.255"]},
        "R2": {"pid": 2, "networks": ["10.0.12.0 0.0.0.255"]},
    }
    assert proposal["tokens"]["output_tokens"] == count_tokens(json.dumps(answer))
    [request] = llm.requests
    assert request.body["tool_choice"]["function"]["name"] == "ParamsAnswer"
    assert "`common`" in request.messages[0]["content"]  # the system prompt asks for the form
    human = request.messages[-1]["content"]
    assert "Targets: R1, R2" in human and "link R1 Gi0/0 - R2 Gi0/0" in human
    assert "R1 cisco_ios: Gi0/0=10.0.12.1/24" in human  # the template reads no facts itself
    assert "hostname R1" not in human  # interface facts, never running configs


async def test_params_for_a_facts_template_send_no_lab_facts(llm: OpenAIStandIn) -> None:
    template = llm_template(
        templates={
            "cisco_ios": "router ospf {{ pid }}\n router-id {{ facts.router_id }}\n"
            "{% for i in facts.interfaces if i.address %}"
            " network {{ i.address|network }} {{ i.address|wildcard }} area 0\n{% endfor %}"
        },
        params_schema={"pid": {"type": "int"}},
        example_params={"pid": 1},
    )
    llm.script(structured({"common": {"pid": 10}}))
    proposal = await LLMPlanner(chat(llm)).propose_params(
        PlanRequest(text="OSPF process 10", topology=TOPOLOGY), template
    )
    assert proposal["device_params"] == {"R1": {"pid": 10}, "R2": {"pid": 10}}
    human = llm.requests[0].messages[-1]["content"]
    assert "The template reads each device's facts" in human
    assert "10.0.12.1" not in human and "link R1" not in human  # the renderer has them


async def test_no_params_call_when_every_parameter_has_a_default(llm: OpenAIStandIn) -> None:
    template = llm_template(
        templates={"cisco_ios": "router ospf {{ pid }}\n router-id {{ facts.router_id }}"},
        params_schema={"pid": {"type": "int", "default": 1}},
        example_params={},
    )
    planner = LLMPlanner(chat(llm))
    request = PlanRequest(text="OSPF", topology=TOPOLOGY)
    proposal = await planner.propose_params(request, template)
    assert proposal == {"device_params": {"R1": {}, "R2": {}}, "tokens": NO_TOKENS}
    assert llm.requests == []
    # A reviewer's Modify is the LLM's to answer, defaults or not.
    llm.script(structured({"devices": {"R2": {"pid": 2}}}))
    revised = await planner.propose_params(
        PlanRequest(text="OSPF", topology=TOPOLOGY, feedback="process 2 on R2"), template
    )
    assert revised["device_params"] == {"R1": {}, "R2": {"pid": 2}}
    assert "The reviewer asks: process 2 on R2" in llm.requests[0].messages[-1]["content"]


async def test_the_llm_may_choose_a_built_in_template_by_name(llm: OpenAIStandIn) -> None:
    llm.script(structured({"name": "ospf", "targets": ["R*"]}))
    catalog = load_catalog()
    proposal = await LLMPlanner(chat(llm), catalog).propose_template(
        PlanRequest(text="enable ospf everywhere", topology=TOPOLOGY)
    )
    expected = catalog.as_proposal("ospf", ["R1", "R2"], {"cisco_ios"})
    assert {k: v for k, v in proposal.items() if k != "tokens"} == expected
    assert list(proposal["templates"]) == ["cisco_ios"]  # only the targets' vendors are shown
    human = llm.requests[0].messages[-1]["content"]
    assert "ospf (OSPF on every addressed interface)" in human  # the match, its gist
    assert "ntp" not in human  # templates the request does not match are not offered


async def test_a_built_in_templates_params_are_derived_without_the_llm(
    llm: OpenAIStandIn,
) -> None:
    catalog = load_catalog()
    template = catalog.as_proposal("ospf", ["R1", "R2"], {"cisco_ios"})
    request = PlanRequest(text="configure ospf area 1 on all routers", topology=TOPOLOGY)
    proposal = await LLMPlanner(chat(llm), catalog).propose_params(request, template)
    assert llm.requests == [] and proposal["tokens"] == NO_TOKENS
    r1 = proposal["device_params"]["R1"]
    assert (r1["area"], r1["networks"]) == ("1", ["10.0.12.0/24"])  # phrase + lab facts


async def test_a_built_in_template_with_gaps_asks_the_llm_only_for_them(
    llm: OpenAIStandIn,
) -> None:
    catalog = load_catalog()
    template = catalog.as_proposal("ntp", ["R1", "R2"], {"cisco_ios"})
    llm.script(structured({"common": {"servers": ["10.0.0.1"]}}))
    request = PlanRequest(text="sync the routers' clocks to our time server", topology=TOPOLOGY)
    proposal = await LLMPlanner(chat(llm), catalog).propose_params(request, template)
    assert [p["servers"] for p in proposal["device_params"].values()] == [["10.0.0.1"]] * 2
    human = llm.requests[0].messages[-1]["content"]
    assert "Still missing:\n- R1: param 'servers' is required" in human
    assert "Derived from the lab (answer only changes):" in human


async def test_shorthand_schema_and_target_globs_are_expanded(llm: OpenAIStandIn) -> None:
    answer = {
        **OSPF_ANSWER,
        "params_schema": {"pid": "int=10", "networks": OSPF_ANSWER["params_schema"]["networks"]},
        "targets": ["R*"],
    }
    llm.script(structured(answer))
    proposal = await LLMPlanner(chat(llm)).propose_template(
        PlanRequest(text="OSPF", topology=TOPOLOGY)
    )
    assert proposal["params_schema"]["pid"] == {"type": "int", "default": 10}
    assert proposal["targets"] == ["R1", "R2"]


async def test_post_checks_the_llm_declares_are_normalized_or_reported(
    llm: OpenAIStandIn,
) -> None:
    """A well-formed declaration arrives normalized; a wrong one stays as answered, so the
    template check names what is wrong and the LLM is asked again."""
    request = PlanRequest(text="OSPF", topology=TOPOLOGY)
    llm.script(structured({**OSPF_ANSWER, "post_checks": ["ospf_neighbors"]}))
    proposal = await LLMPlanner(chat(llm)).propose_template(request)
    assert proposal["post_checks"] == {"checks": [{"kind": "ospf_neighbors"}], "timeout": 60.0}
    assert validate_template(proposal) == []
    checks = {"timeout": 20, "checks": ["ospf_neighbors"]}
    llm.script(structured({**OSPF_ANSWER, "post_checks": checks}))
    proposal = await LLMPlanner(chat(llm)).propose_template(request)
    assert proposal["post_checks"]["timeout"] == 20.0
    llm.script(structured({**OSPF_ANSWER, "post_checks": ["ospf_full"]}))
    proposal = await LLMPlanner(chat(llm)).propose_template(request)
    assert any("unknown kind 'ospf_full'" in e for e in validate_template(proposal))


def test_device_names_are_listed_as_ranges() -> None:
    names = [f"R{i}" for i in range(1, 51)] + ["SW1", "SW2", "core"]
    assert name_ranges(names) == "R1..R50, SW1, SW2, core"
    assert name_ranges(["R1", "R2", "R4", "R5", "R6"]) == "R1, R2, R4..R6"


def test_tool_definitions_carry_no_implied_schema_keywords() -> None:
    tool = json.dumps(tool_definition(ParamsAnswer))
    assert '"default"' not in tool and '"additionalProperties": true' not in tool
    assert ParamsAnswer.model_validate({}).device_params(["R1"]) == {"R1": {}}


async def test_an_answer_without_the_structured_form_is_a_clear_planning_error(
    llm: OpenAIStandIn,
) -> None:
    llm.script(*[text("Sure! Here is your OSPF config: router ospf 1")] * 7)
    with pytest.raises(PlanningError, match="did not match the expected format after 3 tries"):
        await LLMPlanner(chat(llm)).propose_template(PlanRequest(text="x", topology=TOPOLOGY))
    # tools twice, then response_format json_schema twice, then JSON in the text three times
    assert len(llm.requests) == 7 and "tools" not in llm.requests[-1].body
    assert "That answer is not valid" in llm.requests[-1].messages[-1]["content"]


async def test_a_slow_endpoint_is_reported_with_its_url_and_timeout(llm: OpenAIStandIn) -> None:
    llm.script(structured(OSPF_ANSWER, delay_seconds=1.5))
    with pytest.raises(PlanningError) as caught:
        await LLMPlanner(chat(llm, timeout=0.3)).propose_template(
            PlanRequest(text="x", topology=TOPOLOGY)
        )
    assert str(caught.value) == (
        f"the LLM endpoint at {llm.base_url} did not answer within 0.3 s; "
        "check it is up or raise LABBOT_LLM_TIMEOUT"
    )


async def test_an_unreachable_endpoint_names_the_setting() -> None:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]  # closed again before the request: connection refused
    model = ChatOpenAI(
        api_key=SecretStr("k"), base_url=f"http://127.0.0.1:{port}/v1", model="m", max_retries=0
    )
    with pytest.raises(PlanningError, match=r"cannot reach the LLM endpoint at .*OPENAI_BASE_URL"):
        await LLMPlanner(model).propose_template(PlanRequest(text="x", topology=TOPOLOGY))


@pytest.mark.parametrize(
    ("status", "message", "expected"),
    [
        (401, "Incorrect API key", "refused the API key (401); check OPENAI_API_KEY"),
        (404, "model not found", "does not know the model 'm' (404); check LABBOT_LLM_MODEL"),
        (503, "overloaded", "answered HTTP 503: overloaded"),
    ],
)
async def test_endpoint_errors_become_planning_errors_naming_the_fix(
    llm: OpenAIStandIn, status: int, message: str, expected: str
) -> None:
    llm.script(error(status, message))
    with pytest.raises(PlanningError) as caught:
        await LLMPlanner(chat(llm)).propose_template(PlanRequest(text="x", topology=TOPOLOGY))
    assert str(caught.value) == f"the LLM endpoint at {llm.base_url} {expected}"


async def test_make_llm_planner_sends_the_key_to_the_configured_endpoint(
    llm: OpenAIStandIn,
) -> None:
    llm.script(structured(OSPF_ANSWER))
    planner = make_llm_planner(
        api_key="sk-lab",
        base_url=llm.base_url,
        model="lab-model",
        timeout=5,
        secrets=LLMSecrets(SecretMask(b"test key")),
    )
    await planner.propose_template(PlanRequest(text="x", topology=TOPOLOGY))
    [request] = llm.requests
    assert request.headers["authorization"] == "Bearer sk-lab"
    assert request.body["model"] == "lab-model"
