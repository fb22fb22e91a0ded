"""Saved and combined templates through the real graph: the real saver and template store on
SQLite, the real LLM client against the local OpenAI-compatible stand-in, a recording lab."""

from __future__ import annotations

from typing import Any

from langchain_openai import ChatOpenAI
from pydantic import SecretStr

from bot.views.ending import ending_line
from labsim.trial import SimTrial
from storage.checkpointer import SQLAlchemySaver
from storage.template_store import TemplateDraft, TemplateStore
from tests.fakes.openai_server import OpenAIStandIn, structured
from tests.support.masks import MASK
from tests.support.sealing import SEALING
from tests.workflow.gateways import RecordingGateway, two_router_lab
from workflow.api import ChangeWorkflow, Finished, Gate, GateDecision
from workflow.library.planner import LibraryPlanner
from workflow.library.saved import SavedTemplatePlanner
from workflow.llm import LLMPlanner
from workflow.nodes.change import Nodes

AREA_TEMPLATE = "router ospf {{ pid }}\n network 0.0.0.0 255.255.255.255 area {{ area }}\n"


def draft(
    name: str, source: str, schema: dict[str, Any], example: dict[str, Any], sections: list[str]
) -> TemplateDraft:
    return TemplateDraft(
        name=name,
        description=f"{name} for the lab",
        templates={"cisco_ios": source},
        params_schema=schema,
        example_params=example,
        saved_by_id="U1",
        saved_by_name="alice",
        origin_tokens=700,
        sections=sections,
    )


def approve(gate: Gate) -> GateDecision:
    return GateDecision(choice="approve", sha256=gate.sha256, actor_id="U2", actor_name="bob")


async def run(workflow: ChangeWorkflow, text: str) -> tuple[list[Gate], Finished]:
    gates: list[Gate] = []
    step = await workflow.start("t1", change_id="chg-1", text=text, requester={"id": "U1"})
    while isinstance(step, Gate):
        gates.append(step)
        step = await workflow.resume("t1", step, approve(step))
    return gates, step


async def test_reusing_a_saved_template_costs_no_template_tokens_the_llm_sets_parameters(
    saver: SQLAlchemySaver, llm: OpenAIStandIn
) -> None:
    store = TemplateStore(saver.engine, SEALING)
    schema = {"pid": {"type": "int"}, "area": {"type": "int"}}
    example = {"pid": 1, "area": 0}
    sections = ["router ospf * / network *"]
    await store.save(draft("area_ospf", AREA_TEMPLATE, schema, example, sections))
    llm.script(structured({"common": {"pid": 7, "area": 3}, "devices": {}}))
    model = ChatOpenAI(api_key=SecretStr("sk"), base_url=llm.base_url, model="m", max_retries=0)
    planner = LLMPlanner(model)
    lab = two_router_lab()
    nodes = Nodes(SavedTemplatePlanner(planner, store, llm=planner), lab, saved=store)
    workflow = ChangeWorkflow(checkpointer=saver, nodes=nodes)
    gates, finished = await run(workflow, "apply area_ospf to R1,R2 in area 3")
    assert gates[0].payload["parts"][0]["name"] == "area_ospf"
    assert gates[0].payload["parts"][0]["version"] == 1
    assert finished.status == "done"
    assert finished.tokens["template"]["total_tokens"] == 0
    assert finished.tokens["params"]["total_tokens"] > 0
    assert len(llm.requests) == 1  # parameters only: the template came from the library
    assert lab.pushes[0].plan["R1"] == ["router ospf 7", " network 0.0.0.0 255.255.255.255 area 3"]
    assert [p["name"] for p in finished.templates] == ["area_ospf"]


async def test_the_deny_list_covers_a_combination(saver: SQLAlchemySaver) -> None:
    store = TemplateStore(saver.engine, SEALING)
    await store.save(
        draft(
            "tidy",
            "do reload in {{ minutes }}\n",
            {"minutes": {"type": "int"}},
            {"minutes": 5},
            ["*"],
        )
    )
    lab = two_router_lab()
    nodes = Nodes(SavedTemplatePlanner(LibraryPlanner(), store), lab, saved=store)
    workflow = ChangeWorkflow(checkpointer=saver, nodes=nodes)
    gates, finished = await run(workflow, "apply ospf + tidy to R1 minutes=5")
    assert gates == [] and finished.status == "blocked"
    assert "reload" in ending_line(finished, MASK) and not lab.pushes


async def test_the_template_test_runs_on_a_copy_of_the_target_within_the_gate(
    saver: SQLAlchemySaver,
) -> None:
    store = TemplateStore(saver.engine, SEALING)
    lab: RecordingGateway = two_router_lab()
    nodes = Nodes(SavedTemplatePlanner(LibraryPlanner(), store), lab, trial=SimTrial())
    workflow = ChangeWorkflow(checkpointer=saver, nodes=nodes)
    step = await workflow.start("t1", change_id="chg-1", text="apply ospf to R1,R2", requester={})
    assert isinstance(step, Gate)
    test = step.payload["template_test"]["cisco_ios"]
    assert test["device"] == "R1" and test["ok"] and test["errors"] == [] and test["lines"] >= 2
