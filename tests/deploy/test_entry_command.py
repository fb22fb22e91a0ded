"""The image's entry command, dry-run the way the Dockerfile builds it: the project built into a
wheel (`pip wheel .`), installed into a plain virtualenv, run from outside the source tree.

The dependencies come from the test virtualenv through a path file (so nothing is downloaded
but the build backend, which pip caches), never labbot itself: the code that runs is the
wheel's, with only the files the wheel carries (templates, migrations, topologies)."""

from __future__ import annotations

import asyncio
import os
import subprocess
import sys
import sysconfig
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from tests.deploy.test_files import docker_cmd
from tests.fakes.slack_api import BOT_TOKEN, SIGNING_SECRET, SlackApiStandIn
from tests.scale.harness import scrape, start_replica, stop
from tests.support.clock import clock_env
from tests.support.postgres import fresh_postgres_database

ROOT = Path(__file__).resolve().parents[2]
# one worker runs the module (under xdist), so the venv is built once
pytestmark = pytest.mark.xdist_group("entry_command")


@pytest.fixture(scope="module")
def venv(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A virtualenv with the labbot wheel installed, and the test venv's dependencies."""
    where = tmp_path_factory.mktemp("image")
    pip = [sys.executable, "-m", "pip"]
    subprocess.run(
        [*pip, "wheel", "--no-deps", "--quiet", "--wheel-dir", str(where / "wheels"), str(ROOT)],
        check=True,
        capture_output=True,
    )
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(where / "venv")], check=True)
    python = where / "venv" / "bin" / "python"
    (wheel,) = (where / "wheels").glob("labbot-*.whl")
    subprocess.run(
        [*pip, "--python", str(python), "install", "--no-deps", "--quiet", str(wheel)],
        check=True,
        capture_output=True,
    )
    site = subprocess.run(
        [python, "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
        check=True,
        capture_output=True,
        text=True,
    ).stdout.strip()
    # a plain path line: the test venv's own .pth files (its editable labbot) are not read
    (Path(site) / "dependencies.pth").write_text(sysconfig.get_paths()["purelib"] + "\n")
    return where / "venv"


def labbot(venv: Path, *args: str, cwd: Path, **env: str) -> subprocess.CompletedProcess[str]:
    clean = {"PATH": os.environ["PATH"], "HOME": str(cwd)} | clock_env() | env
    return subprocess.run(
        [str(venv / "bin" / "labbot"), *args],
        cwd=cwd,
        env=clean,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )


def test_the_installed_code_is_the_wheels(venv: Path, tmp_path: Path) -> None:
    where = subprocess.run(
        [str(venv / "bin" / "python"), "-c", "import bot, storage; print(bot.__file__)"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    assert where.startswith(str(venv)), where


def test_help_of_the_entry_point_and_of_serve(venv: Path, tmp_path: Path) -> None:
    top = labbot(venv, "--help", cwd=tmp_path)
    serve = labbot(venv, "serve", "--help", cwd=tmp_path)
    assert top.returncode == 0 and serve.returncode == 0, top.stderr + serve.stderr
    for command in ("serve", "db", "audit", "demo", "templates", "rollback"):
        assert command in top.stdout
    for option in docker_cmd()[1:]:
        if option.startswith("--"):
            assert option in serve.stdout


def test_image_command_without_configuration_is_one_clear_line(venv: Path, tmp_path: Path) -> None:
    run = labbot(venv, *docker_cmd(), cwd=tmp_path)
    assert run.returncode == 2
    assert run.stderr.strip().startswith("labbot: no chat platform configured")
    assert len(run.stderr.strip().splitlines()) == 1


def test_templates_and_migrations_ship_in_the_wheel(
    venv: Path, tmp_path: Path, postgres_url: str
) -> None:
    templates = labbot(venv, "templates", cwd=tmp_path)
    assert templates.returncode == 0 and "ospf" in templates.stdout

    async def upgrade() -> subprocess.CompletedProcess[str]:
        async with fresh_postgres_database(postgres_url) as url:
            return await asyncio.to_thread(
                labbot, venv, "db", "upgrade", cwd=tmp_path, LABBOT_DATABASE_URL=url
            )

    migrated = asyncio.run(upgrade())
    assert migrated.returncode == 0 and "database at revision" in migrated.stdout, migrated.stderr


@pytest.fixture
async def slack_api() -> AsyncIterator[SlackApiStandIn]:
    async with SlackApiStandIn() as api:
        yield api


async def test_image_command_serves_health_and_metrics(
    venv: Path, tmp_path: Path, slack_api: SlackApiStandIn
) -> None:
    (tmp_path / "hosts.yaml").write_text("R1: {hostname: 127.0.0.1, platform: cisco_ios}\n")
    args = docker_cmd()
    args[args.index("--host") + 1] = "127.0.0.1"  # tests bind loopback only
    args[args.index("--port") + 1] = "0"
    env = {
        "PATH": os.environ["PATH"],
        "SLACK_BOT_TOKEN": BOT_TOKEN,
        "SLACK_SIGNING_SECRET": SIGNING_SECRET,
        "SLACK_API_URL": slack_api.base_url,
        "LABBOT_INVENTORY": str(tmp_path / "hosts.yaml"),
    } | clock_env()
    replica = await start_replica(env, tmp_path, *args, program=venv / "bin" / "labbot")
    try:
        await replica.wait_listening()
        health = await scrape(replica.base_url, "/healthz")
        status, metrics = await scrape(replica.base_url, "/metrics")
    finally:
        await stop(replica)
    assert health == (200, "ok")
    assert status == 200 and "labbot_requests_total" in metrics
    assert (tmp_path / "labbot-data" / "labbot.db").exists()  # the embedded default, upgraded
