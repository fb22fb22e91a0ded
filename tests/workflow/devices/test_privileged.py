"""Real-CLI behaviour against the simulated lab when sessions land at `>`: reads in privileged
mode after `enable`, SSH and telnet alike; a wrong or missing secret is one clear line per
device, nothing is pushed and no backup is stored; the inventory's own credentials are used."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
import yaml
from netmiko.exceptions import ReadTimeout

from labsim.lab import Lab, Transport
from tests.workflow.devices.rig import OSPF_LINES, PASSWORD, SECRET, USERNAME, Stores
from workflow.devices.gateway import NornirGateway
from workflow.devices.inventories.static import StaticInventory
from workflow.devices.prompts import whole_prompt
from workflow.devices.tasks import without_echo

TRANSPORTS: list[Transport] = ["ssh", "telnet"]


async def _lab(transport: Transport, secret: str = SECRET) -> AsyncIterator[Lab]:
    async with Lab.start(
        2,
        ssh=transport == "ssh",
        telnet=transport == "telnet",
        username=USERNAME,
        password=PASSWORD,
        secret=secret,
        console_exec="user",  # the console of a freshly booted IOSv: `R1>`
    ) as lab:
        yield lab


def _gateway(stores: Stores, path: Path, secret: str | None) -> NornirGateway:
    return stores.gateway(StaticInventory(path), secret=secret)


@pytest.mark.parametrize("transport", TRANSPORTS)
async def test_a_session_at_user_exec_enables_then_reads_and_pushes(
    tmp_path: Path, stores: Stores, transport: Transport
) -> None:
    async for lab in _lab(transport):
        gateway = _gateway(stores, lab.write_inventory(tmp_path / "hosts.yaml", transport), SECRET)
        facts = await gateway.facts(["R1", "R2"])
        assert "error" not in facts["R1"], facts["R1"].get("error")
        assert facts["R1"]["interfaces"] and "hostname R1" in facts["R1"]["running_config"]
        response = await gateway.push("chg-1", {"R1": OSPF_LINES, "R2": OSPF_LINES})
        assert response["success"], response
        assert "router ospf 1" in lab.device("R2").running_config()
        assert "enable" in lab.device("R1").commands_seen
        backups = await stores.backups.configs("chg-1", "before")
        assert set(backups) == {"R1", "R2"} and "hostname R1" in backups["R1"]


@pytest.mark.parametrize("transport", TRANSPORTS)
async def test_a_wrong_secret_is_one_line_per_device_nothing_pushed_no_backup(
    tmp_path: Path, stores: Stores, transport: Transport
) -> None:
    async for lab in _lab(transport):
        path = lab.write_inventory(tmp_path / "hosts.yaml", transport)
        gateway = _gateway(stores, path, "not-the-secret")
        facts = await gateway.facts(["R1", "R2"])
        for name in ("R1", "R2"):
            error = facts[name]["error"]
            assert error == (
                f"`enable` was refused: still at `{name}>` — is LABBOT_DEVICE_SECRET "
                "(or the inventory's secret) right?"
            )
            assert facts[name]["running_config"] == "" and facts[name]["interfaces"] == []
            assert "not-the-secret" not in error
        response = await gateway.push("chg-2", {"R1": OSPF_LINES, "R2": OSPF_LINES})
        assert response["failed"] == 2 and not response["success"]
        assert all("`enable` was refused" in item["error"] for item in response["data"])
        assert all("router ospf" not in lab.device(n).running_config() for n in ("R1", "R2"))
        assert not any("router ospf 1" in c for c in lab.device("R1").commands_seen)
        assert await stores.backups.configs("chg-2", "before") == {}
        assert await stores.backups.configs("chg-2", "after") == {}


async def test_a_device_asking_no_enable_secret_needs_none(tmp_path: Path, stores: Stores) -> None:
    async for lab in _lab("telnet", secret=""):
        gateway = _gateway(stores, lab.write_inventory(tmp_path / "hosts.yaml"), None)
        facts = await gateway.facts(["R1"])
        assert "error" not in facts["R1"] and facts["R1"]["interfaces"]


async def test_a_privilege_15_login_lands_in_privileged_exec(
    tmp_path: Path, stores: Stores
) -> None:
    async with Lab.start(
        1, telnet=False, username=USERNAME, password=PASSWORD, secret=SECRET, privilege=15
    ) as lab:
        path = lab.write_inventory(tmp_path / "hosts.yaml", "ssh")
        facts = await _gateway(stores, path, None).facts(["R1"])  # no secret needed
        assert "error" not in facts["R1"] and facts["R1"]["interfaces"]
        assert "enable" not in lab.device("R1").commands_seen


@pytest.mark.parametrize("where", ["host", "group", "defaults"])
async def test_the_inventory_files_credentials_are_used(
    tmp_path: Path, stores: Stores, where: str
) -> None:
    """The hosts file (or its groups/defaults) gives the login and secret; settings give none."""
    async for lab in _lab("ssh"):
        hosts: dict[str, Any] = lab.nornir_hosts("ssh")
        login = {
            "username": USERNAME,
            "password": PASSWORD,
            "connection_options": {"netmiko": {"extras": {"secret": SECRET}}},
        }
        if where == "host":
            hosts = {name: {**host, **login} for name, host in hosts.items()}
        elif where == "group":
            hosts = {name: {**host, "groups": ["lab"]} for name, host in hosts.items()}
            (tmp_path / "groups.yaml").write_text(yaml.safe_dump({"lab": login}))
        else:
            (tmp_path / "defaults.yaml").write_text(yaml.safe_dump(login))
        (tmp_path / "hosts.yaml").write_text(yaml.safe_dump(hosts))
        gateway = stores.gateway(
            StaticInventory(tmp_path / "hosts.yaml"), username=None, password=None, secret=None
        )
        facts = await gateway.facts(["R1"])
        assert "error" not in facts["R1"], facts["R1"].get("error")
        assert PASSWORD not in facts["R1"]["running_config"]


class SlowConsole:
    """A session whose prompt shows no prompt's end in time, and whose first look at the prompt
    (netmiko's find_prompt) catches only part of it (a slow console)."""

    RETURN = "\n"

    def __init__(self, *reads: str) -> None:
        self.reads = list(reads)

    def write_channel(self, text: str) -> None:
        pass

    def read_until_pattern(self, pattern: str, read_timeout: float) -> str:
        raise ReadTimeout(f"no {pattern} within {read_timeout} s")

    def find_prompt(self) -> str:
        return self.reads.pop(0)


def test_a_prompt_read_in_part_is_looked_at_again() -> None:
    # every later read waits for this prompt at the end of the output: `R` would never come
    assert whole_prompt(SlowConsole("R", "R1#")) == "R1#"
    assert whole_prompt(SlowConsole("R1(con", "R1(config)#")) == "R1(config)#"
    assert whole_prompt(SlowConsole("<R1>")) == "<R1>"
    assert whole_prompt(SlowConsole("x", "y", "z")) == "z"  # bounded: the last one is used


def test_a_command_echoed_again_above_its_output_is_not_part_of_it() -> None:
    """As a loaded FRR console answered once: the config read then differed from the same config
    read at the push, and the push refused the router as changed since the preview."""
    config = "Building configuration...\n\nhostname R3\nend"
    command = "show running-config"
    assert without_echo(f"R3# show running-config\n{config}", command) == config
    assert without_echo(f"show running-config\n{config}", command) == config
    assert without_echo(f"R3(config)# show running-config\n{config}", command) == config
    assert without_echo(config, command) == config
    # a first line that only mentions the command is output
    said = "% Unknown command: show running-config\nR3#"
    assert without_echo(said, command) == said
