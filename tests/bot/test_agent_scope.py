"""Which labs an agent works in (bot.agents.scope): a lab's `agents:` when it gives them, else
only the lab of LABBOT_MCP_CHANNEL takes every agent; an agent of one lab has it by default, of
several must name one; a lab outside its scope is refused the same whether it exists or not."""

from __future__ import annotations

from pathlib import Path

from bot.agents.scope import admits, chosen_lab, labs_of
from bot.labs.spec import InventorySource, Lab


def lab(name: str, agents: tuple[str, ...] | None = None) -> Lab:
    return Lab(name, InventorySource(Path(f"{name}.yaml")), line=1, agents=agents)


STAGING = lab("staging")  # says nothing: only as the home lab does it take agents
DEV = lab("dev", ("claude-code", "copilot"))
PROD = lab("prod", ())  # says none
LABS = (STAGING, DEV, PROD)


def test_a_lab_takes_the_agents_it_names_and_the_home_lab_every_agent() -> None:
    assert admits(DEV, "copilot", home=None) and not admits(DEV, "gpt", home=None)
    assert not admits(STAGING, "gpt", home=None)  # closed world
    assert admits(STAGING, "gpt", home="staging")  # LABBOT_MCP_CHANNEL's lab, as before
    assert not admits(PROD, "gpt", home="prod")  # `agents: []` holds even there
    assert not admits(DEV, "gpt", home="dev")  # its own list holds even there
    assert labs_of("claude-code", LABS, home="staging") == ("staging", "dev")
    assert labs_of("gpt", LABS, home=None) == ()


def test_one_lab_by_default_several_named_others_refused_alike() -> None:
    assert chosen_lab("claude-code", None, LABS, home=None) == ("dev", None)
    assert chosen_lab("claude-code", "dev", LABS, home=None) == ("dev", None)
    _, several = chosen_lab("claude-code", None, LABS, home="staging")
    assert several == "claude-code works in several labs (staging, dev): name one as `lab`"
    assert chosen_lab("claude-code", "staging", LABS, home="staging") == ("staging", None)
    _, prod = chosen_lab("claude-code", "prod", LABS, home=None)
    _, nowhere = chosen_lab("claude-code", "no-such-lab", LABS, home=None)
    assert prod == "claude-code does not work in lab 'prod'; its labs: dev"
    assert nowhere == "claude-code does not work in lab 'no-such-lab'; its labs: dev"
    _, none = chosen_lab("gpt", None, LABS, home=None)
    assert none is not None and none.startswith("gpt works in no lab")
    _, long = chosen_lab("claude-code", "x" * 200, LABS, home=None)
    assert long is not None and "x" * 41 not in long  # an agent's word echoed cut
