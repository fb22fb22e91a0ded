"""deploy/compose.socket-mode.yml on a real Docker engine, as shipped (the local image, the
test's clock, its health check asked every second): one labbot in Slack Socket Mode on SQLite in
the `data` volume, no port published. It connects out to the Slack stand-in's websocket on the
host; a mention delivered there opens a change whose gate comes back in the thread; the
engine's health check (`labbot health`) says healthy."""

from __future__ import annotations

import asyncio
import time
from pathlib import Path

import pytest

from bot.cli.demo import DEMO_CREDENTIALS
from labsim import LabThread, demo_topology
from tests.adapters.slack.payloads import mention
from tests.deploy.containers import INVENTORY_IN_CONTAINER, INVENTORY_ON_HOST
from tests.deploy.engine import (
    Compose,
    Images,
    bridge_gateway,
    docker,
    health_status,
    socket_mode_spec,
)
from tests.fakes.slack_api import APP_TOKEN, BOT_TOKEN, PEOPLE, SlackApiStandIn
from tests.scale.harness import SlackSide

pytestmark = [pytest.mark.docker, pytest.mark.xdist_group("deployments")]  # see conftest


def healthy(container: str, within: float = 120) -> str:
    """The container's health once it is no longer starting (or after `within` seconds)."""
    deadline = time.monotonic() + within
    status = health_status(container)
    while status == "starting" and time.monotonic() < deadline:
        time.sleep(0.5)
        status = health_status(container)
    return status


async def test_one_socket_mode_container_serves_slack_without_a_port(
    images: Images, tmp_path: Path
) -> None:
    gateway = bridge_gateway()
    topology = demo_topology(2, switch=False)
    async with SlackApiStandIn(users=dict(PEOPLE), host=gateway) as api:
        with LabThread(topology, host=gateway, ssh=False, **DEMO_CREDENTIALS) as lab:
            (tmp_path / "config").mkdir()  # the shipped file mounts ./config at /config
            lab.write_inventory(tmp_path / INVENTORY_ON_HOST, transport="telnet")
            env = {
                "SLACK_BOT_TOKEN": BOT_TOKEN,
                "SLACK_APP_TOKEN": APP_TOKEN,
                "SLACK_API_URL": api.base_url,
                "LABBOT_INVENTORY": INVENTORY_IN_CONTAINER,
                "LABBOT_DEVICE_USERNAME": DEMO_CREDENTIALS["username"],
                "LABBOT_DEVICE_PASSWORD": DEMO_CREDENTIALS["password"],
                "LABBOT_DEVICE_SECRET": DEMO_CREDENTIALS["secret"],
            }
            compose = Compose.write(tmp_path, socket_mode_spec(images), env)
            try:
                await asyncio.to_thread(compose.run, "up", "--detach", "--no-build")
                (container,) = (await asyncio.to_thread(compose.run, "ps", "--quiet")).split()
                health = await asyncio.to_thread(healthy, container)
                body = mention("configure ntp on R1 servers=10.66.0.1")
                thread = str(body["event"]["ts"])
                ack = await api.send_socket("events_api", body)
                gate = await SlackSide(api).gate(thread, "Approve")
                said = await asyncio.to_thread(compose.exec, "labbot", "health")
                ports = docker("port", container, check=False).stdout
                database = await asyncio.to_thread(compose.exec, "ls", "/data")
            except BaseException:
                print(await asyncio.to_thread(compose.logs))  # pytest shows it with the failure
                raise
            finally:
                await asyncio.to_thread(compose.down)
    assert health == "healthy"
    assert ack["envelope_id"] and api.called("apps.connections.open")
    assert "Approve" in [b["text"]["text"] for b in gate.buttons]
    assert said.strip() == "ok" and ports.strip() == ""  # nothing published
    assert "labbot.db" in database.split()  # SQLite in the `data` volume
