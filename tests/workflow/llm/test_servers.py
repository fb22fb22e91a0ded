"""The LLM planner over the real ChatOpenAI client against stand-ins of the servers labs run
(tests/fakes/llm_profiles.py): each one ends in a valid template, by the strategy it supports,
with token figures that say whether they were measured or estimated."""

from __future__ import annotations

import json
from dataclasses import replace

import httpx
import pytest
from langchain_openai import ChatOpenAI

from base.errors import PlanningError
from base.masking import SecretMask
from tests.fakes import llm_profiles as servers
from tests.fakes.llm_profiles import ServerProfile
from tests.fakes.openai_server import OpenAIStandIn, count_tokens, error, structured, text
from tests.workflow.llm.test_planner import OSPF_ANSWER, TOPOLOGY
from workflow.library.catalog import load_catalog
from workflow.llm import LLMPlanner, LLMSecrets, make_chat_model
from workflow.llm.output import OutputMode, StructuredOutput, remembered_strategy
from workflow.model import PlanRequest

EXPECTED: list[tuple[ServerProfile, str, list[str]]] = [
    # profile, the strategy that works, what each request asked for (t: tools, s: json_schema,
    # j: JSON in the text)
    (servers.OPENAI, "tools", ["t"]),
    (servers.OLLAMA, "tools", ["t"]),
    (servers.VLLM_TOOL_PARSER, "tools", ["t"]),
    (servers.VLLM_NO_TOOL_PARSER, "tools", ["t"]),  # named calls need no parser
    (servers.LLAMA_CPP, "json_schema", ["t", "s"]),
    (servers.LLAMA_CPP_JINJA, "tools", ["t"]),
    (servers.OLLAMA_THINK, "json_schema", ["t", "s"]),
    (servers.VLLM_R1_PREFILLED, "tools", ["t"]),
    (servers.LLAMA_CPP_R1_PREFILLED, "json_schema", ["t", "s"]),
    (servers.DEEPSEEK_REASONER, "json", ["t", "s", "j"]),
    (servers.NO_USAGE, "tools", ["t"]),
]


def chat(server: OpenAIStandIn, timeout: float = 10) -> ChatOpenAI:
    """The client as the bot builds it (its HTTP client mends object arguments)."""
    return make_chat_model(
        api_key="sk-test",
        base_url=server.base_url,
        model=server.profile.name,
        timeout=timeout,
        secrets=LLMSecrets(SecretMask(b"test key")),
    )


def planner(server: OpenAIStandIn, mode: OutputMode = "auto", **options: int) -> LLMPlanner:
    model = chat(server)
    return LLMPlanner(model, output=StructuredOutput(model, mode=mode, **options))


def asked_for(server: OpenAIStandIn) -> list[str]:
    return [
        "t" if "tools" in r.body else "s" if "response_format" in r.body else "j"
        for r in server.requests
    ]


async def propose(server: OpenAIStandIn, plan: LLMPlanner) -> dict[str, object]:
    request = PlanRequest(text="OSPF area 0 on all routers", topology=TOPOLOGY)
    return dict(await plan.propose_template(request))


@pytest.mark.parametrize(
    ("profile", "strategy", "asked"), EXPECTED, ids=lambda p: getattr(p, "name", None)
)
async def test_each_server_ends_in_a_template_by_the_strategy_it_supports(
    profile: ServerProfile, strategy: str, asked: list[str]
) -> None:
    with OpenAIStandIn(profile=profile) as server:
        server.script(structured(OSPF_ANSWER))
        plan = planner(server)
        proposal = await propose(server, plan)
        assert proposal["templates"] == OSPF_ANSWER["templates"]
        assert asked_for(server) == asked
        assert remembered_strategy(chat(server)) == strategy
        # the next request goes straight to what worked
        server.script(structured(OSPF_ANSWER))
        await propose(server, plan)
        assert asked_for(server)[len(asked) :] == [asked[-1]]
        assert all(r.body.get("stream") for r in server.requests)
    tokens = proposal["tokens"]
    assert isinstance(tokens, dict)
    assert tokens.get("estimated", False) is (not profile.usage)


