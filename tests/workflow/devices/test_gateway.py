"""NornirGateway against the simulated lab: facts, push with backup and verify, locks, rollback."""

from __future__ import annotations

import asyncio
import json
import logging
import threading
from collections.abc import Mapping
from pathlib import Path

import pytest
from nornir.plugins.runners import ThreadedRunner
from sqlalchemy.ext.asyncio import AsyncEngine

from base.errors import StorageError
from storage.config_backups import ConfigBackupStore
from storage.encryption import StorageKeys, new_key
from tests.security.at_rest import plant
from tests.workflow.devices.rig import PASSWORD, SECRET, Rig, Stores, by_name, start_rig
from workflow.devices.inventories.static import StaticInventory
from workflow.devices.runner import Credentials, Timeouts, build_nornir
from workflow.model import BackupStage, Device, PushProgress

OSPF = ["router ospf 1", " network 10.0.0.0 0.255.255.255 area 0"]
EOS_OSPF = ["router ospf 1", "   router-id 10.255.255.1"]


async def test_facts_read_interfaces_and_addresses(rig: Rig) -> None:
    facts = await rig.gateway.facts(["R1", "SW1", "R9"])
    r1 = facts["R1"]
    assert r1["platform"] == "cisco_ios_telnet" and r1["family"] == "cisco_ios"
    assert "error" not in r1
    assert r1["running_config"].strip()
    simulated = {i.name: i for i in rig.lab.device("R1").interfaces}
    for interface in r1["interfaces"]:
        expected = simulated[interface["name"]].address
        assert interface["address"] == (expected.with_prefixlen if expected else None)
    assert any(i["address"] for i in facts["SW1"]["interfaces"])
    assert facts["R9"]["error"] == "R9 is not in the inventory"


async def test_push_backs_up_pushes_verifies_and_reports_progress(rig: Rig) -> None:
    before = {name: rig.lab.device(name).running_config() for name in ("R1", "R2", "SW1")}
    events: list[tuple[PushProgress, int]] = []
    loop_thread = threading.get_ident()

    def on_progress(event: PushProgress) -> None:
        events.append((event, threading.get_ident()))

    plan = {"R1": OSPF, "R2": OSPF, "SW1": EOS_OSPF}
    response = await rig.gateway.push("change-1", plan, on_progress)

    assert response["success"] is True
    assert (response["total"], response["successful"], response["failed"]) == (3, 3, 0)
    assert [item["name"] for item in response["data"]] == ["R1", "R2", "SW1"]
    assert "router ospf 1" in by_name(response["data"])["R1"]["result"]
    assert "router ospf 1" in rig.lab.device("R2").running_config()
    assert "router-id 10.255.255.1" in rig.lab.device("SW1").running_config()
    # backups are the devices' own `show running-config`, before and after the push
    saved_before = await rig.stores.backups.configs("change-1", "before")
    saved_after = await rig.stores.backups.configs("change-1", "after")
    assert set(saved_before) == set(saved_after) == set(plan)
    for name in plan:
        assert before[name].strip() in saved_before[name]
        assert "router ospf 1" not in saved_before[name]
        assert "router ospf 1" in saved_after[name]
    assert await rig.stores.locked(list(plan)) == {}
    # progress: one started and one done per device, on the loop thread, counting up to 3
    assert {thread for _, thread in events} == {loop_thread}
    stages = sorted((e.device, e.stage) for e, _ in events)
    assert stages == sorted([(d, s) for d in plan for s in ("started", "done")])
    assert sorted(e.done for e, _ in events if e.stage == "done") == [1, 2, 3]
    assert all(e.total == 3 for e, _ in events)


async def test_async_progress_callback_is_awaited_before_push_returns(rig: Rig) -> None:
    seen: list[str] = []

    async def on_progress(event: PushProgress) -> None:
        await asyncio.sleep(0.05)
        seen.append(f"{event.device}:{event.stage}")

    response = await rig.gateway.push("change-2", {"R3": OSPF}, on_progress)
    assert response["success"]
    assert seen == ["R3:started", "R3:done"]


