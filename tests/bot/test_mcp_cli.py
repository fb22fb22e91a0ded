"""`labbot mcp` and the MCP settings as a user meets them: a token and its settings entry, and
one line for an agent or a place that cannot be served."""

from __future__ import annotations

from pathlib import Path

from bot.policy.agent_principals import token_hash
from bot.runtime.wiring import agents_from
from bot.settings import load_settings
from tests.bot.test_cli import labbot


def test_a_new_token_comes_with_the_entry_holding_only_its_hash(tmp_path: Path) -> None:
    # piped at 80 columns (`labbot mcp token … | cat`): each stays whole on its line
    made = labbot(
        "mcp", "token", "claude-code", "--principal", "U0123", cwd=tmp_path, env={"COLUMNS": "80"}
    )
    assert made.returncode == 0, made.stderr
    token = made.stdout.splitlines()[0].rsplit(" ", 1)[1]
    entry = made.stdout.splitlines()[1].removeprefix("LABBOT_MCP_AGENTS entry: ")
    assert entry == f"claude-code=U0123 {token_hash(token)}" and token not in entry
    assert len(made.stdout.splitlines()) == 2
    agent = agents_from(load_settings(mcp_agents=entry)).by_token(token)
    assert agent is not None and (agent.name, agent.principal) == ("claude-code", "U0123")


def test_labbot_mcp_for_an_agent_not_configured_is_one_line(tmp_path: Path) -> None:
    env = {"LABBOT_MCP_AGENTS": f"claude-code=U1 {token_hash('t')}", "LABBOT_MCP_AGENT": "bard"}
    refused = labbot("mcp", cwd=tmp_path, env=env)
    said = refused.stderr.strip().splitlines()
    assert refused.returncode == 2 and len(said) == 1, refused.stderr
    assert "LABBOT_MCP_AGENT: 'bard' is not one of LABBOT_MCP_AGENTS (claude-code)" in said[0]


def test_labbot_mcp_refuses_a_matrix_place_naming_the_http_endpoint(tmp_path: Path) -> None:
    env = {
        "LABBOT_MCP_AGENTS": f"claude-code=@alice:hs {token_hash('t')}",
        "LABBOT_MCP_AGENT": "claude-code",
        "LABBOT_MCP_CHANNEL": "matrix:!r:hs",
        "MATRIX_HOMESERVER": "http://127.0.0.1:9",
        "MATRIX_USER_ID": "@labbot:hs",
        "MATRIX_PASSWORD": "never-used",
    }
    refused = labbot("mcp", cwd=tmp_path, env=env)
    said = refused.stderr.strip().splitlines()
    assert refused.returncode == 2 and len(said) == 1, refused.stderr
    assert "'matrix:!r:hs' is served over HTTP only" in said[0] and "LABBOT_MCP_PORT" in said[0]


def test_serve_refuses_an_mcp_endpoint_whose_place_it_does_not_run(tmp_path: Path) -> None:
    env = {
        "LABBOT_DATABASE_URL": f"sqlite+aiosqlite:///{tmp_path / 'x.db'}",
        "SLACK_BOT_TOKEN": "xoxb-never-used",
        "SLACK_APP_TOKEN": "xapp-never-used",
        "MATRIX_HOMESERVER": "",
        "LABBOT_MCP_PORT": "8765",
    }
    unplaced = labbot("serve", cwd=tmp_path, env=env)
    elsewhere = labbot("serve", cwd=tmp_path, env={**env, "LABBOT_MCP_CHANNEL": "matrix:!r:hs"})
    for refused in (unplaced, elsewhere):
        said = refused.stderr.strip().splitlines()
        assert refused.returncode == 2 and len(said) == 1, refused.stderr
        assert "LABBOT_MCP_CHANNEL" in said[0]
    assert "'matrix:!r:hs' is on matrix, but this process serves slack" in elsewhere.stderr