@pytest.mark.parametrize(
    "profile", [servers.VLLM_R1_PREFILLED, servers.LLAMA_CPP_R1_PREFILLED], ids=lambda p: p.name
)
@pytest.mark.parametrize("mode", ["json_schema", "json"])
async def test_a_draft_in_thinking_with_only_its_closing_tag_is_never_the_answer(
    profile: ServerProfile, mode: OutputMode
) -> None:
    """The thinking drafts {"name": "ospf"}, a built-in's name: taking it would silently swap
    the model's own template for the library's."""
    with OpenAIStandIn(profile=profile) as server:
        server.script(structured(OSPF_ANSWER))
        model = chat(server)
        plan = LLMPlanner(model, load_catalog(), StructuredOutput(model, mode=mode))
        proposal = await propose(server, plan)
    assert proposal["source"] == "llm" and proposal["name"] == OSPF_ANSWER["name"]
    assert proposal["templates"] == OSPF_ANSWER["templates"]


async def test_ollama_streaming_json_schema_reports_its_usage_as_measured() -> None:
    """Ollama repeats the role in every chunk; ChatOpenAI streams `response_format` through
    the openai client's helper, which would join the roles and lose the usage."""
    with OpenAIStandIn(profile=servers.OLLAMA) as server:
        server.script(structured(OSPF_ANSWER), structured(OSPF_ANSWER))
        proposal = await propose(server, planner(server, mode="json_schema"))
        [request] = server.requests
        # the same request again, read raw: the stream as the client received it
        async with httpx.AsyncClient() as client:
            sent = await client.post(f"{server.base_url}/chat/completions", json=request.body)
        raw = sent.text
    chunks = [json.loads(line[6:]) for line in raw.splitlines() if line.startswith("data: {")]
    assert all(c["choices"][0]["delta"]["role"] == "assistant" for c in chunks[:-1])
    usage = chunks[-1]["usage"]
    tokens = proposal["tokens"]
    assert "estimated" not in tokens
    assert tokens["input_tokens"] == usage["prompt_tokens"] == count_tokens(request.prompt_text())
    assert tokens["output_tokens"] == usage["completion_tokens"] > 0


async def test_without_usage_the_tokens_are_estimated_from_the_text() -> None:
    with OpenAIStandIn(profile=servers.NO_USAGE) as server:
        server.script(structured(OSPF_ANSWER))
        proposal = await propose(server, planner(server))
        [request] = server.requests
    tokens = proposal["tokens"]
    assert tokens["estimated"] is True
    # about four characters a token: the same order as the stand-in's own count
    measured = count_tokens(request.prompt_text())
    assert measured / 3 < tokens["input_tokens"] < measured * 3
    assert tokens["total_tokens"] == tokens["input_tokens"] + tokens["output_tokens"]


async def test_tool_arguments_sent_as_an_object_are_read_as_the_answer() -> None:
    plain = replace(servers.LLAMA_CPP_JINJA, streams=False)  # the whole object in one body
    with OpenAIStandIn(profile=plain) as server:
        server.script(structured(OSPF_ANSWER), structured(OSPF_ANSWER))
        proposal = await propose(server, planner(server, mode="tools"))
        [*_, answered] = server.requests
    assert not answered.body.get("stream") and "tools" in answered.body
    assert proposal["templates"] == OSPF_ANSWER["templates"]


async def test_ollama_ignoring_the_forced_tool_still_gives_the_answer_from_its_text() -> None:
    with OpenAIStandIn(profile=servers.OLLAMA) as server:
        server.script(structured(OSPF_ANSWER, in_text=True))
        proposal = await propose(server, planner(server))
        assert asked_for(server) == ["t"]
    assert proposal["templates"] == OSPF_ANSWER["templates"]


