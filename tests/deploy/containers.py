"""labbot deployed with the shipped compose file on a real Docker engine, against what runs on
the host: the Slack stand-in and the simulated lab, both on the Docker bridge's gateway address.
R2 is reached through a proxy the test can stall, to keep a push running as long as it wants."""

from __future__ import annotations

import asyncio
import contextlib
import json
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from bot.cli.demo import DEMO_CREDENTIALS
from labsim import LabThread, demo_topology
from tests.deploy.engine import Compose, Images, bridge_gateway, compose_spec, docker, wait_healthy
from tests.fakes.slack_api import BOT_TOKEN, PEOPLE, SIGNING_SECRET, SlackApiStandIn
from tests.scale.harness import SlackSide, TcpProxy
from tests.support.postgres import SHARED_AUDIT_KEY, SHARED_STORAGE_KEY

INVENTORY_ON_HOST = "config/hosts.yaml"  # beside the compose file, as deploy/config/hosts.yaml
INVENTORY_IN_CONTAINER = "/config/hosts.yaml"


@dataclass(frozen=True)
class Published:
    """A replica as Slack sees it: its published port on 127.0.0.1."""

    base_url: str

    @property
    def events_url(self) -> str:
        return self.base_url + "/slack/events"


@dataclass
class Deployed:
    compose: Compose
    slack: SlackSide
    urls: list[str]
    r2: TcpProxy  # R2 is reached through it: `hang_on` stalls R2 mid-push
    replicas: list[str] = field(default_factory=list)  # container ids, in `--index` order

    async def labbot(self, *args: str, index: int = 1) -> str:
        """`docker compose exec labbot labbot ARGS` (stdout)."""
        return await asyncio.to_thread(self.compose.exec, "labbot", *args, index=index)

    async def audit(self) -> list[dict[str, Any]]:
        return list(json.loads(await self.labbot("audit", "--format", "json")))

    async def stop(self, index: int, grace: int = 30) -> tuple[float, int]:
        """`docker stop -t grace` one replica: (seconds it took, the container's exit code)."""
        container = self.replicas[index - 1]
        loop = asyncio.get_running_loop()
        started = loop.time()
        await asyncio.to_thread(docker, "stop", "--time", str(grace), container)
        took = loop.time() - started
        code = await asyncio.to_thread(
            docker, "inspect", "--format", "{{.State.ExitCode}}", container
        )
        return took, int(code.stdout)

    async def start(self, index: int) -> None:
        """Start a stopped replica again; Slack is pointed at its (new) published port."""
        await asyncio.to_thread(docker, "start", self.replicas[index - 1])
        self.urls[index - 1] = await asyncio.to_thread(self.compose.url, index)
        await asyncio.to_thread(wait_healthy, self.urls[index - 1])
        await self.slack.close()
        await self.slack.connect([Published(url) for url in self.urls])  # type: ignore[list-item]


def pushes(entries: list[dict[str, Any]]) -> list[tuple[str, str, str]]:
    """(change, device, status) of each push row of `labbot audit --format json`."""
    found = []
    for entry in entries:
        if entry["kind"] == "push":
            status = entry["summary"].partition(": ")[2].partition(" — ")[0]
            found.append((entry["change_id"], entry["device"], status))
    return found


def labbot_env(api: SlackApiStandIn, **settings: str) -> dict[str, str]:
    return {
        "SLACK_BOT_TOKEN": BOT_TOKEN,
        "SLACK_SIGNING_SECRET": SIGNING_SECRET,
        "SLACK_API_URL": api.base_url,
        "LABBOT_INVENTORY": INVENTORY_IN_CONTAINER,
        "LABBOT_DEVICE_USERNAME": DEMO_CREDENTIALS["username"],
        "LABBOT_DEVICE_PASSWORD": DEMO_CREDENTIALS["password"],
        "LABBOT_DEVICE_SECRET": DEMO_CREDENTIALS["secret"],
        "LABBOT_AUDIT_KEY": SHARED_AUDIT_KEY,  # replicas on the shared PostgreSQL need one key
        "LABBOT_STORAGE_KEY": SHARED_STORAGE_KEY,  # and one key sealing device text
        **settings,
    }


def reroute(inventory: Path, device: str, port: int) -> None:
    hosts = yaml.safe_load(inventory.read_text())
    hosts[device]["port"] = port
    inventory.write_text(yaml.safe_dump(hosts))


@contextlib.asynccontextmanager
async def deployed(
    images: Images, workdir: Path, *, replicas: int = 2, initdb: Path | None = None, **settings: str
) -> AsyncIterator[Deployed]:
    """PostgreSQL, the migration job and `replicas` labbot containers, serving the lab's R1, R2."""
    gateway = bridge_gateway()
    topology = demo_topology(2, switch=False)
    async with SlackApiStandIn(users=dict(PEOPLE), host=gateway) as api:
        with LabThread(topology, host=gateway, ssh=False, **DEMO_CREDENTIALS) as lab:
            (workdir / "config").mkdir()  # the shipped file mounts ./config at /config
            inventory = lab.write_inventory(workdir / INVENTORY_ON_HOST, transport="telnet")
            r2_port = yaml.safe_load(inventory.read_text())["R2"]["port"]
            r2 = await TcpProxy(gateway, r2_port, host=gateway).start()
            reroute(inventory, "R2", r2.port)
            spec = compose_spec(images, initdb=initdb)
            compose = Compose.write(workdir, spec, labbot_env(api, **settings))
            slack = SlackSide(api)
            try:
                urls = await asyncio.to_thread(compose.up, replicas)
                await asyncio.gather(*(asyncio.to_thread(wait_healthy, url) for url in urls))
                await slack.connect([Published(url) for url in urls])  # type: ignore[list-item]
                ids = await asyncio.to_thread(compose.replicas)
                yield Deployed(compose, slack, urls, r2, ids)
            except BaseException:
                print(await asyncio.to_thread(compose.logs))  # pytest shows it with the failure
                raise
            finally:
                await slack.close()
                await asyncio.to_thread(compose.down)
                await r2.stop()
