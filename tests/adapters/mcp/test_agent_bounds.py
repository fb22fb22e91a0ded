"""Every argument an agent sends is bounded before it is stored, echoed or logged (issue 42):
the official MCP client over streamable HTTP against `serve_agents` beside the Slack lab; what
is kept is read back from the audit and from the database file itself."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path
from typing import Any

from tests.adapters.mcp.agent_stack import (
    AGENT,
    AGENT_SETTINGS,
    agent_session,
    answer_of,
    call,
    mcp_endpoint,
)
from tests.adapters.slack.stack import SlackLab, slack_lab
from tests.fakes.slack_api import SlackApiStandIn

AGENT_ID = f"agent:{AGENT}"
MEGABYTE = 1_000_000


async def agent_calls(bot: SlackLab) -> list[Any]:
    entries = await bot.runtime.audit.entries(user=AGENT_ID)
    return [e for e in entries if e.kind == "agent"]


def stored_bytes(tmp_path: Path) -> bytes:
    """Everything the database holds on disk (its file and write-ahead log)."""
    files = [tmp_path / "labbot.db", tmp_path / "labbot.db-wal"]
    return b"".join(f.read_bytes() for f in files if f.exists())


def database_size(tmp_path: Path) -> int:
    """The database file's size once its write-ahead log is folded in."""
    with sqlite3.connect(tmp_path / "labbot.db") as db:
        db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    return (tmp_path / "labbot.db").stat().st_size


async def test_megabytes_of_device_names_are_refused_and_kept_by_their_trace_only(
    tmp_path: Path, slack_api: SlackApiStandIn
) -> None:
    names = [f"R{n}-" + "x" * 1000 for n in range(3000)]  # 3 MB of device names
    async with slack_lab(tmp_path, slack_api, **AGENT_SETTINGS) as bot:
        async with mcp_endpoint(bot) as url, agent_session(url) as agent:
            asked = await call(agent, "request_change", text="configure ospf", devices=names)
            shown = await call(agent, "show", command="show version", devices=["R" * MEGABYTE])
        calls = await agent_calls(bot)
        roots = [m for m in slack_api.messages.values() if m.thread_ts is None]
    for answer in (asked, shown):
        assert "LABBOT_MAX_REQUEST_CHARS" in answer["error"] and answer["total"] == 0
        assert len(json.dumps(answer)) < 1000  # nothing of it echoed
    assert "characters; the limit is 4,000" in asked["error"] and not roots  # no thread opened
    for row in calls:
        kept = json.loads(row.text)["not_kept"]
        assert len(row.text) < 200 and len(kept["sha256"]) == 64
        assert len(kept["head"]) <= 32 and row.status.startswith("Refused")
    assert [json.loads(row.text)["not_kept"]["chars"] > MEGABYTE for row in calls] == [True, True]


async def test_a_long_device_name_is_refused_and_echoed_cut(
    tmp_path: Path, slack_api: SlackApiStandIn
) -> None:
    name = "R1" + "y" * 1000
    async with slack_lab(tmp_path, slack_api, **AGENT_SETTINGS) as bot:
        async with mcp_endpoint(bot) as url, agent_session(url) as agent:
            shown = await call(agent, "show", command="show version", devices=[name])
            status = await call(agent, "change_status", change_id="chg-" + "z" * 500)
        sent = [e for e in await bot.runtime.audit.entries(user=AGENT_ID) if e.kind == "read"]
    assert shown["error"].startswith("Refused: the name 'R1yyyy")
    assert "yyy…'" in shown["error"] and "y" * 100 not in shown["error"]
    assert "1,002 characters long" in shown["error"] and not sent  # nothing was sent
    assert "z" * 100 not in status["error"] and "128 characters" in status["error"]


async def test_an_empty_device_name_is_refused_never_widened_to_all(
    tmp_path: Path, slack_api: SlackApiStandIn
) -> None:
    async with slack_lab(tmp_path, slack_api, **AGENT_SETTINGS) as bot:
        async with mcp_endpoint(bot) as url, agent_session(url) as agent:
            empty = await call(
                agent, "request_change", text="servers=10.0.0.1", devices=[""], template="ntp"
            )
            blank = await call(agent, "request_change", text="configure ospf", devices=[" "])
            shown = await call(agent, "show", command="show version", devices=["R1", ""])
        sent = [e for e in await bot.runtime.audit.entries(user=AGENT_ID) if e.kind == "read"]
    roots = [m for m in slack_api.messages.values() if m.thread_ts is None]
    for answer in (empty, blank, shown):
        assert answer["error"].startswith("Refused: a device name is empty or blank")
    assert not roots and not sent  # no change opened, no device read


async def test_calls_over_the_cap_keep_nothing_the_agent_chose_in_clear(
    tmp_path: Path, slack_api: SlackApiStandIn
) -> None:
    chosen = "chg-AgentChosenMarker"
    text = "configure ospf ChosenTextMarker"
    async with slack_lab(tmp_path, slack_api, **AGENT_SETTINGS, mcp_calls_per_minute=2) as bot:
        async with mcp_endpoint(bot) as url, agent_session(url) as agent:
            unknown = await call(agent, "change_status", change_id=chosen)
            await call(agent, "templates")
            over = [await call(agent, "request_change", text=text) for _ in range(3)]
        calls = await agent_calls(bot)
        on_disk = stored_bytes(tmp_path)
    assert unknown["error"] == f"no change {chosen} was asked by {AGENT}"
    assert all("LABBOT_MCP_CALLS_PER_MINUTE" in answer["error"] for answer in over)
    assert calls[0].change_id.startswith("sha256:")
    assert b"AgentChosenMarker" not in on_disk and b"ChosenTextMarker" not in on_disk
    assert all("not_kept" in row.text for row in calls[2:]) and len(calls) == 5


REFUSED_CALL_BYTES = 3000  # docs/mcp.md: what a refused or over-cap call adds at most


async def test_a_thousand_refused_or_over_cap_calls_add_a_constant_each(
    tmp_path: Path, slack_api: SlackApiStandIn
) -> None:
    """10 calls a minute: the first 10 are refused by their size, the 990 after them by the
    cap; each brings 20,000 characters or more, and each adds at most REFUSED_CALL_BYTES."""
    names = [f"R{n}" + "n" * 200 for n in range(100)]
    calls: list[tuple[str, dict[str, Any]]] = [
        ("request_change", {"text": "configure ospf", "devices": names}),
        ("show", {"command": "show version", "devices": ["R1" + "s" * 20_000]}),
        ("change_status", {"change_id": "chg-" + "c" * 20_000}),
        ("wait_for_change", {"change_id": "chg-" + "w" * 20_000, "seconds": 1}),
    ]
    async with slack_lab(tmp_path, slack_api, **AGENT_SETTINGS, mcp_calls_per_minute=10) as bot:
        async with mcp_endpoint(bot) as url, agent_session(url) as agent:
            await call(agent, "templates")  # the tables and their first pages exist
            before = database_size(tmp_path)
            answers = [
                answer_of(await agent.call_tool(*calls[n % len(calls)])) for n in range(1000)
            ]
            after = database_size(tmp_path)
        rows = await agent_calls(bot)
    refused = [a["error"] for a in answers]
    assert sum("LABBOT_MAX_REQUEST_CHARS" in e for e in refused[:9]) == 9  # the 10th: the cap
    assert all("LABBOT_MCP_CALLS_PER_MINUTE" in e for e in refused[10:])
    assert len(rows) == 1001 and all(len(row.text) < 200 for row in rows[1:])
    assert after - before <= 1000 * REFUSED_CALL_BYTES, (after - before) / 1000
