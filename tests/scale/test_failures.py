"""What people and operators see when a dependency fails: a slow or failing LLM endpoint (the
request is on record, the thread says what failed, asking again works) and a database that is
unreachable when `labbot serve` starts (retried with backoff, then one clear line)."""

from __future__ import annotations

import asyncio
import socket
from pathlib import Path

import pytest

from bot.audit.table import entry_summary
from labsim import demo_topology
from storage.db import parse_url
from tests.fakes.openai_server import OpenAIStandIn, error, structured
from tests.fakes.slack_api import SlackApiStandIn
from tests.scale.deployment import deployment, running_lab
from tests.scale.harness import (
    STARTUP_SECONDS,
    TcpProxy,
    metric,
    scrape,
    serve_env,
    start_replica,
)
from tests.support.masks import MASK

pytestmark = [pytest.mark.postgres, pytest.mark.xdist_group("deployments")]  # see conftest

NTP_BY_NAME = {"name": "ntp", "targets": ["R1"]}  # the LLM picks the built-in template
REQUEST = "configure ntp server 10.5.5.5 on R1"


async def test_slow_then_failing_llm_is_told_in_the_thread_and_asking_again_works(
    tmp_path: Path, database: str, slack_api: SlackApiStandIn, llm: OpenAIStandIn
) -> None:
    llm.script(
        # answers after the timeout; the timeout leaves the prompt answers room on a busy host
        # (at 0.5 s a loaded full run saw the HTTP 500 itself arrive too late)
        structured(NTP_BY_NAME, delay_seconds=10),
        error(500, "model overloaded"),
        structured(NTP_BY_NAME),
    )
    settings = {
        "OPENAI_API_KEY": "sk-standin",
        "OPENAI_BASE_URL": llm.base_url,
        "LABBOT_LLM_MODEL": llm.model,
        "LABBOT_LLM_TIMEOUT": "2.5",
    }
    async with deployment(
        tmp_path, database, slack_api, demo_topology(1), count=1, **settings
    ) as lab:
        thread = await lab.slack.mention(REQUEST)
        slow = await lab.slack.said(thread, "did not answer within 2.5 s")
        await lab.slack.mention(REQUEST, thread=thread)  # the user asks again
        failing = await lab.slack.said(thread, "HTTP 500")
        await lab.slack.mention(REQUEST, thread=thread)
        await lab.slack.gate(thread, "Approve")
        _, metrics = await scrape(lab.replicas[0].base_url, "/metrics")
        async with lab.audit() as audit:
            entries = await audit.entries()

    assert "LABBOT_LLM_TIMEOUT" in slow.all_text and "failed" in slow.all_text
    assert "model overloaded" in failing.all_text
    requests = [e for e in entries if e.kind == "change"]
    assert len(requests) == 3 and all(
        REQUEST in entry_summary(e, MASK) for e in requests
    )  # none lost
    ended = [entry_summary(e, MASK) for e in entries if e.kind == "event"]
    assert len(ended) == 2 and all(s.startswith("failed") for s in ended)
    assert metric(metrics, "labbot_failures_total", kind="change") == 2
    assert len(llm.requests) == 3


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


async def test_unreachable_database_at_start_is_retried_then_one_clear_line(
    tmp_path: Path, slack_api: SlackApiStandIn
) -> None:
    nowhere = f"postgresql+psycopg://labbot@127.0.0.1:{free_port()}/labbot"
    env = serve_env(nowhere, slack_api, None, LABBOT_DB_WAIT_SECONDS="2")
    replica = await start_replica(env, tmp_path)
    code = await asyncio.wait_for(replica.wait(), STARTUP_SECONDS)  # its imports come first
    retries = [line for line in replica.log if "database not reachable yet" in line]
    assert code == 2, replica.log
    assert len(retries) >= 2 and "retrying in" in retries[0]
    last = replica.log[-1]
    assert last.startswith("labbot: cannot reach PostgreSQL at 127.0.0.1:")
    assert "gave up after" in last and "LABBOT_DB_WAIT_SECONDS" in last
    assert not any("Traceback" in line for line in replica.log)


async def test_database_that_comes_up_while_labbot_waits_is_used(
    tmp_path: Path, database: str, slack_api: SlackApiStandIn
) -> None:
    server = parse_url(database)
    proxy = TcpProxy(server.host or "127.0.0.1", server.port or 5432, port=free_port())
    late = server.set(port=proxy.port).render_as_string(hide_password=False)
    with running_lab(demo_topology(1)) as lab:
        env = serve_env(late, slack_api, lab.write_inventory(tmp_path / "hosts.yaml"))
        waiting = await start_replica(env, tmp_path)
        try:
            await slack_api.wait_for(
                lambda: any("database not reachable yet" in line for line in waiting.log),
                within=STARTUP_SECONDS,
            )
            await proxy.start()  # PostgreSQL "finished starting"
            await waiting.wait_listening()
            assert await scrape(waiting.base_url, "/healthz") == (200, "ok")
        finally:
            await waiting.kill()
            await proxy.stop()
