"""AI agents from the settings: tokens kept as hashes (two during a rotation), an agent acts for
its principal, a malformed entry is one line naming the setting."""

from __future__ import annotations

import pytest

from base.errors import ConfigError
from bot.policy.agent_principals import Agent, Agents, new_token, token_hash
from bot.runtime.wiring import agents_from
from bot.settings import load_settings


def test_settings_keep_hashes_and_a_rotation_accepts_both_tokens() -> None:
    old, new = new_token(), new_token()
    settings = load_settings(
        mcp_agents=f"claude-code=U1 {token_hash(old)} {token_hash(new)};copilot=U3 "
        f"{token_hash(new_token())}"
    )
    agents = agents_from(settings)
    assert agents.by_name["claude-code"] == Agent(
        "claude-code", "U1", (token_hash(old), token_hash(new))
    )
    found = [agents.by_token(t) for t in (old, new, new_token(), "")]
    assert [a.name if a else None for a in found] == ["claude-code", "claude-code", None, None]
    assert old not in repr(settings) and new not in repr(settings)


@pytest.mark.parametrize(
    "entry",
    [
        "claude-code=",  # no principal
        "claude-code=U1 0123abcd",  # not sha256:HEX
        "claude-code U1 sha256:" + "0" * 64,  # no '='
        "=U1 sha256:" + "0" * 64,  # no name
    ],
)
def test_a_malformed_entry_is_one_line_naming_the_setting(entry: str) -> None:
    with pytest.raises(ConfigError, match=r"^LABBOT_MCP_AGENTS: .*labbot mcp token NAME"):
        load_settings(mcp_agents=entry)


def test_an_agent_without_a_token_is_named_for_stdio_and_no_token_reaches_it() -> None:
    agents = agents_from(load_settings(mcp_agents="claude-code=U1", mcp_agent="claude-code"))
    assert agents.by_name["claude-code"] == Agent("claude-code", "U1", ())
    assert [agents.by_token(t) for t in ("", new_token())] == [None, None]  # nothing over HTTP


def test_an_agent_acts_for_its_principal_and_an_unknown_agent_for_nobody() -> None:
    agents = Agents.of([Agent("claude-code", "U1", (token_hash("t"),))])
    assert agents.acting_for("agent:claude-code") == "U1"
    assert agents.acting_for("U2") == "U2"
    assert agents.acting_for("agent:someone-else") == "agent:someone-else"
