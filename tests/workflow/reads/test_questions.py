"""Common questions in plain words map to each platform's own allow-listed command."""

from __future__ import annotations

import pytest

from base.errors import ReadRefused
from bot.views.read import read_refusal
from workflow.model import Device
from workflow.reads.questions import as_question
from workflow.reads.request import question_request


@pytest.mark.parametrize(
    ("text", "question"),
    [
        ("neighbours on R1", ("neighbours", "R1")),
        ("What are the routes on R2?", ("routes", "R2")),
        ("bgp summary on all routers", ("bgp summary", "all routers")),
        ("version of R3", ("version", "R3")),
        ("list the interfaces on R1,R2", ("interfaces", "R1,R2")),
    ],
)
def test_known_questions(text: str, question: tuple[str, str]) -> None:
    assert as_question(text) == question


@pytest.mark.parametrize(
    "text",
    [
        "configure ospf neighbours on R1",  # a change request
        "apply ospf to R1",
        "neighbours",  # no device
        "why does R1 not learn R3's loopback on R1",
        "show me the interfaces on R1",  # `show …` is a CLI read, not a question
    ],
)
def test_other_text_is_no_question(text: str) -> None:
    assert as_question(text) is None


LAB = [
    Device("R1", "cisco_ios_telnet", "127.0.0.1", 1),
    Device("F1", "frr_telnet", "127.0.0.1", 2),
    Device("J1", "juniper_junos", "127.0.0.1", 3),
    Device("V1", "huawei_vrp", "127.0.0.1", 4),
]


def test_each_platform_answers_in_its_own_words() -> None:
    request = question_request("neighbours", "all", LAB, 10)
    assert request.commands == {
        "F1": "show ip ospf neighbor",
        "J1": "show ospf neighbor",
        "R1": "show ip ospf neighbor",
        "V1": "display ospf peer brief",
    }
    interfaces = question_request("interfaces", "R1 F1 raw", LAB, 10)
    assert interfaces.raw and interfaces.commands == {
        "F1": "show interface brief",
        "R1": "show ip interface brief",
    }


def test_an_unknown_platform_is_refused_not_guessed() -> None:
    odd = [Device("X1", "mikrotik_routeros", "127.0.0.1", 5)]
    with pytest.raises(ReadRefused) as refused:
        question_request("routes", "X1", odd, 10)
    assert read_refusal(refused.value) == "X1: I know no mikrotik_routeros command for routes"
