"""Token use: the template flow vs a per-device flow, for 10 and 50 routers (seed 003 target:
the template flow uses <= 25 % of the per-device flow).

Run from the repository root: PYTHONPATH=. .venv/bin/python bench/tokens.py [ROUTERS ...]

Both flows run the real `ChatOpenAI` client against the local OpenAI-compatible stand-in
(tests/fakes/openai_server.py), which bills every request with one tokenizer (`count_tokens`:
words and punctuation marks, so an IPv4 address is 7 tokens) over everything the model reads
(messages, tool schemas) and everything it writes (content or tool-call arguments). tiktoken
cannot download its encodings here; the same counter on both sides keeps the ratio fair.

The change: OSPF area 0 on a ring of routers, router-id from Loopback0, the point-to-point
links hardened (network type, cost, MD5 authentication, timers) — what a lab team would ask.
- template flow: `LLMPlanner` asks once for a template (answer: the template and its schema,
  shared settings as defaults) and once for parameters (answer: per device only router-id,
  networks and link interfaces), with every device's interface facts in that one request;
- per-device flow: one request per device carrying the same request and that device's facts,
  answered with the device's complete configuration — the same lines the template renders.
"""

from __future__ import annotations

import asyncio
import ipaddress
import sys
from typing import Any

from langchain_core.messages import HumanMessage, SystemMessage
from langchain_openai import ChatOpenAI
from pydantic import SecretStr

from tests.fakes.openai_server import OpenAIStandIn, structured, text
from workflow.llm import LLMPlanner
from workflow.llm.planner import token_usage
from workflow.llm.prompts import topology_lines
from workflow.model import DeviceFacts, PlanRequest, TokenUsage, Topology
from workflow.rendering import render
from workflow.validation import validate_params, validate_template

REQUEST = (
    "Configure OSPF area 0 on all routers: router-id from Loopback0, loopback passive, "
    "links point-to-point with cost 10, MD5 authentication and 10/40 s timers"
)
PER_DEVICE_SYSTEM = """\
You write the configuration commands for one network device of a lab.
Answer only the commands, one per line; no `configure terminal`, `end` or `write`."""
TEMPLATE = """\
router ospf {{ pid }}
 router-id {{ router_id }}
 log-adjacency-changes detail
 auto-cost reference-bandwidth {{ ref_bw }}
 passive-interface {{ loopback }}
 timers throttle spf 10 100 5000
{% for net in networks %}
 network {{ net|network }} {{ net|wildcard }} area {{ area }}
{% endfor %}
{% for name in links %}
interface {{ name }}
 ip ospf network point-to-point
 ip ospf cost {{ cost }}
 ip ospf authentication message-digest
 ip ospf message-digest-key 1 md5 {{ md5_key }}
 ip ospf hello-interval {{ hello }}
 ip ospf dead-interval {{ dead }}
{% endfor %}
"""
TEMPLATE_ANSWER: dict[str, Any] = {
    "name": "ospf-area0-hardened",
    "description": "OSPF area 0, router-id from Loopback0, hardened point-to-point links",
    "templates": {"cisco_ios": TEMPLATE},
    "params_schema": {
        "router_id": {"type": "ipv4"},
        "networks": {"type": "list", "items": {"type": "ipv4_network"}},
        "links": {"type": "list", "items": {"type": "interface"}},
        "pid": {"type": "int", "default": 1},
        "area": {"type": "str", "default": "0"},
        "ref_bw": {"type": "int", "default": 10000},
        "loopback": {"type": "interface", "default": "Loopback0"},
        "cost": {"type": "int", "default": 10},
        "md5_key": {"type": "str", "default": "lab-ospf-key"},
        "hello": {"type": "int", "default": 10},
        "dead": {"type": "int", "default": 40},
    },
    "example_params": {
        "router_id": "10.255.0.1",
        "networks": ["10.0.0.0/30", "10.255.0.1/32"],
        "links": ["GigabitEthernet0/0"],
    },
    "targets": [],
}