async def test_locked_device_fails_every_device_and_pushes_nothing(rig: Rig) -> None:
    assert await rig.stores.locks.acquire("change-A", ["R1"], 60) == []
    untouched = rig.lab.device("R2").running_config()
    response = await rig.gateway.push("change-B", {"R1": OSPF, "R2": OSPF})
    assert response["success"] is False and response["failed"] == 2
    assert response["error"] == "R1 is locked by change change-A"
    for item in response["data"]:
        assert item["status"] == "failed"
        assert item["error"] == "R1 is locked by change change-A"
    assert rig.lab.device("R2").running_config() == untouched
    assert await rig.stores.locked(["R1", "R2"]) == {"R1": "change-A"}
    assert await rig.stores.backups.configs("change-B", "before") == {}


async def test_unknown_device_fails_alone(rig: Rig) -> None:
    response = await rig.gateway.push("change-3", {"R1": OSPF, "R42": OSPF})
    items = by_name(response["data"])
    assert items["R1"]["status"] == "success"
    assert items["R42"] == {
        "id": "R42",
        "name": "R42",
        "status": "failed",
        "error": "R42 is not in the inventory",
    }
    assert response["success"] is False and "error" not in response  # no global failure


async def test_rollback_restores_the_running_config(rig: Rig) -> None:
    original = {name: rig.lab.device(name).running_config() for name in ("R1", "SW1")}
    change = {
        "R1": [*OSPF, "interface GigabitEthernet0/1", " description uplink changed"],
        "SW1": EOS_OSPF,
    }
    assert (await rig.gateway.push("change-4", change))["success"]
    plan = await rig.gateway.rollback_plan("change-4")
    assert set(plan) == {"R1", "SW1"}
    assert "no router ospf 1" in plan["R1"]
    assert (await rig.gateway.push("change-4-rollback", plan))["success"]
    for name, config in original.items():
        assert rig.lab.device(name).running_config() == config
    assert await rig.gateway.rollback_plan("never-pushed") == {}


async def test_ssh_push_keeps_credentials_out_of_results_and_logs(
    tmp_path: Path, stores: Stores, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.DEBUG)
    reject = {"R1": ["^ntp server"]}
    async for rig in start_rig(tmp_path, stores, 1, transport="ssh", reject=reject):
        ok = await rig.gateway.push("change-5", {"R1": OSPF})
        rejected = await rig.gateway.push("change-6", {"R1": ["ntp server 10.0.0.1"]})
        facts = await rig.gateway.facts(["R1"])
    assert ok["success"], ok
    assert "router ospf 1" in rig.lab.device("R1").running_config()
    assert rejected["data"][0]["error"] == (
        "the device rejected a line: Invalid input detected at command: ntp server 10.0.0.1, "
        "matched error: % Invalid input detected at '^' marker. "
        "(lines before it were applied; roll back to undo them)"
    )
    shown = json.dumps([ok, rejected, facts]) + caplog.text
    assert PASSWORD not in shown and SECRET not in shown
    assert PASSWORD not in repr(Credentials("u", PASSWORD, SECRET))


@pytest.mark.parametrize(
    ("text", "shown"),
    [
        ("username admin password admin", "username ******** password ********"),
        ('{"pw": "admin"}', '{"pw": "********"}'),
        # part of a longer word stays: FRR's and IOS's state reads stay readable
        ('"administrativeStatus":"up"', '"administrativeStatus":"up"'),
        ("Ethernet0/1 is administratively down", "Ethernet0/1 is administratively down"),
    ],
)
def test_a_short_device_password_is_masked_only_as_a_word_of_its_own(text: str, shown: str) -> None:
    """containerlab's frr kind logs in as admin/admin: a read must not lose `admin…` words."""
    assert Credentials("admin", "admin", None).scrub(text) == shown


