"""SIGTERM to `labbot serve` while it pushes (what `docker stop` or a rollout sends): it stops
listening, gives the push LABBOT_SHUTDOWN_SECONDS, then records what could not finish as
interrupted, device by device, says so in the thread, and exits 0 — never a half-done push
without a record. The interrupted devices are free again: asking again pushes to them at once.
(tests/deploy/test_container_shutdown.py does the same with `docker stop`.)"""

from __future__ import annotations

import asyncio
import time
from pathlib import Path

import pytest
import yaml

from bot.audit.table import entry_summary
from labsim import demo_topology
from storage.audit_chain import AuditChain
from storage.audit_store import AuditStore
from storage.db import make_engine
from tests.fakes.slack_api import Posted, SlackApiStandIn
from tests.scale.deployment import running_lab
from tests.scale.harness import SlackSide, TcpProxy, serve_env, start_replica
from tests.support.masks import MASK
from tests.support.sealing import STORAGE_KEYS

pytestmark = [pytest.mark.postgres, pytest.mark.xdist_group("deployments")]  # see conftest

SHUTDOWN_SECONDS = 2
AUDIT_KEY = "shutdown-test-audit-key"


async def test_sigterm_during_a_push_records_the_device_it_could_not_finish(
    tmp_path: Path, database: str, slack_api: SlackApiStandIn
) -> None:
    with running_lab(demo_topology(2, switch=False)) as lab:
        inventory = lab.write_inventory(tmp_path / "hosts.yaml", transport="telnet")
        hosts = yaml.safe_load(inventory.read_text())
        r2 = await TcpProxy("127.0.0.1", hosts["R2"]["port"]).start()
        hosts["R2"]["port"] = r2.port  # R2 through a proxy that can go silent mid-push
        inventory.write_text(yaml.safe_dump(hosts))
        quiet_r2 = {"LABBOT_CONNECT_TIMEOUT": "120", "LABBOT_READ_TIMEOUT": "120"}
        env = serve_env(
            database,
            slack_api,
            inventory,
            LABBOT_SHUTDOWN_SECONDS=str(SHUTDOWN_SECONDS),
            LABBOT_AUDIT_KEY=AUDIT_KEY,
            **quiet_r2,
        )
        replica = await start_replica(env, tmp_path)
        slack = SlackSide(slack_api)
        try:
            await replica.wait_listening()
            await slack.connect([replica])
            thread = await slack.mention("apply ntp to R1,R2 servers=10.66.0.9")
            await slack.click_all(await slack.gate(thread, "Approve"), "Approve", ["U2"])
            preview = await slack.gate(thread, "Execute")
            r2.hang_on(b"configure terminal")
            await slack.click_all(preview, "Execute", ["U3"])
            await slack.said(thread, "1/2 device(s) finished")
            started = time.monotonic()
            replica.process.terminate()
            code = await asyncio.wait_for(replica.wait(), SHUTDOWN_SECONDS + 20)
            took = time.monotonic() - started
            told = await slack.said(thread, "stopped during the push")
            r2.release()
            retried = await ask_again(env, tmp_path, slack, "apply ntp to R2 servers=10.66.0.9")
        finally:
            r2.release()
            await slack.close()
            await r2.stop()
    engine = make_engine(database)
    try:
        audit = AuditStore(
            engine, chain=AuditChain(key=AUDIT_KEY.encode(), storage_keys=STORAGE_KEYS)
        )
        entries, verified = await audit.entries(), await audit.verify()
    finally:
        await engine.dispose()

    assert code == 0 and SHUTDOWN_SECONDS <= took < SHUTDOWN_SECONDS + 10, replica.log
    assert "Interrupted on: R2" in told.all_text
    assert "Their locks are released: to retry, ask again" in told.all_text
    assert "✓ 1 ✗ 0 of 1" in retried.all_text  # not "R2 is locked by change …" for 900 s
    pushed = [
        (e.device, entry_summary(e, MASK).partition(": ")[2].split(" ")[0])
        for e in entries
        if e.kind == "push"
    ]
    assert pushed == [("R1", "success"), ("R2", "interrupted"), ("R2", "success")]
    assert any(
        e.kind == "event" and entry_summary(e, MASK).startswith("interrupted") for e in entries
    )
    assert verified.ok


async def ask_again(env: dict[str, str], workdir: Path, slack: SlackSide, request: str) -> Posted:
    """The retry the thread suggests, on a replica started after the stop: its result."""
    replica = await start_replica(env, workdir)
    try:
        await replica.wait_listening()
        await slack.close()
        await slack.connect([replica])
        thread = await slack.mention(request)
        await slack.click_all(await slack.gate(thread, "Approve"), "Approve", ["U2"])
        await slack.click_all(await slack.gate(thread, "Execute"), "Execute", ["U3"])
        return await slack.said(thread, "pushed")
    finally:
        replica.process.terminate()
        await replica.wait()
