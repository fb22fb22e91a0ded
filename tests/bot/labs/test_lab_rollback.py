"""`labbot rollback CHANGE` under a labs file: the console opens on the lab the change was made
on (its audit rows say which), saying so; `--lab` naming another lab is refused in one line;
a change not on record is one line too. Two simulated labs with the same router names."""

from __future__ import annotations

from pathlib import Path

from labsim import Lab
from tests.bot.labs.lab_cli import CHANGE, audit, console, labbot, settings

APPROVE = "as bob\n1\n1\n"


async def test_rollback_opens_on_the_lab_the_change_was_made_on(
    tmp_path: Path, labs: dict[str, Lab]
) -> None:
    env = settings(tmp_path)
    await console(tmp_path, env, "red", CHANGE)
    await console(tmp_path, env, "blue", CHANGE)
    rows = await audit(tmp_path, env)
    made = {row["lab"]: row["change_id"] for row in rows if row["kind"] == "change"}
    assert all("router ospf" in d.running_config() for lab in labs.values() for d in lab.devices)

    status, out, err = await labbot("rollback", made["red"], cwd=tmp_path, env=env, stdin=APPROVE)
    assert status == 0, out + err
    assert f"{made['red']} was made on lab red: the console opens on lab red." in out, out
    assert "labbot console — lab red of LABBOT_LABS" in out, out
    assert "pushed: ✓ 3 ✗ 0 of 3" in out, out
    assert not any("router ospf" in d.running_config() for d in labs["red"].devices)
    assert all("router ospf" in d.running_config() for d in labs["blue"].devices)

    status, out, err = await labbot(
        "rollback", made["blue"], "--lab", "red", cwd=tmp_path, env=env, stdin=APPROVE
    )
    assert status == 2 and not out, out + err
    assert err.strip().splitlines() == [
        f"labbot: {made['blue']} was made on lab blue, not on red: its lines and backups are "
        "that lab's, whatever the devices are called here — leave --lab out, or give --lab blue"
    ], err
    assert all("router ospf" in d.running_config() for d in labs["blue"].devices)

    status, out, err = await labbot("rollback", "c-nothing", cwd=tmp_path, env=env)
    assert status == 2 and not out, out + err
    assert err.strip().splitlines() == [
        "labbot: no change c-nothing is on record (`labbot audit` lists the change ids)"
    ], err


async def test_rollback_without_a_labs_file_refuses_lab(tmp_path: Path) -> None:
    env = settings(tmp_path, labs_file=None)
    status, out, err = await labbot("rollback", "c-1", "--lab", "red", cwd=tmp_path, env=env)
    assert status == 2, out + err
    assert err.strip().splitlines() == [
        "labbot: --lab needs LABBOT_LABS, the labs file; without one there is a single lab, "
        "the lab in red/hosts.yaml: leave --lab out"
    ], err
    assert not (tmp_path / "data").exists()
