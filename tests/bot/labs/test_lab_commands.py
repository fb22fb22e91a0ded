"""`--lab NAME` on the command line, as a user runs it (subprocesses) against two simulated
labs with the same router names: `labbot console --lab` changes that lab only, `labbot audit
--lab` lists that lab's rows only, `labbot check --lab` looks at that lab only; a name no lab
has is one line listing the labs, and without LABBOT_LABS `--lab` is refused in one line."""

from __future__ import annotations

import asyncio
import json
import os
import sys
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from bot.cli.demo import DEMO_CREDENTIALS
from labsim import Lab
from tests.support.two_labs import two_labs

ROOT = Path(__file__).resolve().parents[3]
SETTINGS_PREFIXES = ("LABBOT_", "SLACK_", "MATRIX_", "OPENAI_", "GNS3_")
LABS = """\
labs:
  red:
    inventory: red/hosts.yaml
    slack: C0RED
    approvers: ["console:bob"]
  blue:
    inventory: blue/hosts.yaml
    slack: C0BLUE
    approvers: ["console:bob"]
"""
CHANGE = "configure ospf on all routers\nas bob\n1\n1\n"


async def labbot(*args: str, cwd: Path, env: dict[str, str]) -> tuple[int, str, str]:
    """`labbot ARGS` with only `env` set (the test services' names removed); the labs keep
    running on this test's loop meanwhile."""
    kept = {k: v for k, v in os.environ.items() if not k.startswith(SETTINGS_PREFIXES)}
    process = await asyncio.create_subprocess_exec(
        sys.executable,
        "-m",
        "bot",
        *args,
        cwd=cwd,
        env={**kept, "PYTHONPATH": str(ROOT), "COLUMNS": "200", **env},
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
    )
    out, err = await asyncio.wait_for(process.communicate(), 180)
    return process.returncode or 0, out.decode(), err.decode()


@pytest.fixture
async def labs(tmp_path: Path) -> AsyncIterator[dict[str, Lab]]:
    """Lab red (R1-R3) and lab blue (R1, R2), each its own simulated devices."""
    async with two_labs(tmp_path) as labs:
        yield labs


def settings(tmp_path: Path, *, labs_file: bool = True) -> dict[str, str]:
    env = {
        "LABBOT_DATA_DIR": str(tmp_path / "data"),
        "LABBOT_DEVICE_USERNAME": DEMO_CREDENTIALS["username"],
        "LABBOT_DEVICE_PASSWORD": DEMO_CREDENTIALS["password"],
        "LABBOT_DEVICE_SECRET": DEMO_CREDENTIALS["secret"],
        "LABBOT_CONSOLE_USERS": "bob",
    }
    if labs_file:
        (tmp_path / "labs.yaml").write_text(LABS)
        env["LABBOT_LABS"] = "labs.yaml"
    else:
        env["LABBOT_INVENTORY"] = "red/hosts.yaml"
    return env


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


async def audit(tmp_path: Path, env: dict[str, str], *args: str) -> list[dict[str, str]]:
    status, out, err = await labbot("audit", "--format", "json", *args, cwd=tmp_path, env=env)
    assert status == 0, out + err
    rows: list[dict[str, str]] = json.loads(out)
    return rows


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


@pytest.mark.parametrize("command", ["audit", "check", "console"])
async def test_lab_without_a_labs_file_is_one_line(tmp_path: Path, command: str) -> None:
    env = settings(tmp_path, labs_file=False)
    status, out, err = await labbot(command, "--lab", "red", cwd=tmp_path, env=env)
    assert status == 2, out + err
    assert err.strip().splitlines() == [
        "labbot: --lab needs LABBOT_LABS, the labs file; without one there is a single lab, "
        "the lab in red/hosts.yaml: leave --lab out"
    ], err
    assert not (tmp_path / "data").exists()  # refused before any database is made