def test_workers_sized_to_the_batch_up_to_the_cap() -> None:
    devices = [Device(f"R{i}", "cisco_ios_telnet", "127.0.0.1", 2000 + i) for i in range(37)]
    nornir = build_nornir(devices[:17], Credentials(None, None, None), Timeouts(1, 1))
    assert isinstance(nornir.runner, ThreadedRunner)
    assert nornir.runner.num_workers == 17
    assert nornir.config.logging.enabled is False
    capped = build_nornir(devices, Credentials(None, None, None), Timeouts(1, 1))
    assert capped.runner.num_workers == 32  # type: ignore[attr-defined]
    wider = build_nornir(devices, Credentials(None, None, None), Timeouts(1, 1), sessions=36)
    assert wider.runner.num_workers == 36  # type: ignore[attr-defined]


class FailingBackups(ConfigBackupStore):
    """The real store, except that it cannot store R2's backup (a full disk, say)."""

    async def save_configs(
        self, change_id: str, stage: BackupStage, configs: Mapping[str, str]
    ) -> None:
        if "R2" in configs:
            raise StorageError("disk full")
        await super().save_configs(change_id, stage, configs)


async def test_device_whose_backup_cannot_be_stored_is_left_alone(
    rig: Rig, engine: AsyncEngine, caplog: pytest.LogCaptureFixture
) -> None:
    untouched = rig.lab.device("R2").running_config()
    stores = Stores(rig.stores.locks, FailingBackups(engine, StorageKeys([new_key()])))
    gateway = stores.gateway(StaticInventory(rig.inventory_path))
    response = await gateway.push("change-7", {"R1": OSPF, "R2": OSPF})
    items = by_name(response["data"])
    assert items["R1"]["status"] == "success"
    assert items["R2"]["error"] == "could not store the backup: disk full"
    assert rig.lab.device("R2").running_config() == untouched
    assert await stores.locked(["R1", "R2"]) == {}
    assert "backup of R2 for change change-7 failed" in caplog.text


async def test_rollback_undoes_only_its_own_change(rig: Rig) -> None:
    assert (await rig.gateway.push("change-ntp", {"R1": ["ntp server 10.9.9.9"]}))["success"]
    assert (await rig.gateway.push("change-log", {"R1": ["logging host 10.1.1.1"]}))["success"]
    plan = await rig.gateway.rollback_plan("change-ntp")
    assert plan == {"R1": ["no ntp server 10.9.9.9"]}
    assert (await rig.gateway.push("change-ntp-rollback", plan))["success"]
    config = rig.lab.device("R1").running_config()
    assert "ntp server 10.9.9.9" not in config and "logging host 10.1.1.1" in config


async def test_a_push_that_renames_the_device_is_verified_under_its_new_prompt(rig: Rig) -> None:
    response = await rig.gateway.push("change-rename", {"R1": ["hostname R1-core"]})
    assert response["success"], response  # the verifying read found the prompt `R1-core#`
    assert rig.lab.device("R1").hostname == "R1-core"
    after = await rig.stores.backups.configs("change-rename", "after")
    assert "hostname R1-core" in after["R1"]


async def test_a_rollback_puts_back_the_secrets_a_change_replaced(rig: Rig) -> None:
    """The backups are the device's own text: undoing a change that removed a key and a community
    (equal to the login in use) pushes the old values themselves, and the config is as before."""
    old = [f"snmp-server community {PASSWORD} RW", "ntp authentication-key 1 md5 Old-Ntp-1"]
    plant(rig.lab.device("R1"), old)
    original = rig.lab.device("R1").running_config()
    change = [f"no {line}" for line in old] + ["ntp authentication-key 2 md5 New-Ntp-2"]
    assert (await rig.gateway.push("change-keys", {"R1": change}))["success"]
    plan = await rig.gateway.rollback_plan("change-keys")
    assert set(old) <= set(plan["R1"])
    assert (await rig.gateway.push("change-keys-rollback", plan))["success"]
    assert rig.lab.device("R1").running_config() == original
