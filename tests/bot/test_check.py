"""`labbot check` (the doctor) and `labbot serve`'s checks before it listens, as a user runs them
(subprocesses) against real components: simulated devices (labsim), the Slack Web API stand-in,
a PostgreSQL server of the test's own, stopped."""

from __future__ import annotations

import asyncio
import json
import os
import sys
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from labsim import Lab, demo_topology
from storage.encryption import new_key
from tests.fakes import llm_profiles as servers
from tests.fakes.openai_server import OpenAIStandIn, error, structured
from tests.fakes.slack_api import APP_TOKEN, BOT_TOKEN, SlackApiStandIn
from tests.support.postgres import SHARED_AUDIT_KEY, own_postgres_cluster

LABBOT = str(Path(sys.executable).parent / "labbot")
SETTINGS_PREFIXES = ("LABBOT_", "SLACK_", "MATRIX_", "OPENAI_", "GNS3_")
SECRET = "lab-enable"


async def labbot(*args: str, cwd: Path, env: dict[str, str]) -> tuple[int, str, str]:
    """`labbot ARGS` with only `env` set (the test services' names removed); the lab and the
    stand-ins keep running on this test's loop meanwhile."""
    kept = {k: v for k, v in os.environ.items() if not k.startswith(SETTINGS_PREFIXES)}
    process = await asyncio.create_subprocess_exec(
        LABBOT,
        *args,
        cwd=cwd,
        env={**kept, "COLUMNS": "200", **env},
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
    )
    out, err = await asyncio.wait_for(process.communicate(), 120)
    return process.returncode or 0, out.decode(), err.decode()


def marked(output: str, mark: str) -> list[str]:
    return [line for line in output.splitlines() if line.startswith(mark + " ")]


@pytest.fixture
async def lab(tmp_path: Path) -> AsyncIterator[dict[str, str]]:
    """A simulated lab whose consoles land at `R1>` (enable needs the secret); its settings."""
    async with Lab.start(demo_topology(3), secret=SECRET, console_exec="user") as running:
        running.write_inventory(tmp_path / "hosts.yaml", transport="telnet")
        yield {"LABBOT_INVENTORY": "hosts.yaml", "LABBOT_DEVICE_SECRET": SECRET}


async def test_a_healthy_lab_is_all_fine(tmp_path: Path, lab: dict[str, str]) -> None:
    async with SlackApiStandIn() as slack:
        env = {
            **lab,
            "SLACK_BOT_TOKEN": BOT_TOKEN,
            "SLACK_APP_TOKEN": APP_TOKEN,
            "SLACK_API_URL": slack.base_url,
        }
        status, out, err = await labbot("check", cwd=tmp_path, env=env)
    assert status == 0, out + err
    assert not marked(out, "✗") and not marked(out, "!"), out
    fine = marked(out, "✓")
    for area in ("settings", "database", "audit key", "storage key", "slack", "inventory"):
        assert any(line.startswith(f"✓ {area}: ") for line in fine), (area, out)
    devices = [line for line in fine if line.startswith("✓ device ")]
    assert len(devices) == 4 and all("privileged, running config read" in d for d in devices)
    assert "✓ slack: auth.test: bot labbot in Lab" in out
    assert not (tmp_path / "labbot-data").exists()  # the doctor looks; it creates nothing


async def test_a_wrong_enable_secret_names_the_setting(tmp_path: Path, lab: dict[str, str]) -> None:
    env = {**lab, "LABBOT_DEVICE_SECRET": "not-the-secret"}
    status, out, _ = await labbot("check", "--json", cwd=tmp_path, env=env)
    assert status == 1
    found = json.loads(out)
    assert found["ok"] is False
    broken = [f for f in found["findings"] if f["status"] == "fail"]
    assert {f["area"] for f in broken} == {"device R1", "device R2", "device R3", "device SW1"}
    assert all("`enable` was refused" in f["said"] for f in broken), broken
    assert all(f["fix"].startswith("set it in LABBOT_DEVICE_SECRET") for f in broken)
    assert "not-the-secret" not in out


async def test_a_stopped_device_is_one_line_naming_it(tmp_path: Path) -> None:
    async with Lab.start(demo_topology(3), faults={"R2": "refuse"}) as running:
        running.write_inventory(tmp_path / "hosts.yaml", transport="telnet")
        env = {"LABBOT_INVENTORY": "hosts.yaml", "LABBOT_DEVICE_SECRET": "enable"}
        status, out, _ = await labbot("check", cwd=tmp_path, env=env)
        port = running.device("R2").telnet_port
    assert status == 1
    assert marked(out, "✗") == [
        f"✗ device R2: 127.0.0.1:{port} (cisco_ios_telnet): connection refused — start the "
        "device, or fix its hostname and port in the inventory"
    ], out
    assert len([line for line in marked(out, "✓") if line.startswith("✓ device")]) == 3


BROKEN_INVENTORIES = {
    "missing file": (None, "LABBOT_INVENTORY: no such file '{path}'"),
    "malformed YAML": (
        "R1:\n  hostname: 127.0.0.1\n  platform: [cisco_ios\nR2: {}\n",
        "{path} line 4: not YAML: did not find expected ',' or ']'",
    ),
    "list-shaped": (
        "- R1: {hostname: 127.0.0.1}\n",
        "{path}: hosts must be a mapping of device names to their settings (found a list), "
        "e.g. `R1: {{hostname: 10.0.0.1, platform: cisco_ios}}`",
    ),
    "host without platform": (
        "R1:\n  hostname: 127.0.0.1\n  platform: cisco_ios_telnet\nR2:\n  hostname: 127.0.0.2\n",
        "{path} line 4: host R2 has no platform; add `platform: cisco_ios_telnet` (or a "
        "LABBOT_DEVICE_TYPES rule)",
    ),
}


