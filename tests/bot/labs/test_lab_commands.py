"""`--lab NAME` on the command line, as a user runs it (subprocesses) against two simulated
labs with the same router names: `labbot console --lab` changes that lab only, `labbot audit
--lab` lists that lab's rows only, `labbot check --lab` looks at that lab only; a name no lab
has is one line listing the labs, and without LABBOT_LABS `--lab` is refused in one line."""

from __future__ import annotations

from pathlib import Path

import pytest

from labsim import Lab
from tests.bot.labs.lab_cli import CHANGE, audit, labbot, settings


async def test_console_and_audit_on_one_lab_only(tmp_path: Path, labs: dict[str, Lab]) -> None:
    env = settings(tmp_path)
    script = tmp_path / "change.txt"
    script.write_text(CHANGE)
    status, out, err = await labbot(
        "console", "--lab", "blue", "--script", str(script), cwd=tmp_path, env=env
    )
    assert status == 0, out + err
    assert "labbot console — lab blue of LABBOT_LABS: the lab in " in out
    assert "pushed: ✓ 2 ✗ 0 of 2" in out, out
    assert all("router ospf" in d.running_config() for d in labs["blue"].devices)
    assert not any("router ospf" in d.running_config() for d in labs["red"].devices)

    status, out, err = await labbot(
        "console", "--lab", "red", "--script", str(script), cwd=tmp_path, env=env
    )
    assert status == 0, out + err
    assert "pushed: ✓ 3 ✗ 0 of 3" in out, out

    everything = await audit(tmp_path, env)
    assert {row["lab"] for row in everything} == {"red", "blue"}
    for name, routers in (("red", ["R1", "R2", "R3"]), ("blue", ["R1", "R2"])):
        rows = await audit(tmp_path, env, "--lab", name)
        assert rows and {row["lab"] for row in rows} == {name}, rows
        assert len(rows) == sum(1 for row in everything if row["lab"] == name)
        assert sorted(row["device"] for row in rows if row["kind"] == "push") == routers

    status, out, err = await labbot("audit", "--lab", "green", cwd=tmp_path, env=env)
    assert status == 2 and not out, out + err
    assert err.strip().splitlines() == ["labbot: no lab named 'green' (the labs: red, blue)"], err


async def test_check_looks_at_the_named_lab_only(tmp_path: Path, labs: dict[str, Lab]) -> None:
    env = settings(tmp_path)
    status, out, err = await labbot("check", "--lab", "blue", cwd=tmp_path, env=env)
    assert status == 0, out + err
    assert "labs.yaml: 1 lab(s): blue" in out, out
    blue = [line for line in out.splitlines() if line[2:].startswith("blue: ")]
    assert len([line for line in blue if line.startswith("✓ blue: device ")]) == 2, out
    assert "red: " not in out, out

    status, out, err = await labbot("check", "--lab", "green", cwd=tmp_path, env=env)
    assert status == 1, out + err
    assert "✗ labs: no lab named 'green' (the labs: red, blue)" in out, out
    assert "device" not in out, out


@pytest.mark.parametrize(
    "command",
    ["audit", "check", "console", "pending", "rollback chg-1", "audit report -o report.html"],
)
async def test_lab_without_a_labs_file_is_one_line(tmp_path: Path, command: str) -> None:
    env = settings(tmp_path, labs_file=None)
    status, out, err = await labbot(*command.split(), "--lab", "red", cwd=tmp_path, env=env)
    assert status == 2, out + err
    assert err.strip().splitlines() == [
        "labbot: --lab needs LABBOT_LABS, the labs file; without one there is a single lab, "
        "the lab in red/hosts.yaml: leave --lab out"
    ], err
    assert not (tmp_path / "data").exists()  # refused before any database is made
