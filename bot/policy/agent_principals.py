"""AI agents that reach labbot over MCP: who they are, on whose behalf they act, their tokens.

An agent is named in the settings (LABBOT_MCP_AGENTS) with its principal — the person it acts
for — and the sha256 of each token it may present (several during a rotation). Only hashes are
kept; a token is compared by its hash in constant time. An agent's actor id carries the
`agent:` prefix, so the authorizer can tell an agent from a person anywhere: an agent requests
with its principal's rights and never decides.
"""

from __future__ import annotations

import hashlib
import hmac
import secrets
from collections.abc import Iterable, Mapping
from dataclasses import dataclass

__all__ = ["NO_AGENTS", "Agent", "Agents", "is_agent_id", "new_token", "token_hash"]

AGENT_PREFIX = "agent:"
HASH_PREFIX = "sha256:"


def token_hash(token: str) -> str:
    """What the settings keep of a token: `sha256:` and its hex digest."""
    return HASH_PREFIX + hashlib.sha256(token.encode()).hexdigest()


def new_token() -> str:
    """A fresh agent token (256 bits, URL-safe)."""
    return "lbt_" + secrets.token_urlsafe(32)


def is_agent_id(actor_id: str) -> bool:
    return actor_id.startswith(AGENT_PREFIX)


@dataclass(frozen=True)
class Agent:
    name: str  # as the settings name it: claude-code
    principal: str  # the person's user id it acts for (U123, @alice:hs, console:alice)
    token_hashes: tuple[str, ...] = ()

    @property
    def actor_id(self) -> str:
        return AGENT_PREFIX + self.name

    @property
    def shown(self) -> str:
        """How the audit and the threads name it: the agent and its principal."""
        return f"{self.name} (agent of {self.principal})"


@dataclass(frozen=True)
class Agents:
    """The configured agents, found by name, actor id or token."""

    by_name: Mapping[str, Agent]

    @classmethod
    def of(cls, agents: Iterable[Agent]) -> Agents:
        return cls({agent.name: agent for agent in agents})

    def by_token(self, token: str) -> Agent | None:
        """The agent holding `token`, or None; every hash is compared (no early exit)."""
        presented = token_hash(token)
        found = None
        for agent in self.by_name.values():
            for kept in agent.token_hashes:
                if hmac.compare_digest(kept, presented):
                    found = agent
        return found

    def acting_for(self, actor_id: str) -> str:
        """The person whose rights an actor uses: an agent's principal, else the actor.
        An `agent:` id that is no configured agent acts for nobody (an id no rule names)."""
        if not is_agent_id(actor_id):
            return actor_id
        agent = self.by_name.get(actor_id.removeprefix(AGENT_PREFIX))
        return agent.principal if agent is not None else actor_id


NO_AGENTS = Agents({})