async def test_an_invalid_answer_goes_back_with_the_validation_error() -> None:
    with OpenAIStandIn(profile=servers.DEEPSEEK_REASONER) as server:
        bad = {**OSPF_ANSWER, "templates": "router ospf 1"}  # not a mapping
        server.script(structured(bad), structured(OSPF_ANSWER))
        proposal = await propose(server, planner(server, mode="json"))
        _, second = server.requests
    assert proposal["templates"] == OSPF_ANSWER["templates"]
    again = second.messages
    assert again[-2]["role"] == "assistant" and '"router ospf 1"' in again[-2]["content"]
    assert (
        "That answer is not valid" in again[-1]["content"] and "templates" in again[-1]["content"]
    )
    assert "<think>" not in again[-2]["content"]


async def test_a_cut_off_answer_is_asked_once_more_with_a_larger_budget() -> None:
    with OpenAIStandIn() as server:
        server.script(structured(OSPF_ANSWER), structured(OSPF_ANSWER))
        proposal = await propose(server, planner(server, max_tokens=100))
        budgets = [
            r.body.get("max_completion_tokens") or r.body.get("max_tokens") for r in server.requests
        ]
    assert budgets == [100, 400]  # the answer takes about 180
    assert proposal["templates"] == OSPF_ANSWER["templates"]


async def test_an_answer_cut_off_twice_is_one_clear_error() -> None:
    with OpenAIStandIn() as server:
        server.script(structured(OSPF_ANSWER), structured(OSPF_ANSWER))
        with pytest.raises(PlanningError) as caught:
            await propose(server, planner(server, max_tokens=5))
    assert str(caught.value) == (
        "the LLM's answer was cut off twice (finish_reason length, at 20 tokens); "
        "raise LABBOT_LLM_MAX_TOKENS or ask for a smaller change"
    )


async def test_a_forced_strategy_the_server_refuses_names_the_fix() -> None:
    with OpenAIStandIn(profile=servers.LLAMA_CPP) as server, pytest.raises(PlanningError) as err:
        await propose(server, planner(server, mode="tools"))
    refused = "answered HTTP 500: tools param requires --jinja flag"
    assert str(err.value) == f"the LLM endpoint at {server.base_url} {refused}"


async def test_prose_without_json_from_every_strategy_is_a_clear_error() -> None:
    with OpenAIStandIn(profile=servers.OLLAMA) as server:
        server.script(*[text("I cannot help with that.")] * 7)  # 2 tools, 2 json_schema, 3 json
        with pytest.raises(PlanningError, match="did not match the expected format after 3 tries"):
            await propose(server, planner(server))


async def test_one_answer_without_an_object_does_not_change_the_strategy() -> None:
    with OpenAIStandIn(profile=servers.OLLAMA) as server:
        server.script(text("Let me look at the lab first."), structured(OSPF_ANSWER))
        proposal = await propose(server, planner(server))
        assert asked_for(server) == ["t", "t"]
        assert remembered_strategy(chat(server)) == "tools"
        again = server.requests[1].messages[-1]["content"]
    assert "That answer is not valid" in again and "no JSON object" in again
    assert proposal["templates"] == OSPF_ANSWER["templates"]


async def test_a_server_that_does_not_stream_is_asked_plainly_from_then_on() -> None:
    with OpenAIStandIn(profile=servers.NO_STREAMING) as server:
        server.script(structured(OSPF_ANSWER), structured(OSPF_ANSWER), structured(OSPF_ANSWER))
        plan = planner(server)
        proposal = await propose(server, plan)
        await propose(server, plan)
        streamed = [bool(r.body.get("stream")) for r in server.requests]
    assert proposal["templates"] == OSPF_ANSWER["templates"]
    assert streamed == [True, False, False]
    assert proposal["tokens"].get("estimated") is None  # its usage came with the plain answer


async def test_a_server_fault_is_not_taken_for_a_refused_strategy() -> None:
    with OpenAIStandIn() as server, pytest.raises(PlanningError) as err:
        server.script(error(500, "model overloaded"), structured(OSPF_ANSWER))
        await propose(server, planner(server))
    assert str(err.value).endswith("answered HTTP 500: model overloaded")
    assert len(server.requests) == 1  # not asked again another way
