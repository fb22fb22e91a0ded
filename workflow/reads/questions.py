"""Questions about the lab. Common ones in plain words are answered with reads and no LLM:
"neighbours on R1", "what are the routes on R2?", "bgp summary on all routers", "version of
R3"… → each device's own command.

Only a question that is nothing but a known topic (a few filler words around it allowed) before
"on/of/for DEVICES" is one: "configure OSPF neighbours on R1" is a change request, never a read.
Other questions (a question word first, or a `?` last) go to the LLM when one is configured
(diagnose.py).
"""

from __future__ import annotations

import re

from workflow.model import platform_family

__all__ = ["as_question", "is_free_question"]

Question = str  # a topic: ospf, routes, interfaces, bgp, version

_TOPICS: dict[str, Question] = {
    "neighbours": "ospf",
    "neighbors": "ospf",
    "ospf neighbours": "ospf",
    "ospf neighbors": "ospf",
    "adjacencies": "ospf",
    "routes": "routes",
    "ip routes": "routes",
    "routing table": "routes",
    "route table": "routes",
    "interfaces": "interfaces",
    "ip interfaces": "interfaces",
    "addresses": "interfaces",
    "bgp": "bgp",
    "bgp summary": "bgp",
    "bgp peers": "bgp",
    "bgp neighbours": "bgp",
    "bgp neighbors": "bgp",
    "bgp sessions": "bgp",
    "version": "version",
    "software version": "version",
}
_FILLER = re.compile(
    r"^(?:(?:what|which|list|give|tell|get)\b(?:\s+(?:are|is|me|us))?\s+)?(?:the\s+)?",
    re.IGNORECASE,
)
_QUESTION = re.compile(r"^(?P<topic>.+?)\s+(?:on|of|for)\s+(?P<devices>.+?)\s*\??\s*$", re.I | re.S)

_IOS = {
    "ospf": "show ip ospf neighbor",
    "routes": "show ip route",
    "interfaces": "show ip interface brief",
    "bgp": "show ip bgp summary",
    "version": "show version",
}
COMMANDS: dict[str, dict[Question, str]] = {
    "cisco_ios": _IOS,
    "cisco_xe": _IOS,
    "arista_eos": _IOS,
    "cisco_nxos": {**_IOS, "ospf": "show ip ospf neighbors"},
    "frr": {**_IOS, "interfaces": "show interface brief", "bgp": "show bgp summary"},
    "juniper_junos": {
        "ospf": "show ospf neighbor",
        "routes": "show route",
        "interfaces": "show interfaces terse",
        "bgp": "show bgp summary",
        "version": "show version",
    },
    "huawei_vrp": {
        "ospf": "display ospf peer brief",
        "routes": "display ip routing-table",
        "interfaces": "display ip interface brief",
        "bgp": "display bgp peer",
        "version": "display version",
    },
}


def as_question(text: str) -> tuple[str, str] | None:
    """(the topic's words, `on DEVICES…`) when `text` is a known question, else None."""
    match = _QUESTION.match(text.strip())
    if match is None:
        return None
    words = " ".join(_FILLER.sub("", match["topic"].strip()).split()).casefold()
    if words not in _TOPICS:
        return None
    return words, match["devices"]


_ASKING = re.compile(r"^(?:why|what|which|is|are|does|how|where|when|can)\b", re.IGNORECASE)


def is_free_question(text: str) -> bool:
    """A question in plain words (`why does R1 not learn R3's loopback?`): for the LLM."""
    stripped = text.strip()
    return stripped.endswith("?") or bool(_ASKING.match(stripped))


def question_command(words: str, platform: str) -> str | None:
    """The command answering the topic `words` on `platform`, or None when labbot knows none."""
    return COMMANDS.get(platform_family(platform), {}).get(_TOPICS[words])
