"""A deployment: a database, the Slack stand-in, a simulated lab, and `labbot serve --http`
replicas started as separate processes (for the scale tests and bench.scale; many labs:
tests.scale.many_labs)."""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator, Iterator
from dataclasses import dataclass
from pathlib import Path

from bot.cli.demo import DEMO_CREDENTIALS
from labsim import Lab, LabThread, Topology
from storage.audit_chain import AuditChain
from storage.audit_store import AuditStore
from storage.db import make_engine
from tests.fakes.slack_api import SlackApiStandIn
from tests.scale.harness import AUDIT_KEY, Replica, SlackSide, replicas, serve_env
from tests.support.sealing import STORAGE_KEYS


@contextlib.contextmanager
def running_lab(topology: Topology) -> Iterator[Lab]:
    """The lab on its own thread and loop, so the devices answer whatever the test awaits."""
    with LabThread(topology, ssh=False, **DEMO_CREDENTIALS) as lab:
        yield lab


@dataclass
class Deployment:
    database_url: str
    slack: SlackSide
    lab: Lab
    replicas: list[Replica]
    env: dict[str, str]
    workdir: Path

    def audit(self) -> contextlib.AbstractAsyncContextManager[AuditStore]:
        return open_audit(self.database_url)


@contextlib.asynccontextmanager
async def open_audit(database_url: str) -> AsyncIterator[AuditStore]:
    """The replicas' audit, read as they write it (their key)."""
    engine = make_engine(database_url)
    try:
        yield AuditStore(
            engine, chain=AuditChain(key=AUDIT_KEY.encode(), storage_keys=STORAGE_KEYS)
        )
    finally:
        await engine.dispose()


@contextlib.asynccontextmanager
async def serving(
    env: dict[str, str], api: SlackApiStandIn, workdir: Path, count: int
) -> AsyncIterator[tuple[SlackSide, list[Replica]]]:
    """`count` replicas on `env`, and Slack's side connected to them."""
    slack = SlackSide(api)
    async with replicas(env, workdir, count) as started:
        await slack.connect(started)
        try:
            yield slack, started
        finally:
            await slack.close()


@contextlib.asynccontextmanager
async def deployment(
    tmp_path: Path,
    database_url: str,
    api: SlackApiStandIn,
    topology: Topology,
    *,
    count: int = 2,
    **settings: str,
) -> AsyncIterator[Deployment]:
    with running_lab(topology) as lab:
        inventory = lab.write_inventory(tmp_path / "hosts.yaml", transport="telnet")
        env = serve_env(database_url, api, inventory, **settings)
        async with serving(env, api, tmp_path, count) as (slack, started):
            yield Deployment(database_url, slack, lab, started, env, tmp_path)