@pytest.mark.parametrize("shape", list(BROKEN_INVENTORIES))
async def test_a_broken_inventory_is_one_line_and_serve_refuses_it(
    tmp_path: Path, shape: str
) -> None:
    content, expected = BROKEN_INVENTORIES[shape]
    path = tmp_path / "hosts.yaml"
    if content is not None:
        path.write_text(content)
    said = expected.format(path=path)
    env = {"LABBOT_INVENTORY": str(path)}
    status, out, _ = await labbot("check", cwd=tmp_path, env=env)
    assert status == 1
    assert [line for line in marked(out, "✗") if line.startswith("✗ inventory")] == [
        f"✗ inventory: {said} — fix the file, then run `labbot check` again"
    ], out
    serving = {**env, "SLACK_BOT_TOKEN": BOT_TOKEN, "SLACK_SIGNING_SECRET": "s"}
    status, out, err = await labbot("serve", "--http", "--port", "9", cwd=tmp_path, env=serving)
    assert status == 2 and "Traceback" not in err
    assert err.strip().splitlines() == [
        f"labbot: not serving: ✗ inventory: {said} — fix the file, then run `labbot check` again"
    ], err


async def test_a_wrong_slack_token_names_where_to_copy_it(tmp_path: Path) -> None:
    async with SlackApiStandIn() as slack:
        env = {
            "SLACK_BOT_TOKEN": "xoxb-wrong",
            "SLACK_APP_TOKEN": APP_TOKEN,
            "SLACK_API_URL": slack.base_url,
        }
        status, out, _ = await labbot("check", cwd=tmp_path, env=env)
        assert [c.method for c in slack.calls] == ["auth.test"]
    assert status == 1
    assert (
        f"✗ slack: {slack.base_url} refused SLACK_BOT_TOKEN (invalid_auth) — copy the Bot User "
        "OAuth Token (xoxb-…) from the app's OAuth & Permissions page"
    ) in marked(out, "✗"), out
    assert "xoxb-wrong" not in out


@pytest.mark.postgres  # a cluster of its own: PostgreSQL's programs
async def test_a_stopped_postgresql_is_one_line(tmp_path: Path) -> None:
    async with own_postgres_cluster() as cluster:
        env = {
            "LABBOT_DATABASE_URL": cluster.url,
            "LABBOT_AUDIT_KEY": SHARED_AUDIT_KEY,
            "LABBOT_STORAGE_KEY": new_key(),
        }
        status, out, _ = await labbot("check", cwd=tmp_path, env=env)
        assert "✗ database: PostgreSQL" not in out
        assert "labbot needs" in out and "run `labbot db upgrade`" in out  # a new database
        assert (await labbot("db", "upgrade", cwd=tmp_path, env=env))[0] == 0
        status, out, _ = await labbot("check", cwd=tmp_path, env=env)
        assert any(line.startswith("✓ database: ") for line in marked(out, "✓")), out
        assert "✓ audit head: no audit rows yet" in out
        assert "✓ storage key: keys from LABBOT_STORAGE_KEY" in out
        await cluster.stop()
        status, out, _ = await labbot("check", cwd=tmp_path, env=env)
    assert status == 1
    database = [line for line in out.splitlines() if line.startswith(("✓ database", "✗ database"))]
    port = cluster.env["PGPORT"]
    assert database == [
        f"✗ database: cannot reach PostgreSQL at 127.0.0.1:{port}: connection refused — is the "
        "server running? — start the database or fix LABBOT_DATABASE_URL"
    ], out


async def test_the_llm_is_asked_as_llm_check_asks_it(tmp_path: Path) -> None:
    with OpenAIStandIn(profile=servers.LLAMA_CPP) as server:
        server.script(structured({"device": "R1", "command": "show version"}))
        server.script(error(401, "Incorrect API key"))
        env = {"OPENAI_API_KEY": "sk-lab", "OPENAI_BASE_URL": server.base_url}
        answered = await labbot("check", cwd=tmp_path, env=env)
        refused = await labbot("check", cwd=tmp_path, env=env)
    llm = [line for line in answered[1].splitlines() if " llm: " in line]
    assert len(llm) == 1 and llm[0].startswith("✓ llm: ") and server.base_url in llm[0], llm
    assert "json_schema" in llm[0]
    llm = [line for line in refused[1].splitlines() if " llm: " in line]
    assert len(llm) == 1 and llm[0].startswith("✗ llm: "), llm
    assert "OPENAI_API_KEY" in llm[0] and llm[0].endswith("— see `labbot llm check`")


async def test_a_device_that_logs_in_but_never_takes_the_session_set_up_is_said_so(
    tmp_path: Path,
) -> None:
    """R2 shows its prompt after the login, then never answers netmiko's `terminal …` set-up:
    the doctor says the login worked and names the step and its last words, not 'no answer'."""
    async with Lab.start(demo_topology(3), faults={"R2": "mute_setup"}) as running:
        running.write_inventory(tmp_path / "hosts.yaml", transport="telnet")
        env = {
            "LABBOT_INVENTORY": "hosts.yaml",
            "LABBOT_DEVICE_SECRET": "enable",
            "LABBOT_DEVICE_TIMEOUT": "3",
        }
        status, out, _ = await labbot("check", cwd=tmp_path, env=env)
    assert status == 1
    [line] = [line for line in marked(out, "✗") if line.startswith("✗ device R2")]
    assert "set-up" in line and "`terminal" in line, line
    assert "is the device running" not in line
    assert "the login worked" in line, line
