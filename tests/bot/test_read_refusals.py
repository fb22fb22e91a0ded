"""Every way a read can be refused has its words: each ReadProblem (base/vocabulary.py), raised
by the allow-list with the words at fault, worded by bot/read_view.read_refusal with
bot/messages/ — the same sentence people and the diagnosing model are told."""

from __future__ import annotations

from typing import get_args

import pytest

from base.errors import ReadRefused
from base.vocabulary import READ_PROBLEMS, ReadProblem
from bot import messages
from bot.views.read import read_refusal
from workflow.reads.allowlist import allowed_read

# A read each problem refuses, on a platform, and what the refusal says.
REFUSED: list[tuple[ReadProblem, str, str, str]] = [
    ("platform", "some_os", "show version", "reads on some_os are not supported"),
    ("no_command", "cisco_ios", "   ", "no command given"),
    ("needs_object", "cisco_ios", "show", "`show` needs what to show (`show ip route`)"),
    ("unsafe", "cisco_ios", "show run; reload", "may not contain ';': only one plain command"),
    ("probe_unbounded_tool", "frr", "ping 10.0.0.1", "no count or timeout can be given"),
    ("probe_not_offered", "cisco_nxos", "ping 10.0.0.1", "`ping` is not offered here"),
    ("not_a_read", "cisco_ios", "reload", "`reload` is not a read: only `show`, `ping`, `trace"),
    (
        "prints_secrets",
        "cisco_ios",
        "sh cry isa key",
        "`sh cry isa key` lists the IKE pre-shared keys in clear: no mask can tell them",
    ),
    ("no_filter", "cisco_ios", "show run |", "`|` must be followed by a filter"),
    ("not_a_filter", "frr", "show run | tee x", "`| tee` is not an output filter: only `| incl"),
    ("needs_pattern", "cisco_ios", "show run | include", "`| include` needs a pattern"),
    ("needs_value", "cisco_ios", "ping 10.0.0.1 repeat", "`ping … repeat` needs a value"),
    ("bad_option", "cisco_ios", "ping 10.0.0.1 vrf x", "`ping` option `vrf` is not allowed (only"),
    ("out_of_bounds", "cisco_ios", "ping 10.0.0.1 repeat 9", "`ping … repeat 9` is out of bounds"),
    ("needs_address", "cisco_ios", "ping repeat 2", "`ping` needs an address: `ping 10.0.0.1`"),
]


@pytest.mark.parametrize(("problem", "platform", "command", "says"), REFUSED)
def test_each_refusal_names_the_words_at_fault(
    problem: ReadProblem, platform: str, command: str, says: str
) -> None:
    with pytest.raises(ReadRefused) as refused:
        allowed_read(platform, command)
    assert refused.value.problem == problem
    assert says in read_refusal(refused.value)


def test_every_problem_has_words() -> None:
    assert set(messages.READ_REFUSED) == set(READ_PROBLEMS) == set(get_args(ReadProblem))
    for problem in READ_PROBLEMS:
        said = read_refusal(ReadRefused(problem, "w", option="o", words=("a",), device="R1"))
        assert said.startswith("R1: ") and "{" not in said, said
    # the problems the allow-list raises are shown above; the request's own ones in test_allowlist
    asked = {"no_devices", "no_question_command", "too_many"}
    assert {p for p, *_ in REFUSED} | asked == set(READ_PROBLEMS)
