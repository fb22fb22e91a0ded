"""Token use: the template flow vs a per-device flow, for 10 and 50 routers (the roadmap's
target: the template flow uses <= 25 % of the per-device flow), per output strategy.

    .venv/bin/python -m bench.tokens [ROUTERS ...]

Each strategy of LABBOT_LLM_OUTPUT runs both flows side by side: `tools` (the answer is a tool
call; the schema travels as a tool definition), `json_schema` (as `response_format`) and `json`
(the schema in the system message, the answer JSON in the text). The schema costs the same
words either way; what differs is where the server counts it.

Both flows run the real `ChatOpenAI` client against the local OpenAI-compatible stand-in
(tests/fakes/openai_server.py), which bills every request with one tokenizer (`count_tokens`:
words and punctuation marks, so an IPv4 address is 7 tokens) over everything the model reads
(messages, tool schemas) and everything it writes (content or tool-call arguments). tiktoken
cannot download its encodings here; the same counter on both sides keeps the ratio fair.

The change: OSPF area 0 on a ring of routers, router-id from Loopback0, the point-to-point
links hardened (network type, cost, MD5 authentication, timers) — what a lab team would ask.
- template flow: `LLMPlanner`, with the built-in library as `make_llm_planner` wires it (the
  matching built-in templates are offered in the prompt), asks once for a template that reads
  each device's values from `facts` (router-id, addressed interfaces, links), the request's
  values as defaults; then for parameters: `common` + per-device differences. The cost no
  longer grows with the lab. Two scripted answers, reported separately:
  "template, defaults": the template gives every value a default, so no parameters call is
    made (the planner's rule: nothing left for the LLM to decide);
  "template, common": the MD5 key has no default, so the parameters call is made and answered
    with {"common": {"md5_key": ...}, "devices": {}}.
  Each device's lines are rendered by the real checks (`preview_devices`) with its facts.
- per-device flow: one request per device carrying the same request and that device's facts,
  answered (by the same strategy) with the device's complete configuration: exactly the lines
  the template renders, as {"lines": [...]}.
"""

from __future__ import annotations

import asyncio
import sys
from typing import Any

from langchain_openai import ChatOpenAI
from pydantic import BaseModel, SecretStr

from tests.fakes.openai_server import OpenAIStandIn, Reply, structured
from workflow.library.catalog import load_catalog
from workflow.llm import LLMPlanner
from workflow.llm.output import STRATEGIES, Strategy, StructuredOutput
from workflow.llm.prompts import topology_lines
from workflow.model import DeviceFacts, Link, PlanRequest, TokenUsage, Topology, sum_usage
from workflow.phases.previews import DevicePreview, preview_devices
from workflow.safety.deny import DenyList
from workflow.templates.check import validate_template

REQUEST = (
    "Configure OSPF area 0 on all routers: router-id from Loopback0, loopback passive, "
    "links point-to-point with cost 10, MD5 authentication and 10/40 s timers"
)
PER_DEVICE_SYSTEM = """\
You write the configuration commands for one network device of a lab: one command per line;
no `configure terminal`, `end` or `write`."""


class DeviceLines(BaseModel):
    """One device's complete configuration lines."""

    lines: list[str]


TEMPLATE = """\
router ospf {{ pid }}
 router-id {{ facts.router_id }}
 log-adjacency-changes detail
 auto-cost reference-bandwidth {{ ref_bw }}
{% for i in facts.interfaces if i.loopback %}
 passive-interface {{ i.name }}
{% endfor %}
 timers throttle spf 10 100 5000
{% for i in facts.interfaces if i.address %}
 network {{ i.address|network }} {{ i.address|wildcard }} area {{ area }}
{% endfor %}
{% for n in facts.neighbors %}
interface {{ n.interface }}
 ip ospf network point-to-point
 ip ospf cost {{ cost }}
 ip ospf authentication message-digest
 ip ospf message-digest-key 1 md5 {{ md5_key }}
 ip ospf hello-interval {{ hello }}
 ip ospf dead-interval {{ dead }}
{% endfor %}
"""
SHARED_SCHEMA = {  # the shorthand "type=default" the prompt offers
    "pid": "int=1",
    "area": "str=0",
    "ref_bw": "int=10000",
    "cost": "int=10",
    "hello": "int=10",
    "dead": "int=40",
}
MD5_KEY = "lab-ospf-key"
# Scenario -> (the template step's answer, the parameters step's answer or None: no call).
SCENARIOS: dict[str, tuple[dict[str, Any], dict[str, Any] | None]] = {
    "defaults": (
        {
            "name": "ospf-area0-hardened",
            "description": "OSPF area 0, router-id from Loopback0, hardened point-to-point links",
            "templates": {"cisco_ios": TEMPLATE},
            "params_schema": {**SHARED_SCHEMA, "md5_key": f"str={MD5_KEY}"},
            "targets": ["*"],
            "sections": ["router ospf *", "interface * / ip ospf *"],
        },
        None,
    ),
    "common": (
        {
            "name": "ospf-area0-hardened",
            "description": "OSPF area 0, router-id from Loopback0, hardened point-to-point links",
            "templates": {"cisco_ios": TEMPLATE},
            "params_schema": {**SHARED_SCHEMA, "md5_key": "str"},
            "example_params": {"md5_key": "example-key"},
            "targets": ["*"],
            "sections": ["router ospf *", "interface * / ip ospf *"],
        },
        {"common": {"md5_key": MD5_KEY}, "devices": {}},
    ),
}


