"""Which labs an AI agent works in, with many labs (LABBOT_LABS). Pure.

A lab (or each pod of a group) that says `agents: [NAME, …]` takes exactly those agents of
LABBOT_MCP_AGENTS (`agents: []`: none). A lab that says nothing takes none, except the lab whose
place is LABBOT_MCP_CHANNEL (the *home* lab): it takes every agent, as the one lab agents worked
in before labs named their agents. An agent in no lab works nowhere.

Each tool call names its lab or not: an agent of one lab has that lab by default, an agent of
several must name one; a lab outside its scope, named or not, is refused the same way (naming
its labs, never telling whether the lab named exists).
"""

from __future__ import annotations

from collections.abc import Iterable

from bot import messages
from bot.agents.bounds import cut
from bot.labs.spec import Lab

__all__ = ["admits", "chosen_lab", "labs_of"]


def admits(lab: Lab, agent: str, home: str | None) -> bool:
    """Whether `agent` may work in `lab` (`home`: the lab of LABBOT_MCP_CHANNEL, if any)."""
    if lab.agents is not None:
        return agent in lab.agents
    return lab.name == home


def labs_of(agent: str, labs: Iterable[Lab], home: str | None) -> tuple[str, ...]:
    """The labs `agent` works in, in the labs file's order."""
    return tuple(lab.name for lab in labs if admits(lab, agent, home))


def chosen_lab(
    agent: str, asked: str | None, labs: Iterable[Lab], home: str | None
) -> tuple[str | None, str | None]:
    """(the lab a call of `agent` works in, None) — or (None, why it is refused in one line):
    `asked` is the call's `lab` argument (None: not given)."""
    own = labs_of(agent, labs, home)
    if not own:
        return None, messages.AGENT_IN_NO_LAB.format(agent=agent)
    if asked is None:
        if len(own) == 1:
            return own[0], None
        return None, messages.AGENT_NAME_A_LAB.format(agent=agent, labs=", ".join(own))
    if asked not in own:
        said = messages.AGENT_NOT_ITS_LAB.format(agent=agent, lab=cut(asked), labs=", ".join(own))
        return None, said
    return asked, None
