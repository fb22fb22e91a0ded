"""The Docker engine side of the container tests: the images (base images made from Debian
packages, labbot's built once per run) and compose projects of the shipped
deploy/docker-compose.yml with the local images, replicas published on 127.0.0.1, and of
deploy/compose.socket-mode.yml (nothing published).

Containers reach what runs on the host (the simulated lab, the Slack stand-in) at the default
bridge's gateway address, which the host owns.
"""

from __future__ import annotations

import copy
import functools
import ipaddress
import itertools
import json
import os
import re
import subprocess
import time
import urllib.request
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from tests.support.clock import container_clock, machine_clock_env

ROOT = Path(__file__).resolve().parents[2]
SHIPPED_COMPOSE = ROOT / "deploy" / "docker-compose.yml"
SOCKET_MODE_COMPOSE = ROOT / "deploy" / "compose.socket-mode.yml"
EXPORT = re.compile(r"^export (\w+)=(\S+)$", re.MULTILINE)
# What this run names its image, compose projects and containers (several runs share an engine).
PREFIX = os.environ.get("LABBOT_TEST_DOCKER_PREFIX", "labbot-test")
# Compose v2 (`docker compose`) where the engine's client has it, else v1 (Debian bookworm's
# `docker-compose` 1.29); LABBOT_TEST_COMPOSE names one ("docker compose" or "docker-compose").
COMPOSE_COMMANDS = (["docker", "compose"], ["docker-compose"])
_projects = itertools.count(1)


def on_machine_clock(
    argv: list[str], *, timeout: float, cwd: Path | None = None
) -> subprocess.CompletedProcess[str]:
    """Run a client of the engine (docker, compose, .ci/docker-images.sh) on the machine's clock:
    under libfaketime docker-compose's `logs` never returns."""
    return subprocess.run(
        argv, cwd=cwd, env=machine_clock_env(), capture_output=True, text=True,
        timeout=timeout, check=False,
    )  # fmt: skip


def docker(
    *args: str, timeout: float = 600, check: bool = True
) -> subprocess.CompletedProcess[str]:
    done = on_machine_clock(["docker", *args], timeout=timeout)
    if check and done.returncode != 0:
        raise AssertionError(f"docker {' '.join(args)} failed:\n{done.stdout}{done.stderr}")
    return done


def engine_problem() -> str | None:
    """Why the container tests cannot run here (one line), or None."""
    try:
        answered = docker("version", "--format", "{{.Server.Version}}", timeout=30, check=False)
    except FileNotFoundError:
        return "no docker client (apt-get install docker.io)"
    if answered.returncode != 0:
        return "no Docker engine answers (.ci/docker.sh starts one as root)"
    return None if compose_command() else "no docker compose (apt-get install docker-compose)"


@functools.cache
def compose_command() -> list[str] | None:
    """The compose client this run uses (see COMPOSE_COMMANDS), or None when there is none."""
    chosen = os.environ.get("LABBOT_TEST_COMPOSE")
    for command in [chosen.split()] if chosen else COMPOSE_COMMANDS:
        try:
            found = on_machine_clock([*command, "version"], timeout=60)
        except FileNotFoundError:
            continue
        if found.returncode == 0:
            return command
    return None


@dataclass(frozen=True)
class Images:
    labbot: str  # the image id built from deploy/Dockerfile on the Debian base
    postgres: str
    base: str


def build_images() -> Images:
    """The Debian base images (cached by .ci/docker-images.sh), then labbot's image (docker's
    layer cache makes a rebuild without changes take seconds)."""
    made = on_machine_clock([str(ROOT / ".ci" / "docker-images.sh")], timeout=1200)
    assert made.returncode == 0, made.stderr
    exports = dict(EXPORT.findall(made.stdout))
    base = exports["LABBOT_BASE_IMAGE"]
    built = docker(
        "build", "--quiet", "--file", str(ROOT / "deploy" / "Dockerfile"),
        "--build-arg", f"BASE_IMAGE={base}", "--tag", f"{PREFIX}-labbot", str(ROOT),
        timeout=1200,
    )  # fmt: skip
    return Images(built.stdout.strip().splitlines()[-1], exports["LABBOT_POSTGRES_IMAGE"], base)


def bridge_gateway() -> str:
    """The host's address on Docker's default bridge (what containers use to reach the host)."""
    found = docker("network", "inspect", "bridge", "--format", "{{json .IPAM.Config}}")
    config = json.loads(found.stdout)[0]
    return str(config.get("Gateway") or ipaddress.ip_network(config["Subnet"])[1])  # the default