def ring(routers: int) -> Topology:
    """R1..Rn in a ring: Ri Gi0/0 — R(i+1) Gi0/1 on a /30 each, and a Loopback0."""
    devices: dict[str, DeviceFacts] = {}
    links: list[Link] = []
    for i in range(1, routers + 1):
        left, right = (i - 2) % routers, (i - 1) % routers  # link indexes on each side
        interfaces = [
            {"name": "GigabitEthernet0/0", "address": _link_host(right, 1), "enabled": True},
            {"name": "GigabitEthernet0/1", "address": _link_host(left, 2), "enabled": True},
            {"name": "Loopback0", "address": f"10.255.{i // 250}.{i % 250}/32", "enabled": True},
        ]
        name = f"R{i}"
        devices[name] = DeviceFacts(
            name=name,
            platform="cisco_ios_telnet",
            family="cisco_ios",
            interfaces=interfaces,  # type: ignore[typeddict-item]
            running_config=f"hostname {name}\n",
        )
        peer = f"R{i % routers + 1}"
        links.append(
            {
                "a_device": name,
                "a_interface": "GigabitEthernet0/0",
                "b_device": peer,
                "b_interface": "GigabitEthernet0/1",
            }
        )
    return Topology(devices=devices, links=links, unusable=[])


def _link_host(index: int, host: int) -> str:
    """Host 1 or 2 of link `index`'s /30, e.g. 10.0.0.5/30."""
    return f"10.0.{index // 64}.{(index % 64) * 4 + host}/30"


async def template_flow(
    llm: OpenAIStandIn, asker: StructuredOutput, topology: Topology, scenario: str
) -> tuple[TokenUsage, dict[str, DevicePreview]]:
    """The planner's two steps as the graph runs them; the usage and every device's preview."""
    template_answer, params_answer = SCENARIOS[scenario]
    replies: list[Reply] = [structured(template_answer)]
    if params_answer is not None:
        replies.append(structured(params_answer))
    llm.script(*replies)
    planner = LLMPlanner(asker.model, load_catalog(), asker)
    request = PlanRequest(text=REQUEST, topology=topology)
    template = await planner.propose_template(request)
    assert validate_template(template) == [], validate_template(template)
    proposal = await planner.propose_params(request, template)
    assert llm.pending_replies == 0, f"{scenario}: the planner skipped a scripted call"
    previews, errors = preview_devices(template, proposal["device_params"], topology, DenyList())
    assert not errors, errors
    return sum_usage([template["tokens"], proposal["tokens"]]), previews


async def per_device_flow(
    llm: OpenAIStandIn, asker: StructuredOutput, topology: Topology, configs: dict[str, list[str]]
) -> TokenUsage:
    spent: list[TokenUsage] = []
    for name in sorted(topology["devices"]):
        llm.script(structured({"lines": configs[name]}))
        facts_lines = "\n".join(topology_lines(topology, [name]))
        human = f"Request: {REQUEST}\nDevice {name}:\n{facts_lines}"
        asked = await asker.ask(DeviceLines, PER_DEVICE_SYSTEM, human)
        assert asked.answer.lines == configs[name]
        spent.append(asked.usage)
    return sum_usage(spent)


async def measure(routers: int, strategy: Strategy) -> dict[str, TokenUsage]:
    """Usage per flow: "per-device" and "template, <scenario>" for each scenario."""
    topology = ring(routers)
    usage: dict[str, TokenUsage] = {}
    configs: dict[str, list[str]] | None = None
    with OpenAIStandIn() as llm:
        model = ChatOpenAI(
            api_key=SecretStr("bench"), base_url=llm.base_url, model="bench", max_retries=0
        )
        asker = StructuredOutput(model, mode=strategy)
        for scenario in SCENARIOS:
            usage[f"template, {scenario}"], previews = await template_flow(
                llm, asker, topology, scenario
            )
            lines = {name: preview["lines"] for name, preview in previews.items()}
            assert configs is None or lines == configs, "the scenarios render different configs"
            configs = lines
        assert configs is not None
        usage["per-device"] = await per_device_flow(llm, asker, topology, configs)
    return usage


def main(argv: list[str]) -> None:
    sizes = [int(arg) for arg in argv] or [10, 50]
    header = f"{'routers':>7} {'strategy':<11} {'flow':<19} {'input':>7} {'output':>7} {'total':>7}"
    print(f"{header}  ratio")
    for routers in sizes:
        for strategy in STRATEGIES:
            usage = asyncio.run(measure(routers, strategy))
            per_device = usage["per-device"]["total_tokens"]
            for label, used in usage.items():
                ratio = used["total_tokens"] / per_device
                goal = "meets" if ratio <= 0.25 else "misses"
                verdict = "" if label == "per-device" else f"{ratio:6.1%} ({goal} the 25 % goal)"
                print(
                    f"{routers:>7} {strategy:<11} {label:<19} {used['input_tokens']:>7} "
                    f"{used['output_tokens']:>7} {used['total_tokens']:>7}  {verdict}".rstrip()
                )


if __name__ == "__main__":
    main(sys.argv[1:])