def ring(routers: int) -> Topology:
    """R1..Rn in a ring: Ri Gi0/0 — R(i+1) Gi0/1 on a /30 each, and a Loopback0."""
    devices: dict[str, DeviceFacts] = {}
    links = []
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


def device_params(facts: DeviceFacts) -> dict[str, Any]:
    """What the LLM answers per device: router-id, networks, links (the rest are defaults)."""
    addressed = [i for i in facts["interfaces"] if i["address"]]
    loopback = next(i for i in addressed if i["name"] == "Loopback0")
    return {
        "router_id": str(loopback["address"]).split("/")[0],
        "networks": [str(ipaddress.ip_interface(str(i["address"])).network) for i in addressed],
        "links": [i["name"] for i in addressed if i["name"] != "Loopback0"],
    }


def rendered(params: dict[str, Any]) -> list[str]:
    normalized, errors = validate_params(TEMPLATE_ANSWER["params_schema"], params)
    assert not errors, errors
    return render(TEMPLATE, normalized)


def add(a: TokenUsage, b: TokenUsage) -> TokenUsage:
    return TokenUsage(
        input_tokens=a["input_tokens"] + b["input_tokens"],
        output_tokens=a["output_tokens"] + b["output_tokens"],
        total_tokens=a["total_tokens"] + b["total_tokens"],
    )


async def template_flow(llm: OpenAIStandIn, model: ChatOpenAI, topology: Topology) -> TokenUsage:
    answer = {**TEMPLATE_ANSWER, "targets": sorted(topology["devices"])}
    params = {name: device_params(facts) for name, facts in topology["devices"].items()}
    llm.script(structured(answer), structured({"device_params": params}))
    planner = LLMPlanner(model)
    request = PlanRequest(text=REQUEST, topology=topology)
    template = await planner.propose_template(request)
    assert validate_template(template) == [], validate_template(template)
    proposal = await planner.propose_params(request, template)
    return add(template["tokens"], proposal["tokens"])


async def per_device_flow(llm: OpenAIStandIn, model: ChatOpenAI, topology: Topology) -> TokenUsage:
    total = TokenUsage(input_tokens=0, output_tokens=0, total_tokens=0)
    for name, facts in sorted(topology["devices"].items()):
        llm.script(text("\n".join(rendered(device_params(facts)))))
        facts_lines = "\n".join(topology_lines(topology, [name]))
        human = f"Request: {REQUEST}\nDevice {name}:\n{facts_lines}"
        reply = await model.ainvoke([SystemMessage(PER_DEVICE_SYSTEM), HumanMessage(human)])
        total = add(total, token_usage(reply))
    return total


async def measure(routers: int) -> tuple[TokenUsage, TokenUsage]:
    topology = ring(routers)
    with OpenAIStandIn() as llm:
        model = ChatOpenAI(
            api_key=SecretStr("bench"), base_url=llm.base_url, model="bench", max_retries=0
        )
        return await template_flow(llm, model, topology), await per_device_flow(
            llm, model, topology
        )


def main(argv: list[str]) -> None:
    sizes = [int(arg) for arg in argv] or [10, 50]
    print(f"{'routers':>7} {'flow':<11} {'input':>7} {'output':>7} {'total':>7}")
    for routers in sizes:
        template, per_device = asyncio.run(measure(routers))
        for label, usage in (("per-device", per_device), ("template", template)):
            print(
                f"{routers:>7} {label:<11} {usage['input_tokens']:>7} "
                f"{usage['output_tokens']:>7} {usage['total_tokens']:>7}"
            )
        ratio = template["total_tokens"] / per_device["total_tokens"]
        out_ratio = template["output_tokens"] / per_device["output_tokens"]
        verdict = "meets" if ratio <= 0.25 else "misses"
        print(
            f"{routers:>7} ratio       total {ratio:.1%} ({verdict} the 25 % goal), "
            f"generated {out_ratio:.1%}"
        )


if __name__ == "__main__":
    main(sys.argv[1:])