def compose_spec(images: Images, *, initdb: Path | None = None) -> dict[str, Any]:
    """The shipped compose file with what this machine needs instead: the local images, every
    replica published on 127.0.0.1 (a free port each), and, for an upgrade, a release's database
    dump loaded into the new PostgreSQL. The lab's inventory goes where the shipped file mounts
    it from: config/hosts.yaml beside the compose file. labbot's containers run on the test's
    clock (a run under faketime fakes them too); PostgreSQL keeps the machine's."""
    spec = copy.deepcopy(yaml.safe_load(SHIPPED_COMPOSE.read_text()))
    services = spec["services"]
    services.pop("synapse")  # --profile matrix only, and a registry image
    spec["volumes"].pop("synapse")
    services["postgres"]["image"] = images.postgres
    volumes, clock = container_clock()
    for name in ("migrate", "labbot"):
        services[name]["image"] = images.labbot
        services[name].pop("build", None)
        services[name]["environment"].update(clock)
        services[name]["volumes"] = services[name].get("volumes", []) + volumes
    bot = services["labbot"]
    bot["ports"] = ["127.0.0.1::3000"]
    if initdb is not None:
        release = f"{initdb}:/docker-entrypoint-initdb.d/release.sql:ro"
        services["postgres"]["volumes"].append(release)
    return spec


def socket_mode_spec(images: Images) -> dict[str, Any]:
    """The shipped Socket Mode compose file with the local image, on the test's clock; its
    health check as shipped, asked every second instead of every 30 s (a test waits for it)."""
    spec: dict[str, Any] = copy.deepcopy(yaml.safe_load(SOCKET_MODE_COMPOSE.read_text()))
    bot = spec["services"]["labbot"]
    volumes, clock = container_clock()
    bot["image"] = images.labbot
    bot.pop("build", None)
    bot["environment"].update(clock)
    bot["volumes"] = bot["volumes"] + volumes
    bot["healthcheck"].update(interval="1s", start_period="0s")
    return spec


def health_status(container: str) -> str:
    """What the engine's health check says of `container`: starting, healthy or unhealthy."""
    state = docker("inspect", "--format", "{{.State.Health.Status}}", container)
    return state.stdout.strip()


@dataclass
class Compose:
    """One compose project in its own directory (the compose file and its .env)."""

    directory: Path
    name: str = field(default_factory=lambda: f"{PREFIX}-{os.getpid()}-{next(_projects)}")

    @classmethod
    def write(cls, directory: Path, spec: dict[str, Any], env: dict[str, str]) -> Compose:
        (directory / "docker-compose.yml").write_text(yaml.safe_dump(spec, sort_keys=False))
        (directory / ".env").write_text("".join(f"{k}={v}\n" for k, v in env.items()))
        return cls(directory)

    def run(self, *args: str, timeout: float = 300, check: bool = True) -> str:
        command = compose_command()
        assert command, "no docker compose"
        argv = [*command, "--project-name", self.name, *args]
        done = on_machine_clock(argv, cwd=self.directory, timeout=timeout)
        if check and done.returncode != 0:
            raise AssertionError(f"{' '.join(argv)} failed:\n{done.stdout}{done.stderr}")
        return done.stdout

    def up(self, replicas: int) -> list[str]:
        """Start everything (PostgreSQL, the migration job, then the replicas); base URLs."""
        self.run("up", "--detach", "--no-build", "--scale", f"labbot={replicas}")
        return [self.url(index) for index in range(1, replicas + 1)]

    def url(self, index: int) -> str:
        published = self.run("port", "--index", str(index), "labbot", "3000").strip()
        return "http://" + published.replace("0.0.0.0", "127.0.0.1")

    def exec(self, *command: str, index: int = 1, check: bool = True) -> str:
        return self.run("exec", "-T", "--index", str(index), "labbot", *command, check=check)

    def replicas(self) -> list[str]:
        """The labbot containers' ids in `--index` order."""
        ids = self.run("ps", "--quiet", "labbot").split()
        label = '{{index .Config.Labels "com.docker.compose.container-number"}}'
        number = {i: int(docker("inspect", "--format", label, i).stdout) for i in ids}
        return sorted(ids, key=number.__getitem__)

    def logs(self) -> str:
        return self.run("logs", "--no-color", "--timestamps", check=False)

    def down(self) -> None:
        self.run("down", "--volumes", "--remove-orphans", "--timeout", "5", check=False)


def wait_healthy(base_url: str, within: float = 60) -> float:
    """Seconds until `GET /healthz` answers 200 (the replica reaches its database)."""
    started = time.monotonic()
    while time.monotonic() - started < within:
        try:
            with urllib.request.urlopen(base_url + "/healthz", timeout=2) as answer:
                if answer.status == 200:
                    return time.monotonic() - started
        except OSError:
            pass
        time.sleep(0.1)
    raise AssertionError(f"{base_url}/healthz did not answer 200 within {within} s")
